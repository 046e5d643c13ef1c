"""Report Noisy Max presets, each read from its source (file and line cited; docs/selection.md).

Every preset is built at the ε and Δ the caller gives; its noise scale is a multiple of Δ/ε exactly as
the source writes it (the peers' programs take Δ = 1: their scale ``2/ε`` is 2·Δ/ε).

DP-Sniper (eth-sri/dp-sniper, ``dpsniper/mechanisms/report_noisy_max.py`` at commit a4a2037):
``ReportNoisyMax1``–``4`` are Ding et al., CCS 2018, Alg. 5–8.
  * RNM1 (class at line 5): ``np.random.laplace(scale=2/self.eps)`` (line 19), ``np.argmax`` (line 20);
  * RNM2 (line 23): ``np.random.exponential(scale=2/self.eps)`` (line 37), ``np.argmax`` (line 38);
  * RNM3 (line 41): Laplace ``2/self.eps`` (line 55), ``np.amax``: the noisy value (line 56);
  * RNM4 (line 59): exponential ``2/self.eps`` (line 73), ``np.amax`` (line 74).

StatDP (cmla-psu/statdp, ``statdp/algorithms.py`` at commit 747fad6):
  * ``noisy_max_v1a`` (line 32): Laplace ``scale=2.0 / epsilon``, ``.argmax()`` (line 34);
  * ``noisy_max_v1b`` (line 37, "INCORRECT: returning maximum value instead of the index"): Laplace
    ``2.0 / epsilon``, ``.max()`` (line 39);
  * ``noisy_max_v2a`` (line 42): exponential ``2.0 / epsilon``, ``.argmax()`` (line 43);
  * ``noisy_max_v2b`` (line 46, "INCORRECT"): exponential ``2.0 / epsilon``, ``.max()`` (line 48).

CheckDP (cmla-psu/checkdp at commit 01e31ae), precondition ``ALL_DIFFER`` (line 4: every query moves
by at most 1, any direction):
  * ``examples/noisymax.c``: ``eta = Lap(2 / epsilon)`` (line 12), ``max = i`` (line 16): the index;
  * ``examples/badnoisymax.c``: the same noise (line 12), ``max = q[i] + eta`` (line 16): the noisy
    value.  (The C program stores it in an ``int``, a truncation the model does not apply: the model
    releases the value itself.)

OpenDP (opendp/opendp ``rust/src/measurements/noisy_top_k/mod.rs`` at commit 9d4509d,
``make_noisy_top_k``'s privacy map, reached from ``make_noisy_max`` in
``rust/src/measurements/noisy_max/mod.rs`` with k = 1): the range distance is d = Δ if the metric is
monotonic, else 2Δ (``d_in.inf_add(&d_in)``); under ``MaxDivergence`` the noise is exponential
(``exponential_top_k``) and ε = d/scale; under ``ZeroConcentratedDivergence`` it is Gumbel
(``gumbel_top_k``) and ρ = (d/scale)²/8.  The presets take scale = d/ε (so the pure map gives ε,
and the zCDP map ρ = ε²/8); ``negate`` is ``optimize = min`` (one preset shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verify.errors import InputError
from verify.selection.model import Optimize, ReportNoisyMax, SelectionOutput

_DPSNIPER = "eth-sri/dp-sniper dpsniper/mechanisms/report_noisy_max.py"
_STATDP = "cmla-psu/statdp statdp/algorithms.py"
_CHECKDP = "cmla-psu/checkdp examples/"
_OPENDP = "opendp/opendp rust/src/measurements/noisy_top_k/mod.rs (make_noisy_top_k's privacy map)"


@dataclass(frozen=True)
class SelectionPreset:
    """A named Report Noisy Max: family, scale multiple, output, monotone, optimize, source, claim."""

    name: str
    family: str
    scale: Fraction
    output: SelectionOutput
    source: str
    claimed: str
    monotone: bool = False
    optimize: Optimize = Optimize.MAX
    zcdp: bool = False

    def build(self, epsilon: object, sensitivity: object) -> ReportNoisyMax:
        mech = ReportNoisyMax(epsilon, sensitivity, self.family, self.scale, self.output, self.monotone, self.optimize,
                              name=self.name, source=self.source, claimed=self.claimed)
        if self.zcdp:
            return mech.with_changes(claimed_rho=mech.epsilon**2 / 8)
        return mech


def _p(name: str, family: str, output: SelectionOutput, source: str, claimed: str, scale: int = 2, **kw) -> SelectionPreset:
    return SelectionPreset(name, family, Fraction(scale), output, source, claimed, **kw)


_I, _V = SelectionOutput.INDEX, SelectionOutput.VALUE
_LIST: tuple[SelectionPreset, ...] = (
    _p("dpsniper-rnm1", "laplace", _I, f"{_DPSNIPER}:19-20 (ReportNoisyMax1; Ding et al. CCS 2018 Alg. 5)", "ε-DP"),
    _p("dpsniper-rnm2", "exponential", _I, f"{_DPSNIPER}:37-38 (ReportNoisyMax2; Alg. 6)", "ε-DP"),
    _p("dpsniper-rnm3", "laplace", _V, f"{_DPSNIPER}:55-56 (ReportNoisyMax3; Alg. 7)", "ε-DP (wrongly: releases the value)"),
    _p("dpsniper-rnm4", "exponential", _V, f"{_DPSNIPER}:73-74 (ReportNoisyMax4; Alg. 8)", "ε-DP (wrongly: releases the value)"),
    _p("statdp-noisy-max-v1a", "laplace", _I, f"{_STATDP}:32-34 (noisy_max_v1a)", "ε-DP"),
    _p("statdp-noisy-max-v1b", "laplace", _V, f"{_STATDP}:37-39 (noisy_max_v1b, marked INCORRECT)", "none (marked INCORRECT)"),
    _p("statdp-noisy-max-v2a", "exponential", _I, f"{_STATDP}:42-43 (noisy_max_v2a)", "ε-DP"),
    _p("statdp-noisy-max-v2b", "exponential", _V, f"{_STATDP}:46-48 (noisy_max_v2b, marked INCORRECT)", "none (marked INCORRECT)"),
    _p("checkdp-noisymax", "laplace", _I, f"{_CHECKDP}noisymax.c:12,16", "ε-DP (CheckDP: proved)"),
    _p("checkdp-badnoisymax", "laplace", _V, f"{_CHECKDP}badnoisymax.c:12,16", "ε-DP (CheckDP: counterexample)"),
    _p("opendp-noisy-max-pure", "exponential", _I, f"{_OPENDP}: MaxDivergence, monotonic = false, scale 2Δ/ε",
       "ε = 2Δ/scale (MaxDivergence)"),
    _p("opendp-noisy-max-pure-monotone", "exponential", _I, f"{_OPENDP}: MaxDivergence, monotonic = true, scale Δ/ε",
       "ε = Δ/scale (MaxDivergence)", scale=1, monotone=True),
    _p("opendp-noisy-max-zcdp", "gumbel", _I, f"{_OPENDP}: ZeroConcentratedDivergence, monotonic = false, scale 2Δ/ε",
       "ρ = (2Δ/scale)²/8 (zCDP)", zcdp=True),
    _p("opendp-noisy-max-zcdp-monotone", "gumbel", _I, f"{_OPENDP}: ZeroConcentratedDivergence, monotonic = true, scale Δ/ε",
       "ρ = (Δ/scale)²/8 (zCDP)", scale=1, monotone=True, zcdp=True),
    _p("opendp-noisy-min-pure", "exponential", _I, f"{_OPENDP}: MaxDivergence, negate = true, monotonic = false, scale 2Δ/ε",
       "ε = 2Δ/scale (MaxDivergence)", optimize=Optimize.MIN),
)

#: Presets by name.
SELECTION_PRESETS: dict[str, SelectionPreset] = {p.name: p for p in _LIST}
#: Their names, in the order listed.
SELECTION_NAMES: tuple[str, ...] = tuple(SELECTION_PRESETS)


def selection_preset(name: str, epsilon: object = 1, sensitivity: object = 1) -> ReportNoisyMax:
    """The preset ``name`` at ε and Δ (`InputError` for an unknown name)."""
    if name not in SELECTION_PRESETS:
        raise InputError(f"variant: {name!r} is not a Report Noisy Max preset ({', '.join(SELECTION_NAMES)})")
    return SELECTION_PRESETS[name].build(epsilon, sensitivity)


def is_selection_preset(name: object) -> bool:
    """Whether ``name`` names a Report Noisy Max preset."""
    return isinstance(name, str) and name in SELECTION_PRESETS

