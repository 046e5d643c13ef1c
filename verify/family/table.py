"""The `family` table: one row per preset, exact verdicts beside the sampling tools' published lower bounds.

Default configuration of every row (`DP_SNIPER`): ε = 1/10, Δ = 1, t = 1
(lyu-1: t = 1/2), at most 10 queries: DP-Sniper's (`verify.family.literature`),
so that its published lower bounds are comparable.  Any other configuration
(`TableConfig`) runs the same rows; the published bounds are then left out,
since they were measured at DP-Sniper's.  For Laplace scales that are
multiples of Δ/ε the loss divided by ε does not depend on ε or t (queries
range over all reals).

The rows are independent (each is one `family_worst_case`, deterministic), so
`TableRun` runs them on worker processes (default: all cores,
`verify.parallel.worker_count`; 1 runs them here, one after another).  Rows
whose float64 searches evaluate the same integrand (`verify.family.structured.integrand_key`:
the same noises and release terms, e.g. dwork-roth and lyu-1 at c = 1, which differ
only in t) go to one worker as one task, one after the other, so that the later
ones reuse the earlier one's remembered values (exact reuse: `structured.MEMO_SIZE`).
The tasks are handed out longest first (`ROW_COST`), each to the next free
worker, and the rows put back in the table's order: the rows are the same,
field for field, as a serial run's except ``seconds``.  Other rows (the
discrete rows of the `family` command, `verify.discrete.table.discrete_tasks`)
can join the same run (``extra``), so that they too run beside the others:
with continuous rows to run, such rows (which never evaluate with the compiled
loop) go to one worker of their own, forked before the parent loads that loop
(`structured.load_compiled`) and scipy.optimize for the continuous rows' workers,
so that they run while it does instead of after it.
A row's seconds are its own: the wall time of its `family_worst_case` in the
process that ran it (measured there, so that waiting for a free worker is not
counted), not CPU time.
"""

from __future__ import annotations

import gc
import multiprocessing
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.discrete.search import check_search_for
from verify.exact import fmt, positive, to_fraction
from verify.family.literature import LYU_CLAIMS, PUBLISHED_MACHINE, published_for
from verify.family.presets import preset
from verify.family.structured import integrand_key, load_compiled
from verify.family.worstcase import FamilyWorstCase, family_worst_case
from verify.integer_rules import is_discrete
from verify.notebook import family_row_markdown
from verify.parallel import ignore_sigint, sigint_deferred, worker_count
from verify.precision import MPMATH_LOCK

EPSILON = Fraction(1, 10)


@dataclass(frozen=True)
class TableConfig:
    """ε, Δ and t of every row; ``threshold`` None is DP-Sniper's per-row t (1; lyu-1: 1/2)."""

    epsilon: Fraction = EPSILON
    sensitivity: Fraction = Fraction(1)
    threshold: Fraction | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        if self.threshold is not None:
            object.__setattr__(self, "threshold", to_fraction(self.threshold, "threshold"))

    @property
    def is_dp_sniper(self) -> bool:
        """DP-Sniper's configuration, where its (and StatDP's) published lower bounds apply."""
        return self == DP_SNIPER

    def threshold_of(self, name: str) -> Fraction:
        if self.threshold is not None:
            return self.threshold
        return Fraction(1, 2) if name == "lyu-1" else Fraction(1)

    def describe(self) -> str:
        t = "1 (lyu-1: 1/2)" if self.threshold is None else fmt(self.threshold)
        return f"ε = {fmt(self.epsilon)}, Δ = {fmt(self.sensitivity)}, t = {t}"


#: DP-Sniper's configuration (the default).
DP_SNIPER = TableConfig()
#: (preset, cutoff) of every row; None = unlimited (lyu-5 and lyu-6's own cutoff).
ROWS: tuple[tuple[str, int | None], ...] = (
    ("seed-m1", 1), ("seed-m2", 1), ("dwork-roth", 1),
    ("lyu-1", 1), ("lyu-1", 2), ("lyu-2", 1), ("lyu-2", 2), ("lyu-3", 1), ("lyu-3", 2),
    ("lyu-4", 1), ("lyu-4", 2), ("lyu-5", None), ("lyu-6", None),
    ("numeric-svt", 2), ("gap-svt", 1), ("gaussian-svt", 1),
)


def row_mechanism(name: str, cutoff: int | None, config: TableConfig = DP_SNIPER, compare: str | None = None):
    """The row's variant at ``config`` (default DP-Sniper's; module docstring); ``compare``: a discrete row's tie rule
    (None: the preset's own)."""
    kw: dict[str, Any] = {"epsilon": config.epsilon, "sensitivity": config.sensitivity, "threshold": config.threshold_of(name)}
    if compare is not None:
        kw["compare"] = compare
    return preset(name, cutoff=cutoff, **kw)  # None: unlimited (refused by the presets whose scales grow with c)


def preset_flags(name: str, cutoff: int | None, config: TableConfig = DP_SNIPER, compare: str = "ge") -> str:
    """The `svt-verify` flags naming the row's variant at ``config`` (``compare``: a discrete row's tie rule)."""
    cut = f" --cutoff {cutoff}" if cutoff is not None else ""
    cut += "" if compare == "ge" else f" --compare {compare}"
    if config.is_dp_sniper:
        return f"--variant {name}{cut} --epsilon 1/10 --threshold {'1/2' if name == 'lyu-1' else '1'}"
    sens = "" if config.sensitivity == 1 else f" --sensitivity {fmt(config.sensitivity)}"
    return f"--variant {name}{cut} --epsilon {fmt(config.epsilon)}{sens} --threshold {fmt(config.threshold_of(name))}"


@dataclass
class FamilyRow:
    name: str
    cutoff: int | None
    result: FamilyWorstCase
    config: TableConfig = DP_SNIPER

    def _repr_markdown_(self) -> str:

        return family_row_markdown(self)

    def to_json(self) -> dict[str, Any]:
        r = self.result
        j = r.to_json()
        eps = float(r.shape.epsilon)
        claim = next((c for c in LYU_CLAIMS if c.preset == self.name), None)
        out = {
            "preset": self.name,
            "cutoff": "unlimited" if self.cutoff is None else self.cutoff,
            "claimed_epsilon": fmt(r.shape.epsilon),
            "verdict": j["verdict"],
            "loss": j["loss"],
            "loss_over_epsilon": j["loss_over_epsilon"],
            "upper_bound": j["upper_bound"],
            "upper_bound_over_epsilon": None if r.upper_bound is None else fmt(r.upper_bound.value / r.shape.epsilon),
            "upper_bound_formula": j["upper_bound_formula"],
            "no_bound_reason": j["no_bound_reason"],
            "unbounded": r.unbounded,
            "unbounded_evidence": r.unbounded_evidence,
            "tightness": j["tightness"],
            "tightness_evidence": j["tightness_evidence"],
            "witness": j["witness"],
            "reproduce": r.witness.ratio_command(preset_flags(self.name, self.cutoff, self.config, r.shape.compare.value)),
            "seconds": j["seconds"],
            "notes": j["notes"],
            "paper_claim": None if claim is None else {"statement": claim.statement, "source": claim.source},
            "published": [],
        }
        for tool in ("DP-Sniper", "StatDP") if self.config.is_dp_sniper else ():  # measured at DP-Sniper's configuration only
            for p in published_for(self.name, self.cutoff, tool):
                d = p.as_dict()
                d["lower_bound_over_epsilon"] = p.lower_bound / float(p.epsilon)
                d["time_ratio"] = p.seconds / max(r.seconds, 1e-9)
                out["published"].append(d)
        out["loss_minus_epsilon"] = None if r.unbounded and j["loss"] == "inf" else float(mpmath.mpf(j["loss"])) - eps
        if r.shape.is_discrete:  # noise on ℤ: the tie rule matters, and the integer domain searched is stated
            out["compare"] = r.shape.compare.value
            out["search_domain"] = j["search_domain"]
        return out


#: CPU seconds of each row at 10 queries (the discrete rows at their own 5 or 2), run one after another in
#: one process in `bundles` order, the later rows of a bundle warm, the compiled evaluator loaded first (as
#: `TableRun` does before it forks; measured 2026-12-07 at load 10, least of two processes): only the order in
#: which `TableRun` hands the tasks out (longest first; a task costs the sum of its rows).  It never changes a row.
#: seed-m2: its worker's import of sympy included (0.44 and 0.69 s in two such processes with numba and scipy.optimize
#: loaded first, as `TableRun`'s continuous workers have them, 2026-12-08 at load 5), which no other row pays.
ROW_COST: dict[tuple[str, int | None], float] = {
    ("gap-svt", 1): 0.52, ("numeric-svt", 2): 0.42, ("lyu-4", 1): 0.31, ("lyu-2", 2): 0.3, ("lyu-4", 2): 0.29,
    ("seed-m2", 1): 0.5, ("lyu-3", 1): 0.24, ("lyu-1", 2): 0.24, ("seed-m1", 1): 0.23, ("dwork-roth", 1): 0.21,
    ("lyu-6", None): 0.19, ("lyu-5", None): 0.15, ("lyu-3", 2): 0.15, ("lyu-1", 1): 0.13, ("lyu-2", 1): 0.12,
    ("gaussian-svt", 1): 0.05,
    # the family command's discrete rows (`verify.discrete.table.ROWS`; sampcert-above-threshold: ge and gt)
    ("dlap-lyu-1", 2): 0.28, ("dlap-seed-m1", 1): 0.23, ("sampcert-above-threshold", 1): 0.21,
    ("dgauss-above-threshold", 1): 0.08,
}
#: The presets ``--rows`` may name beyond `ROWS`, each with its default cutoff: the discrete ones (`verify.family.presets`).
EXTRA_ROWS: tuple[tuple[str, int | None], ...] = (("sampcert-above-threshold", 1), ("dlap-seed-m1", 1), ("dlap-lyu-1", 2),
                                                  ("dgauss-above-threshold", 1))


@dataclass(frozen=True)
class RowTask:
    """One row of a run: the preset and cutoff, the queries searched, the neighbours (``monotone``), the
    configuration and, for a discrete row, its tie rule (``compare``; None: the preset's own)."""

    name: str
    cutoff: int | None
    max_queries: int = 10
    monotone: bool = False
    config: TableConfig = DP_SNIPER
    compare: str | None = None

    def mechanism(self):
        return row_mechanism(self.name, self.cutoff, self.config, self.compare)


def _run_row(task: RowTask) -> FamilyRow:
    """One row, in whatever process runs it (its seconds are measured here, by `family_worst_case`)."""
    res = family_worst_case(task.mechanism(), max_queries=task.max_queries, monotone=task.monotone)
    return FamilyRow(task.name, task.cutoff, res, task.config)


def _run_bundle(bundle: list[tuple[int, RowTask]]) -> list[tuple[int, FamilyRow]]:
    """The rows of one task, one after the other in this process (module docstring)."""
    return [(i, _run_row(task)) for i, task in bundle]


def _run_bundles_to(order: list[list[tuple[int, RowTask]]], conn: Any) -> None:
    """The discrete rows' worker of `TableRun`: each task's rows sent on ``conn`` as it finishes (a failure: its
    exception, and no more tasks); Ctrl-C is the parent's."""
    ignore_sigint()
    try:
        for bundle in order:
            conn.send(_run_bundle(bundle))
    except Exception as exc:
        conn.send(exc)
    finally:
        conn.close()


def _relay(conn: Any, count: int, done: queue.Queue) -> None:
    """`TableRun`'s thread that puts the discrete worker's ``count`` results into ``done`` (its end: stopped)."""
    try:
        for _ in range(count):
            done.put(conn.recv())
    except (EOFError, OSError):
        done.put(RuntimeError("the discrete rows' worker stopped before its rows were done"))


def _forked(start: Callable[[], Any]) -> Any:
    """``start()``, which forks (a pool's workers, or a process), with this process's objects frozen around the fork
    (`gc.freeze`, undone here after it: the workers' collections neither walk them nor write to their pages, which the
    workers share with this process until written) and Ctrl-C delivered after it (`sigint_deferred`).  A process
    that had frozen objects itself (a test session freezes what it imported) keeps them frozen: `gc.unfreeze` cannot
    undo only this freeze, and undoing the caller's would make its every later full collection walk them again."""
    frozen_before = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        with sigint_deferred():
            return start()
    finally:
        if not frozen_before:
            gc.unfreeze()


def bundles(tasks: Sequence[RowTask]) -> list[list[tuple[int, RowTask]]]:
    """The tasks with their indices, in groups that run in one process: the continuous rows with the same
    `integrand_key` (in the table's order) together, every other row alone; the groups in the order of
    their first row."""
    groups: dict[object, list[tuple[int, RowTask]]] = {}
    for i, task in enumerate(tasks):
        mech = task.mechanism()
        key = ("alone", i) if is_discrete(mech) else ("integrand", integrand_key(mech))
        groups.setdefault(key, []).append((i, task))
    return list(groups.values())


def hand_out_order(tasks: Sequence[RowTask]) -> list[list[tuple[int, RowTask]]]:
    """The `bundles` of ``tasks`` in the order `TableRun` hands them to its workers: longest first, a bundle
    costing the sum of its rows' `ROW_COST` (1.0 for a row without one); ties keep the table's order."""
    return sorted(bundles(tasks), key=lambda b: -sum(ROW_COST.get((t.name, t.cutoff), 1.0) for _, t in b))


class TableRun:
    """The rows of a table, run from the moment this object is made: on ``workers`` processes (at most one
    per task, `bundles`; the tasks handed out longest first, `ROW_COST`; discrete rows beside continuous ones
    on one more, forked first: module docstring), or, with one worker, here, one at a time as they are iterated.  ``extra``: more rows (`RowTask`) after ``rows``, with the indices that follow
    theirs.  Iterating yields ``(index in rows, FamilyRow)`` as each row finishes (in the table's order when
    serial); `close` (also on leaving a ``with`` block, or when an interrupted caller exits) stops the
    workers, done or not.  Workers ignore SIGINT: Ctrl-C is the parent's, which keeps the rows it has."""

    def __init__(self, rows=ROWS, max_queries: int = 10, monotone: bool = False, config: TableConfig = DP_SNIPER,
                 workers: int | None = None, extra: Sequence[RowTask] = ()) -> None:
        tasks = [RowTask(name, cutoff, max_queries, monotone, config) for name, cutoff in rows] + list(extra)
        self._tasks = tasks
        for task in tasks:  # a row the table cannot compute is refused before any row runs
            mech = task.mechanism()
            if is_discrete(mech):
                check_search_for(mech, task.max_queries)
        order = hand_out_order(tasks)
        n = min(worker_count(workers), len(order))
        self._pool: Any = None  # the workers of the continuous rows (and of the discrete ones when they run alone)
        self._early: tuple[Any, Any, int] | None = None  # the discrete rows' worker, the end of its pipe, its task count
        self._done: queue.Queue | None = None  # each task's rows (or its exception) as it finishes
        self._pending = len(order)
        # a bundle's rows are all discrete or all continuous (`bundles`)
        continuous, discrete = [], []
        for b in order:
            (discrete if is_discrete(b[0][1].mechanism()) else continuous).append(b)
        try:
            if n > 1:
                self._done = queue.Queue()
                if continuous and discrete:  # the discrete rows start now, on a worker of their own, beside the load
                    reader, writer = multiprocessing.Pipe(duplex=False)
                    early = multiprocessing.get_context().Process(target=_run_bundles_to, args=(discrete, writer), daemon=True)
                    self._early = (early, reader, len(discrete))
                    try:
                        _forked(early.start)
                    finally:
                        writer.close()  # (the worker's copy stays open until it is done)
                    discrete = []
            if continuous:
                load_compiled()  # the compiled evaluator, once here, not once per worker (they fork from this process)
                if n > 1:
                    import scipy.optimize  # noqa: F401  # lazy: every continuous row refines; once here, not once per worker
            if n > 1:
                rest = continuous + discrete
                self._pool = _forked(lambda: multiprocessing.get_context().Pool(min(n, len(rest)), initializer=ignore_sigint))
                for bundle in rest:
                    self._pool.apply_async(_run_bundle, (bundle,), callback=self._done.put, error_callback=self._done.put)
                if self._early is not None:  # after the last fork: no fork while this thread runs
                    threading.Thread(target=_relay, args=(self._early[1], self._early[2], self._done), daemon=True).start()
        except BaseException:  # (Ctrl-C during the load: no worker is left running)
            self.close()
            raise

    def __iter__(self) -> Iterator[tuple[int, FamilyRow]]:
        if self._done is None:
            for i, task in enumerate(self._tasks):
                yield i, _run_row(task)
            return
        try:
            for _ in range(self._pending):
                got = self._done.get()
                if isinstance(got, BaseException):
                    self._wind_down()
                    raise got
                yield from got
        finally:
            self.close()

    def _wind_down(self) -> None:
        """After a failed row: let the workers end their tasks and exit, rather than kill them.

        ``Pool.terminate`` kills a worker whatever it is doing; one killed while it sends a result holds the
        lock of the pool's result queue for ever, and the pool's task thread then waits on that lock when it
        ends, so ``terminate`` never returns.  The workers of a failing table end their rows at about the same
        moment (a test saw the hang), so here the pool is closed and joined instead, and the discrete rows'
        worker joined: the error is raised once the rows already handed out are done.  (An interrupt still
        kills them at once: `close`.)"""
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
        if self._early is not None:
            self._early[0].join()

    def close(self) -> None:
        if self._early is not None:
            proc, reader, _ = self._early
            if proc.pid is not None:  # (started)
                proc.terminate()
                proc.join()
            reader.close()
            self._early = None
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> TableRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def table(self) -> list[FamilyRow]:
        """Every row, in the table's order."""
        with self:
            return [row for _, row in sorted(self, key=lambda ir: ir[0])]


def family_table(rows=ROWS, max_queries: int = 10, monotone: bool = False, config: TableConfig = DP_SNIPER,
                 workers: int | None = None) -> list[FamilyRow]:
    """Run every row at ``config`` on ``workers`` processes (default all cores; 1: here, serially), in the
    table's order; each row's seconds are the wall time of its own search in the process that ran it."""
    return TableRun(rows, max_queries, monotone, config, workers).table()


def _num(x: str) -> str:
    if x == "inf":
        return "inf"
    with MPMATH_LOCK, mpmath.workdps(30):
        return mpmath.nstr(mpmath.mpf(x), 6)


def _cited(p: dict[str, Any], config: TableConfig) -> str:
    """A cited cell: lower bound / ε, the run's ε when it is not the table's, and the published seconds (†)."""
    at = "" if Fraction(p["epsilon"]) == config.epsilon else f" at ε = {p['epsilon']}"
    return f"{p['lower_bound_over_epsilon']:.4g}{at} ({p['seconds']:.0f} s†)"


def render(rows: list[FamilyRow]) -> str:
    """A plain-text table (one line per row) plus the witnesses."""
    k = rows[0].result.max_queries if rows else 10
    mono = " Monotone neighbours (all q_j(D') - q_j(D) of one sign)." if rows and rows[0].result.monotone else ""
    head = ["variant", "c", "verdict", "loss/ε", "bound/ε", "unbounded", "tightness", "s", "DP-Sniper LB/ε (s†)", "ratio", "StatDP LB/ε (s†)"]
    lines = []
    for row in rows:
        j = row.to_json()
        dps = [p for p in j["published"] if p["tool"] == "DP-Sniper"]
        st = [p for p in j["published"] if p["tool"] == "StatDP"]
        lines.append([
            row.name, "∞" if row.cutoff is None else str(row.cutoff), j["verdict"], _num(j["loss_over_epsilon"]),
            "none" if j["upper_bound_over_epsilon"] is None else j["upper_bound_over_epsilon"],
            "yes" if j["unbounded"] else "no", j["tightness"], f"{j['seconds']:.1f}",
            "; ".join(_cited(p, row.config) for p in dps) or "-",
            "; ".join(f"{p['time_ratio']:.0f}x†" for p in dps) or "-",
            "; ".join(_cited(p, row.config) for p in st) or "-",
        ])
    widths = [max(len(h), *(len(r[i]) for r in lines)) for i, h in enumerate(head)]
    text = ["  ".join(h.ljust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
    text += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in lines]
    text.append("")
    config = rows[0].config if rows else DP_SNIPER
    if config.is_dp_sniper:
        text.append(f"ε = 1/10, Δ = 1, t = 1 (lyu-1: 1/2), k <= {k} queries (DP-Sniper's configuration: 10).{mono} loss/ε: confirmed at 50 digits "
                    "(Gaussian: exact erfc form). DP-Sniper/StatDP: published lower bounds (eps_lcb), each measured at ε = 1/10 "
                    "with 10 queries unless its cell names another ε, eth-sri/dp-sniper eval_sp2021/reference-results "
                    f"(verify.family.literature). †: {PUBLISHED_MACHINE}; ratio = those seconds / our wall seconds here, "
                    "across two machines (benchmarks/bench_peers.py runs both peers on this machine and gives CPU-time ratios).")
    else:
        text.append(f"{config.describe()}, k <= {k} queries.{mono} loss/ε: confirmed at 50 digits (Gaussian: exact erfc form). "
                    "DP-Sniper/StatDP columns left empty: their published bounds were measured at ε = 1/10, Δ = 1, t = 1 "
                    "(lyu-1: 1/2), not at this configuration.")
    for row in rows:
        text.append(f"  {row.name} c={'∞' if row.cutoff is None else row.cutoff}: {row.result.witness.describe()}")
    return "\n".join(text)
