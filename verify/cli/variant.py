"""Flags of the SVT family (issue 10) shared by ``prob`` and ``ratio``.

``--variant NAME`` picks a preset (`verify.family.presets`); ``--cutoff``,
``--threshold-policy``, ``--release`` and the release noise override it (or the
seed mechanism of the ordinary flags when no preset is named).  Output:
``--outcomes STRING`` (A above, B below) and ``--released V1,...`` (one value
per A).  Every value goes through `verify.cli.flags`; a refused value is one
line, exit 2.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from verify.cli import flags
from verify.cli.common import mechanism_from_args
from verify.errors import InputError
from verify.family import NAMES, PRESETS, Release, SparseVector, ThresholdPolicy, preset
from verify.noise import ALL_FAMILIES, NoiseSpec

#: Largest cutoff accepted on the command line.
MAX_CUTOFF = 1000
#: Largest outcome string.
MAX_OUTCOME_LETTERS = 1000


def _cutoff(text: str, name: str) -> int | None:
    if text.strip().lower() == "unlimited":
        return None
    return flags.integer(1, MAX_CUTOFF).parse(text, name)


def _outcome(text: str, name: str) -> str:
    s = flags.TEXT.parse(text, name).strip()
    if s.lower() == "all":
        return "all"
    if len(s) > MAX_OUTCOME_LETTERS or set(s) - {"A", "B"}:
        raise InputError(f"{name}: {s[:40]!r} must be a string of at most {MAX_OUTCOME_LETTERS} letters A (above) and B (below)")
    return s


CUTOFF = flags.Flag(_cutoff, "cutoff")
#: The default of --cutoff: absent (None is the parsed value of 'unlimited', which must not be mistaken for absent).
NOT_GIVEN = object()
OUTCOME = flags.Flag(_outcome, "outcome string")


def add_variant_flags(p: argparse.ArgumentParser, allow_all: bool = False) -> None:
    g = p.add_argument_group("SVT family (overrides the seed mechanism above)")
    g.add_argument("--variant", choices=NAMES, help="a named variant with its source (docs/family.md)")
    g.add_argument("--cutoff", type=CUTOFF, metavar="C|unlimited", default=NOT_GIVEN,
                   help="halt after the C-th above (default: the variant's; 1 for the seed)")
    g.add_argument("--threshold-policy", choices=[p.value for p in ThresholdPolicy], help="shared Z or resampled after every above")
    g.add_argument("--release", choices=[r.value for r in Release], help="what an above releases")
    g.add_argument("--release-noise", choices=[f for f in ALL_FAMILIES if f != "none"], help="family of the fresh release noise")
    g.add_argument("--release-scale", type=flags.NON_NEGATIVE, metavar="C", help="fresh release noise scale as a multiple of Δ/ε")
    g.add_argument("--release-absolute-scale", type=flags.NON_NEGATIVE, metavar="B", help="fresh release noise scale, absolute")
    g.add_argument("--outcomes", type=OUTCOME, metavar="STRING" + ("|all" if allow_all else ""),
                   help="the output as letters A (above) / B (below), one per query answered" + (", or all" if allow_all else ""))
    g.add_argument("--released", type=flags.vector(), metavar="V1,V2,...", help="released values, one per A")


def family_requested(args: argparse.Namespace) -> bool:
    return cutoff_given(args) or any(getattr(args, f) is not None for f in ("variant", "threshold_policy", "release", "outcomes", "released"))


def cutoff_given(args: argparse.Namespace) -> bool:
    """--cutoff was on the command line (a number, or 'unlimited', parsed to None)."""
    return getattr(args, "cutoff", NOT_GIVEN) is not NOT_GIVEN


def variant_from_args(args: argparse.Namespace) -> SparseVector:
    """The family member of the flags (values already parsed)."""
    if args.variant is not None:
        options: dict[str, object] = {}
        if cutoff_given(args) and PRESETS[args.variant].scales_with_cutoff:
            options["cutoff"] = args.cutoff
        mech = preset(args.variant, args.epsilon, args.sensitivity, args.threshold, **options)
    else:
        mech = SparseVector.from_above_threshold(mechanism_from_args(args), name="custom")
    changes: dict[str, object] = {}
    if cutoff_given(args) and mech.cutoff != args.cutoff:
        changes["cutoff"] = args.cutoff
    if args.threshold_policy is not None:
        changes["threshold_policy"] = ThresholdPolicy(args.threshold_policy)
    release = Release(args.release) if args.release is not None else mech.release
    if args.release is not None:
        changes["release"] = release
    spec = _release_spec(args)
    if release is Release.FRESH and spec is not None:
        changes["release_spec"] = spec
    elif release is Release.FRESH and mech.release_spec is None:
        raise InputError("--release fresh: give --release-noise with --release-scale or --release-absolute-scale")
    elif release is not Release.FRESH:
        if spec is not None:
            raise InputError(f"--release-noise: only for --release fresh (the release is {release.value!r})")
        changes["release_spec"] = None
    return mech.with_changes(**changes) if changes else mech


def _release_spec(args: argparse.Namespace) -> NoiseSpec | None:
    given = [args.release_noise is not None, args.release_scale is not None, args.release_absolute_scale is not None]
    if not any(given):
        return None
    if args.release_noise is None:
        raise InputError("--release-scale/--release-absolute-scale: give --release-noise too")
    if args.release_absolute_scale is not None:
        return NoiseSpec(args.release_noise, absolute=args.release_absolute_scale)
    if args.release_scale is None:
        raise InputError("--release-noise: give --release-scale C or --release-absolute-scale B")
    return NoiseSpec(args.release_noise, multiplier=args.release_scale)


def outcome_from_args(args: argparse.Namespace, mech: SparseVector, k: int) -> str:
    """--outcomes, or --output i|none translated for cutoff 1 (i → B^{i-1}A, none → B^k)."""
    if args.outcomes is not None:
        return args.outcomes
    output = getattr(args, "output", None)
    if output is None or mech.cutoff != 1:
        raise InputError("--outcomes: give the output as a string of A and B (e.g. BABA)")
    s = output.strip().lower()
    if s == "none":
        return "B" * k
    if s.isascii() and s.isdigit() and 1 <= int(s) <= k:
        return "B" * (int(s) - 1) + "A"
    raise InputError(f"--output: {output!r} is not an index 1..{k} or 'none'")


def released_from_args(args: argparse.Namespace) -> list[Fraction] | None:
    return None if args.released is None else list(args.released)
