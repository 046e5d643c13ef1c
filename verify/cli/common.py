"""Flags and formatting shared by the commands."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from verify.cli import flags
from verify.errors import InputError
from verify.mechanism import NO_HALT, AboveThreshold, Output
from verify.noise import FAMILIES, NoiseSpec
from verify.serialize import float_or_str, frac_str, mechanism_json, mp_str, output_json  # noqa: F401  (re-exported to the commands)
from verify.validate import shown


def add_mechanism_flags(p: argparse.ArgumentParser) -> None:
    """--noise, per-variable families and scales, ε, Δ, t (parsed by `verify.cli.flags`)."""
    g = p.add_argument_group("mechanism")
    g.add_argument("--noise", choices=["laplace", "exponential"], default="laplace",
                   help="noise family of threshold and queries (default laplace = Mechanism One; exponential = Mechanism Two)")
    g.add_argument("--threshold-noise", choices=FAMILIES, help="family of the threshold noise (overrides --noise)")
    g.add_argument("--query-noise", choices=FAMILIES, help="family of the query noise (overrides --noise)")
    g.add_argument("--threshold-scale", type=flags.NON_NEGATIVE, default="3", metavar="C",
                   help="threshold noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--query-scale", type=flags.NON_NEGATIVE, default="3", metavar="C",
                   help="query noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--threshold-absolute-scale", type=flags.NON_NEGATIVE, metavar="B",
                   help="threshold noise scale as an absolute value (overrides --threshold-scale)")
    g.add_argument("--query-absolute-scale", type=flags.NON_NEGATIVE, metavar="B",
                   help="query noise scale as an absolute value (overrides --query-scale)")
    g.add_argument("--epsilon", type=flags.POSITIVE, default="1", metavar="E", help="privacy parameter ε > 0 (default 1)")
    g.add_argument("--sensitivity", type=flags.POSITIVE, default="1", metavar="D", help="sensitivity Δ > 0 (default 1)")
    g.add_argument("--threshold", type=flags.NUMBER, default="0", metavar="T", help="threshold t (default 0)")


def _spec(family: str, relative: Fraction, absolute: Fraction | None) -> NoiseSpec:
    return NoiseSpec(family, absolute=absolute) if absolute is not None else NoiseSpec(family, multiplier=relative)


def mechanism_from_args(args: argparse.Namespace) -> AboveThreshold:
    """The mechanism of the flags of `add_mechanism_flags` (values already parsed and checked)."""
    return AboveThreshold(
        epsilon=args.epsilon,
        sensitivity=args.sensitivity,
        threshold=args.threshold,
        threshold_spec=_spec(args.threshold_noise or args.noise, args.threshold_scale, args.threshold_absolute_scale),
        query_spec=_spec(args.query_noise or args.noise, args.query_scale, args.query_absolute_scale),
    )




def parse_output(text: str, k: int, allow_all: bool = False) -> Output | None:
    """``i`` (1..k, ASCII digits), ``none``; ``all`` (returned as None) where allowed."""
    s = text.strip().lower()
    if s == "none":
        return NO_HALT
    if allow_all and s == "all":
        return None
    rule = "an index 1..k in ASCII digits, 'none'" + (" or 'all'" if allow_all else "")
    if not (s.isascii() and s.isdigit()):
        raise InputError(f"--output: {shown(text)} is not {rule}")
    if len(s.lstrip("0")) > len(str(k)) or not 1 <= int(s) <= k:
        raise InputError(f"--output: {shown(s)} is outside 1..{k} (k = {k} queries)")
    return int(s)


def emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
