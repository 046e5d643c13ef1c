"""The privacy ratio Pr[A(D) = s] / Pr[A(D') = s] (seed, "Privacy Guarantee").

For neighbouring query vectors (|q_j(D) - q_j(D')| <= Δ for every j) and each
output s (s_1..s_k and ⊤^k), the ratio, its natural logarithm and whether it
lies in [e^{-ε}, e^{ε}].  A zero probability is an exact zero (decided from
the closed form's structure, never from underflow), so a ratio may be exactly
0 or infinite, and 0/0 (an output impossible on both sides) is reported as
ratio 1, log ratio 0: it cannot distinguish D from D'.

Each probability is correct to the digits asked for, so a log ratio within
10^{3-digits}·max(1, ε) of ±ε cannot be told apart from the bound by
numbers alone: it is flagged ``at_bound`` and counted as within the bounds
(equality is allowed by the theorem); deciding equality exactly is the
symbolic path's job (`verify.probabilities.symbolic_distribution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.logratio import log_ratio, log_ratio_from_logs  # noqa: F401  (the one rule, re-exported)
from verify.mechanism import AboveThreshold, Output, all_outputs, as_variant, output_column, parse_queries
from verify.notebook import ratio_markdown
from verify.precision import MPMATH_LOCK
from verify.probabilities import DEFAULT_DIGITS, check_digits, fast_log_distribution, mp_distribution, mp_probability
from verify.serialize import frac_str, mechanism_json, mp_str, output_json


@dataclass(frozen=True)
class OutputRatio:
    """One output's two probabilities and their ratio (mpf at the digits asked)."""

    output: Output
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    ratio: mpmath.mpf  # may be mpmath.inf
    log_ratio: mpmath.mpf  # may be ±inf
    within_bounds: bool
    at_bound: bool = False  # | |log ratio| - ε | below the evaluation's resolution


@dataclass(frozen=True)
class RatioReport:
    mechanism: AboveThreshold
    queries: tuple
    neighbour_queries: tuple
    digits: int
    outputs: tuple[OutputRatio, ...]

    @property
    def max_abs_log_ratio(self) -> mpmath.mpf:
        return max(abs(o.log_ratio) for o in self.outputs)

    def _repr_markdown_(self) -> str:

        return ratio_markdown(self)

    def to_json(self) -> dict[str, Any]:
        """The report as ``svt-verify ratio --json`` prints it: exact queries (p/q), values at ``digits`` digits."""
        rows = [
            {
                "output": output_json(o.output),
                "probability": mp_str(o.probability, self.digits),
                "neighbour_probability": mp_str(o.neighbour_probability, self.digits),
                "ratio": mp_str(o.ratio, self.digits),
                "log_ratio": mp_str(o.log_ratio, self.digits),
                "within_bounds": o.within_bounds,
                "at_bound": o.at_bound,
            }
            for o in self.outputs
        ]
        return {
            "mechanism": mechanism_json(self.mechanism),
            "queries": [frac_str(x) for x in self.queries],
            "neighbour_queries": [frac_str(x) for x in self.neighbour_queries],
            "digits": self.digits,
            "epsilon": frac_str(self.mechanism.epsilon),
            "outputs": rows,
            "max_abs_log_ratio": mp_str(self.max_abs_log_ratio, self.digits),
            "all_within_bounds": all(r["within_bounds"] for r in rows),
        }



def privacy_ratio(
    mech: AboveThreshold,
    queries: Sequence[object],
    neighbour_queries: Sequence[object],
    outputs: Sequence[Output] | None = None,
    digits: int = DEFAULT_DIGITS,
) -> RatioReport:
    """The ratio for each output, by the mpmath path at ``digits`` digits (one output alone: its own closed form,
    `mp_probability`, each probability correct to ``digits`` digits as in the whole distribution).

    >>> m = AboveThreshold.mechanism_one(1)
    >>> r = privacy_ratio(m, [0], [1], outputs=[1])
    >>> r.outputs[0].within_bounds
    True
    """
    check_digits(digits)
    mech = as_variant(mech)
    q = parse_queries(queries)
    qn = parse_queries(neighbour_queries, "neighbour queries")
    mech.check_neighbours(q, qn)
    k = len(q)
    chosen = all_outputs(k) if outputs is None else list(outputs)
    cols = [output_column(o, k) for o in chosen]
    with MPMATH_LOCK:
        return _ratio_report(mech, q, qn, chosen, cols, digits)


def _ratio_report(mech, q, qn, chosen, cols, digits) -> RatioReport:
    if len(set(cols)) == 1 and not mech.releases_values:
        # one output: its own closed form (`mp_probability`), not the whole distribution's (k + 1 outputs; a
        # distribution of a value-releasing variant is refused by `mp_distribution`, as before)
        c = cols[0]
        p, pn = {c: mp_probability(mech, q, chosen[0], digits)}, {c: mp_probability(mech, qn, chosen[0], digits)}
    else:
        p = mp_distribution(mech, q, digits)
        pn = mp_distribution(mech, qn, digits)
    rows = []
    with mpmath.workdps(digits + 10):
        for o, c in zip(chosen, cols):
            lr = log_ratio(p[c], pn[c])
            within, at_bound = bound_status(lr, mech.epsilon, digits)
            rows.append(OutputRatio(o, p[c], pn[c], ratio_of(lr), lr, within, at_bound))
    return RatioReport(mech, q, qn, digits, tuple(rows))


def ratio_of(lr: mpmath.mpf) -> mpmath.mpf:
    """The ratio e^{log ratio}, exactly 0 or inf where the log ratio is -inf or +inf."""
    return mpmath.exp(lr) if mpmath.isfinite(lr) else (mpmath.inf if lr > 0 else mpmath.mpf(0))


def bound_status(lr: mpmath.mpf, epsilon: object, digits: int) -> tuple[bool, bool]:
    """(within, at_bound) of a log ratio computed from probabilities correct to ``digits`` digits
    (module docstring): at_bound when ||log ratio| - ε| <= 10^{3-digits}·max(1, ε), and within
    when |log ratio| <= ε or at the bound.  Call inside a working precision of ``digits`` + 10."""
    e = Fraction(epsilon)
    eps = mpmath.mpf(e.numerator) / e.denominator
    gap = abs(lr) - eps if mpmath.isfinite(lr) else mpmath.inf
    at_bound = bool(abs(gap) <= mpmath.mpf(10) ** (3 - digits) * max(1, eps))
    return bool(gap <= 0 or at_bound), at_bound



def fast_log_ratios(mech: AboveThreshold, queries: np.ndarray, neighbour_queries: np.ndarray) -> np.ndarray:
    """Vectorised log ratios (n, k+1) in float64 (-inf/+inf/0 conventions as above)."""
    a, _ = fast_log_distribution(mech, queries)
    b, _ = fast_log_distribution(mech, neighbour_queries)
    return log_ratio_from_logs(a, b)
