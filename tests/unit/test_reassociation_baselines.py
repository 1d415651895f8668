"""The budget-matched baseline of a re-association, drawn once and shared (ALGORITHMS.md §6):
between an attack and its informed reference, and between the methods of one assessment
(:class:`semtui.attacks.reassociation.Baselines`) -- every report the same as a run alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semtui.anonymize.disassociation import disassociate
from semtui.attacks.reassociation import Baselines, ReassociationOptions, run_reassociation
from semtui.formats import read_transactions
from semtui.measures import open_measure
from semtui.metrics.reassociation import masked_injection

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "meps400-original.txt"


def _report(result) -> str:
    rep = result.report.to_json()
    rep["summary"].pop("seconds", None)
    return json.dumps(rep, sort_keys=True, default=str)


@pytest.fixture(scope="module")
def refined():
    """The bundled 400 MEPS patients disassociated with REFINE (joint clusters and shared chunks)."""
    data = read_transactions(SAMPLE)
    r = disassociate(data, 3, 2, 12, joint_max_size=48)
    assert r.data.joint_clusters, "the release must have joint clusters for the test to mean anything"
    return data, r


@pytest.mark.slow
def test_methods_take_each_others_draws_and_every_report_is_the_one_a_run_alone_writes(refined):
    data, r = refined
    measure = open_measure("embedding")
    store = Baselines(r.data, r.key, data)
    # assess's order: the first run with the informed reference, then the other methods
    for method, informed in (("aba", True), ("assign", False), ("ra", False)):
        opts = ReassociationOptions(method=method, seed=7, informed=informed, ties="random" if informed else None)
        used = None if method == "ra" else measure
        alone = run_reassociation(r.data, r.key, data, opts, measure=used, wmd=measure)
        taken_before = store.taken
        shared = run_reassociation(r.data, r.key, data, opts, measure=used, wmd=measure, baselines=store)
        assert _report(shared) == _report(alone), method
        if method != "aba":
            assert store.taken > taken_before, f"{method} drew every baseline anew"
    # regular clusters and joint clusters alike were kept
    assert len(store.drawn) == len(r.data.clusters) and store.joint
    # each run judged every cluster and joint cluster's placements (the first run its informed
    # reference's too): judged again only where no earlier run made the same placements
    units = len(r.data.clusters) + len(r.data.joint_clusters)
    assert units <= len(store.judged) < 4 * units, "no placement judged once was taken again"


@pytest.mark.slow
def test_draws_made_in_worker_processes_are_taken_by_a_later_run(refined):
    data, r = refined
    measure = open_measure("embedding")
    store = Baselines(r.data, r.key, data)
    reports = []
    for method in ("aba", "mra"):
        for jobs, baselines in ((1, None), (2, store)):
            opts = ReassociationOptions(method=method, seed=3, jobs=jobs)
            reports.append(_report(run_reassociation(r.data, r.key, data, opts, measure=measure, wmd=measure,
                                                     baselines=baselines)))
    assert reports[0] == reports[1] and reports[2] == reports[3]
    assert store.taken > 0


def test_a_store_is_not_used_for_other_inputs(refined):
    data, r = refined
    other = Baselines(r.data, r.key, read_transactions(SAMPLE))   # another original object
    opts = ReassociationOptions(method="ra", seed=1, wmd_measure=None)
    run_reassociation(r.data, r.key, data, opts, baselines=other)
    assert not other.drawn and not other.joint and other.taken == 0


def _masked_injection_by_definition(reps, allowed, n_anchors, rng):
    used = np.zeros(n_anchors, dtype=bool)
    out = []
    for u in reps.tolist():
        cand = np.flatnonzero(allowed[:, u] & ~used)
        if not len(cand):
            cand = np.flatnonzero(~used)
        a = int(cand[rng.integers(len(cand))])
        used[a] = True
        out.append(a)
    return np.asarray(out, dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(n_anchors=st.integers(1, 30), n_units=st.integers(1, 8), density=st.floats(0.0, 1.0),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_masked_injection_draws_what_its_definition_draws(n_anchors, n_units, density, seed, data):
    rng = np.random.default_rng(seed)
    allowed = rng.random((n_anchors, n_units)) < density
    reps = np.asarray(data.draw(st.lists(st.integers(0, n_units - 1), max_size=n_anchors)), dtype=np.int64)
    got = masked_injection(reps, allowed, n_anchors, np.random.default_rng(seed + 1))
    want = _masked_injection_by_definition(reps, allowed, n_anchors, np.random.default_rng(seed + 1))
    assert np.array_equal(got, want)
    assert len(set(got.tolist())) == len(got)   # an injection


@settings(max_examples=60, deadline=None)
@given(n_anchors=st.integers(1, 40), n_units=st.integers(1, 8), density=st.floats(0.0, 1.0),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_compiled_masked_injection_draws_what_the_numpy_loop_draws(n_anchors, n_units, density, seed, data):
    """A joint cluster's draws go to the compiled loop once a process has spent a while in the
    numpy one: the same anchors from the same generator, which is left where the loop leaves it
    (budget_matched goes on drawing from it)."""
    from semtui.metrics._compiled_injection import masked_injection_kernel
    from semtui.metrics.reassociation import _masked_injection_loop

    rng = np.random.default_rng(seed)
    allowed_t = np.ascontiguousarray((rng.random((n_anchors, n_units)) < density).T)
    reps = np.asarray(data.draw(st.lists(st.integers(0, n_units - 1), max_size=n_anchors)), dtype=np.int64)
    numpy_rng, compiled_rng = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    want = _masked_injection_loop(reps, allowed_t, n_anchors, numpy_rng)
    got = masked_injection_kernel(reps, allowed_t, n_anchors, compiled_rng)
    assert np.array_equal(got, want)
    assert numpy_rng.random() == compiled_rng.random()   # the generator advanced alike


def test_masked_injection_loads_the_compiled_loop_only_after_a_while_in_numpy(monkeypatch):
    from semtui.metrics import reassociation as ra
    from semtui.runtime.compiled import NO_NUMBA_ENV

    monkeypatch.delenv(NO_NUMBA_ENV, raising=False)
    monkeypatch.setattr(ra, "_INJECTION", {"spent": 0.0, "kernel": None, "failed": False})
    allowed = np.ones((5, 2), dtype=bool)
    ra.masked_injection(np.asarray([0, 1]), allowed, 5, np.random.default_rng(0))
    assert ra._INJECTION["kernel"] is None and ra._INJECTION["spent"] > 0   # a small run: numpy only
    ra._INJECTION["spent"] = ra.INJECTION_NUMPY_SECONDS
    first = ra.masked_injection(np.asarray([0, 1]), allowed, 5, np.random.default_rng(0))
    assert ra._INJECTION["kernel"] is not None
    monkeypatch.setenv(NO_NUMBA_ENV, "1")   # turned off: the numpy loop again, the same draws
    assert ra._injection_kernel() is None
    assert np.array_equal(ra.masked_injection(np.asarray([0, 1]), allowed, 5, np.random.default_rng(0)), first)


def test_the_compiled_masked_injection_refuses_more_placements_than_anchors_as_the_loop_does():
    from semtui.metrics._compiled_injection import masked_injection_kernel
    from semtui.metrics.reassociation import _masked_injection_loop

    allowed_t = np.ones((2, 3), dtype=bool)
    reps = np.asarray([0, 1, 0, 1], dtype=np.int64)   # four placements, three anchors
    for run in (_masked_injection_loop, masked_injection_kernel):
        with pytest.raises(ValueError):
            run(reps, allowed_t, 3, np.random.default_rng(0))


def test_the_compiled_loops_load_where_numba_can_write_no_cache(tmp_path):
    """A read-only install (no writable cache folder: numba raises at decoration) compiles the
    kernels afresh in each process instead of failing the run."""
    import subprocess
    import sys

    script = tmp_path / "no_cache.py"
    script.write_text(
        "import numba.core.caching as c\n"
        "for cls in c.CacheImpl._locator_classes:\n"   # numba finds no place for its cache
        "    cls.from_function = classmethod(lambda cls, py_func, py_file: None)\n"
        "import numpy as np\n"
        "from semtui.metrics import reassociation as ra\n"
        "ra._INJECTION['spent'] = ra.INJECTION_NUMPY_SECONDS\n"
        "got = ra.masked_injection(np.asarray([0, 1]), np.ones((3, 2), dtype=bool), 3, np.random.default_rng(1))\n"
        "want = ra._masked_injection_loop(np.asarray([0, 1]), np.ones((2, 3), dtype=bool), 3, np.random.default_rng(1))\n"
        "assert ra._INJECTION['kernel'] is not None and list(got) == list(want)\n"
        "from semtui.attacks.setgen import _compiled_sort\n"
        "assert list(_compiled_sort.argsort(np.asarray([3.0, 1.0, 2.0]))) == [1, 2, 0]\n"
        "print('ok')\n", encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "SEMTUI_NO_NUMBA": ""})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
