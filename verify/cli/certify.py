"""``svt-verify certify``: rigorous certificates for the proofs' key inequalities (ball arithmetic)."""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from verify.cli.common import EXIT_CODES, add_fail_on, add_mechanism_flags, emit_json, exit_status
from verify.cli.flags import Flag
from verify.cli.progress import stages
from verify.cli.variant import add_variant_flags, seed_label, seed_mechanism
from verify.errors import InputError
from verify.exact import fmt
from verify.validate import MAX_MAGNITUDE_DIGITS, parse_number, shown
from verify.verdicts import CertificateVerdict

WHAT = ("all", "ratio", "factors")
#: Findings --fail-on can name (the verdict of any certificate run).
FINDINGS = (CertificateVerdict.REFUTED, CertificateVerdict.UNDECIDED)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "certify",
        help="certify the conditional privacy inequality and the factor bounds with ball arithmetic",
        description=("Certify, for every real input and every ε in a range, e^-ε <= Pr[A(D)=s_i | x]/Pr[A(D')=s_i | x] <= e^ε "
                     "(the form both seed proofs reduce to), and the density/survival/CDF factor bounds the proofs compare. "
                     "Verdicts: certified, refuted (with a counterexample at 50 digits), undecided. "
                     "A mechanism has no single ε here: give --epsilon-range (--epsilon is refused)."),
        epilog=EXIT_CODES,
    )
    add_mechanism_flags(p)
    add_variant_flags(p)
    p.add_argument("--epsilon-range", type=EPSILON_RANGE, default="0.01:10", metavar="LO:HI",
                   help="range of ε, 0 < LO <= HI (default 0.01:10)")
    p.add_argument("--what", choices=WHAT, default="all", help="what to certify (default all: the ratio and the factors)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_fail_on(p, FINDINGS, "refuted: a counterexample confirmed at 50 digits; undecided: some box not settled")
    p.set_defaults(func=run)


def parse_epsilon_range(text: str, name: str = "--epsilon-range") -> tuple[Fraction, Fraction]:
    """``LO:HI`` with 0 < LO <= HI."""
    parts = text.split(":")
    if len(parts) != 2 or not all(s.strip() for s in parts):
        raise InputError(f"{name}: {shown(text)} is not LO:HI (two numbers separated by a colon)")
    lo = parse_number(parts[0], f"{name} LO", MAX_MAGNITUDE_DIGITS)
    hi = parse_number(parts[1], f"{name} HI", MAX_MAGNITUDE_DIGITS)
    if lo <= 0:
        raise InputError(f"{name}: LO = {parts[0].strip()} must be > 0")
    if hi < lo:
        raise InputError(f"{name}: HI = {parts[1].strip()} is below LO = {parts[0].strip()}")
    return lo, hi


EPSILON_RANGE = Flag(parse_epsilon_range, "LO:HI")


def run(args: argparse.Namespace) -> int:
    from verify.certify import certify_conditional_ratio, certify_factor_bounds  # lazy: start-up time
    from verify.certify.results import CertifySpec, counterexample_json, frac_json

    start = time.perf_counter()
    eps_range = args.epsilon_range
    if args.epsilon is not None:
        raise InputError("--epsilon: certify covers every ε of --epsilon-range LO:HI; give the range (LO = HI for one ε)")
    spec = CertifySpec.of(seed_mechanism(args, "certify"))
    with stages("certify", 2 if args.what == "all" else 1, unit="certificate") as bar:
        ratio = factors = None
        if args.what in ("all", "ratio"):
            ratio = certify_conditional_ratio(spec, eps_range)
            bar.update(1)
        if args.what in ("all", "factors"):
            factors = certify_factor_bounds(spec, eps_range)
            bar.update(1)
    seconds = time.perf_counter() - start
    head = ratio
    result = {
        "verdict": head.verdict if head is not None else factors.verdict,
        "boxes": (ratio.boxes if ratio else 0) + (factors.boxes if factors else 0),
        "seconds": round(seconds, 4),
        "min_margin": (None if head is None or head.min_margin is None else float(head.min_margin)),
        "min_margin_exact": None if head is None else frac_json(head.min_margin),
        "counterexample": None if head is None or head.counterexample is None else counterexample_json(head.counterexample),
        "what": args.what,
        "mechanism": spec.describe(),
        "epsilon_range": [frac_json(eps_range[0]), frac_json(eps_range[1])],
        "conditional_ratio": None if ratio is None else ratio.to_json(),
        "factor_bounds": None if factors is None else factors.to_json(),
    }
    if args.what == "factors":
        result["min_margin"] = None if factors.min_margin is None else float(factors.min_margin)
        result["min_margin_exact"] = frac_json(factors.min_margin)
        result["counterexample"] = None if factors.counterexample is None else counterexample_json(factors.counterexample)
    found = {str(c.verdict) for c in (ratio, factors) if c is not None}
    code = exit_status(args, found)
    if args.json:
        emit_json(result)
        return code
    print(f"certify: {seed_label(args)}{spec.describe()}; ε in [{fmt(eps_range[0])}, {fmt(eps_range[1])}]")
    if ratio is not None:
        _print_ratio(ratio)
    if factors is not None:
        _print_factors(factors)
    print(f"total: {result['boxes']} boxes, {seconds:.2f} s")
    return code


def _print_ratio(c) -> None:
    print(f"conditional ratio: {c.verdict.upper()}  ({c.boxes} boxes, {c.seconds:.2f} s)")
    print(f"  claim: {c.claim}")
    print(f"  method: {c.method}")
    if c.sup_log_ratio_per_epsilon is not None:
        extra = "; holds for every ε > 0" if c.certified else ""
        print(f"  sup |log ratio| = {fmt(c.sup_log_ratio_per_epsilon)}·ε (attained){extra}")
    elif c.sup_log_ratio is not None:
        print(f"  sup |log ratio| = {fmt(c.sup_log_ratio)} (attained, independent of ε)")
    if c.min_margin is not None:
        print(f"  min margin: {fmt(c.min_margin)} nats")
    for s in c.steps:
        print(f"  [{s.status}] {s.name}: {s.statement}")
    if c.undecided_boxes:
        print("  undecided boxes: " + ", ".join(c.undecided_boxes))
    if c.counterexample is not None:
        cx = c.counterexample
        print(f"  counterexample: {cx.detail}")
        for k, v in cx.params:
            print(f"    {k} = {v}")


def _print_factors(fb) -> None:
    print(f"factor bounds: {fb.verdict.upper()}  ({fb.boxes} boxes, {fb.seconds:.2f} s)")
    for nf in (fb.threshold, fb.query):
        print(f"  {nf.variable} ~ {nf.noise}: " + ", ".join(
            f"{name} ratio {c.verdict}" for name, c in zip(("density", "survival", "CDF"), nf.all())))
        for c in nf.all():
            if c.counterexample is not None:
                print(f"    {c.counterexample.detail}")
    print(f"  product e^(Δ/b_Z)·e^(2Δ/b_X) <= e^ε: {fb.product.verdict} ({fb.product.steps[0].statement})")
