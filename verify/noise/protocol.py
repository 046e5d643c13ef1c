"""The protocol of a noise family: what every path of the verifier asks of a noise law.

Modelled on dp_accounting's ``AdditiveNoisePrivacyLoss`` and its subclasses
(``LaplacePrivacyLoss``, ``GaussianPrivacyLoss``, ``DiscreteLaplacePrivacyLoss``
in ``python/dp_accounting/pld/privacy_loss_mechanism.py``): one class per
family, holding the family's formulas; here the scale ``b`` is a parameter of
every method, so that one stateless object serves every `verify.noise.Noise`
of its family (``Noise(family, scale).law``).

What a family gives
-------------------
* ``name`` (the word the command line and JSON use) and ``symbol`` (``Lap``).
* Its float64 kernel, vectorised and accurate in both tails:
  ``log_pdf``, ``log_cdf`` with ``F(x) = Pr[X < x]`` and ``log_sf`` with
  ``S(x) = Pr[X >= x]`` (the strict / non-strict split is the seed's test
  ``q_i + X_i >= t + Z``), plus ``pdf`` and ``cdf_below``.
* Its sampler (numpy ``Generator``, seeded by the caller).
* Its mpmath forms ``mp_pdf``, ``mp_cdf``, ``mp_sf`` (the oracles) and
  ``arb_tail`` (a ball enclosing a tail probability, for certification).
* ``piecewise``: the density is piecewise exponential,
  ``w₋·λe^{λx}`` on ``x < 0`` and ``w₊·λe^{-λx}`` on ``x >= 0`` with exact weights
  ``lower_weight = w₋`` and ``upper_weight = w₊`` (Laplace ½, ½; exponential 0, 1),
  so the closed form of `verify.engine.piecewise` applies; ``kinks`` lists where a
  piecewise density changes branch (``0``).
* ``two_sided``: the support is the whole line (else ``[0, ∞)``).
* The log-Lipschitz constants used by the proven bounds:
  ``density_lipschitz(b)``, a ``L`` with ``|log p(x) - log p(y)| <= L|x - y|``
  wherever ``p > 0``, and ``sf_lipschitz(b)`` for ``log S``; ``None`` where no
  such constant exists (the Gaussian's log density is quadratic; the
  exponential density jumps at 0).
* ``density_mode(b)``: a rational upper bound on the density's maximum.

A discrete family
-----------------
A family on the integers (discrete Laplace, discrete Gaussian; Canonne, Kamath
and Steinke, NeurIPS 2020) sets ``discrete = True`` and reads the same methods
as a probability mass function: ``log_pdf(x, b)`` is ``log Pr[X = x]`` for
integer ``x`` (``-inf`` elsewhere), ``log_cdf`` stays ``log Pr[X < x]`` and
``log_sf`` stays ``log Pr[X >= x]``, now sums over ``ℤ``.  Every probability of
the mechanism is then a sum over the integer values of the threshold noise
instead of an integral, and a tie ``q_i + X_i = t + Z`` has positive mass: the
split ``F(x) = Pr[X < x]``, ``S(x) = Pr[X >= x]`` already puts a tie on the
above side, as the seed's ``>=`` does, so ``F + S = 1`` holds with no
correction term.  A discrete family sets ``piecewise = False`` and has no
``kinks``; its oracles sum (mpmath ``nsum`` or a truncated sum with a proven
tail) rather than integrate.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np


class NoiseFamily(ABC):
    """One noise family (see the module docstring); stateless, the scale ``b`` is an argument."""

    name: ClassVar[str]
    symbol: ClassVar[str]
    #: The density is piecewise exponential with the weights below: the closed form applies.
    piecewise: ClassVar[bool] = False
    #: The support is the whole line (else [0, ∞)).
    two_sided: ClassVar[bool] = True
    #: A law on the integers (see the module docstring): discrete Laplace and discrete Gaussian.
    discrete: ClassVar[bool] = False
    #: No noise at all: X = 0.
    is_none: ClassVar[bool] = False
    #: Piecewise exponential weights w₋ (mass on x < 0) and w₊ (mass on x >= 0).
    lower_weight: ClassVar[Fraction | None] = None
    upper_weight: ClassVar[Fraction | None] = None
    #: Points where a piecewise density changes branch (in units of x, independent of b).
    kinks: ClassVar[tuple[Fraction, ...]] = ()

    def __repr__(self) -> str:
        return f"<noise family {self.name}>"

    # --- float64 kernel (x an array, b > 0 a float) ----------------------------------
    @abstractmethod
    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """log p(x) (a discrete family: log Pr[X = x])."""

    @abstractmethod
    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """log F(x) = log Pr[X < x]."""

    @abstractmethod
    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """log S(x) = log Pr[X >= x]."""

    @abstractmethod
    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """p(x)."""

    @abstractmethod
    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        """F(x) = Pr[X < x]."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        """Draws with numpy's ``Generator`` (the caller seeds it)."""

    # --- log of the density's maximum, float64 ---------------------------------------
    @abstractmethod
    def log_mode(self, b: float) -> float:
        """log max_x p(x)."""

    # --- mpmath forms (y and b mpf) -----------------------------------------------------
    @abstractmethod
    def mp_pdf(self, y: Any, b: Any) -> Any:
        """p(y) in mpmath."""

    @abstractmethod
    def mp_cdf(self, y: Any, b: Any) -> Any:
        """F(y) = Pr[X < y] in mpmath."""

    @abstractmethod
    def mp_sf(self, y: Any, b: Any) -> Any:
        """S(y) = Pr[X >= y] in mpmath (computed directly, not as 1 - F)."""

    def mp_cdf_u(self, y: Any, u: Any) -> Any:
        """F(y) given ``u = e^{-y/b}`` (a piecewise family: one exponential per factor; y's sign picks the branch)."""
        raise NotImplementedError(f"{self.name}: F in terms of e^(-y/b) is for piecewise exponential families")

    def mp_sf_u(self, y: Any, u: Any) -> Any:
        """S(y) given ``u = e^{-y/b}`` (a piecewise family)."""
        raise NotImplementedError(f"{self.name}: S in terms of e^(-y/b) is for piecewise exponential families")

    @abstractmethod
    def arb_tail(self, x: Any, right: bool) -> Any:
        """For a ball ``x = beyond/b >= 0``: a ball enclosing Pr[X > beyond] (right) or Pr[X < -beyond] (left)."""

    # --- exact constants --------------------------------------------------------------
    @abstractmethod
    def density_mode(self, b: Fraction) -> Fraction:
        """A rational upper bound on max_x p(x)."""

    def density_lipschitz(self, b: Fraction) -> Fraction | None:
        """L with |log p(x) - log p(y)| <= L|x - y| where p > 0, or None where none exists."""
        return None

    def sf_lipschitz(self, b: Fraction) -> Fraction | None:
        """L with |log S(x) - log S(y)| <= L|x - y| where S > 0, or None where none exists."""
        return None

    def tail_reach(self, b: float, e_folds: float) -> float:
        """Distance from the centre beyond which the tail mass is about e^{-e_folds}: ``e_folds·b``."""
        return e_folds * b
