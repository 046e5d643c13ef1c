"""The protocol of a release rule: what an above (A) releases, and what every path asks of that.

A release rule of the SVT family (Lyu, Su, Li 2017, Algorithms 1-3, 5, 7;
`verify.mechanism.SparseVector`) says which number an above query releases
besides its letter.  Conditioned on the noisy threshold t + Z = t + z (seed,
Proof 1), an outcome's probability (a density in the released values) is

    ∫ p_Z(z) Π_B F_X(z - a_i) Π_A G_i(z) dz · Π_A c_i,      a_i = q_i - t,

and a rule is fully described by the shape of G_i, the constant c_i and two
side conditions.  Every path reads those *attributes*, never the rule's name
(`tests/test_one_model.py`):

* ``above_term``: the factor of an A inside the threshold integral, a `TermKind`:
  ``ABOVE`` is S_X(z - a_i) (the letter alone); ``DENSITY`` is
  p_X(g_i + t + z - q_i) = p_X(z - (a_i - g_i)) for a released value g_i (the
  released number is a function of X_i and Z: its density replaces the event);
  ``None``: no factor (the event becomes a cap, below).
* ``constant``: the noise (a `Role`: the query noise X or the release noise Y)
  whose density at v_i - q_i multiplies the integral, or None.
* ``caps_threshold``: the release q_i + X_i = v_i reveals X_i, and the event
  q_i + X_i >= t + z becomes the cap z <= v_i - t.
* ``nonnegative``: released values below 0 have density 0 (a gap).

The structured worst-case search (`verify.family.structured`,
`verify.family.worstcase`) places the released value by ``placement`` (a
`Placement`) and, with ``search_moves``, runs a second phase where the value
moves off its A query and the A query may move up.  The sampler draws a
released value with `ReleaseRule.draw`; the proven bounds read ``above_term``
(which log-Lipschitz constant of X the change of variables needs),
``constant`` (a release noise's density adds c·Δ·L_Y), ``bound_blocker`` (no
change of variables exists) and ``bound_case`` (the case's name in the bound's
source).  A rule object is stateless: the mechanism is an argument.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from verify.mechanism import SparseVector
    from verify.noise import Noise


class TermKind(StrEnum):
    """A factor of the threshold integral, a function of z; ``x`` its exact offset relative to t."""

    BELOW = "F"  # F_X(z - x)
    ABOVE = "S"  # S_X(z - x)
    DENSITY = "p"  # p_X(z - x)


class Role(StrEnum):
    """Which of the mechanism's noises a released value's constant density belongs to."""

    QUERY = "query"  # X_i: the value is q_i + X_i
    RELEASE = "release"  # Y_i: a fresh draw of the release noise


class Placement(StrEnum):
    """Where the structured search puts the released value r (relative to t) of its A queries at t + v."""

    NONE = "none"  # nothing released: r unused (0)
    AT_QUERY = "at query"  # the value at its A query, r = v + offset (the offset held at 0 unless the value moves)
    FREE = "free"  # r is its own coordinate >= 0 (grid `GAP_STEPS`, |r| in the refinement): a gap


class ReleaseRule(ABC):
    """One release rule (module docstring); subclasses set the class attributes and `draw`."""

    #: The word the command line and JSON use (a `verify.release.Release` value).
    name: ClassVar[str]
    #: The released value as a formula (`docs/family.md`).
    formula: ClassVar[str]
    releases_values: ClassVar[bool] = True
    above_term: ClassVar[TermKind | None] = TermKind.ABOVE
    constant: ClassVar[Role | None] = None
    caps_threshold: ClassVar[bool] = False
    nonnegative: ClassVar[bool] = False
    placement: ClassVar[Placement] = Placement.AT_QUERY
    search_moves: ClassVar[bool] = False
    #: Why no change-of-variables bound exists (`verify.family.bounds`), or None.
    bound_blocker: ClassVar[str | None] = None
    #: Appended to the bound's source: the case of `verify.family.bounds` this rule adds ("" for none).
    bound_case: ClassVar[str] = ""

    @property
    def needs_release_noise(self) -> bool:
        """The mechanism must carry a release noise Y (``release_spec``)."""
        return self.constant is Role.RELEASE

    @property
    def needs_query_density(self) -> bool:
        """A released value's density is the query noise's: X must have one (not 'none')."""
        return self.constant is Role.QUERY or self.above_term is TermKind.DENSITY

    def constant_noise(self, mech: SparseVector) -> Noise | None:
        """The noise whose density at v_i - q_i multiplies the output's integral, or None."""
        if self.constant is Role.QUERY:
            return mech.query_noise
        if self.constant is Role.RELEASE:
            return mech.release_noise
        return None

    def term_offset(self, a: Any, value: Any) -> Any:
        """The offset x of the A's factor ``above_term`` (z - x), from a = q_i - t and the released value:
        a - g for a density in the gap g, else a."""
        return a - value if self.above_term is TermKind.DENSITY else a

    def search_value(self, t: Any, r: Any) -> Any:
        """The released value of a search point whose value coordinate is r (relative to t, a gap as is)."""
        return r if self.placement is Placement.FREE else t + r

    @abstractmethod
    def draw(self, noisy: np.ndarray, t_hat: np.ndarray, query: float, release_noise: Noise | None,
             rng: np.random.Generator, runs: int) -> np.ndarray | None:
        """The released values of ``runs`` runs at one query (``noisy`` = q_i + X_i, ``t_hat`` = t + Z);
        None when nothing is released.  A rule that draws fresh noise draws it from ``rng`` here."""

    @abstractmethod
    def noiseless_value(self, query: Fraction, threshold: Fraction) -> Fraction | None:
        """The value released at an above query when every noise is 0 (None when nothing is released)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
