"""``semtui table eliminate`` run as a real process on real CSV files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

FIG4 = REPO / "sample_data" / "fig4-distance-table.csv"


def run(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "semtui", "table", "eliminate", *map(str, args)],
                          check=False, capture_output=True, text=True, env=full_env, cwd=REPO)


def as_json(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_gba_json_on_fig4():
    doc = as_json(FIG4, "--method", "gba")
    assert doc["format"] == "semtui-table-eliminate/1"
    assert doc["method"] == "gba"
    assert doc["threshold"] == pytest.approx(0.445, abs=5e-4)
    got = [(e["row"], e["column"]) for e in doc["eliminated"]]
    assert got == [("gangrene", "icd"), ("gangrene", "blood pressure"), ("anesthesia", "limbs"),
                   ("anesthesia", "blood pressure"), ("heart disease", "injury")]
    first = doc["eliminated"][0]
    assert first["step"] == 1
    assert first["distance"] == 2.93
    assert first["vulnerability"] == pytest.approx(0.799, abs=5e-4)
    assert first["group"] == "column icd"
    assert set(first) >= {"step", "row", "column", "distance", "weighted", "vulnerability"}
    assert len(doc["kept"]) == 11
    assert {"row": "knee", "column": "injury", "row_index": 3, "column_index": 3} in doc["kept"]


def test_rba_json_keeps_exactly_the_original_items():
    doc = as_json(FIG4, "-m", "rba")
    assert len(doc["eliminated"]) == 10
    kept = {(k["row"], k["column"]) for k in doc["kept"]}
    assert kept == {("heart disease", "blood pressure"), ("heart disease", "icd"),
                    ("anesthesia", "icd"), ("gangrene", "limbs"), ("gangrene", "injury"),
                    ("knee", "injury")}


@pytest.mark.slow
def test_wba_tba_mda_json():
    wba = as_json(FIG4, "-m", "wba")
    assert wba["threshold"] == pytest.approx(0.898, abs=5e-4)
    assert len(wba["eliminated"]) == 4
    assert all(e["vulnerability"] is None for e in wba["eliminated"])
    mda = as_json(FIG4, "-m", "mda")
    assert mda["threshold"] is None
    assert [(e["row"], e["column"]) for e in mda["eliminated"]] == [("gangrene", "icd")]
    tba = as_json(FIG4, "-m", "tba", "--threshold", "2")
    assert tba["threshold"] == 2.0
    assert len(tba["eliminated"]) == 3


@pytest.mark.slow
def test_ra_seeded_is_reproducible():
    a = as_json(FIG4, "-m", "ra", "--seed", "11")
    b = as_json(FIG4, "-m", "ra", "--seed", "11")
    assert a["eliminated"] == b["eliminated"]
    none = as_json(FIG4, "-m", "ra", "--seed", "11", "--probability", "0")
    assert none["eliminated"] == [] and len(none["kept"]) == 16


def test_rich_rendering_marks_steps_without_colour():
    p = run(FIG4, "-m", "gba", env={"NO_COLOR": "1"})
    assert p.returncode == 0, p.stderr
    assert "\x1b[" not in p.stdout
    assert "✗1 2.93" in p.stdout  # icd@gangrene, step 1
    assert "✗5 2.19" in p.stdout
    assert "δ = 0.445" in p.stdout
    assert "vulnerability 0.799" in p.stdout
    gangrene = next(line for line in p.stdout.splitlines() if line.startswith("gangrene"))
    assert "✗2 2.60" in gangrene and "1.78" in gangrene


@pytest.mark.slow
def test_missing_cells(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("ctx,a,b,c\nx,0.1,,2.0\ny,1.5,0.2,\nz,,0.3,0.4\n", encoding="utf-8")
    doc = as_json(f, "-m", "tba", "--threshold", "0.05")
    assert all(e["row"] and e["column"] for e in doc["eliminated"])
    cells = {(e["row"], e["column"]) for e in doc["eliminated"]} | {
        (k["row"], k["column"]) for k in doc["kept"]}
    assert ("x", "b") not in cells and ("y", "c") not in cells and ("z", "a") not in cells
    assert len(cells) == 6
    p = run(f, "-m", "rba", env={"NO_COLOR": "1"})
    assert p.returncode == 0 and "·" in p.stdout


@pytest.mark.parametrize("content, line, words", [
    ("ctx,a,b\nx,0.1,0.2\ny,0.3\n", 3, "fields"),
    ("ctx,a,b\nx,0.1,abc\n", 2, "not a number"),
    ("ctx,a,a\nx,0.1,0.2\n", 1, "duplicate column label"),
    ("ctx,a,b\n", 1, "no data"),
    ("ctx,a,b\nx,0.1,inf\n", 2, "finite"),
    ("ctx\nx\n", 1, "member item"),
    ("ctx,a,\nx,0.1,0.2\n", 1, "empty label"),
    ("", None, "empty"),
])
def test_bad_csv_is_one_line_naming_file_and_line(tmp_path, content, line, words):
    f = tmp_path / "bad.csv"
    f.write_text(content, encoding="utf-8")
    p = run(f, "-m", "gba")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    where = f"{f}:{line}:" if line else f"{f}:"
    assert where in p.stderr and words in p.stderr, p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("args", [
    ["-m", "nope"],
    ["-m", "mda", "--threshold", "1"],
    ["-m", "gba", "--seed", "3"],
    ["-m", "ra", "--probability", "1.5"],
])
def test_usage_errors_exit_2(args):
    p = run(FIG4, *args)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr


def test_missing_file_exits_2(tmp_path):
    p = run(tmp_path / "none.csv")
    assert p.returncode == 2 and "no such file" in p.stderr


def test_command_does_not_import_scipy_or_pandas(tmp_path):
    code = ("import sys\nfrom semtui.cli.main import run\n"
            "sys.argv = ['semtui', 'table', 'eliminate', sys.argv[1], '--json']\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n"
            "bad = [m for m in ('scipy', 'pandas', 'textual') if m in sys.modules]\n"
            "sys.stderr.write('HEAVY:' + ','.join(bad))\n")
    p = subprocess.run([sys.executable, "-c", code, str(FIG4)], check=False,
                       capture_output=True, text=True, cwd=REPO)
    assert "HEAVY:" in p.stderr
    assert p.stderr.split("HEAVY:")[1].strip() == ""
