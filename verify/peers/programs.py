"""Every SVT and Report Noisy Max program of DP-Sniper, StatDP and CheckDP, with the model that expresses it.

Sources (each program's line is in its record):

* DP-Sniper (eth-sri/dp-sniper@ee087b2): ``dpsniper/mechanisms/sparse_vector_technique.py``
  (SparseVectorTechnique1-6, NumericalSVT), ``dpsniper/mechanisms/report_noisy_max.py``
  (ReportNoisyMax1-4), ``dpsniper/mechanisms/parallel.py`` (SVT34Parallel); configuration
  ``dpsniper/experiments/exp_default.py`` (ε = 0.1 by default; RNM on 5 scores in [-10, 10], SVT on 10
  queries).  Published lower bounds: ``eval_sp2021/reference-results/dd_search_reg_data.log`` (SVT rows:
  `verify.family.literature`; RNM rows: lines 40, 48, 56, 64, ``eps_lcb``).
* StatDP (cmla-psu/statdp@747fad6 ``statdp/algorithms.py``: SVT, iSVT1-4, noisy_max_v1a/v1b/v2a/v2b) as
  DP-Sniper's authors ran it (``statdpwrapper/experiments/mechanism_config.py`` lines 30-52: ε = 0.1,
  iSVT1 at 0.05; their ReportNoisyMax1-4 are StatDP's noisy_max_v1a, v2a, v1b, v2b).  Published lower
  bounds: ``statdp_1_data.log`` and ``statdp_2_data.log`` (SVT rows: `verify.family.literature`; RNM rows:
  lines 178, 208, 242, 276 of each, ``statdp_result.eps_lcb``).  StatDP's SVT programs release a
  post-processed statistic (a count of False answers, a Hamming distance): the verdict here is on the
  whole transcript, which post-processing can only make more private.
* CheckDP (cmla-psu/checkdp@01e31ae ``examples/``): the 13 programs that are SVT or RNM (the other four,
  ``partialsum``, ``badpartialsum``, ``smartsum``, ``badsmartsum``, are neither).  CheckDP's verdict:
  ``proved`` for the correct programs, ``counterexample`` for the ones whose source marks the error
  (``ERROR`` / ``INCORRECT`` comments, and the ``bad`` prefix).  Each runs here at ε = 1, Δ = 1, T = 0,
  NN = 1 (CheckDP checks symbolic ε, T in [-10, 10], NN >= 1; σ = 16 of the adaptive programs is the
  value at ε = 1, NN = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verify.family.literature import STATDP, published_for

_E10, _E1 = Fraction(1, 10), Fraction(1)
_DPS = "eth-sri/dp-sniper@ee087b2 "
_STATDP = "cmla-psu/statdp@747fad6 statdp/algorithms.py"
_CDP = "cmla-psu/checkdp@01e31ae examples/"
_LOGS = "eth-sri/dp-sniper@ee087b2 eval_sp2021/reference-results/"


@dataclass(frozen=True)
class Job:
    """One model to judge.  ``kind``: ``svt`` (a `SparseVector`: preset or explicit Laplace scales),
    ``rnm`` (a Report Noisy Max preset), ``adaptive`` (an Adaptive SVT preset)."""

    kind: str
    name: str
    epsilon: Fraction
    threshold: Fraction = Fraction(0)
    cutoff: int | None = 1
    monotone: bool = False
    #: explicit scales (threshold, query; multiples of Δ/ε, as the program draws them) and release for an SVT
    #: that no preset names
    scales: tuple[Fraction, Fraction] | None = None
    release: str = "none"


@dataclass(frozen=True)
class Published:
    """A peer's published lower bound (nats) and where it was read."""

    tool: str
    value: float
    citation: str


@dataclass(frozen=True)
class PeerProgram:
    tool: str
    program: str
    source: str
    job: Job | None
    published: tuple[Published, ...] = ()
    checkdp: str = ""
    reason: str = ""
    note: str = ""


def _svt_published(preset: str, cutoff: int | None) -> tuple[Published, ...]:
    rows = published_for(preset, cutoff) + published_for(preset, cutoff, "StatDP")
    return tuple(Published(r.tool, r.lower_bound, r.citation) for r in rows)


def _rnm_published(dps: float, dps_line: int, statdp: tuple[float, float], statdp_line: int) -> tuple[Published, ...]:
    return (Published("DP-Sniper", dps, f"{_LOGS}dd_search_reg_data.log line {dps_line} (eps_lcb)"),
            Published("StatDP", statdp[0], f"{_LOGS}statdp_1_data.log line {statdp_line} (statdp_result.eps_lcb)"),
            Published("StatDP", statdp[1], f"{_LOGS}statdp_2_data.log line {statdp_line} (statdp_result.eps_lcb)"))


_RNM_PUB = {
    "rnm1": _rnm_published(0.09225381318933756, 40, (0.09195171216431208, 0.0921021169451548), 178),
    "rnm2": _rnm_published(0.09750314019873763, 48, (0.09957525329005956, 0.09967230375558023), 208),
    "rnm3": _rnm_published(0.24781576679261352, 56, (0.1991418003968266, 0.1960705014773274), 242),
    "rnm4": _rnm_published(0.34634322696561437, 64, (0.19601980077941494, 0.1988300779701171), 276),
}


def _lyu(preset: str, eps: Fraction, t: Fraction, cutoff: int | None) -> Job:
    return Job("svt", preset, eps, t, cutoff)


_SVT_SRC = _DPS + "dpsniper/mechanisms/sparse_vector_technique.py"
_DPS_T = {"lyu-1": Fraction(1, 2)}

DP_SNIPER: tuple[PeerProgram, ...] = (
    *(PeerProgram("DP-Sniper", f"SparseVectorTechnique{i}", f"{_SVT_SRC}:{line}",
                  _lyu(f"lyu-{i}", _E10, _DPS_T.get(f"lyu-{i}", Fraction(1)), None if i in (5, 6) else 1),
                  tuple(p for p in _svt_published(f"lyu-{i}", None if i in (5, 6) else 1) if p.tool == "DP-Sniper"))
      for i, line in ((1, 5), (2, 53), (3, 106), (4, 155), (5, 203), (6, 238))),
    PeerProgram("DP-Sniper", "NumericalSVT", f"{_SVT_SRC}:275", Job("svt", "numeric-svt", _E10, Fraction(1), 2),
                tuple(p for p in _svt_published("numeric-svt", 2) if p.tool == "DP-Sniper")),
    *(PeerProgram("DP-Sniper", f"ReportNoisyMax{i}", f"{_DPS}dpsniper/mechanisms/report_noisy_max.py:{line}",
                  Job("rnm", f"dpsniper-rnm{i}", _E10), _RNM_PUB[f"rnm{i}"][:1])
      for i, line in ((1, 5), (2, 23), (3, 41), (4, 59))),
    PeerProgram("DP-Sniper", "SVT34Parallel", f"{_DPS}dpsniper/mechanisms/parallel.py:44", None,
                reason="runs Lyu et al.'s Alg. 3 and Alg. 4 side by side on the same queries and releases both "
                       "transcripts: one output of two SVTs, which no model here composes"),
)

_STATDP_SVT = (("SVT", 62, "lyu-1", _E10, 1), ("iSVT1", 79, "lyu-5", Fraction(1, 20), None),
               ("iSVT2", 95, "lyu-6", _E10, None), ("iSVT3", 112, "lyu-4", _E10, 1), ("iSVT4", 132, "lyu-3", _E10, 1))
_STATDP_RNM = (("noisy_max_v1a", 32, "statdp-noisy-max-v1a", "rnm1"), ("noisy_max_v1b", 37, "statdp-noisy-max-v1b", "rnm3"),
               ("noisy_max_v2a", 42, "statdp-noisy-max-v2a", "rnm2"), ("noisy_max_v2b", 46, "statdp-noisy-max-v2b", "rnm4"))

STATDP_PROGRAMS: tuple[PeerProgram, ...] = (
    *(PeerProgram("StatDP", prog, f"{_STATDP}:{line}",
                  _lyu(preset, eps, _DPS_T.get(preset, Fraction(1)), cutoff),
                  tuple(Published(r.tool, r.lower_bound, r.citation) for r in STATDP if r.preset == preset),
                  note="releases a post-processed statistic; judged on the whole transcript")
      for prog, line, preset, eps, cutoff in _STATDP_SVT),
    *(PeerProgram("StatDP", prog, f"{_STATDP}:{line}", Job("rnm", preset, _E10), _RNM_PUB[pub][1:])
      for prog, line, preset, pub in _STATDP_RNM),
)

_T0 = Fraction(0)
CHECKDP: tuple[PeerProgram, ...] = (
    PeerProgram("CheckDP", "noisymax.c", f"{_CDP}noisymax.c:12,16", Job("rnm", "checkdp-noisymax", _E1), checkdp="proved"),
    PeerProgram("CheckDP", "badnoisymax.c", f"{_CDP}badnoisymax.c:12,16", Job("rnm", "checkdp-badnoisymax", _E1),
                checkdp="counterexample"),
    PeerProgram("CheckDP", "sparsevector.c", f"{_CDP}sparsevector.c:8,15,17", _lyu("lyu-1", _E1, _T0, 1), checkdp="proved"),
    PeerProgram("CheckDP", "badsparsevector1.c", f"{_CDP}badsparsevector1.c:8,13,16", _lyu("lyu-5", _E1, _T0, None),
                checkdp="counterexample"),
    PeerProgram("CheckDP", "badsparsevector2.c", f"{_CDP}badsparsevector2.c:8,14,17", _lyu("lyu-6", _E1, _T0, None),
                checkdp="counterexample"),
    PeerProgram("CheckDP", "badsparsevector3.c", f"{_CDP}badsparsevector3.c:8,16", _lyu("lyu-4", _E1, _T0, 1),
                checkdp="counterexample"),
    PeerProgram("CheckDP", "gapsparsevector.c", f"{_CDP}gapsparsevector.c:8,15,19", _lyu("gap-svt", _E1, _T0, 1),
                checkdp="proved"),
    PeerProgram("CheckDP", "badgapsparsevector.c", f"{_CDP}badgapsparsevector.c:8,15,20",
                Job("svt", "badgapsparsevector", _E1, _T0, 1, scales=(Fraction(2), Fraction(4)), release="query"),
                checkdp="counterexample"),
    PeerProgram("CheckDP", "numsparsevector.c", f"{_CDP}numsparsevector.c:7,14,17", _lyu("numeric-svt", _E1, _T0, 1),
                checkdp="proved"),
    *(PeerProgram("CheckDP", f"svt_{d}.c", f"{_CDP}svt_{d}.c:4,8,15",
                  Job("svt", "svt-monotone", _E1, _T0, 1, monotone=True, scales=(Fraction(2), Fraction(2))),
                  checkdp="proved", note=f"{d.upper()} neighbours; judged over monotone neighbours of either sign (a superset)")
      for d in ("increasing", "decreasing")),
    PeerProgram("CheckDP", "adaptivesparsevector.c", f"{_CDP}adaptivesparsevector.c:8-35",
                Job("adaptive", "checkdp-adaptive-svt", _E1), checkdp="proved"),
    PeerProgram("CheckDP", "badadaptivesparsevector.c", f"{_CDP}badadaptivesparsevector.c:8-36",
                Job("adaptive", "checkdp-bad-adaptive-svt", _E1), checkdp="counterexample"),
)

#: Every program, in the table's order.
PROGRAMS: tuple[PeerProgram, ...] = DP_SNIPER + STATDP_PROGRAMS + CHECKDP
