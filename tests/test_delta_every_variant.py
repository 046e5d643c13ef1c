"""`delta` is right for every variant, discrete noise included (issue 32, item 1).

The reference here is written in this file and shares no code with the library: AboveThreshold
(cutoff 1, shared threshold) with noise on ℤ, each outcome's probability summed directly over the
threshold value z,

    Pr[B^j A | q] = Σ_z Pr[Z = z] Π_{i<=j} Pr[q_i + X_i < t + z] · Pr[q_{j+1} + X_{j+1} >= t + z]   (compare ge)

(``>`` and ``<=`` for compare gt), with the probability masses normalised over a window [-W, W] of the
integers.  Proven tail: both noises have scale 3 here (ε = 1, Δ = 1, scale 3Δ/ε), and the window
W = 600 leaves out mass below 2·e^{-600/3}/(1 - e^{-1/3}) < 1e-85 (discrete Laplace, terms e^{-|x|/3})
and far less for the discrete Gaussian (terms e^{-x²/18}); every probability is then off by less than
1e-80, and the δ and ε' compared below by less than 1e-60, far inside the tolerances used.

δ(ε') of the ordered pair D -> D' is Σ_s max(0, P_s - e^{ε'} P'_s); the smallest ε' with δ(ε') <= D is
checked by its definition: δ at the returned ε' is <= D, and δ a hair below it is > D.
Each test failed before the fix: `delta` integrated discrete noise as if it were continuous.
The commands run through `verify.cli.main.main` in this process (exit status, stdout and stderr as a process
would give them; an unexpected exception fails the test); tests/test_cli_process.py checks the real process.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from fractions import Fraction
from functools import cache

import mpmath
import pytest

from verify.cli.main import main
from verify.comparison import Comparison
from verify.discrete.delta import pair_delta
from verify.errors import InputError
from verify.family.delta import epsilon_for_delta, exact_delta
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec

WINDOW = 600
SCALE = 3
DPS = 60


@cache
def _pmf(family: str) -> dict[int, mpmath.mpf]:
    """Pr[X = x] over x in [-WINDOW, WINDOW], normalised over the window (module docstring: the tail)."""
    with mpmath.workdps(DPS):
        if family == "discrete-laplace":
            w = {x: mpmath.exp(-mpmath.mpf(abs(x)) / SCALE) for x in range(-WINDOW, WINDOW + 1)}
        else:
            w = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * SCALE**2)) for x in range(-WINDOW, WINDOW + 1)}
        total = mpmath.fsum(w.values())
        return {x: v / total for x, v in w.items()}


def direct_distribution(family: str, compare: str, queries) -> dict[str, mpmath.mpf]:
    return dict(_direct_distribution(family, compare, tuple(queries)))


@cache
def _direct_distribution(family: str, compare: str, queries: tuple[int, ...]) -> tuple[tuple[str, mpmath.mpf], ...]:
    """Every outcome's probability by the direct sum of the module docstring (threshold t = 0)."""
    pmf = _pmf(family)
    with mpmath.workdps(DPS):
        # at_least[m] = Pr[X >= m] for m in [-WINDOW, WINDOW + 1]
        at_least: dict[int, mpmath.mpf] = {WINDOW + 1: mpmath.mpf(0)}
        for m in range(WINDOW, -WINDOW - 1, -1):
            at_least[m] = at_least[m + 1] + pmf[m]

        def sf(m: int) -> mpmath.mpf:  # Pr[X >= m]
            return mpmath.mpf(1) if m < -WINDOW else mpmath.mpf(0) if m > WINDOW else at_least[m]

        def above(q: int, z: int) -> mpmath.mpf:  # Pr[q + X >= z] (ge) or Pr[q + X > z] (gt)
            return sf(z - q + (1 if compare == "gt" else 0))

        k = len(queries)
        out = {"B" * j + "A": mpmath.mpf(0) for j in range(k)}
        out["B" * k] = mpmath.mpf(0)
        for z, pz in pmf.items():
            below = mpmath.mpf(1)
            for j, q in enumerate(queries):
                a = above(q, z)
                out["B" * j + "A"] += pz * below * a
                below *= 1 - a
            out["B" * k] += pz * below
        return tuple(out.items())


def direct_delta(family: str, compare: str, q: list[int], qn: list[int], eps) -> mpmath.mpf:
    p, pn = direct_distribution(family, compare, q), direct_distribution(family, compare, qn)
    with mpmath.workdps(DPS):
        e = mpmath.mpf(eps.numerator) / eps.denominator if isinstance(eps, Fraction) else mpmath.mpf(eps)
        f = mpmath.exp(e)
        return mpmath.fsum(max(mpmath.mpf(0), p[s] - f * pn[s]) for s in p)


def mech(family: str, compare: str = "ge") -> SparseVector:
    spec = NoiseSpec(family, multiplier=Fraction(3))
    return SparseVector(epsilon=Fraction(1), sensitivity=Fraction(1), threshold=Fraction(0), threshold_spec=spec,
                        query_spec=spec, cutoff=1, compare=Comparison(compare))


def cli(*argv: str) -> subprocess.CompletedProcess:
    """``svt-verify ARGV`` in this process (module docstring): its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def value_after(text: str, key: str) -> mpmath.mpf:
    """The number printed after ``key`` on the first line that holds it."""
    line = next(x for x in text.splitlines() if key in x)
    with mpmath.workdps(DPS):
        return mpmath.mpf(line.split(key, 1)[1].split()[0].rstrip(",;"))


# (family, compare, q(D), q(D'), ε', the issue's value of δ(ε') for D -> D' (None: not quoted))
CASES = [
    ("discrete-gaussian", "ge", [10, -10], [11, -11], Fraction(1, 2), "0.0011248994311"),
    ("discrete-laplace", "ge", [0, 0], [1, -1], Fraction(0), "0.0803"),
    ("discrete-laplace", "gt", [0, 3, -2], [1, 2, -1], Fraction(1, 10), "0.0812"),
    ("discrete-laplace", "ge", [2, -1, 0], [3, 0, -1], Fraction(1, 5), None),
    ("discrete-gaussian", "gt", [1, 4], [0, 5], Fraction(1, 10), None),
]


@pytest.mark.parametrize("family, compare, q, qn, eps, quoted", CASES)
def test_delta_of_a_discrete_pair_is_the_direct_sum_both_directions(family, compare, q, qn, eps, quoted):
    m = mech(family, compare)
    for a, b in ((q, qn), (qn, q)):
        want = direct_delta(family, compare, a, b, eps)
        got = exact_delta(m, a, b, eps, digits=25).delta
        assert abs(got - want) <= mpmath.mpf(10) ** -22 * max(1, want), (a, b, got, want)
    # pair_delta: the larger of the two directions
    both = max(direct_delta(family, compare, q, qn, eps), direct_delta(family, compare, qn, q, eps))
    assert abs(pair_delta(m, q, qn, eps, digits=25) - both) <= mpmath.mpf(10) ** -22


def test_the_issue_values():
    """The quoted figures, from the reference alone (they do not depend on the library)."""
    dg = direct_delta("discrete-gaussian", "ge", [10, -10], [11, -11], Fraction(1, 2))
    assert mpmath.nstr(dg, 11) == "0.0011248994311"
    for a, b in (([0, 0], [1, -1]), ([1, -1], [0, 0])):
        assert mpmath.nstr(direct_delta("discrete-laplace", "ge", a, b, Fraction(0)), 3) == "0.0803"
    assert mpmath.nstr(direct_delta("discrete-laplace", "gt", [0, 3, -2], [1, 2, -1], Fraction(1, 10)), 3) == "0.0812"


@pytest.mark.parametrize("family, compare, q, qn, target", [
    ("discrete-laplace", "ge", [0, 0], [1, -1], Fraction(0)),
    ("discrete-laplace", "ge", [0, 0], [1, -1], Fraction(1, 100)),
    ("discrete-gaussian", "ge", [10, -10], [11, -11], Fraction(1, 1000)),
    ("discrete-gaussian", "ge", [10, -10], [11, -11], Fraction(0)),
    ("discrete-laplace", "gt", [0, 3, -2], [1, 2, -1], Fraction(1, 20)),
])
def test_epsilon_at_delta_of_a_discrete_pair_meets_its_definition(family, compare, q, qn, target):
    """D -> ε'(D): δ(ε') <= D at the returned ε', and δ > D just below it (both directions of the pair)."""
    m = mech(family, compare)
    for a, b in ((q, qn), (qn, q)):
        ep = epsilon_for_delta(m, a, b, target, digits=25).epsilon_prime
        assert ep > 0
        with mpmath.workdps(DPS):
            d = mpmath.mpf(target.numerator) / target.denominator
            assert direct_delta(family, compare, a, b, ep) <= d + mpmath.mpf(10) ** -20
            assert direct_delta(family, compare, a, b, ep - mpmath.mpf(10) ** -15) > d
        if target == 0:  # the pure-DP loss of the pair: the largest log ratio
            p, pn = direct_distribution(family, compare, a), direct_distribution(family, compare, b)
            with mpmath.workdps(DPS):
                loss = max(mpmath.log(p[s] / pn[s]) for s in p)
            assert abs(ep - loss) < mpmath.mpf(10) ** -20


def test_cli_delta_at_epsilon_prime_both_directions():
    """The issue's commands: the printed δ is the direct sum's."""
    for family, compare, q, qn, eps, _ in CASES[:3]:
        for a, b in ((q, qn), (qn, q)):
            r = cli("delta", "--noise", family, "--compare", compare, "--epsilon-prime", str(eps),
                    f"--queries={','.join(map(str, a))}", f"--neighbour-queries={','.join(map(str, b))}")
            assert r.returncode == 0, r.stderr
            got = value_after(r.stdout, "δ = ")
            want = direct_delta(family, compare, a, b, eps)
            assert abs(got - want) <= mpmath.mpf(10) ** -18 * max(1, want), (a, b, r.stdout)


def test_cli_delta_zero_is_the_pure_loss_of_the_pair():
    """`--delta 0` on (0,0)/(1,-1): ε' = 0.540731178829..., the ratio's largest |log ratio| (output BA), not 1/3."""
    r = cli("delta", "--noise", "discrete-laplace", "--queries=0,0", "--neighbour-queries=1,-1", "--delta", "0")
    assert r.returncode == 0, r.stderr
    got = value_after(r.stdout, "ε' = ")
    p, pn = direct_distribution("discrete-laplace", "ge", [0, 0]), direct_distribution("discrete-laplace", "ge", [1, -1])
    with mpmath.workdps(DPS):
        loss = max(mpmath.log(p[s] / pn[s]) for s in p)
    assert abs(got - loss) < mpmath.mpf(10) ** -18
    assert mpmath.nstr(got, 12) == "0.540731178829"
    r = cli("delta", "--noise", "discrete-gaussian", "--queries=10,-10", "--neighbour-queries=11,-11", "--delta", "1/1000")
    assert r.returncode == 0, r.stderr
    ep = value_after(r.stdout, "ε' = ")
    with mpmath.workdps(DPS):
        assert direct_delta("discrete-gaussian", "ge", [10, -10], [11, -11], ep) <= mpmath.mpf("0.001") + mpmath.mpf(10) ** -18
        assert direct_delta("discrete-gaussian", "ge", [10, -10], [11, -11], ep - mpmath.mpf(10) ** -12) > mpmath.mpf("0.001")


@pytest.mark.parametrize("flag", ["--queries", "--neighbour-queries"])
def test_cli_refuses_non_integer_queries_for_discrete_noise_like_prob(flag):
    other = "--neighbour-queries" if flag == "--queries" else "--queries"
    r = cli("delta", "--noise", "discrete-laplace", flag, "1/2", other, "1", "--epsilon-prime", "0")
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "1/2 is not an integer" in r.stderr, r.stderr
    p = cli("prob", "--noise", "discrete-laplace", "--queries", "1/2", "--outcomes", "A")
    assert p.returncode == 2 and "1/2 is not an integer" in p.stderr


@pytest.mark.parametrize("q, qn, rule", [
    ([0, 0], [1], "same number"), ([0], [1, 1], "same number"), ([0], [3], "sensitivity"), ("01", [0, 1], "list"),
    ({0, 1}, [0, 1], "list"), ([0, 1], {0: 1, 1: 1}, "list"), ([Fraction(1, 2)], [1], "not an integer"),
])
def test_pair_delta_refuses_a_bad_pair_in_one_line(q, qn, rule):
    with pytest.raises(InputError, match=rule):
        pair_delta(mech("discrete-laplace"), q, qn, 1)


def test_the_continuous_oracle_refuses_noise_on_the_integers():
    """The oracle integrates densities; a discrete variant must never reach it (it gave δ = 0.0 above)."""
    from verify.oracles.family import output_probability

    with pytest.raises(InputError, match="integers"):
        output_probability(mech("discrete-laplace"), [0, 0], "BA")


@pytest.mark.slow
def test_the_rdp_line_says_for_how_many_queries_it_holds():
    """Item 7: the Zhu-Wang bound is computed for k queries and grows with log k; the line names k.  The pair is
    computed at 5 digits (the fewest `--digits` takes; the k named does not depend on them: 5.8 s CPU at the
    default 20 digits, 2.4 s at 5)."""
    from verify.family.presets import preset
    from verify.family.rdp import GaussianSVTRdp

    g = preset("gaussian-svt")
    bounds = [GaussianSVTRdp(g.threshold_noise.scale, g.query_noise.scale, g.sensitivity, k).delta(1)[0] for k in (1, 2, 3, 8)]
    assert bounds == sorted(bounds) and bounds[0] < bounds[-1]  # it does depend on k
    r = cli("delta", "--variant", "gaussian-svt", "--epsilon-prime", "1", "--queries=5,-10,0", "--neighbour-queries=6,-11,1",
            "--digits", "5")
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "Rényi-DP" in x)
    assert "at most k = 3 queries" in line
    assert exact_delta(g, [5, -10, 0], [6, -11, 1], 1, digits=5).to_json()["rdp_queries"] == 3


# --- the search for the worst pair, discrete noise (verify.family.delta_search) ---------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("family", ["discrete-laplace", "discrete-gaussian"])
def test_the_discrete_delta_search_reports_an_integer_pair_and_its_direct_sum(family):
    """The search walks the integer grid: the pair it reports has integer queries within Δ, its δ is the
    independent direct sum's, and it is at least δ of the hand-picked start (0, 0) -> (1, -1) (a move never
    lowers the score, and that start is always scored)."""
    from verify.family.delta_search import worst_delta

    eps = Fraction(1, 2)
    r = worst_delta(mech(family), eps, max_queries=2, grid=5, digits=25)
    q, qn = [int(x) for x in r.queries], [int(x) for x in r.neighbour]
    assert [Fraction(x) for x in q] == list(r.queries) and [Fraction(x) for x in qn] == list(r.neighbour)
    assert all(abs(a - b) <= 1 for a, b in zip(q, qn))
    want = direct_delta(family, "ge", q, qn, eps)
    assert abs(r.delta - want) <= mpmath.mpf(10) ** -22 * max(1, want), (q, qn, r.delta, want)
    assert r.delta >= direct_delta(family, "ge", [0, 0], [1, -1], eps) - mpmath.mpf(10) ** -22


def test_the_discrete_epsilon_search_meets_its_definition_at_the_pair_it_reports():
    from verify.family.delta_search import worst_epsilon_for_delta

    r = worst_epsilon_for_delta(mech("discrete-laplace"), "1/1000", max_queries=2, grid=5, digits=25)
    q, qn = [int(x) for x in r.queries], [int(x) for x in r.neighbour]
    with mpmath.workdps(DPS):
        assert direct_delta("discrete-laplace", "ge", q, qn, r.epsilon_prime) <= mpmath.mpf("0.001") + mpmath.mpf(10) ** -18
        assert direct_delta("discrete-laplace", "ge", q, qn, r.epsilon_prime - mpmath.mpf(10) ** -12) > mpmath.mpf("0.001")


@pytest.mark.slow
def test_cli_delta_searches_a_discrete_variant_without_queries():
    r = cli("delta", "--variant", "sampcert-above-threshold", "--epsilon-prime", "1/10", "--max-queries", "2")
    assert r.returncode == 0, r.stderr
    assert "the worst pair the search found with up to 2 queries" in r.stdout
    assert value_after(r.stdout, "δ = ") > 0
