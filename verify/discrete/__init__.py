"""Sparse Vector variants with noise on the integers: exact output probabilities, ties included.

With discrete Laplace or discrete Gaussian noise a tie ``q_i + X_i = t + Z``
has positive probability, so the comparison (``>=`` or ``>``) is part of the
mechanism.  Modules here:

* `probability`: the front door; `sampler`: a seeded simulation;
* `bound`, `search`, `verdict`: proven bound, exhaustive and structured integer search,
  verdict; `delta`: exact δ(ε') of one pair; `table`: the discrete rows of the family table;
* `ties`: ``>=`` vs ``>`` (no variant's privacy depends on it);
* `presets`: named discrete variants with their sources.

The integer rules (which variants are discrete, and the rules they obey) are
`verify.integer_rules`, which the model validates; the sums over ℤ are in the engine room:
`verify.engine.discrete_plan` (an outcome as segments of tail factors in the threshold value z),
`discrete_closed_form` (discrete Laplace, a finite sum of geometric series: sympy exact, mpmath
to any digits, arb rigorous), `discrete_direct` (the same sum term by term with a proven tail:
discrete Gaussian's main path, the 50-digit oracle of the closed form), `discrete_fast` (float64
with an error estimate) and `discrete_halting` (all k+1 AboveThreshold outcomes, vectorised).
"""
