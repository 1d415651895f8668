"""The compiled (numba) GBA/RBA/WBA loop against the numpy loop and the direct transcription: the
same eliminations in the same order, the same weighted values, vulnerabilities, groups, δ,
final tables and weights, bit for bit; and the same attack report with and without numba.

Skipped (with the reason) where numba is not installed: the numpy loop is then the only one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLES, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_eliminate_properties import _reference, tables, tall_tables

from semtui.attacks.setgen.eliminate import MIN_CELLS_ENV, NO_NUMBA_ENV, eliminate
from semtui.attacks.setgen.eliminate.engine import COLD_SECONDS_ENV

pytest.importorskip("numba", reason="the compiled loop needs numba (the fast extra)")


def bits_equal(x, y) -> bool:
    """Equal bit for bit where not NaN (so 0.0 and -0.0 differ), NaN in the same places."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    nan = np.isnan(x)
    return x.shape == y.shape and np.array_equal(nan, np.isnan(y)) and \
        np.array_equal(x[~nan].view(np.int64), y[~nan].view(np.int64))


def same(a, b):
    """Every figure of two results equal, bit for bit (NaN where NaN)."""
    ea = [repr((e.step, e.row, e.col, e.distance, e.weighted, e.vulnerability, e.group)) for e in a.eliminations]
    eb = [repr((e.step, e.row, e.col, e.distance, e.weighted, e.vulnerability, e.group)) for e in b.eliminations]
    assert ea == eb
    assert repr(a.threshold) == repr(b.threshold)
    assert np.array_equal(a.live, b.live)
    for name in ("initial_weighted", "final_weighted", "row_weights", "col_weights",
                 "initial_row_vulnerability", "initial_col_vulnerability"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None and y is None) or bits_equal(x, y), name


def both(D, method, **kw):
    compiled = eliminate(D, method, engine="compiled", **kw)
    numpy = eliminate(D, method, engine="numpy", **kw)
    same(compiled, numpy)
    return compiled


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(tables(max_rows=7, max_cols=7), st.sampled_from(["gba", "rba", "wba"]))
@pytest.mark.slow
def test_compiled_equals_numpy_equals_transcription(table, method):
    D, prot = table
    r = both(D, method, protected=prot)
    assert [(e.row, e.col) for e in r.eliminations] == _reference(D, prot, method, r.threshold)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tall_tables(), st.sampled_from(["gba", "rba", "wba"]))
def test_compiled_equals_numpy_equals_transcription_on_tall_tables(table, method):
    D, prot = table
    r = both(D, method, protected=prot)
    assert [(e.row, e.col) for e in r.eliminations] == _reference(D, prot, method, r.threshold)


@FAST
@given(tables(), st.sampled_from(["gba", "rba", "wba"]), st.integers(0, 12),
       st.one_of(st.none(), st.sampled_from([-1.0, 0.0, 0.05, 0.3])))
@pytest.mark.slow
def test_compiled_equals_numpy_with_a_step_limit_and_a_threshold(table, method, steps, threshold):
    D, prot = table
    both(D, method, protected=prot, max_steps=steps, threshold=threshold)


@pytest.mark.parametrize("method", ["gba", "rba", "wba"])
@pytest.mark.parametrize("shape", [(1500, 6), (400, 12), (30, 30)])
def test_compiled_equals_numpy_on_larger_tables(method, shape):
    """Long runs (hundreds of steps, many chunks of the kernel), coarse values (ties)."""
    rng = np.random.default_rng(shape[0] + shape[1])
    D = np.round(rng.gamma(2.0, 0.5, size=shape), 2)
    D[rng.random(shape) < 0.03] = np.nan
    D[rng.random(shape) < 0.01] = -0.25
    r = both(D, method, protected=rng.random(shape) < 0.01)
    assert len(r.eliminations) > (100 if shape[0] > 100 else 20)


def test_environment_variables_choose_the_loop(monkeypatch):
    """Under engine="auto", numba is loaded at the first table of SEMTUI_NUMBA_MIN_CELLS cells
    (default 2048) and then used for every table; SEMTUI_NO_NUMBA=1 keeps the numpy loop; an
    explicit engine overrides both."""
    import sys

    from semtui.attacks.setgen.eliminate.engine import _COMPILED_MODULE, _compiled_kernel

    monkeypatch.delenv(NO_NUMBA_ENV, raising=False)
    monkeypatch.delenv(MIN_CELLS_ENV, raising=False)
    monkeypatch.setenv(COLD_SECONDS_ENV, "0")   # whether numba's cache is warm: the test below
    monkeypatch.delitem(sys.modules, _COMPILED_MODULE)  # as in a fresh process
    assert _compiled_kernel("auto", (400, 5)) is None
    assert _COMPILED_MODULE not in sys.modules
    assert _compiled_kernel("auto", (400, 6)) is not None
    assert _compiled_kernel("auto", (10, 5)) is not None  # loaded: every table from now on
    assert _compiled_kernel("auto", (10, 1)) is None  # (nothing can go: the last-cell rule)
    monkeypatch.delitem(sys.modules, _COMPILED_MODULE)
    monkeypatch.setenv(MIN_CELLS_ENV, "0")
    assert _compiled_kernel("auto", (10, 5)) is not None
    monkeypatch.setenv(NO_NUMBA_ENV, "1")
    assert _compiled_kernel("auto", (1000, 9)) is None
    assert _compiled_kernel("compiled", (1000, 9)) is not None
    monkeypatch.setenv(NO_NUMBA_ENV, "0")
    assert _compiled_kernel("auto", (1000, 9)) is not None
    assert _compiled_kernel("numpy", (1000, 9)) is None
    with pytest.raises(ValueError):
        eliminate(np.ones((2, 2)), "rba", engine="fast")


@pytest.mark.parametrize("method", ["rba", "wba"])
@pytest.mark.slow
def test_attack_report_is_the_same_with_and_without_numba(method, tmp_path):
    """A small real release (MEPS' first 400 patients, k = 3): the whole attack as a process,
    its JSON report (bar the timings) with the compiled loop on every table and without."""
    out = {}
    for env in ("0", "1"):
        p = run_cli("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--original",
                    SAMPLES / "meps400-original.txt", "--method", method, "--json",
                    env={NO_NUMBA_ENV: env, MIN_CELLS_ENV: "0"}, timeout=300)
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        out[env] = _without_timings(doc)
    assert out["0"] == out["1"]
    assert sum(len(g["eliminations"]) for g in out["0"]["groups"]) > 0


def _without_timings(doc):
    if isinstance(doc, dict):
        return {k: _without_timings(v) for k, v in doc.items() if "time" not in k and "seconds" not in k}
    if isinstance(doc, list):
        return [_without_timings(v) for v in doc]
    return doc


def test_each_kernel_is_compiled_once_whatever_it_is_called_with():
    """A cold numba cache compiles every kernel the loops call once: a constant passed from compiled
    code (a literal -1 for 'no candidate yet') made numba compile a kernel again, specialised on the
    constant, and the first run after install took ~4 s longer (docs/performance.md).  A kernel only
    compiled code calls shows its signatures when it was compiled in this process (a change to the
    source empties numba's cache for it, so a change that brings the constant back is seen)."""
    import numba

    from semtui.attacks.setgen.eliminate.engine import _compiled_kernel

    C = _compiled_kernel("compiled", (40, 60))   # the module the loops call (a test above imports it again)
    rng = np.random.default_rng(3)
    for method in ("gba", "rba", "wba"):
        eliminate(rng.random((40, 60)), method, engine="compiled")
    kernels = {n: f for n, f in vars(C).items() if isinstance(f, numba.core.registry.CPUDispatcher)}
    used = {n: [str(s) for s in f.signatures] for n, f in kernels.items() if f.signatures}
    assert {"_grouping_steps", "_wba_steps"} <= set(used)
    assert {n: s for n, s in used.items() if len(s) > 1} == {}


def test_a_cold_cache_keeps_the_numpy_loop_until_it_has_spent_the_compile_budget(monkeypatch):
    """While the kernels are not compiled (numba's cache cold: the first run after an install),
    ``auto`` runs the numpy loop -- the same result -- until it has spent SEMTUI_NUMBA_COLD_SECONDS
    (default 3 s) in the process on such tables, then compiles; once compiled (here or, through
    numba's cache, in an earlier process) every table of 2,048+ cells uses the kernels."""
    from semtui.attacks.setgen.eliminate import engine as E

    monkeypatch.delenv(NO_NUMBA_ENV, raising=False)
    monkeypatch.delenv(MIN_CELLS_ENV, raising=False)
    monkeypatch.delenv(COLD_SECONDS_ENV, raising=False)
    module = E._compiled_kernel("compiled", (40, 60))
    monkeypatch.setattr(E, "ready", lambda module, loop="grouping": False)
    monkeypatch.setattr(E, "_SPENT", [0.0])
    D = np.random.default_rng(5).random((55, 42))   # the size of the README sample's alternatives' tables
    cold = eliminate(D, "rba")
    assert 0.0 < E.cold_numpy_seconds() < 3.0               # it ran on the numpy loop, and counted
    assert E._compiled_kernel("auto", (55, 42)) is None     # still within the budget: numpy again
    E.numpy_loop_done()
    assert E._compiled_kernel("compiled", (55, 42)) is module   # asked for: always
    monkeypatch.setattr(E, "_SPENT", [3.0])                  # the budget spent: compile from now on
    assert E._compiled_kernel("auto", (55, 42)) is module
    monkeypatch.setattr(E, "_SPENT", [0.0])
    monkeypatch.setattr(E, "ready", lambda module, loop="grouping": True)       # compiled already: as before
    assert E._compiled_kernel("auto", (55, 42)) is module
    same(cold, eliminate(D, "rba"))
    assert E.cold_numpy_seconds() == 0.0                     # a compiled table adds nothing


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25, -1.0]), min_size=0, max_size=90), st.integers(0, 3))
def test_the_kernels_sort_is_numpys_stable_argsort(values, extra):
    # the kernels' own merge sort (runs of 16, merged): the permutation np.argsort(kind="stable") gives,
    # on lengths around the runs' and merges' edges and with ties
    from semtui.attacks.setgen.eliminate.engine import _compiled_kernel

    C = _compiled_kernel("compiled", (40, 60))
    v = np.array(values + [0.75] * extra, dtype=np.float64)
    assert C._argsort(v).tolist() == np.argsort(v, kind="stable").tolist()
