"""``prob``, ``ratio``, ``delta`` and ``audit`` with ``--variant`` an Adaptive SVT preset (docs/adaptive.md).

Each command hands such a run here (`verify.cli.adaptive.is_adaptive`).  Every flag the command has is
applied or refused: the flags each runner applies are listed in the one refusal table
(`verify.cli.kinds.APPLIED`); any other flag given with a value other than its default is refused in one
line (`verify.cli.kinds.refuse_others`), naming the flag.

Outcome: ``--outcomes`` (or ``--output``) spelt as `verify.cli.adaptive.OUTCOME_SPELLING`, one answer per
query up to the halt, e.g. ``below,middle(1/2),top(20)``.  An outcome that releases a value (a middle or
top answer) has a density, one of below answers only a probability.

``delta`` and ``audit`` are not yet supported: refused in one line (`run_delta`, `run_audit`).
"""

from __future__ import annotations

import argparse
import math
from fractions import Fraction
from typing import Any

import mpmath

from verify.adaptive.model import AdaptiveSVT, Branch
from verify.cli import kinds
from verify.cli.adaptive import OUTCOME_SPELLING, AdaptiveOutcome, model
from verify.cli.common import VIOLATION, emit_json, exit_status, mp_str
from verify.errors import InputError
from verify.exact import confirmation_tolerance, exceeds, fmt


def _outcome(args: argparse.Namespace, n: int) -> AdaptiveOutcome:
    out, outs = getattr(args, "output", None), getattr(args, "outcomes", None)
    if out is not None and outs is not None:
        raise InputError("--output and --outcomes: give the outcome once")
    o = out if outs is None else outs
    if o is None or o == "all":
        raise InputError(f"--outcomes: give one Adaptive SVT outcome ({OUTCOME_SPELLING}); the outcomes are not a finite "
                         "set (middle and top answers release real values), so there is no 'all'")
    if not isinstance(o, AdaptiveOutcome):
        raise InputError(f"--outcomes: {o!r} is not an Adaptive SVT outcome ({OUTCOME_SPELLING})")
    if len(o.answers) > n:
        raise InputError(f"--outcomes: {len(o.answers)} answers for {n} queries (at most one answer per query)")
    return o


def _kind(o: AdaptiveOutcome) -> str:
    return "probability" if all(a.branch is Branch.BELOW for a in o.answers) else "density"


def _prepare(args: argparse.Namespace, command: str) -> tuple[AdaptiveSVT, tuple[Fraction, ...], AdaptiveOutcome]:
    kinds.refuse_others(args, kinds.ADAPTIVE, command)
    if command == "prob" and args.method == "symbolic":
        raise InputError(f"--method symbolic: {kinds.why(kinds.ADAPTIVE, 'method')}")
    mech = model(args)
    q = mech.check_queries(args.queries, "--queries")
    return mech, q, _outcome(args, len(q))


def _fast(mech: AdaptiveSVT, q, o: AdaptiveOutcome, digits: int) -> tuple[Any, int]:
    """The float64 value and the digits its error estimate supports (at most 15)."""
    from verify.adaptive.fast import fast_log_density  # lazy: start-up time (numpy)

    lv, err = fast_log_density(mech, q, o.answers)
    shown = 15 if not err > 0 else max(1, min(15, math.floor(-math.log10(err))))
    with mpmath.workdps(25):
        return (mpmath.exp(mpmath.mpf(lv)) if math.isfinite(lv) else mpmath.mpf(0)), min(digits, shown)


def run_prob(args: argparse.Namespace) -> int:
    """``prob --variant <Adaptive SVT preset> --outcomes ...``: the probability or density of one outcome."""
    from verify.adaptive.probability import outcome_density  # lazy: start-up time (the quadrature)

    mech, q, o = _prepare(args, "prob")
    if args.method == "fast":
        value, digits = _fast(mech, q, o, args.digits)
        detail = f"fast (float64 Gauss–Legendre; {digits} digits supported by its error estimate)"
    else:
        digits = args.digits
        value, detail = outcome_density(mech, q, o.answers, digits), "mpmath (tanh-sinh quadrature over the threshold noise)"
    kind = _kind(o)
    with mpmath.workdps(digits + 10):
        log_str = mp_str(mpmath.log(value), digits) if value > 0 else "-inf"
        val_str = mp_str(value, digits)
    result = {"mechanism": mech.to_json(), "variant": mech.describe(), "queries": [fmt(x) for x in q],
              "outcomes": o.describe(), "output": None, "answers": [a.to_json() for a in o.answers],
              "released": [fmt(a.value) for a in o.answers if a.value is not None], "kind": kind, "method": args.method,
              "digits": digits, kind: val_str, f"log_{kind}": log_str}
    if args.json:
        emit_json(result)
        return 0
    name = "Pr" if kind == "probability" else "density"
    print(mech.describe())
    print(f"queries {', '.join(result['queries'])}; outcome {o.describe()}; method {detail}")
    print(f"{name} = {val_str}")
    print(f"log {name} = {log_str}")
    return 0


def run_ratio(args: argparse.Namespace) -> int:
    """``ratio --variant <Adaptive SVT preset>``: the exact log ratio of one outcome; a violation when
    |log ratio| > ε + `verify.exact.confirmation_tolerance` (decided by `verify.exact.exceeds`)."""
    from verify.adaptive.probability import outcome_density  # lazy: start-up time (the quadrature)

    mech, q, o = _prepare(args, "ratio")
    qn = kinds.neighbour_queries(args, mech, q)
    digits = args.digits
    a, b = outcome_density(mech, q, o.answers, digits), outcome_density(mech, qn, o.answers, digits)
    tol = confirmation_tolerance(digits, mech.epsilon)
    with mpmath.workdps(digits + 10):
        if a == 0 and b == 0:
            lr = mpmath.mpf(0)
        elif a == 0 or b == 0:
            lr = mpmath.mpf("-inf") if a == 0 else mpmath.mpf("inf")
        else:
            lr = mpmath.log(a) - mpmath.log(b)
        violation = exceeds(abs(lr), mech.epsilon + tol)
        at_bound = bool(mpmath.isfinite(lr)) and not violation and exceeds(abs(lr), mech.epsilon - tol)
        ratio = mpmath.exp(lr) if mpmath.isfinite(lr) else lr
        row = {"outcome": [x.to_json() for x in o.answers], "describe": o.describe(), "kind": _kind(o),
               "value": mp_str(a, digits), "neighbour_value": mp_str(b, digits), "log_ratio": mp_str(lr, digits),
               "ratio": mp_str(ratio, digits), "within_bounds": not violation, "at_bound": at_bound}
    code = exit_status(args, [VIOLATION] if violation else [])
    if args.json:
        emit_json({"mechanism": mech.to_json(), "variant": mech.describe(), "queries": [fmt(x) for x in q],
                   "neighbour_queries": [fmt(x) for x in qn], "digits": digits, "epsilon": fmt(mech.epsilon),
                   "outputs": [row], "max_abs_log_ratio": mp_str(abs(lr), digits), "all_within_bounds": not violation})
        return code
    print(mech.describe())
    print(f"D  = ({', '.join(fmt(x) for x in q)})\nD' = ({', '.join(fmt(x) for x in qn)})")
    name = "Pr" if row["kind"] == "probability" else "density"
    print(f"outcome {o.describe()}: {name}(D) = {mp_str(a, 15)}, {name}(D') = {mp_str(b, 15)}")
    mark = "= ε (at the bound, within the confirmation tolerance)" if at_bound else ("yes" if not violation else "NO")
    with mpmath.workdps(digits + 10):
        print(f"log ratio = {mp_str(lr, digits)}  within [e^-ε, e^ε]: {mark} (ε = {fmt(mech.epsilon)})")
    return code


def run_delta(args: argparse.Namespace) -> int:
    raise InputError(f"delta: Adaptive SVT ({args.variant}) is not yet supported by delta: its middle and top answers "
                     "release real values, so the outcomes are not a finite set and δ(ε') is an integral over them, "
                     "not the sum delta computes")


def run_audit(args: argparse.Namespace) -> int:
    raise InputError(f"audit: Adaptive SVT ({args.variant}) is not yet supported by audit (no implementation runner "
                     "or outcome binning for it yet)")
