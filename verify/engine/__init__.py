"""The engine room: every way the project computes an outcome's probability, one package.

The description of an outcome (`integrand`), the exact closed form over the sympy, mpmath and
arb backends (`piecewise`, `backends`), quadrature (`quadrature`, `mass`), the float64 modes
(`fast_closed_form`, `fast_plan`, `fast_halting`, `fast_generic`, the numba kernels `nodes`,
`halting_kernel`, `piece_kernel`, and `row_plan`) and the sums over ℤ (`discrete_plan`,
`discrete_closed_form`, `discrete_direct`, `discrete_fast`, `discrete_halting`).  The engine
imports the mechanism layer and below, never a front door, a search or a verdict
(tests/test_architecture_layers.py); the front doors are `verify.probabilities`,
`verify.family.probability`, `verify.family.fast_api` and `verify.discrete.probability`.
"""
