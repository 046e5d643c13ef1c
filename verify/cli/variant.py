"""The variant flags of every command: one way to name a mechanism on the command line.

``--variant NAME`` picks a preset (`verify.family.presets`) built at the given
``--epsilon``, ``--sensitivity``, ``--threshold`` (and ``--cutoff`` where the
preset's scales grow with it).  Every other mechanism flag overrides the preset
(or the seed's Mechanism One when no preset is named): the noise families and
scales, ``--cutoff``, ``--threshold-policy``, ``--release`` and the fresh release
noise.  A preset changed by a flag is named ``NAME, modified by --flag`` in
the description every command prints, so the override is visible.  A flag
that would change nothing is refused with one line that says why: a scale
for a variable whose noise is ``none``, ``--noise`` when both variables name
their own family, a release noise without ``--release fresh``, and so on.

Outputs (``--output``, ``--outcomes``) accept every notation the tool prints
(`verify.cli.flags.OUTPUT_NOTATION`).  Every value goes through
`verify.cli.flags`; a refused value is one line, exit status 2.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from verify.cli import flags
from verify.cli.common import (
    DEFAULT_EPSILON,
    DEFAULT_NOISE,
    DEFAULT_SCALE,
    DEFAULT_SENSITIVITY,
    DEFAULT_THRESHOLD,
    given,
    value_or,
)
from verify.comparison import Comparison
from verify.errors import InputError
from verify.family import NAMES, PRESETS, Release, SparseVector, ThresholdPolicy, preset
from verify.mechanism import NO_HALT, SEED_NAME, SEED_SOURCE, Output
from verify.noise import ALL_FAMILIES, NoiseSpec, family_type
from verify.release import release_rule

#: Flags that only a member of the SVT family has (the seed's AboveThreshold has none of them).
FAMILY_DESTS = ("variant", "cutoff", "threshold_policy", "compare", "release", "release_noise", "release_scale", "release_absolute_scale")
#: Flags that change a variable's noise.
NOISE_DESTS = ("noise", "threshold_noise", "query_noise", "threshold_scale", "query_scale",
               "threshold_absolute_scale", "query_absolute_scale")
#: Flags that name an output of the family's model.
OUTCOME_DESTS = ("outcomes", "released")


def add_variant_flags(p: argparse.ArgumentParser) -> None:
    """--variant, --cutoff, --threshold-policy, --release and the fresh release noise."""
    g = p.add_argument_group("SVT family (each flag given overrides --variant, or the seed's Mechanism One without it)")
    g.add_argument("--variant", choices=NAMES, help="a named variant with its source (docs/family.md)")
    g.add_argument("--cutoff", type=flags.CUTOFF, metavar="C|unlimited",
                   help="halt after the C-th above, or never (default: the variant's; 1 for the seed)")
    g.add_argument("--threshold-policy", choices=[p.value for p in ThresholdPolicy], help="shared Z or resampled after every above")
    g.add_argument("--release", choices=[r.value for r in Release], help="what an above releases")
    g.add_argument("--compare", choices=[c.value for c in Comparison],
                   help="the test q_i + X_i >= t̂ (ge, the seed's) or > (gt); the same law for continuous noise")
    g.add_argument("--release-noise", choices=[f for f in ALL_FAMILIES if f != "none"],
                   help="family of the fresh release noise (--release fresh; default: the variant's)")
    g.add_argument("--release-scale", type=flags.NON_NEGATIVE, metavar="C", help="fresh release noise scale as a multiple of Δ/ε")
    g.add_argument("--release-absolute-scale", type=flags.NON_NEGATIVE, metavar="B", help="fresh release noise scale, absolute")


def add_output_flags(p: argparse.ArgumentParser, allow_all: bool = False) -> None:
    """--output / --outcomes (one output in any notation; ``all`` where allowed) and --released."""
    g = p.add_argument_group("output (" + flags.OUTPUT_NOTATION + ")")
    more = "|all" if allow_all else ""
    default = " (default all)" if allow_all else ""
    g.add_argument("--output", type=flags.OUTPUT, metavar="{i|s_i|none|STRING" + more + "}",
                   help="the output" + default + ", e.g. 2, s_2 or BA; none or ⊤^k for B^k")
    g.add_argument("--outcomes", type=flags.OUTPUT, metavar="STRING" + more,
                   help="the same as --output (give one of the two), e.g. BABA" + (", or all" if allow_all else ""))
    g.add_argument("--released", type=flags.vector(), metavar="V1,V2,...", help="released values, one per A")


# --- the mechanism ---------------------------------------------------------------------------


def variant_from_args(args: argparse.Namespace) -> SparseVector:
    """The family member of the flags (values already parsed); every flag given is applied or refused."""
    eps = value_or(args, "epsilon", DEFAULT_EPSILON)
    sens = value_or(args, "sensitivity", DEFAULT_SENSITIVITY)
    t = value_or(args, "threshold", DEFAULT_THRESHOLD)
    name = getattr(args, "variant", None)
    cutoff = getattr(args, "cutoff", None)
    if args.noise is not None and args.threshold_noise is not None and args.query_noise is not None:
        raise InputError(f"--noise {args.noise}: --threshold-noise and --query-noise are both given, so --noise would change nothing")
    scales_with_cutoff = name is not None and PRESETS[name].scales_with_cutoff
    if name is not None:
        options = {"cutoff": None if cutoff == flags.UNLIMITED else cutoff} if cutoff is not None and scales_with_cutoff else {}
        mech = preset(name, eps, sens, t, **options)
        origin = name
    else:
        base = NoiseSpec(value_or(args, "noise", DEFAULT_NOISE), multiplier=DEFAULT_SCALE)
        mech = SparseVector(eps, sens, t, base, base, cutoff=1, name="custom",
                            source="the noise flags (default: the seed's Mechanism One)")
        origin = "--noise none" if base.is_none else "the seed"
    changes: dict[str, object] = {
        "threshold_spec": _noise(args, mech.threshold_spec, "threshold", origin, name is not None),
        "query_spec": _noise(args, mech.query_spec, "query", origin, name is not None),
    }
    if args.noise is not None:
        hit = [s for s in (changes["threshold_spec"], changes["query_spec"]) if s.family == args.noise]
        if not hit:
            raise InputError(f"--noise {args.noise}: neither the threshold nor the query noise has this family after the other "
                             "flags (a scale of 0 is no noise; a per-variable family overrides --noise), so it would change nothing")
    if cutoff is not None and not scales_with_cutoff:
        changes["cutoff"] = None if cutoff == flags.UNLIMITED else cutoff
    if getattr(args, "threshold_policy", None) is not None:
        changes["threshold_policy"] = ThresholdPolicy(args.threshold_policy)
    if getattr(args, "compare", None) is not None:
        changes["compare"] = Comparison(args.compare)
    changes.update(_release(args, mech))
    modified = given(args, *NOISE_DESTS, "threshold_policy", "compare", "release", "release_noise", "release_scale", "release_absolute_scale")
    if name is not None and cutoff is not None and not scales_with_cutoff:
        modified.insert(0, "--cutoff")
    if name is not None and modified:
        changes["name"] = f"{name}, modified by {' '.join(modified)}"
    out = mech.with_changes(**changes)
    if name is None and not given(args, *FAMILY_DESTS) and out.is_above_threshold:
        # the seed's AboveThreshold with the noises of the flags and no family flag: in the seed's words
        out = out.with_changes(name=SEED_NAME, source=SEED_SOURCE)
    return out


def _noise(args: argparse.Namespace, base: NoiseSpec, which: str, origin: str, from_preset: bool) -> NoiseSpec:
    """The ``which`` (threshold or query) noise after its flags: family, then one scale (relative or absolute)."""
    fam_flag = getattr(args, f"{which}_noise")
    rel = getattr(args, f"{which}_scale")
    ab = getattr(args, f"{which}_absolute_scale")
    if rel is not None and ab is not None:
        raise InputError(f"--{which}-scale and --{which}-absolute-scale: give one (a multiple of Δ/ε or an absolute scale), not both")
    family, said = fam_flag, f"--{which}-noise"
    if family is None and from_preset and args.noise is not None and not base.is_none:
        family, said = args.noise, "--noise"  # a preset's missing noise stays missing: --noise changes families
    if family is not None and family_type(family).is_none:
        scale = ab if ab is not None else rel
        if scale is not None and scale != 0:
            flag = f"--{which}-absolute-scale" if ab is not None else f"--{which}-scale"
            raise InputError(f"{said} none and {flag} {scale}: no noise has no scale (drop one of the two)")
        return NoiseSpec("none")
    family = family or base.family
    if family_type(family).is_none:  # the base has no noise and no family was given for it
        scale = ab if ab is not None else rel
        if scale is not None and scale != 0:
            flag = f"--{which}-absolute-scale" if ab is not None else f"--{which}-scale"
            raise InputError(f"{flag}: the {which} noise of {origin} is none; give --{which}-noise F with the scale")
        return base
    if ab is not None:
        spec = NoiseSpec(family, absolute=ab)
    elif rel is not None:
        spec = NoiseSpec(family, multiplier=rel)
    elif base.is_none and not from_preset:  # e.g. --noise none --threshold-noise laplace: the seed's scale
        spec = NoiseSpec(family, multiplier=DEFAULT_SCALE)
    elif base.is_none:
        raise InputError(f"{said} {family}: {origin} has no {which} noise, so it has no scale to keep; "
                         f"give --{which}-scale C or --{which}-absolute-scale B")
    else:
        spec = NoiseSpec(family, multiplier=base.multiplier, absolute=base.absolute)
    if fam_flag is not None and spec.is_none:
        raise InputError(f"--{which}-noise {fam_flag}: the {which} scale is 0, which is no noise (write --{which}-noise none)")
    return spec


def _release(args: argparse.Namespace, mech: SparseVector) -> dict[str, object]:
    """--release and the fresh release noise (family and one scale; the variant's where not given)."""
    rel_flag = getattr(args, "release", None)
    release = Release(rel_flag) if rel_flag is not None else mech.release
    out: dict[str, object] = {} if rel_flag is None else {"release": release}
    noise_flags = given(args, "release_noise", "release_scale", "release_absolute_scale")
    if not release_rule(release).needs_release_noise:
        if noise_flags:
            wants = " or ".join(f"--release {r.value}" for r in Release if release_rule(r).needs_release_noise)
            raise InputError(f"{noise_flags[0]}: only with {wants} (the release is {release.value!r})")
        out["release_spec"] = None
        return out
    rs, ra = getattr(args, "release_scale", None), getattr(args, "release_absolute_scale", None)
    if rs is not None and ra is not None:
        raise InputError("--release-scale and --release-absolute-scale: give one, not both")
    base = mech.release_spec
    family = args.release_noise or (base.family if base is not None else None)
    if family is None:
        raise InputError("--release fresh: give --release-noise F with --release-scale C or --release-absolute-scale B")
    if ra is not None:
        spec = NoiseSpec(family, absolute=ra)
    elif rs is not None:
        spec = NoiseSpec(family, multiplier=rs)
    elif base is not None:
        spec = NoiseSpec(family, multiplier=base.multiplier, absolute=base.absolute)
    else:
        raise InputError("--release fresh: give --release-scale C or --release-absolute-scale B with --release-noise")
    out["release_spec"] = spec
    return out


def family_requested(args: argparse.Namespace, mech: SparseVector) -> bool:
    """Whether a command with a seed path and a family path takes the family's: a family flag
    or an outcome flag was given, or the mechanism is not the seed's AboveThreshold (e.g. Gaussian noise)."""
    return bool(given(args, *FAMILY_DESTS, *OUTCOME_DESTS)) or not mech.is_above_threshold


def seed_mechanism(args: argparse.Namespace, command: str) -> SparseVector:
    """The mechanism of the flags for a command that checks the seed's AboveThreshold only."""
    mech = variant_from_args(args)
    if not mech.is_above_threshold:
        raise InputError(f"{command} checks AboveThreshold (cutoff 1, no release, Laplace/exponential/none noise) only, "
                         f"not {mech.describe()}")
    if getattr(args, "threshold_policy", None) not in (None, ThresholdPolicy.SHARED.value):
        raise InputError(f"--threshold-policy {args.threshold_policy}: {command} checks AboveThreshold (cutoff 1), "
                         "whose run halts at the first A, before any resampling")
    return mech


def seed_label(args: argparse.Namespace) -> str:
    """``"NAME: "`` when a preset was named (the seed path prints AboveThreshold's description), else ``""``."""
    name = getattr(args, "variant", None)
    return "" if name is None else f"{name}: "


# --- outputs ---------------------------------------------------------------------------------


def output_given(args: argparse.Namespace) -> int | str | None:
    """The output of --output or --outcomes (both refused), in `verify.cli.flags.OUTPUT`'s form, or None."""
    out, outs = getattr(args, "output", None), getattr(args, "outcomes", None)
    if out is not None and outs is not None:
        raise InputError("--output and --outcomes: give the output once (both take every notation)")
    return outs if out is None else out


def outcome_from_args(args: argparse.Namespace, mech: SparseVector, k: int, allow_all: bool = False) -> str:
    """The output as an outcome string (``s_i``/i -> B^{i-1}A, none -> B^k), or ``"all"`` where allowed;
    the variant checks that it can produce the string."""
    out = output_given(args)
    if out is None:
        if allow_all:
            return "all"
        raise InputError("--output: required, e.g. --output BABA, --output 2 (s_2 = BA) or --output none (B^k)")
    if out == "all":
        if not allow_all:
            raise InputError("--output: 'all' is for the ratio command; give one output")
        return "all"
    if isinstance(out, int):
        if not 1 <= out <= k:
            raise InputError(f"--output: s_{out} is outside 1..{k} (k = {k} queries)")
        return "B" * (out - 1) + "A"
    if out == "none":
        return "B" * k
    mech.check_outcome(out, k)
    return out


def seed_output(args: argparse.Namespace, k: int, allow_all: bool = False) -> Output | None:
    """The output for the seed's AboveThreshold: i for s_i, `NO_HALT` for ⊤^k, None for all (where allowed)."""
    out = output_given(args)
    if out is None and allow_all:
        return None
    if out is None:
        raise InputError("--output: required (i or s_i for s_i = B^{i-1}A, none for ⊤^k = B^k), or give --outcomes STRING")
    if out == "all":
        if not allow_all:
            raise InputError("--output: 'all' is for the ratio command; give one output")
        return None
    if out == "none":
        return NO_HALT
    if isinstance(out, str):  # letters: AboveThreshold's outputs are B^{i-1}A and B^k
        if out == "B" * k:
            return NO_HALT
        if out.endswith("A") and out[:-1] == "B" * (len(out) - 1) and len(out) <= k:
            return len(out)
        raise InputError(f"--output: {out!r} is not an output of AboveThreshold with k = {k} queries "
                         f"(s_i = B^(i-1)A for i <= {k}, or ⊤^k = {'B' * min(k, 5)}{'…' if k > 5 else ''})")
    if not 1 <= out <= k:
        raise InputError(f"--output: s_{out} is outside 1..{k} (k = {k} queries)")
    return out


def released_from_args(args: argparse.Namespace) -> list[Fraction] | None:
    return None if args.released is None else list(args.released)
