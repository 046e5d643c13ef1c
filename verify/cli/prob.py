"""``svt-verify prob``: the exact probability of one output."""

from __future__ import annotations

import argparse
import math

import mpmath

from verify.cli import adaptive, adaptive_commands, flags, limits, selection, selection_commands
from verify.cli.common import EXIT_CODES_NO_FINDING, add_mechanism_flags, emit_json, mp_str, output_json
from verify.cli.progress import stages
from verify.cli.variant import (
    add_output_flags,
    add_variant_flags,
    family_requested,
    outcome_from_args,
    released_from_args,
    seed_output,
    variant_from_args,
)
from verify.engine.integrand import Kind
from verify.mechanism import NO_HALT, output_column, output_label
from verify.precision import MAX_DIGITS, MIN_DIGITS
from verify.serialize import FLOAT64_DIGITS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prob", help="exact probability of one output s_i = ⊤^{i-1}⊥ or ⊤^k",
                       description="Exact probability Pr[A(q) = output] of AboveThreshold, or of a member of the SVT family "
                                   "(--variant and the flags that override it), for a query vector q.",
                       epilog=EXIT_CODES_NO_FINDING)
    add_mechanism_flags(p)
    p.add_argument("--queries", type=flags.vector(), required=True, metavar="Q1,Q2,...",
                   help="query values q_1..q_k (decimals or fractions; k at most "
                        + ", ".join(f"{k} for {m}" for m, k in limits.PROB_MAX_QUERIES.items()) + ")")
    p.add_argument("--method", choices=["symbolic", "mpmath", "fast"], default="mpmath", help="evaluation path (default mpmath)")
    p.add_argument("--digits", type=flags.integer(MIN_DIGITS, MAX_DIGITS), default="30",
                   help=f"significant digits of the result ({MIN_DIGITS}..{MAX_DIGITS}, default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_variant_flags(p)
    add_output_flags(p)
    selection.extend_variant_choices(p)  # Report Noisy Max presets (verify/cli/selection_commands.py)
    adaptive.extend_variant_choices(p)  # Adaptive SVT presets (verify/cli/adaptive_commands.py)
    adaptive.extend_outcome_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if adaptive.is_adaptive(args):
        return adaptive_commands.run_prob(args)
    adaptive.refuse_adaptive_outcome(args)
    if selection.is_selection(args):
        return selection_commands.run_prob(args)
    variant = variant_from_args(args)
    if family_requested(args, variant):
        return run_family(args, variant)
    mech = variant
    q = args.queries
    k = len(q)
    limits.check_queries(k, limits.PROB_MAX_QUERIES[args.method], f"--method {args.method}")
    out = seed_output(args, k)
    digits = args.digits
    col = output_column(out, k)
    with stages(f"prob ({args.method}, k = {k})", 1) as bar:
        value, expression, digits = _evaluate(mech, q, col, args.method, digits)
        bar.update(1)
    return _report(args, mech, q, out, value, expression, digits)


def _evaluate(mech, q, col: int, method: str, digits: int):
    """Pr of column ``col`` by ``method``; returns (value, exact expression or None, digits shown)."""
    k = len(q)
    expression = None
    if method == "symbolic":
        import sympy  # lazy: start-up time (sympy takes about 0.5 s of CPU to import; only --method symbolic uses it)

        from verify.probabilities import symbolic_distribution  # lazy: start-up time

        expr = symbolic_distribution(mech, q)[col]
        expression = str(sympy.simplify(expr)) if k <= 2 else str(expr)
        with mpmath.workdps(digits + 10):
            value = mpmath.mpf(sympy.N(expr, digits + 10)) if expr != 0 else mpmath.mpf(0)
    elif method == "fast":
        import numpy as np

        from verify.doors.exact import exact_distribution
        from verify.doors.fast import fast_log_distribution

        # the float64 door: the seed's closed-form fast path up to 24 queries, the Gauss–Legendre
        # halting path (no cancellation, about 0.1 s at k = 1000) above, escalating rows over 1e-12
        res = fast_log_distribution(mech, np.array([[float(x) for x in q]]))
        logp, refined = res.log_values, res.refined
        digits = min(digits, FLOAT64_DIGITS)  # a float64 is known to 17 significant digits at most
        if refined:  # recomputed by mpmath: at the exact queries, not their float64 roundings (1e23 is not a float)
            exact = list(exact_distribution(mech, q, 20).values())[col]
            logp[0, col] = float(mpmath.log(exact)) if exact > 0 else -np.inf
        with mpmath.workdps(FLOAT64_DIGITS + 10):
            value = mpmath.exp(mpmath.mpf(float(logp[0, col])))
    else:
        from verify.doors.exact import exact_distribution

        value = list(exact_distribution(mech, q, digits).values())[col]  # the exact door: the closed form
    return value, expression, digits


def _report(args, mech, q, out, value, expression, digits) -> int:
    outcome = "B" * len(q) if out == NO_HALT else "B" * (out - 1) + "A"
    return _print_result(args, mech, q, outcome, (), Kind.PROBABILITY, args.method, digits, value, expression)


def seed_alias(mech, outcome: str) -> int | str | None:
    """The seed's name of ``outcome`` (JSON: i for s_i = B^{i-1}A, "none" for ⊤^k = B^k) where the run halts at its
    first A (cutoff 1, no release), else None: an alias beside the primary spelling, the outcome string."""
    if mech.cutoff != 1 or mech.releases_values:
        return None
    if "A" not in outcome:
        return output_json(NO_HALT)
    return output_json(len(outcome)) if outcome == "B" * (len(outcome) - 1) + "A" else None


def _print_result(args, mech, q, outcome: str, released, kind, detail: str, digits: int, value, expression) -> int:
    """The one report of ``prob`` (text and JSON) for every variant: the outcome string is the primary spelling,
    the seed's s_i / ⊤^k only an alias (``output`` in JSON)."""
    with mpmath.workdps(digits + 10):
        log_str = mp_str(mpmath.log(value), digits) if value > 0 else "-inf"
    alias = seed_alias(mech, outcome)
    result = {
        "mechanism": mech.to_json(),
        "variant": mech.describe(),
        "queries": [str(x) for x in q],
        "outcomes": outcome,
        "output": alias,
        "released": [str(v) for v in released],
        "kind": kind.value,
        "method": detail,
        "digits": digits,
        kind.value: mp_str(value, digits),
        f"log_{kind.value}": log_str,
    }
    if expression is not None:
        result["expression"] = expression
    if args.json:
        emit_json(result)
        return 0
    print(mech.describe())
    rel = f"; released {', '.join(result['released'])}" if released else ""
    also = "" if alias is None else f" ({output_label(NO_HALT if alias == output_json(NO_HALT) else alias)})"
    print(f"queries {', '.join(result['queries'])}; outcome {outcome}{also}{rel}; method {detail}")
    name = "Pr" if kind is Kind.PROBABILITY else "density"
    print(f"{name} = {result[kind.value]}")
    print(f"log {name} = {log_str}")
    if expression is not None:
        print(f"exact: {expression}")
    return 0


def supported_digits(relative_error: float) -> int:
    """Significant digits a value with this relative error estimate supports: floor(-log10(error)), 1 to 17."""
    if not relative_error > 0:
        return FLOAT64_DIGITS
    return max(1, min(FLOAT64_DIGITS, math.floor(-math.log10(relative_error))))


def run_family(args: argparse.Namespace, mech) -> int:
    """``prob`` for a member of the SVT family: one outcome string (and released values)."""
    import numpy as np

    from verify.doors.exact import closed_form_applies, exact_evaluation

    q = args.queries
    k = len(q)
    limits.check_queries(k, limits.PROB_MAX_QUERIES[args.method], f"--method {args.method}")
    outcome = outcome_from_args(args, mech, k)
    released = mech.check_released(outcome, released_from_args(args))
    kind = Kind.DENSITY if released else Kind.PROBABILITY
    digits = args.digits
    expression = None
    detail = args.method
    with stages(f"prob ({args.method}, k = {k})", 1) as bar:
        if args.method == "symbolic":
            import sympy  # lazy: start-up time (as in _evaluate)

            from verify.family.probability import symbolic_probability  # lazy: start-up time (sympy)

            expr = symbolic_probability(mech, q, outcome, released)
            expression = str(expr)
            with mpmath.workdps(digits + 10):
                value = mpmath.mpf(sympy.N(expr, digits + 10)) if expr != 0 else mpmath.mpf(0)
        elif args.method == "fast":
            from verify.doors.fast import fast_log_probability  # lazy: start-up time (the float64 door's kernels)
            from verify.engine.discrete_fast import fast_log_probability as discrete_fast  # lazy: start-up (scipy)

            if not mech.is_discrete and not closed_form_applies(mech):
                limits.check_queries(k, limits.PROB_FAST_GAUSSIAN_MAX_QUERIES, "--method fast with Gaussian noise")
            res = fast_log_probability(mech, np.array([[float(x) for x in q]]), outcome,
                                       [float(v) for v in released] if released else None)
            logv, refined = res.log_values, res.refined
            digits = min(digits, FLOAT64_DIGITS)
            with mpmath.workdps(FLOAT64_DIGITS + 10):
                value = mpmath.exp(mpmath.mpf(float(logv[0])))
            if refined:  # recomputed by mpmath: at the exact queries, not their float64 roundings
                value = exact_evaluation(mech, q, outcome, released, 20).value
            elif mech.is_discrete:  # print only the digits its error estimate supports (about 14 in far tails)
                digits = min(digits, supported_digits(discrete_fast(mech, q, outcome).error_estimate))
        else:
            if not mech.is_discrete and not closed_form_applies(mech):
                limits.check_quadrature(len(outcome), digits, "prob")
            ev = exact_evaluation(mech, q, outcome, released, digits)
            value, detail = ev.value, f"mpmath ({ev.method})"
        bar.update(1)
    return _print_result(args, mech, q, outcome, released, kind, detail, digits, value, expression)
