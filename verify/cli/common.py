"""Flags and formatting shared by the commands."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from verify.cli import flags
from verify.noise import ALL_FAMILIES
from verify.serialize import float_or_str, frac_str, mechanism_json, mp_str, output_json  # noqa: F401  (re-exported to the commands)

#: Defaults of the mechanism flags (the seed's Mechanism One at ε = 1, Δ = 1, t = 0).  The parsers
#: default to None so that a flag given on the command line can be told from one left out.
DEFAULT_NOISE = "laplace"
DEFAULT_SCALE = Fraction(3)
DEFAULT_EPSILON = Fraction(1)
DEFAULT_SENSITIVITY = Fraction(1)
DEFAULT_THRESHOLD = Fraction(0)


def add_mechanism_flags(p: argparse.ArgumentParser) -> None:
    """--noise, per-variable families and scales, ε, Δ, t (parsed by `verify.cli.flags`; None when not given)."""
    g = p.add_argument_group("mechanism (with --variant: each flag given overrides the preset)")
    g.add_argument("--noise", choices=ALL_FAMILIES,
                   help="noise family of threshold and queries (default laplace = Mechanism One; exponential = Mechanism Two)")
    g.add_argument("--threshold-noise", choices=ALL_FAMILIES, help="family of the threshold noise (overrides --noise)")
    g.add_argument("--query-noise", choices=ALL_FAMILIES, help="family of the query noise (overrides --noise)")
    g.add_argument("--threshold-scale", type=flags.NON_NEGATIVE, metavar="C",
                   help="threshold noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--query-scale", type=flags.NON_NEGATIVE, metavar="C",
                   help="query noise scale as a multiple of Δ/ε (default 3; 0 = no noise)")
    g.add_argument("--threshold-absolute-scale", type=flags.NON_NEGATIVE, metavar="B",
                   help="threshold noise scale as an absolute value (instead of --threshold-scale)")
    g.add_argument("--query-absolute-scale", type=flags.NON_NEGATIVE, metavar="B",
                   help="query noise scale as an absolute value (instead of --query-scale)")
    g.add_argument("--epsilon", type=flags.POSITIVE, metavar="E", help="privacy parameter ε > 0 (default 1)")
    g.add_argument("--sensitivity", type=flags.POSITIVE, metavar="D", help="sensitivity Δ > 0 (default 1)")
    g.add_argument("--threshold", type=flags.NUMBER, metavar="T", help="threshold t (default 0)")


def given(args: argparse.Namespace, *dests: str) -> list[str]:
    """The flags among ``dests`` (argparse dest names) given on the command line, as ``--flag`` names."""
    return ["--" + d.replace("_", "-") for d in dests if getattr(args, d, None) is not None]


def value_or(args: argparse.Namespace, dest: str, default: Any) -> Any:
    v = getattr(args, dest, None)
    return default if v is None else v


# --- exit codes and --fail-on --------------------------------------------------------------------

#: The --fail-on finding that is not a verdict: some |log ratio| > ε (ratio, sweep).
VIOLATION = "violation"
#: Exit status when a finding named by --fail-on occurs.
EXIT_FINDING = 1
EXIT_CODES = ("exit status: 0 done; 1 a finding named by --fail-on occurred; 2 bad input (one line on stderr); "
              "130 interrupted; 141 standard output closed by its reader")
EXIT_CODES_NO_FINDING = "exit status: 0 done; 2 bad input (one line on stderr); 130 interrupted; 141 standard output closed by its reader"


def add_fail_on(p: argparse.ArgumentParser, findings: tuple[str, ...], meaning: str) -> None:
    """``--fail-on F[,F...]``: exit `EXIT_FINDING` when one of the findings occurs; the exit codes go in the epilog."""
    p.add_argument("--fail-on", type=flags.one_or_more(findings), metavar="{" + ",".join(findings) + "}",
                   help=f"exit with status 1 when this finding occurs ({meaning}); several separated by commas")
    p.epilog = EXIT_CODES


def exit_status(args: argparse.Namespace, found: Any) -> int:
    """0, or `EXIT_FINDING` when a finding in ``found`` (words) was named by --fail-on."""
    wanted = getattr(args, "fail_on", None) or frozenset()
    return EXIT_FINDING if wanted & {str(f) for f in found} else 0


def emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
