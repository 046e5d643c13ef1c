"""The compiled structured evaluator (`verify.family.structured_kernel`) gives numpy's values bit for bit: every
Laplace / exponential / no-noise combination, every release rule, groups, repeated and coinciding kinks, ±0;
numpy's pairwise summation reproduced; a point it cannot take goes to numpy's path.  Bit for bit where numpy's
elementary functions are the C library's (tests/numpy_libm.py); on a CPU where numpy has AVX-512 loops of its own,
the comparisons run in a child with those loops off."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from family_variants import variant
from numpy_libm import LIBM, avx512_off

from verify.errors import InputError
from verify.family import structured as S


@pytest.fixture(autouse=True)
def _compiled():
    S.load_compiled()  # (a process evaluates with numpy's loop until the compiled one is loaded)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=float).view(np.int64)


def _numpy(monkeypatch, *args) -> np.ndarray:
    with monkeypatch.context() as m:
        m.setattr(S, "USE_COMPILED", False)
        return S._segment_points(*args)


def _points(seed: int, n: int = 40):
    """Seeded points over ±40 scales, with 0.0 and -0.0, u = v and v = r (coinciding kinks)."""
    rng = np.random.default_rng(seed)
    u, v, r = (np.round(rng.uniform(-40, 40, n) * s, 2) for s in (30, 30, 10))
    u[:4], v[:4], r[:4] = (0.0, -0.0, 5.0, 0.0), (-0.0, 0.0, 5.0, 3.0), (0.0, -0.0, 0.0, 3.0)
    return u, v, r


LAWS = [("laplace", 30), ("exponential", 30)]
QUERY_LAWS = LAWS + [("laplace", 7), ("none", 0)]
RELEASES = ["none", "query", "gap", "fresh"]


#: The bit-for-bit comparisons with numpy's loop: in this process where numpy's exp, log, log1p and expm1 are libm's.
libm_numpy = pytest.mark.skipif(not LIBM, reason="numpy's AVX-512 loops differ from libm in the last bit: "
                                "test_bit_comparisons_rerun_with_numpys_avx512_loops_off runs this in a child with them off")


@libm_numpy
def test_every_law_and_release_gives_numpys_bits(monkeypatch):
    compared = 0
    for z, x, release in itertools.product(LAWS, QUERY_LAWS, RELEASES):
        try:
            shape = variant(z=z, x=x, release=release, y=("laplace", 10) if release == "fresh" else None)
        except InputError:
            continue  # a combination the model refuses
        if S._compiled_laws(shape) is None:
            continue  # (no noise with a gap density: numpy's path raises the law's error)
        u, v, r = _points(len(release) + 3 * len(x[0]))
        for n_b, n_a in [(0, 1), (1, 0), (3, 1), (9, 1), (1, 2)]:
            got = S._segment_points(shape, n_b, n_a, u, v, r)
            assert np.array_equal(_bits(got), _bits(_numpy(monkeypatch, shape, n_b, n_a, u, v, r))), (z, x, release, n_b, n_a)
            compared += 1
    assert compared >= 80  # not vacuous: most combinations are compiled


@libm_numpy
@pytest.mark.parametrize("groups", [((0, 1), (1, 2)), ((0, 17), (17, 40)), ((0, 40),)])
def test_groups_give_numpys_bits(monkeypatch, groups):
    shape = variant(release="gap")
    u, v, r = (a[:groups[-1][1]] for a in _points(11))  # the groups cover every point (as the callers' do)
    got = S._segment_points(shape, 2, 1, u, v, r, groups)
    assert np.array_equal(_bits(got), _bits(_numpy(monkeypatch, shape, 2, 1, u, v, r, groups)))


def test_strided_points_give_the_contiguous_values():
    shape = variant()
    u, v, r = _points(5, 80)
    got = S._segment_points(shape, 2, 1, u[::2], v[::2], r[::2])
    assert np.array_equal(_bits(got), _bits(S._segment_points(shape, 2, 1, u[::2].copy(), v[::2].copy(), r[::2].copy())))


def test_a_point_that_is_not_finite_goes_to_numpys_path(monkeypatch):
    shape = variant()
    u, v, r = _points(2)
    u[5] = np.inf
    k = S.compiled_kernel()
    nodes, weights = S.gauss_legendre(S.GL_POINTS)
    _, ok = k.segment_values(u, v, r, np.array([[0, len(u)]]), 2, 1, *S._compiled_laws(shape), 1.0, 1.0, 1.0,
                             S.PANEL_EFOLDS, S.MIN_PANELS, S.MAX_PANELS, nodes, weights)
    assert not ok  # refused by the compiled loop, so numpy's path answers, as it always did (ceil of a NaN width)
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="NaN"):
        S._segment_points(shape, 2, 1, u, v, r)
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="NaN"):
        _numpy(monkeypatch, shape, 2, 1, u, v, r)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 127, 128, 129, 255, 256, 1000, 4099, 8192, 8193, 38400])
def test_pairwise_sum_is_numpys(n):
    k = S.compiled_kernel()
    rng = np.random.default_rng(n)
    x = np.exp(rng.normal(0, 6, (2, n)))
    want = np.sum(x, axis=1)
    assert [k._pairwise(row, n) for row in x] == list(want)


def test_gaussian_noise_stays_on_numpy():
    assert S._compiled_laws(variant(z=("gaussian", 3), x=("gaussian", 3))) is None
    assert S._compiled_laws(variant(z=("laplace", 3), x=("gaussian", 3))) is None


@pytest.mark.slow
def test_numba_is_imported_only_when_the_compiled_loop_is_loaded():
    """A single search does not pay numba's import: numpy's loop evaluates until `load_compiled` (the family table).
    A real process: which modules are imported needs a fresh interpreter (this one has imported numba)."""
    code = ("import sys; import numpy as np; from verify.family import structured as S; from verify.family.presets import preset; "
            "s = preset('seed-m1'); a = S._segment_points(s, 2, 1, np.array([1.0]), np.array([-2.0]), np.array([0.0])); "
            "assert 'numba' not in sys.modules; S.load_compiled(); assert 'numba' in sys.modules; "
            "b = S._segment_points(s, 2, 1, np.array([1.0]), np.array([-2.0]), np.array([0.0])); "
            "assert a.view(np.int64)[0] == b.view(np.int64)[0]; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, **avx512_off(), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.slow
@pytest.mark.skipif(LIBM, reason="numpy's elementary functions are libm's here: the comparisons ran in this process")
def test_bit_comparisons_rerun_with_numpys_avx512_loops_off():
    """This file's bit-for-bit comparisons, in a child whose numpy dispatches none of its AVX-512 loops (there its
    exp, log, log1p and expm1 are libm's, as the compiled loop's are; the child checks that before comparing)."""
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly", "-k", "numpys_bits",
                          str(Path(__file__).resolve())],
                         capture_output=True, text=True, timeout=300, cwd=root, env={**os.environ, **avx512_off()})
    summary = out.stdout.strip().splitlines()[-1]
    assert out.returncode == 0 and summary.startswith("4 passed") and "skipped" not in summary, out.stdout[-3000:]
