"""Published results on the SVT family that svt-verify compares its exact verdicts with.

Everything here was read from the public sources named in each record, at the
commit given, and is quoted with the file and line it came from; nothing is a
recollection.  Numbers are copied with all the digits the logs print.

DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-Box Discovery
of Differential Privacy Violations using Classifiers", IEEE S&P 2021), repository
eth-sri/dp-sniper at commit ee087b2584ca97d1064154db5dd2bda0bb5a8ceb:

* ``eval_sp2021/reference-results/dd_search_reg_data.log`` (logistic regression,
  the configuration the paper's main table uses) and ``dd_search_mlp_data.log``
  (neural network): one JSON object per line; per mechanism ``time_dd_search``
  (seconds of the witness search), ``time_final_estimate_eps`` (seconds of the
  final estimate) and ``eps_lcb`` (the lower confidence bound on the privacy
  loss that DP-Sniper reports: a *lower bound*, at confidence 1 - 0.05 per the
  paper's default).
* The mechanisms are ``dpsniper/mechanisms/sparse_vector_technique.py`` (Lyu et al.
  Alg. 1-6 as ``SparseVectorTechnique1..6``, NumericalSVT), instantiated in
  ``dpsniper/experiments/exp_default.py`` lines 61-71 and 87: ε = 0.1 (the class
  default), 10 queries in [-10, 10], ``SparseVectorTechnique1(c=1, t=0.5)``,
  ``SparseVectorTechnique2..6(c=1, t=1)`` (Alg. 5 and 6 ignore c: no cutoff) and
  ``NumericalSVT()`` (defaults c = 2, t = 1).  Neighbours differ by at most 1 in
  every query (sensitivity 1, all queries may differ).

StatDP (Ding, Wang, Wang, Zhang, Kifer, "Detecting Violations of Differential
Privacy", CCS 2018) as run by DP-Sniper's authors through ``statdpwrapper``
(statdp commit 16f389baf41b047dc6e70c334a8c49a7e00b5b7c per
``eval_sp2021/README.md``): ``statdp_1_data.log`` and ``statdp_2_data.log`` (two
runs), per mechanism ``statdp_time`` (seconds of the search), the
``statdp_result`` with ``eps_lcb`` (lower bound).  Configuration:
``statdpwrapper/experiments/mechanism_config.py`` lines 41-52: ε = 0.1 (Alg. 5:
ε = 0.05), N = 1, T = 0.5 (Alg. 1) or 1; StatDP's own implementations (its
``iSVT1..4`` map to Lyu Alg. 5, 6, 4, 3).  NumericalSVT is configured (line 67)
but absent from both logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

#: Where the cited seconds were measured.  The logs name no machine; the authors' experiment scripts
#: (``dpsniper/experiments/__main__.py``, ``statdpwrapper/experiments/__main__.py``) default to
#: ``multiprocessing.cpu_count()`` worker processes, and the seconds are wall-clock (``time_measure``).
PUBLISHED_MACHINE = "wall seconds on the DP-Sniper authors' machine (all its cores), not this one"

DP_SNIPER_REPO = "eth-sri/dp-sniper"
DP_SNIPER_COMMIT = "ee087b2584ca97d1064154db5dd2bda0bb5a8ceb"
REFERENCE_DIR = "eval_sp2021/reference-results"


@dataclass(frozen=True)
class PublishedLowerBound:
    """One tool's published lower bound on the privacy loss of one SVT variant.

    ``preset``/``cutoff`` name the svt-verify variant it corresponds to;
    ``epsilon``, ``threshold`` and ``queries`` the tool's configuration;
    ``lower_bound`` the tool's reported lower bound (nats) read at
    ``file``:``lower_bound_line``; ``seconds`` its search time read at
    ``file``:``seconds_line`` (``seconds_key`` names the JSON key).
    """

    tool: str
    mechanism: str
    preset: str
    cutoff: int | None
    epsilon: Fraction
    threshold: Fraction
    queries: int
    lower_bound: float
    seconds: float
    file: str
    lower_bound_line: int
    seconds_line: int
    seconds_key: str
    note: str = ""

    def __post_init__(self) -> None:
        if not self.lower_bound >= 0 or not self.seconds > 0:
            raise ValueError(f"{self.tool} {self.mechanism}: lower bound {self.lower_bound} and seconds {self.seconds} must be >= 0, > 0")

    @property
    def measured(self) -> str:
        """What the cited numbers measured, in words: ε of the run and where its seconds were taken."""
        return f"ε = {self.epsilon}, {self.queries} queries; {PUBLISHED_MACHINE}"

    @property
    def citation(self) -> str:
        return (f"{DP_SNIPER_REPO}@{DP_SNIPER_COMMIT[:7]} {REFERENCE_DIR}/{self.file} "
                f"line {self.lower_bound_line} (eps_lcb), line {self.seconds_line} ({self.seconds_key})")

    def as_dict(self) -> dict:
        return {"tool": self.tool, "mechanism": self.mechanism, "preset": self.preset, "cutoff": self.cutoff,
                "epsilon": str(self.epsilon), "threshold": str(self.threshold), "queries": self.queries,
                "lower_bound": self.lower_bound, "seconds": self.seconds, "citation": self.citation, "measured": self.measured, "note": self.note}


def _dps(mech: str, preset: str, cutoff: int | None, t: str, lb: float, lb_line: int, sec: float, sec_line: int,
         file: str = "dd_search_reg_data.log", tool: str = "DP-Sniper") -> PublishedLowerBound:
    return PublishedLowerBound(tool, mech, preset, cutoff, Fraction(1, 10), Fraction(t), 10, lb, sec, file, lb_line, sec_line,
                               "time_dd_search")


#: DP-Sniper, logistic regression (``dd_search_reg_data.log``).
DP_SNIPER: tuple[PublishedLowerBound, ...] = (
    _dps("SparseVectorTechnique1", "lyu-1", 1, "0.5", 0.08579843744077742, 72, 117.96760918945074, 67),
    _dps("SparseVectorTechnique2", "lyu-2", 1, "1", 0.085933777378977, 80, 148.0983493477106, 75),
    _dps("SparseVectorTechnique3", "lyu-3", 1, "1", 0.17157204754154964, 88, 149.82481288909912, 83),
    _dps("SparseVectorTechnique4", "lyu-4", 1, "1", 0.1686833019846503, 96, 122.69676594436169, 91),
    _dps("SparseVectorTechnique5", "lyu-5", None, "1", 1.7611853568928795, 104, 56.2530617043376, 99),
    _dps("SparseVectorTechnique6", "lyu-6", None, "1", 0.2720409230566201, 112, 90.68396644294262, 107),
    _dps("NumericalSVT", "numeric-svt", 2, "1", 0.034323746664875365, 160, 142.22191462665796, 155),
)

#: DP-Sniper, neural network (``dd_search_mlp_data.log``).
DP_SNIPER_MLP: tuple[PublishedLowerBound, ...] = tuple(
    _dps(m, p, c, t, lb, lbl, s, sl, file="dd_search_mlp_data.log", tool="DP-Sniper (MLP)")
    for m, p, c, t, lb, lbl, s, sl in (
        ("SparseVectorTechnique1", "lyu-1", 1, "0.5", 0.0857818700940598, 72, 921.469005830586, 67),
        ("SparseVectorTechnique2", "lyu-2", 1, "1", 0.08524718743004556, 80, 757.7427119761705, 75),
        ("SparseVectorTechnique3", "lyu-3", 1, "1", 0.1821683565930945, 88, 828.8616433367133, 83),
        ("SparseVectorTechnique4", "lyu-4", 1, "1", 0.16956867255560404, 96, 774.2736951038241, 91),
        ("SparseVectorTechnique5", "lyu-5", None, "1", 1.760988163636311, 104, 507.1078872382641, 99),
        ("SparseVectorTechnique6", "lyu-6", None, "1", 0.269826687868739, 112, 548.8279579654336, 107),
        ("NumericalSVT", "numeric-svt", 2, "1", 0.034501347436509455, 160, 624.3921620324254, 155),
    )
)


def _statdp(mech: str, preset: str, cutoff: int | None, t: str, eps: Fraction, lb: float, lb_line: int, sec: float,
            sec_line: int, file: str) -> PublishedLowerBound:
    note = "StatDP ran Alg. 5 at ε = 0.05" if eps != Fraction(1, 10) else ""
    return PublishedLowerBound("StatDP", mech, preset, cutoff, eps, Fraction(t), 10, lb, sec, file, lb_line, sec_line,
                               "statdp_time", note)


_E = Fraction(1, 10)
#: StatDP, run 1 (``statdp_1_data.log``) and run 2 (``statdp_2_data.log``).
STATDP: tuple[PublishedLowerBound, ...] = tuple(
    _statdp(m, p, c, t, e, lb, lbl, s, sl, f)
    for f, rows in (
        ("statdp_1_data.log", (
            ("SparseVectorTechnique1", "lyu-1", 1, "0.5", _E, 0.029753775766650392, 310, 343.6455498114228, 306),
            ("SparseVectorTechnique2", "lyu-2", 1, "1", _E, 0.031642012639005124, 344, 402.80159686505795, 340),
            ("SparseVectorTechnique3", "lyu-3", 1, "1", _E, 0.023061332406729917, 386, 5821.140539623797, 382),
            ("SparseVectorTechnique4", "lyu-4", 1, "1", _E, 0.17085960551924195, 420, 555.6142663732171, 416),
            ("SparseVectorTechnique5", "lyu-5", None, "1", Fraction(1, 20), 14.314308557571438, 470, 351.25996897369623, 466),
            ("SparseVectorTechnique6", "lyu-6", None, "1", _E, 0.32203660515097443, 508, 755.0389085188508, 504),
        )),
        ("statdp_2_data.log", (
            ("SparseVectorTechnique1", "lyu-1", 1, "0.5", _E, 0.029845918933959936, 310, 352.15396144241095, 306),
            ("SparseVectorTechnique2", "lyu-2", 1, "1", _E, 0.040683452034789624, 344, 403.43425641208887, 340),
            ("SparseVectorTechnique3", "lyu-3", 1, "1", _E, 0.17928544503534738, 386, 5857.094607621431, 382),
            ("SparseVectorTechnique4", "lyu-4", 1, "1", _E, 0.17190839183318207, 420, 554.1250668913126, 416),
            ("SparseVectorTechnique5", "lyu-5", None, "1", Fraction(1, 20), 14.314307341616473, 470, 357.6701031923294, 466),
            ("SparseVectorTechnique6", "lyu-6", None, "1", _E, 0.3199544091460842, 508, 764.5717121437192, 504),
        )),
    )
    for m, p, c, t, e, lb, lbl, s, sl in rows
)


def published_for(preset: str, cutoff: int | None, tool: str = "DP-Sniper") -> list[PublishedLowerBound]:
    """The published rows of ``tool`` for an svt-verify preset at a cutoff.

    >>> [r.lower_bound for r in published_for("lyu-1", 1)]
    [0.08579843744077742]
    >>> [round(r.seconds) for r in published_for("lyu-3", 1, "StatDP")]
    [5821, 5857]
    """
    pool = {"DP-Sniper": DP_SNIPER, "DP-Sniper (MLP)": DP_SNIPER_MLP, "StatDP": STATDP}.get(tool)
    if pool is None:
        raise ValueError(f"tool: {tool!r} is not one of DP-Sniper, DP-Sniper (MLP), StatDP")
    return [r for r in pool if r.preset == preset and r.cutoff == cutoff]


@dataclass(frozen=True)
class PaperClaim:
    """What a paper states about a variant (compared with the computed verdicts in docs, never used to decide)."""

    preset: str
    statement: str
    source: str


LYU_CLAIMS: tuple[PaperClaim, ...] = (
    PaperClaim("lyu-1", "ε-DP (the paper's recommended SVT with cutoff c)", "Lyu, Su, Li, PVLDB 10(6) 2017, Thm 2 / Alg. 1"),
    PaperClaim("lyu-2", "ε-DP (threshold resampled after each positive answer)", "Lyu et al. 2017, Alg. 2 (Dwork-Roth's version)"),
    PaperClaim("lyu-3", "not ε'-DP for any finite ε' (releases the noisy query)", "Lyu et al. 2017, §3.3, Alg. 3"),
    PaperClaim("lyu-4", "((1 + 6c)/4)·ε-DP, not ε-DP", "Lyu et al. 2017, §3.3, Alg. 4"),
    PaperClaim("lyu-5", "not ε'-DP for any finite ε' (no query noise)", "Lyu et al. 2017, §3.3, Alg. 5"),
    PaperClaim("lyu-6", "not ε'-DP for any finite ε' (no cutoff)", "Lyu et al. 2017, §3.3, Alg. 6"),
)
