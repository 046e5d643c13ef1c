"""Flags and formatting shared by the commands."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from verify.errors import InputError
from verify.exact import parse_number, parse_vector
from verify.mechanism import NO_HALT, AboveThreshold, Output
from verify.noise import FAMILIES, NoiseSpec
from verify.serialize import float_or_str, frac_str, mechanism_json, mp_str, output_json  # noqa: F401  (re-exported to the commands)


def add_mechanism_flags(p: argparse.ArgumentParser) -> None:
    """--noise, per-variable families and scales, ε, Δ, t."""
    g = p.add_argument_group("mechanism")
    g.add_argument("--noise", choices=["laplace", "exponential"], default="laplace",
                   help="noise family of threshold and queries (default laplace = Mechanism One; exponential = Mechanism Two)")
    g.add_argument("--threshold-noise", choices=FAMILIES, help="family of the threshold noise (overrides --noise)")
    g.add_argument("--query-noise", choices=FAMILIES, help="family of the query noise (overrides --noise)")
    g.add_argument("--threshold-scale", default="3", metavar="C", help="threshold noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--query-scale", default="3", metavar="C", help="query noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--threshold-absolute-scale", metavar="B", help="threshold noise scale as an absolute value (overrides --threshold-scale)")
    g.add_argument("--query-absolute-scale", metavar="B", help="query noise scale as an absolute value (overrides --query-scale)")
    g.add_argument("--epsilon", default="1", metavar="E", help="privacy parameter ε > 0 (default 1)")
    g.add_argument("--sensitivity", default="1", metavar="D", help="sensitivity Δ > 0 (default 1)")
    g.add_argument("--threshold", default="0", metavar="T", help="threshold t (default 0)")


def _spec(family: str, relative: str, absolute: str | None, which: str) -> NoiseSpec:
    if absolute is not None:
        b = parse_number(absolute, f"--{which}-absolute-scale")
        if b < 0:
            raise InputError(f"--{which}-absolute-scale: {absolute} must be >= 0")
        return NoiseSpec(family, absolute=b)
    c = parse_number(relative, f"--{which}-scale")
    if c < 0:
        raise InputError(f"--{which}-scale: {relative} must be >= 0")
    return NoiseSpec(family, multiplier=c)


def mechanism_from_args(args: argparse.Namespace) -> AboveThreshold:
    eps = parse_number(args.epsilon, "--epsilon")
    if eps <= 0:
        raise InputError(f"--epsilon: {args.epsilon} must be > 0")
    delta = parse_number(args.sensitivity, "--sensitivity")
    if delta <= 0:
        raise InputError(f"--sensitivity: {args.sensitivity} must be > 0")
    return AboveThreshold(
        epsilon=eps,
        sensitivity=delta,
        threshold=parse_number(args.threshold, "--threshold"),
        threshold_spec=_spec(args.threshold_noise or args.noise, args.threshold_scale, args.threshold_absolute_scale, "threshold"),
        query_spec=_spec(args.query_noise or args.noise, args.query_scale, args.query_absolute_scale, "query"),
    )


def parse_queries_flag(text: str, flag: str = "--queries") -> tuple[Fraction, ...]:
    return parse_vector(text, flag)


def parse_output(text: str, k: int, allow_all: bool = False) -> Output | None:
    """``i`` (1..k), ``none``; ``all`` (returned as None) where allowed."""
    s = text.strip().lower()
    if s == "none":
        return NO_HALT
    if allow_all and s == "all":
        return None
    if not s.isdigit():
        rule = "an index 1..k, 'none'" + (" or 'all'" if allow_all else "")
        raise InputError(f"--output: {text!r} is not {rule}")
    i = int(s)
    if not 1 <= i <= k:
        raise InputError(f"--output: {i} is outside 1..{k} (k = {k} queries)")
    return i


def parse_digits(text: str) -> int:
    from verify.probabilities import MAX_DIGITS, MIN_DIGITS

    if not text.strip().isdigit() or not MIN_DIGITS <= int(text) <= MAX_DIGITS:
        raise InputError(f"--digits: {text!r} must be an integer from {MIN_DIGITS} to {MAX_DIGITS}")
    return int(text)


def emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
