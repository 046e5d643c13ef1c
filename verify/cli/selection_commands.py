"""``prob``, ``ratio``, ``delta`` and ``audit`` with ``--variant`` a Report Noisy Max preset (docs/selection.md).

Each command hands such a run here (`verify.cli.selection.is_selection`).  Every flag the command has is
applied or refused: the flags each runner applies are listed in the one refusal table
(`verify.cli.kinds.APPLIED`); any other flag given with a value other than its default is refused in one
line (`verify.cli.kinds.refuse_others`), naming the flag and why.

Outcomes: the index i (1-based) is given as ``--output i`` (or ``s_i``, or its outcome string ``B^{i−1}A``);
a released value as ``--released V``; the gap as ``--output i --released G``.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

import mpmath

from verify.cli import kinds
from verify.cli.common import DEFAULT_EPSILON, DEFAULT_SENSITIVITY, VIOLATION, emit_json, exit_status, mp_str, value_or
from verify.errors import InputError
from verify.exact import fmt
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.selection.presets import selection_preset

#: Why a flag does not apply, where more can be said than "Report Noisy Max has none" (the runners' own refusals).
_WHY = {"method": "Report Noisy Max has no sympy path here (mpmath or fast)",
        "plot": "--plot draws the Sparse Vector δ profile; not for a Report Noisy Max"}


def model(args: argparse.Namespace, command: str) -> ReportNoisyMax:
    """The preset at --epsilon and --sensitivity, after the refusals (`verify.cli.kinds.refuse_others`)."""
    kinds.refuse_others(args, kinds.RNM, command)
    return selection_preset(args.variant, value_or(args, "epsilon", DEFAULT_EPSILON),
                            value_or(args, "sensitivity", DEFAULT_SENSITIVITY))


def _index_given(args: argparse.Namespace, k: int) -> int | None:
    """The 0-based index of --output/--outcomes (i, s_i, or B^{i-1}A), or None when neither is given."""
    out, outs = getattr(args, "output", None), getattr(args, "outcomes", None)
    if out is not None and outs is not None:
        raise InputError("--output and --outcomes: give the index once")
    out = out if outs is None else outs
    if out is None or out == "all":
        return None
    if isinstance(out, str):
        if out == "none" or not out.endswith("A") or set(out[:-1]) - {"B"}:
            raise InputError(f"--output: {out!r} is not an index of Report Noisy Max (give i, s_i or B^(i-1)A)")
        out = len(out)
    if not 1 <= out <= k:
        raise InputError(f"--output: index {out} is outside 1..{k} (k = {k} scores)")
    return out - 1


def _one_released(args: argparse.Namespace, what: str) -> Fraction:
    rel = getattr(args, "released", None)
    if rel is None or len(rel) != 1:
        raise InputError(f"--released: give one number, the {what}")
    return rel[0]


def outcomes_of(args: argparse.Namespace, mech: ReportNoisyMax, k: int):
    """The outcomes asked (`verify.selection.probability.SelectionOutcome`): every index when none is named."""
    from verify.selection.probability import SelectionOutcome

    i = _index_given(args, k)
    if mech.output is SelectionOutput.INDEX:
        if getattr(args, "released", None) is not None:
            raise InputError(f"--released: {mech.name} releases the index only (no value)")
        return [SelectionOutcome(SelectionOutput.INDEX, j) for j in (range(k) if i is None else [i])]
    if mech.output is SelectionOutput.VALUE:
        if i is not None:
            raise InputError(f"--output: {mech.name} releases the noisy maximum's value, not an index (give --released V)")
        return [SelectionOutcome(SelectionOutput.VALUE, None, _one_released(args, "released maximum"))]
    g = _one_released(args, "gap to the runner-up (> 0)")
    if i is None:
        raise InputError(f"--output: {mech.name} releases an index with its gap; give --output i and --released G")
    return [SelectionOutcome(SelectionOutput.GAP, i, g)]


def _value(mech: ReportNoisyMax, q, o, method: str, digits: int) -> tuple[Any, int]:
    """The probability or density of outcome ``o`` at q by ``method``, and the digits it supports."""
    from verify.selection.probability import mp_outcome
    from verify.serialize import FLOAT64_DIGITS

    if method == "mpmath":
        return mp_outcome(mech, q, o, digits), digits
    import math

    from verify.selection.fast import fast_index_log_probabilities, fast_value_log_density

    if o.kind is SelectionOutput.INDEX:
        import numpy as np

        with np.errstate(divide="ignore", invalid="ignore"):
            logp, err = fast_index_log_probabilities(mech, q)
        if not math.isfinite(err):  # an underflow in float64 (exponential noise, scores far apart): the estimate says
            # nothing, so the value is recomputed by the quadrature and shown to float64's digits (the float64 door's rule)
            return mp_outcome(mech, q, o, max(digits, FLOAT64_DIGITS)), min(digits, FLOAT64_DIGITS)
        lv = float(logp[o.index])
    elif o.kind is SelectionOutput.VALUE:
        lv, err = fast_value_log_density(mech, q, float(o.value)), 1e-15
    else:
        raise InputError("--method fast: the gap's density is an integral with no float64 path here; use --method mpmath")
    shown = FLOAT64_DIGITS if not err > 0 else max(1, min(FLOAT64_DIGITS, math.floor(-math.log10(err))))
    with mpmath.workdps(FLOAT64_DIGITS + 10):
        return (mpmath.exp(mpmath.mpf(lv)) if math.isfinite(lv) else mpmath.mpf(0)), min(digits, shown)


def run_prob(args: argparse.Namespace) -> int:
    mech = model(args, "prob")
    if args.method == "symbolic":
        raise InputError(f"--method symbolic: {_WHY['method']}")
    q = mech.check_queries(args.queries, "--queries")
    rows = []
    for o in outcomes_of(args, mech, len(q)):
        v, shown = _value(mech, q, o, args.method, args.digits)
        with mpmath.workdps(shown + 10):
            rows.append({"outcome": o.to_json(), "describe": o.describe(),
                         "kind": "probability" if o.kind is SelectionOutput.INDEX else "density",
                         "value": mp_str(v, shown), "log": mp_str(mpmath.log(v), shown) if v > 0 else "-inf", "digits": shown})
    if args.json:
        emit_json({"mechanism": mech.to_json(), "variant": mech.describe(), "queries": [fmt(x) for x in q],
                   "method": args.method, "outcomes": rows})
        return 0
    print(mech.describe())
    print(f"queries {', '.join(fmt(x) for x in q)}; method {args.method}")
    for r in rows:
        name = "Pr" if r["kind"] == "probability" else "density"
        print(f"{r['describe']}: {name} = {r['value']}  (log {r['log']})")
    return 0


def run_ratio(args: argparse.Namespace) -> int:
    from verify.ratio import bound_status, log_ratio, ratio_of
    from verify.selection.probability import mp_outcome

    mech = model(args, "ratio")
    q = mech.check_queries(args.queries, "--queries")
    qn = kinds.neighbour_queries(args, mech, q)
    digits = args.digits
    rows, worst = [], mpmath.mpf(0)
    for o in outcomes_of(args, mech, len(q)):
        a, b = mp_outcome(mech, q, o, digits), mp_outcome(mech, qn, o, digits)
        with mpmath.workdps(digits + 10):
            lr = log_ratio(a, b)
            within, at_bound = bound_status(lr, mech.epsilon, digits)
            worst = max(worst, abs(lr))
            rows.append({"outcome": o.to_json(), "describe": o.describe(), "value": mp_str(a, digits),
                         "neighbour_value": mp_str(b, digits), "log_ratio": mp_str(lr, digits),
                         "ratio": mp_str(ratio_of(lr), digits), "within_bounds": within, "at_bound": at_bound})
    ok = all(r["within_bounds"] for r in rows)
    code = exit_status(args, [] if ok else [VIOLATION])
    if args.json:
        emit_json({"mechanism": mech.to_json(), "variant": mech.describe(), "queries": [fmt(x) for x in q],
                   "neighbour_queries": [fmt(x) for x in qn], "digits": digits, "epsilon": fmt(mech.epsilon),
                   "outputs": rows, "max_abs_log_ratio": mp_str(worst, digits), "all_within_bounds": ok})
        return code
    print(mech.describe())
    print(f"D  = ({', '.join(fmt(x) for x in q)})\nD' = ({', '.join(fmt(x) for x in qn)})")
    w = max(7, *(len(r["describe"]) for r in rows))
    print(f"{'outcome':<{w}}  {'log ratio':>22}  within [e^-ε, e^ε]")
    for r in rows:
        mark = "= ε (at the bound)" if r["at_bound"] else ("yes" if r["within_bounds"] else "NO")
        print(f"{r['describe']:<{w}}  {mpmath.nstr(mpmath.mpf(r['log_ratio']), 15):>22}  {mark}")
    print(f"max |log ratio| = {mpmath.nstr(worst, 15)} (ε = {fmt(mech.epsilon)})")
    return code


def run_delta(args: argparse.Namespace) -> int:
    from verify.cli.progress import Staged
    from verify.selection import delta as sd

    mech = model(args, "delta")
    if args.plot is not None:
        raise InputError(f"--plot: {_WHY['plot']}")
    sd.refuse_unless_index(mech)
    kinds.refuse_delta_flag_combinations(args)
    with Staged("delta", ["pair"], args, quiet_partial=args.json) as staged, staged.stage("pair"):
        if args.queries is not None:
            pair, how = (args.queries, args.neighbour_queries), "exact, the given pair"
        else:
            k = 4 if args.max_queries is None else args.max_queries
            pair = sd.worst_delta_pair(mech, args.epsilon_prime if args.delta is None else 0, k)
            how = f"exact, the worst pair the structured search found with up to {k} scores"
        res = sd.pair_delta(mech, *pair, args.epsilon_prime, args.digits) if args.delta is None \
            else sd.pair_epsilon_for_delta(mech, *pair, args.delta, args.digits)
    j = res.to_json()
    j["variant"], j["method"] = mech.describe(), how
    if args.json:
        emit_json(j)
        return 0
    print(mech.describe())
    if args.delta is None:
        print(f"ε' = {j['epsilon_prime']}: δ = {j['delta']} ({how}; the larger direction; a lower bound on the mechanism's δ(ε'))")
    else:
        print(f"δ = {j['delta_target']}: ε' = {j['epsilon_prime']}, the smallest ε' with δ(ε') <= δ in both directions ({how})")
    print(f"  q(D) = ({', '.join(j['queries'])}), q(D') = ({', '.join(j['neighbour_queries'])}); "
          f"δ(D→D') = {j['delta_forward']}, δ(D'→D) = {j['delta_backward']} (sums over the k indices)")
    return 0


def run_audit(args: argparse.Namespace) -> int:
    import sys

    from verify.audit import audit
    from verify.verdicts import AuditVerdict

    mech = model(args, "audit")
    if args.workers is not None and args.scheduler is not None:
        raise InputError("--workers: give either --workers or --scheduler, not both")
    if args.samples is not None and args.target_tv is not None:
        raise InputError("--samples: give either --samples (runs per side) or --target-tv (which chooses them), not both")
    res = audit(args.implementation, mech, samples=args.samples,
                target_tv=None if args.target_tv is None else float(args.target_tv), false_alarm=float(args.false_alarm),
                random_pairs=args.random_pairs, queries_per_pair=args.queries_per_pair, seed=args.seed,
                workers=args.workers, scheduler=args.scheduler, progress=sys.stderr.isatty() and not args.json,
                worst_pair=not args.no_worst_pair, name=args.implementation, max_runs=args.max_runs,
                identify=False, sensitive=False)
    if args.json:
        emit_json(res.to_json())
    else:
        print("\n".join(res.lines()))
    if res.interrupted:
        return 130
    return 1 if res.verdict is AuditVerdict.DEVIATES else (3 if res.verdict is AuditVerdict.UNDECIDED else 0)


# --- family: Report Noisy Max rows ----------------------------------------------------------------------------
#: The largest number of scores of a Report Noisy Max row's search.
FAMILY_MAX_SCORES = 10


def split_family_rows(text: str | None) -> tuple[list[str], str | None]:
    """(the Report Noisy Max presets named in --rows, the rest of --rows or None).  A preset takes no cutoff
    but ``:1`` (it selects once)."""
    from verify.selection.presets import is_selection_preset

    if text is None:
        return [], None
    rnm, rest = [], []
    for item in text.split(","):
        name, _, c = item.strip().partition(":")
        if not is_selection_preset(name):
            rest.append(item)
            continue
        if c.strip() not in ("", "1"):
            raise InputError(f"--rows: {name}:{c.strip()} - a Report Noisy Max selects once; give {name} or {name}:1")
        if name in rnm:
            raise InputError(f"--rows: {name} is named twice (each row runs once)")
        rnm.append(name)
    if rnm and rest:
        raise InputError(f"--rows: {rnm[0]} is a Report Noisy Max and {rest[0].strip()} a Sparse Vector row; "
                         "run the two kinds in two calls")
    return rnm, (",".join(rest) if rest else None)


def run_family(args: argparse.Namespace, names: list[str], epsilon: Any) -> int:
    """``family --rows`` naming Report Noisy Max presets: verdict, loss, bound per row (the SVT table's columns)."""
    import time

    from verify.cli.progress import Staged
    from verify.selection.verdict import selection_verdict
    from verify.verdicts import MechanismVerdict

    flag = kinds.first_unapplied(args, kinds.APPLIED[(kinds.RNM, "family")])
    if flag is not None:
        raise InputError(f"{flag}: --rows names Report Noisy Max rows ({', '.join(names)}), which have no use of {flag} "
                         "(threshold: none; workers: the rows run in this process)")
    if args.max_queries > FAMILY_MAX_SCORES:
        raise InputError(f"--max-queries {args.max_queries}: the Report Noisy Max search takes at most {FAMILY_MAX_SCORES} scores")
    rows = []
    with Staged("family", ["rows"], args, quiet_partial=args.json) as staged, \
            staged.stage("rows", total=len(names), unit="row") as bar:
        for name in names:
            mech = selection_preset(name, epsilon, value_or(args, "sensitivity", DEFAULT_SENSITIVITY))
            if args.monotone:
                mech = mech.with_changes(monotone=True)
            t0 = time.perf_counter()
            res = selection_verdict(mech, args.max_queries)
            rows.append((res, time.perf_counter() - t0))
            bar.update(1)
    code = exit_status(args, [r.verdict for r, _ in rows])
    if args.json:
        emit_json({"selection_rows": [{**r.to_json(), "seconds": round(t, 3)} for r, t in rows],
                   "monotone": args.monotone, "max_queries": args.max_queries})
        return code
    print(f"Report Noisy Max rows (ε = {fmt(rows[0][0].mechanism.epsilon)}, Δ = {fmt(rows[0][0].mechanism.sensitivity)}, "
          f"scores up to {args.max_queries}{', monotone neighbours' if args.monotone else ''}; losses confirmed at 50 digits)")
    head = f"{'row':<31} {'verdict':<12} {'loss found':>22} {'proven bound':>13}  {'unbounded':<9}  {'s':>6}  witness"
    print(head)
    for r, t in rows:
        w = r.witness
        wit = "" if w is None else (f"q = ({', '.join(fmt(x) for x in w.queries)}), q' = ({', '.join(fmt(x) for x in w.neighbour)}), "
                                    f"{w.outcome.describe()}")
        bound = "none" if r.bound.value is None else fmt(r.bound.value)
        verdict = str(r.verdict) + ("" if r.verdict is not MechanismVerdict.NOT_PRIVATE else "")
        print(f"{r.mechanism.name:<31} {verdict:<12} {r.loss_text(15):>22} {bound:>13}  {'yes' if r.unbounded else 'no':<9}  "
              f"{t:>6.1f}  {wit}")
    return code
