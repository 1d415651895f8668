"""The compiled eliminator loop is the default path (numba is a core dependency, issue 39); where
numba cannot load, the numpy loop runs -- the same results -- and the command says so once."""

from __future__ import annotations

import importlib.metadata

from conftest import SAMPLES, run_cli


def test_numba_is_a_core_dependency():
    requires = importlib.metadata.requires("semtui") or []
    core = [r for r in requires if "extra ==" not in r]
    assert any(r.replace(" ", "").startswith("numba>=") for r in core), core


def test_a_broken_numba_falls_back_to_the_numpy_loop_and_says_so_once(tmp_path):
    broken = tmp_path / "site" / "numba"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text('raise ImportError("numba cannot load here (test)")\n')
    table = SAMPLES / "fig4-distance-table.csv"
    args = ("table", "eliminate", table, "--method", "rba", "--json")
    env = {"SEMTUI_NUMBA_MIN_CELLS": "1"}  # the compiled loop is wanted even for the paper's small table
    fast = run_cli(*args, env=env)
    slow = run_cli(*args, env={**env, "PYTHONPATH": str(tmp_path / "site")})
    assert fast.returncode == slow.returncode == 0, slow.stderr
    assert slow.stdout == fast.stdout  # the same eliminations, bit for bit
    assert "could not load" not in fast.stderr
    notes = [line for line in slow.stderr.splitlines() if "compiled GBA/RBA/WBA loop could not load" in line]
    assert len(notes) == 1 and "numba cannot load here" in notes[0] and "numpy loop ran" in notes[0]
