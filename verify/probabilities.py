"""Exact output probabilities of AboveThreshold by three paths that agree.

For a query vector q of length k the outputs are s_i = ⊤^{i-1}⊥ (i = 1..k)
and ⊤^k.  Given the threshold noise Z = z the query noises are independent
(seed, Proof 1), so

    Pr[s_i] = ∫ p_Z(z) Π_{j<i} F_X(t + z - q_j) · (1 - F_X(t + z - q_i)) dz,

and every path evaluates this integral in closed form, segment by segment
between the kinks z = 0 and z = q_j - t, by the one closed form of every
variant (`verify.engine.piecewise`), which reads the one description of an outcome
(`verify.engine.integrand`):

1. ``symbolic``: an exact sympy expression (rational inputs; or ε and Δ as
   symbols with queries given as rational multiples of Δ).
2. ``mpmath``: arbitrary precision, correct to the digits asked for: the
   working precision is raised until the closed form's condition number (the
   digits its cancellation can cost) is covered with 8 guard digits.
3. ``fast``: numpy float64, vectorised over many query vectors, in log space;
   points whose estimated relative error exceeds the tolerance are
   re-evaluated by path 2.

The proofs' conditional probabilities Pr[A(D) = s_i | X_{<i} = x], functions
of m = M(D, x) - t and d = q_i(D) - t, are the same integral restricted to
z > m with the single factor 1 - F_X(z - d) (`conditional_probability`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import mpmath
import numpy as np

if TYPE_CHECKING:
    import sympy

from verify.doors import fast as fast_door
from verify.doors.exact import ClosedFormEngine, closed_form_values, exact_distribution
from verify.doors.fast import SEED_FAST_MAX_K, ClosedFormFast, closed_form_log_distribution  # noqa: F401 (re-exported)
from verify.engine import integrand as outcome
from verify.engine.backends import ArbBackend, SympyBackend
from verify.engine.piecewise import ClosedForm
from verify.errors import InputError
from verify.mechanism import AboveThreshold, Output, SparseVector, output_column, parse_queries  # noqa: F401  (AboveThreshold: doctests)
from verify.precision import FAST_TOLERANCE, MAX_DIGITS, MIN_DIGITS, MPMATH_LOCK, check_digits  # noqa: F401 (re-exported)
from verify.validate import float_rows, sequence, to_number

Method = Literal["symbolic", "mpmath", "fast"]
METHODS: tuple[str, ...] = ("symbolic", "mpmath", "fast")
DEFAULT_DIGITS = 30


def require_closed_form(mech: SparseVector) -> None:
    """Every path here is the seed's closed form for piecewise-exponential noise (Laplace, exponential,
    none) of the seed's halting mechanism: refuse any other family instead of returning wrong numbers
    (Gaussian noise has no closed form), and any other cutoff or release (their outputs are not s_i, ⊤^k)."""
    require_mechanism(mech)
    mech.require_halting("closed form")
    for name, noise in (("threshold", mech.threshold_noise), ("query", mech.query_noise)):
        if not noise.is_piecewise:
            raise InputError(f"noise: {noise.family} {name} noise has no closed form here (Laplace, exponential, none "
                             "only); use verify.family.probability")


def require_mechanism(mech: object) -> SparseVector:
    """The public functions' first argument: a mechanism (not None, a name or a query list)."""
    if not isinstance(mech, SparseVector):
        raise InputError(f"mech: {type(mech).__name__} {str(mech)[:40]!r} is not a mechanism "
                         "(build one with AboveThreshold.mechanism_one(epsilon) or AboveThreshold.with_noise)")
    return mech


def _outcomes(mech: SparseVector, queries: Sequence[object], outputs: Sequence[str] | None = None) -> list[outcome.Integrand]:
    """The one description (`verify.engine.integrand.build`) of each output: s_1..s_k and ⊤^k by default."""
    require_closed_form(mech)
    q = parse_queries(queries)
    return [outcome.build(mech, q, s) for s in (mech.outputs(len(q)) if outputs is None else outputs)]


def _pieces(outcomes: Sequence[outcome.Integrand]) -> list[outcome.Piece]:
    """The pieces of halting outcomes (one each: the threshold is shared, nothing is released)."""
    return [integ.pieces[0] for integ in outcomes]


# --- path 2: mpmath ---------------------------------------------------------------------------------
def mp_distribution(mech: SparseVector, queries: Sequence[object], digits: int = DEFAULT_DIGITS) -> list[mpmath.mpf]:
    """Pr of s_1..s_k and ⊤^k as mpf, each correct to ``digits`` significant digits.

    >>> m = AboveThreshold.mechanism_one(1)
    >>> [mpmath.nstr(p, 10) for p in mp_distribution(m, [0], digits=20)]
    ['0.5', '0.5']
    """
    check_digits(digits)
    require_closed_form(mech)
    return list(exact_distribution(mech, parse_queries(queries), digits, engine=ClosedFormEngine.name).values())


def mp_probability(mech: SparseVector, queries: Sequence[object], output: Output, digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """Pr[A(q) = output] (s_i as i, ⊤^k as 'none') alone, as an mpf correct to ``digits`` significant digits:
    the closed form of `mp_distribution` for that one output's integral (about 40 % of the work of the
    whole distribution at k = 3), clamped to 1 as there.

    >>> m = AboveThreshold.mechanism_one(1)
    >>> mpmath.nstr(mp_probability(m, [0, 1], 2, digits=20), 12)
    '0.209908378575'
    """
    check_digits(digits)
    require_closed_form(mech)
    q = parse_queries(queries)
    return closed_form_values(mech, q, [mech.outputs(len(q))[output_column(output, len(q))]], digits)[0]


def mp_conditional(mech: SparseVector, gap_max: object | None, gap_query: object, digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """Pr[A(D) = s_i | X_{<i} = x] with m = M(D,x) - t (None: i = 1, M = -∞) and d = q_i(D) - t."""
    check_digits(digits)
    d = _exact(gap_query, "q_i(D) - t")
    m = None if gap_max is None else _exact(gap_max, "M(D,x) - t")
    require_closed_form(mech)
    return closed_form_values(mech, [d + mech.threshold], ["A"], digits, m)[0]


def _exact(value: object, name: str) -> Fraction:

    return to_number(value, name)


def arb_distribution(mech: SparseVector, queries: Sequence[object], prec: int = 128) -> list[Any]:
    """Rigorous enclosures: python-flint ``arb`` balls, one per output, each
    containing the exact Pr of s_1..s_k and ⊤^k.

    The same closed form as the other paths, evaluated in ball arithmetic at
    ``prec`` bits (the working precision is set for this call only); a
    probability that is exactly zero is the exact ball 0.

    >>> balls = arb_distribution(AboveThreshold.mechanism_one(1), [0])
    >>> all(b.contains(0.5) for b in balls)
    True
    """
    import flint  # lazy: start-up time (only this path uses arb balls)

    if isinstance(prec, bool) or not isinstance(prec, int) or not 30 <= prec <= 10000:
        raise InputError(f"prec: {prec!r} must be an integer number of bits from 30 to 10000")
    pieces = _pieces(_outcomes(mech, queries))
    with MPMATH_LOCK:  # flint's precision is global to the process as well
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            return [flint.arb(0) if r.zero else r.value for r in ClosedForm.of(mech, ArbBackend()).integrals(pieces)]
        finally:
            flint.ctx.prec = old


# --- path 1: sympy --------------------------------------------------------------------------------------
#: The module's names of the positive sympy symbols ε and Δ (``symbolic_parameters``): `EPSILON`, `DELTA`.
SYMBOL_NAMES = ("EPSILON", "DELTA")


@functools.cache
def _symbols() -> tuple[sympy.Symbol, sympy.Symbol]:
    """ε and Δ, created (and sympy imported) on first use: the mpmath and float64 paths never load sympy."""
    import sympy  # lazy: start-up time (about 0.5 s of CPU; only the symbolic path uses it)

    epsilon, delta = sympy.symbols("epsilon Delta", positive=True)
    return epsilon, delta


def __getattr__(name: str) -> Any:
    """`EPSILON` and `DELTA` (PEP 562), the symbols of `_symbols`."""
    if name in SYMBOL_NAMES:
        return _symbols()[SYMBOL_NAMES.index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def symbolic_distribution(
    mech: SparseVector,
    queries: Sequence[object],
    symbolic_parameters: bool = False,
    cutoff: object | None = None,
) -> list[sympy.Expr]:
    """Exact sympy expressions for Pr of s_1..s_k and ⊤^k.

    With ``symbolic_parameters=True``, ε and Δ are the positive symbols
    `EPSILON` and `DELTA`, the query values and the threshold are read as
    multiples of Δ, and the scales must be multiples of Δ/ε (the mechanism's
    own ε and Δ are then unused).

    >>> import sympy
    >>> m = AboveThreshold.mechanism_one(1)
    >>> p = symbolic_distribution(m, [0, 1], symbolic_parameters=True)
    >>> sympy.simplify(p[0])
    1/2
    """
    import sympy  # lazy: start-up time (as in _symbols)

    pieces = _pieces(_outcomes(mech, queries))
    cut = None if cutoff is None else _exact(cutoff, "cutoff") - mech.threshold
    zn, xn = mech.threshold_spec, mech.query_spec
    if symbolic_parameters:
        for spec in (zn, xn):
            if not spec.is_none and spec.multiplier is None:
                raise InputError("symbolic ε and Δ: every noise scale must be a multiple of Δ/ε")
        ref = xn if not xn.is_none else zn
        lam = _symbols()[0] / _rat(ref.multiplier) if not ref.is_none else sympy.Integer(1)
        rho = (ref.multiplier / zn.multiplier) if not (zn.is_none or ref.is_none) else Fraction(1)
        form = ClosedForm(SympyBackend(), lam, rho, zn.family, xn.family)
    else:
        form = ClosedForm.of(mech, SympyBackend())
    return [sympy.Integer(0) if r.zero else r.value for r in form.integrals(pieces, cut)]


def _rat(x: Fraction) -> sympy.Rational:
    import sympy  # lazy: start-up time (as in _symbols)

    return sympy.Rational(x.numerator, x.denominator)


def symbolic_conditional(mech: SparseVector, gap_max: object | None, gap_query: object, symbolic_parameters: bool = False) -> sympy.Expr:
    """Exact sympy form of the proofs' conditional probability (see `mp_conditional`)."""
    t = mech.threshold
    cutoff = None if gap_max is None else _exact(gap_max, "M(D,x) - t") + t
    return symbolic_distribution(mech, [_exact(gap_query, "q_i(D) - t") + t], symbolic_parameters, cutoff)[0]


# --- path 3: numpy ---------------------------------------------------------------------------------------
def fast_log_distribution(
    mech: SparseVector,
    queries: np.ndarray,
    tolerance: float = FAST_TOLERANCE,
    cutoff: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """log Pr of s_1..s_k and ⊤^k for each row of ``queries`` (n, k), float64: the seed's view of the
    float64 door (`verify.doors.fast.fast_log_distribution`, its engine ``closed form float64``).

    Returns (array (n, k+1), number of rows re-evaluated by mpmath).  Rows whose
    float64 error estimate exceeds ``tolerance`` are re-evaluated in extended
    precision (np.longdouble, where it is wider than float64), and those still
    above it by the mpmath path.  With
    ``cutoff`` (n,), the conditional form z > cutoff - t is used (one query).
    """
    require_closed_form(mech)
    q = float_rows(queries)
    if cutoff is not None:
        return closed_form_log_distribution(mech, q, tolerance, cutoff)
    res = fast_door.fast_log_distribution(mech, q, tolerance, engine=ClosedFormFast.name)
    return res.log_values, res.refined


def fast_log_conditional(mech: SparseVector, gap_max: np.ndarray, gap_query: np.ndarray, tolerance: float = FAST_TOLERANCE) -> np.ndarray:
    """Vectorised log of the proofs' conditional probability (m = -inf for i = 1)."""
    t = float(mech.threshold)
    m = np.asarray(gap_max, dtype=float)
    d = np.asarray(gap_query, dtype=float)
    m, d = np.broadcast_arrays(m, d)
    logp, _ = fast_log_distribution(mech, (d + t).reshape(-1, 1), tolerance, cutoff=(m + t).reshape(-1))
    return logp[:, 0].reshape(d.shape)


# --- one front door -----------------------------------------------------------------------------------------
def distribution(mech: SparseVector, queries: Sequence[object], method: Method = "mpmath", digits: int = DEFAULT_DIGITS) -> list[Any]:
    """Pr of every output (s_1..s_k, ⊤^k) by the chosen path.

    ``symbolic`` returns sympy expressions, ``mpmath`` mpf values correct to
    ``digits``, ``fast`` Python floats.
    """
    if method == "symbolic":
        return symbolic_distribution(mech, queries)
    if method == "mpmath":
        return mp_distribution(mech, queries, digits)
    if method == "fast":
        q = np.array([[float(x) for x in parse_queries(queries)]])
        logp, _ = fast_log_distribution(mech, q)
        return [math.exp(v) for v in logp[0]]
    raise InputError(f"method: {method!r} is not one of {', '.join(METHODS)}")


def probability(mech: SparseVector, queries: Sequence[object], output: Output, method: Method = "mpmath", digits: int = DEFAULT_DIGITS) -> Any:
    """Pr[A(q) = output] by the chosen path (see `distribution`)."""
    queries = sequence(queries, "queries")
    k = len(queries)
    col = output_column(output, k)
    return distribution(mech, queries, method, digits)[col]
