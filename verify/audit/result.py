"""The result of an audit: per pair and side the test, the loss, and the overall verdict with its rates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from verify.audit.gof import GofResult
from verify.audit.loss import EmpiricalLoss
from verify.audit.pairs import Pair, PairKind
from verify.mechanism import SparseVector
from verify.notebook import audit_markdown
from verify.verdicts import AuditVerdict

if TYPE_CHECKING:  # the fit is imported only when an audit deviates (verify.audit.core)
    from verify.audit.fit import FitResult


@dataclass(frozen=True)
class PairReport:
    """One pair: the test on each side (D, then D'), the re-run where a side rejected, the loss."""

    pair: Pair
    tests: tuple[GofResult, GofResult]
    reruns: tuple[GofResult | None, GofResult | None]
    loss: EmpiricalLoss | None
    exact_loss: float
    level: float
    release_grid_error: float = 0.0

    @property
    def rejected(self) -> bool:
        return any(t.p_value < self.level for t in self.tests)

    @property
    def confirmed(self) -> bool:
        return any(t.p_value < self.level and r is not None and r.p_value < self.level for t, r in zip(self.tests, self.reruns))

    def to_json(self) -> dict[str, Any]:
        return {"pair": self.pair.to_json(), "level": self.level,
                "tests": [t.to_json() for t in self.tests],
                "reruns": [None if r is None else r.to_json() for r in self.reruns],
                "rejected": self.rejected, "confirmed": self.confirmed,
                "exact_loss_max_over_outcomes": round(self.exact_loss, 6) if self.exact_loss != float("inf") else "inf",
                "empirical_loss": None if self.loss is None else self.loss.to_json(),
                "release_grid_error": self.release_grid_error}


@dataclass
class AuditResult:
    """The audit of one implementation against one claimed variant (docs/audit.md)."""

    implementation: str
    claimed: SparseVector
    verdict: AuditVerdict
    pairs: list[PairReport]
    samples_per_side: int
    false_alarm: float
    detectable_tv: float
    #: Power of the verdict ``deviates`` at ``detectable_tv``: a rejection and its confirming re-run.
    power: float
    degrees_of_freedom: int
    confidence: float
    fit: FitResult | None = None
    interrupted: bool = False
    #: Seconds inside the implementation (summed over chunks, wherever they ran).
    sampling_seconds: float = 0.0
    #: Seconds of the audit's own work: search, exact laws, counting the runs, tests, fit.
    statistics_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: Wall-clock seconds of the sampling phase (all workers) and of the whole audit.
    sampling_wall_seconds: float = 0.0
    wall_seconds: float = 0.0
    #: The number of tests m the audit planned (2 per pair) and the level α/m each was run at: stored as
    #: applied, not recomputed (an interrupted audit reports fewer pairs than it planned).
    tests_planned: int = 0
    level_applied: float = 0.0
    #: Power of each test (and of its re-run); ``power`` is the verdict's: the square of this
    #: (`verify.audit.decision`).
    power_per_test: float = 0.0
    #: For each bug of `verify.audit.sensitive`: (bug, runs per side at its row, the verdict's predicted power there).
    bug_power: list[tuple[str, int, float]] = field(default_factory=list)

    @property
    def tests(self) -> int:
        """The number of tests planned, m (Bonferroni's divisor)."""
        return self.tests_planned

    @property
    def level(self) -> float:
        """The level each test was run at: α/m (`verify.audit.decision.bonferroni_level`)."""
        return self.level_applied

    def _repr_markdown_(self) -> str:

        return audit_markdown(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "claimed": self.claimed.describe(),
            "verdict": str(self.verdict),
            "false_alarm_rate": self.false_alarm,
            "tests": self.tests,
            "level_per_test": self.level,
            "samples_per_side": self.samples_per_side,
            "power": round(self.power, 6),
            "power_per_test": round(self.power_per_test, 6),
            "power_against_bugs": [{"bug": b, "samples": n, "predicted_power": round(p, 4)} for b, n, p in self.bug_power],
            "detectable_total_variation": round(self.detectable_tv, 6),
            "degrees_of_freedom_for_power": self.degrees_of_freedom,
            "loss_confidence": self.confidence,
            "pairs": [p.to_json() for p in self.pairs],
            "fit": None if self.fit is None else self.fit.to_json(),
            "interrupted": self.interrupted,
            "sampling_seconds": round(self.sampling_seconds, 3),
            "statistics_seconds": round(self.statistics_seconds, 3),
            "sampling_wall_seconds": round(self.sampling_wall_seconds, 3),
            "wall_seconds": round(self.wall_seconds, 3),
            "notes": self.notes,
        }

    def lines(self) -> list[str]:
        """The report as text lines (the CLI prints these)."""
        out = [f"implementation: {self.implementation}", f"claimed: {self.claimed.describe()}",
               f"verdict: {self.verdict}" + (" (interrupted: partial result)" if self.interrupted else ""),
               f"false-alarm rate {self.false_alarm:g} over {self.tests} tests (Bonferroni: level {self.level:.3g} each; "
               f"a rejection counts only if a re-run on fresh seeds rejects again)",
               f"samples: {self.samples_per_side:,} per side; any deviation of total variation >= {self.detectable_tv:.4f} "
               f"(on the pooled cells, up to {self.degrees_of_freedom} degrees of freedom) is called deviates with power "
               f"{self.power:.2g} (each test and its re-run with power {self.power_per_test:.3g})"]
        if self.bug_power:
            out.append("predicted power of deviates against the bugs people make (at their most sensitive rows): "
                       + ", ".join(f"{b} {p:.2f}" for b, _, p in self.bug_power))
        for r in self.pairs:
            p = r.pair
            if p.kind is PairKind.SENSITIVE:
                mark = "CONFIRMED deviation" if r.confirmed else ("rejected, not confirmed on fresh seeds" if r.rejected else "ok")
                out.append(f"- {p.label}: q = ({', '.join(f'{x:g}' for x in p.queries)}), {p.samples:,} runs: {mark} "
                           f"(G-test p = {r.tests[0].p_value:.3g})")
                t = r.tests[0]
                if t.p_value < r.level:
                    top = ", ".join(f"{d.outcome} {d.observed}/{d.expected:.1f}" for d in t.top)
                    out.append(f"    G = {t.statistic:.1f}, df {t.df}; deviating most (observed/expected): {top}")
                continue
            mark = "CONFIRMED deviation" if r.confirmed else ("rejected, not confirmed on fresh seeds" if r.rejected else "ok")
            ps = " / ".join(f"{t.p_value:.3g}" for t in r.tests)
            out.append(f"- {p.label}: q(D) = ({', '.join(f'{x:g}' for x in p.queries)}), "
                       f"q(D') = ({', '.join(f'{x:g}' for x in p.neighbour)}): {mark} (G-test p = {ps} for D / D')")
            for side, t in zip(("D ", "D'"), r.tests):
                if t.p_value < r.level:
                    top = ", ".join(f"{d.outcome} {d.observed}/{d.expected:.1f}" for d in t.top)
                    extra = f"; impossible outcomes: {', '.join(t.impossible)}" if t.impossible else ""
                    out.append(f"    {side}: G = {t.statistic:.1f}, df {t.df}; deviating most (observed/expected): {top}{extra}")
            if r.loss is not None:
                lo = r.loss
                note = " (too rare to estimate)" if not lo.estimable else ""
                out.append(f"    loss at {lo.outcome}: exact {lo.exact:.4g}, sampled {lo.estimate:.4g} "
                           f"[{lo.confidence:.0%} Clopper–Pearson {lo.lower:.3g}, {lo.upper:.3g}]{note}; "
                           f"largest exact loss at this pair {r.exact_loss:.4g}")
        if self.fit is not None:
            out.append("which law: " + self.fit.sentence(self.claimed))
            if self.fit.tied:
                out.append("  indistinguishable on these pairs: " + "; ".join(self.fit.tied))
            out.append(f"  log-likelihood {self.fit.log_likelihood:.2f} against {self.fit.claimed_log_likelihood:.2f} for the claim; "
                       f"{'best' if self.fit.fits else 'closest'} candidate's privacy: {self.fit.privacy.evidence}")
        out.append(f"time: {self.sampling_seconds:.2f} s inside the implementation, {self.statistics_seconds:.2f} s of statistics "
                   f"(search, exact laws, counting, tests, fit), {self.wall_seconds:.2f} s wall clock")
        out += [f"note: {n}" for n in self.notes]
        return out
