"""``semtui experiment`` as a user runs it (issue 22): a spec of a few cells on a slice of the
sample runs and its lines follow the cell contract (docs/experiment.md), a second run measures
nothing, a torn last line is dropped, SIGINT/SIGTERM in the middle leave whole lines, the plots
(SVG that parses, PNG of the asked size), and bad specs exit 2 in one line.  Also ``assess
--original`` with its alternatives on the bundled setgen sample."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, TEST_CACHE, drain, finish_draining, paused_at, run_cli, wait_paused

CONTRACT = ("format", "id", "cell", "label", "release", "check", "privacy", "utility", "times")

SPEC = """original = "orig.txt"
background = "bg.txt"
keep_releases = "kept"

[[release]]
family = "setgen"
k = [2, 3]
random_privacy = 10
sizes = "3-6"
seed = 1

[[release]]
family = "disassoc"
k = [2]
m = [2]
max_cluster_size = [20]
"""


def _slice(folder: Path) -> None:
    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (folder / "orig.txt").write_text("".join(lines[:150]))
    (folder / "bg.txt").write_text("".join(lines[300:400]))


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """The 3-cell spec run once: (folder, spec, RESULTS, the run's stdout)."""
    d = tmp_path_factory.mktemp("exp")
    _slice(d)
    spec = d / "grid.toml"
    spec.write_text(SPEC)
    r = run_cli("experiment", spec, "-o", d / "RESULTS.jsonl")
    assert r.returncode == 0, r.stderr
    return d, spec, d / "RESULTS.jsonl", r.stdout


def _lines(path: Path) -> list[dict]:
    text = path.read_text()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
def test_every_line_follows_the_cell_contract(grid):
    d, _, results, out = grid
    cells = _lines(results)
    assert [c["id"] for c in cells] == ["setgen:k=2,random_privacy=10,seed=1,sizes=3-6,utility=all",
                                        "setgen:k=3,random_privacy=10,seed=1,sizes=3-6,utility=all",
                                        "disassoc:k=2,m=2,max_cluster_size=20,refine=true,safe=false"]
    assert "3 measured now, 0 already there" in out
    for c in cells:
        assert all(k in c for k in CONTRACT), c.keys()
        assert c["format"] == "semtui-experiment/2" and Path(c["release"]).is_file()
        assert Path(c["release"]).parent == d / "kept"
        assert c["check"]["passed"] is True and c["check"]["checker"] and c["check"]["detail"]
        p, u = c["privacy"], c["utility"]
        assert p["attack"] and p["command"].startswith("semtui attack ")
        assert 0.0 <= p["risk"] <= 1.0 and 0.0 <= u["score"] <= 1.0
        assert set(c["times"]) >= {"anonymize_s", "check_s", "attack_s"}
        for iv in p["intervals"].values():  # the one interval shape of every document
            assert set(iv) == {"low", "high", "level", "resamples"} and iv["low"] <= iv["high"]
    s2, s3, dis = cells
    assert s2["cell"] == {"family": "setgen", "k": 2, "random_privacy": 10, "seed": 1, "sizes": "3-6",
                          "utility": "all"}
    # set generalisation: risk is the strongest attack's recall over all added items; NCP beside UL
    assert s2["privacy"]["risk"] == s2["privacy"]["figures"]["recall"]
    assert {"ncp", "ul", "exact_share"} <= set(s2["utility"]) and s2["utility"]["score"] == pytest.approx(
        1 - s2["utility"]["ncp"], abs=1e-6)
    # disassociation: risk is the share of sub-records and terms put back right; the associated share
    assert dis["privacy"]["risk"] == dis["privacy"]["figures"]["accuracy"]
    assert dis["utility"]["score"] == dis["utility"]["associated_share"]
    assert set(dis["privacy"]["cover_breaches"]) == {"strong", "moderate", "weak"}
    # the kept release is the one its anonymize command makes again (seeded, deterministic), with its
    # sidecar (private); a disassociated release with its key (private)
    assert os.stat(s3["release"] + ".json").st_mode & 0o777 == 0o600
    assert os.stat(dis["key"]).st_mode & 0o777 == 0o600 and dis["privacy"]["command"].count(dis["key"]) == 1
    kept = Path(s3["release"]).read_bytes()
    args = shlex.split(s3["anonymize_command"])[1:]
    args[args.index("-o") + 1] = str(d / "again.txt")
    r = run_cli(*args, cwd=d)
    assert r.returncode == 0, r.stderr
    assert (d / "again.txt").read_bytes() == kept
    # the strongest attack's command, run alone on the kept release, gives the cell's figures
    alone = run_cli(*shlex.split(s3["privacy"]["command"])[1:], "--json", cwd=d)
    assert alone.returncode == 0, alone.stderr
    m = json.loads(alone.stdout)["metrics"]
    assert m["correct"] == s3["privacy"]["figures"]["correct"]
    assert m["recall"] == pytest.approx(s3["privacy"]["risk"], abs=1e-6)


def test_cells_of_other_inputs_are_not_resumed(grid, tmp_path):
    _, _, results, _ = grid
    _slice(tmp_path)
    spec = tmp_path / "grid.toml"
    spec.write_text(SPEC)
    copy = tmp_path / "R.jsonl"
    copy.write_bytes(results.read_bytes())
    r = run_cli("experiment", spec, "-o", copy)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "other inputs" in r.stderr, r.stderr
    assert copy.read_bytes() == results.read_bytes()


def test_a_second_run_measures_nothing(grid):
    _, spec, results, _ = grid
    before = results.read_bytes()
    r = run_cli("experiment", "run", spec, "-o", results)
    assert r.returncode == 0, r.stderr
    assert "0 measured now, 3 already there (skipped)" in r.stdout
    assert results.read_bytes() == before


@pytest.mark.slow
def test_cells_two_at_a_time_write_the_same_lines_in_order(grid, tmp_path):
    """--jobs 2 runs the cells as units of the executor, two at a time: the lines are those of one
    cell at a time, in the spec's order, kept releases included (times aside)."""
    _, _, results, _ = grid
    _slice(tmp_path)
    spec = tmp_path / "grid.toml"
    spec.write_text(SPEC)
    out = tmp_path / "RESULTS.jsonl"
    r = run_cli("experiment", spec, "-o", out, "--jobs", "2")
    assert r.returncode == 0, r.stderr

    def timeless(v):
        if isinstance(v, dict):
            return {k: timeless(x) for k, x in v.items() if k not in ("times", "seconds")}
        return [timeless(x) for x in v] if isinstance(v, list) else v

    def lines(path):  # the folders' names and the timings aside
        text = path.read_text().replace(str(path.parent), "FOLDER")
        return [timeless(json.loads(x)) for x in text.splitlines()]

    assert lines(out) == lines(results)
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == \
        sorted(p.name for p in (results.parent / "kept").iterdir())


@pytest.mark.slow
def test_a_torn_last_line_is_dropped_and_its_cell_measured_again(grid, tmp_path):
    _, spec, results, _ = grid
    whole = results.read_text().splitlines(keepends=True)
    torn = tmp_path / "R.jsonl"
    torn.write_text("".join(whole[:2]) + whole[2][: len(whole[2]) // 2])  # an older crash mid-write
    r = run_cli("experiment", spec, "-o", torn)
    assert r.returncode == 0, r.stderr
    assert "R.jsonl:3: dropped a torn last line" in r.stderr and "Traceback" not in r.stderr
    assert "1 measured now, 2 already there" in r.stdout
    cells = _lines(torn)
    assert [c["id"] for c in cells] == [json.loads(x)["id"] for x in whole]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.slow
def test_an_interrupt_leaves_whole_lines_and_the_next_run_resumes(tmp_path, tmp_path_factory, sig, code):
    """A real process; the signal lands once the first line is written, as the second cell starts
    (the test hook stops the run there), while later cells are still to run."""
    _slice(tmp_path)
    ks = [2, 3, 4]
    spec = tmp_path / "grid.toml"
    spec.write_text('original = "orig.txt"\nbackground = "bg.txt"\n\n[[release]]\nfamily = "setgen"\n'
                    f'k = {ks}\nrandom_privacy = 10\n')
    results = tmp_path / "R.jsonl"
    marker = tmp_path_factory.mktemp("pause") / "paused"  # outside the folder whose files are checked
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.setdefault("SEMTUI_CACHE_DIR", str(TEST_CACHE))
    proc = subprocess.Popen([sys.executable, "-m", "semtui", "experiment", str(spec), "-o", str(results)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=paused_at(re.escape(f"experiment 1/{len(ks)} [2/{len(ks)}]"), marker, env))
    wait_paused(proc, marker)
    assert results.read_text().count("\n") == 1
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    text = results.read_text()
    assert text.endswith("\n")
    done = [json.loads(line) for line in text.splitlines()]
    assert 1 <= len(done) < len(ks)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["R.jsonl", "bg.txt", "grid.toml", "orig.txt"]
    assert os.stat(results).st_mode & 0o777 == 0o600
    r = run_cli("experiment", spec, "-o", results)
    assert r.returncode == 0, r.stderr
    assert f"{len(ks) - len(done)} measured now, {len(done)} already there" in r.stdout
    assert [c["cell"]["k"] for c in _lines(results)] == ks


@pytest.mark.slow
def test_plot_svg_and_png(grid, tmp_path):
    pytest.importorskip("matplotlib")
    _, _, results, _ = grid
    svg, png = tmp_path / "f.svg", tmp_path / "f.png"
    r = run_cli("experiment", "plot", results, "-o", svg)
    assert r.returncode == 0, r.stderr
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    w, h = (float(root.get(a).removesuffix("pt")) for a in ("width", "height"))
    assert w / h == pytest.approx(1200 / 500, rel=0.01)
    text = svg.read_text()
    assert "Pareto frontier" in text and "risk against utility" in text
    r = run_cli("experiment", "plot", results, "-o", png, "--width", "900", "--height", "400")
    assert r.returncode == 0, r.stderr
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    assert struct.unpack(">II", head[16:24]) == (900, 400)


def test_plot_without_matplotlib_names_the_extra(grid, tmp_path):
    _, _, results, _ = grid
    fake = tmp_path / "site" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    r = run_cli("experiment", "plot", results, "-o", tmp_path / "f.svg",
                env={"PYTHONPATH": f"{tmp_path / 'site'}{os.pathsep}{REPO}"})
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "semtui[plot]" in r.stderr and not (tmp_path / "f.svg").exists()


@pytest.mark.parametrize("text, needle", [
    ('original = "orig.txt"\n[[release]]\nfamily = "setgen"\nk = [2,\n', "grid.toml:4: not valid TOML"),
    ('original = "orig.txt"\n\n[[release]]\nfamily = "setgen"\nkk = 3\n', "grid.toml:5: unknown parameter 'kk'"),
    ('original = "orig.txt"\n[[release]]\nfamily = "coat"\nk = 2\n', "grid.toml:3: 'family' must be one of"),
    ('original = "orig.txt"\n[[release]]\nfamily = "disassoc"\nk = [2]\nm = 2\n', "needs 'max_cluster_size'"),
    ('original = "orig.txt"\n[[release]]\nfamily = "setgen"\nk = []\n', "grid.toml:4: 'k' is an empty list"),
    ('original = "orig.txt"\n[[release]]\nfamily = "setgen"\nk = 0\n', "grid.toml:4: 'k' must be a whole number"),
    ('origin = "orig.txt"\n', "grid.toml:1: unknown key 'origin'"),
    ('original = "orig.txt"\n', "no [[release]] table"),
    ('original = "missing.txt"\n[[release]]\nfamily = "setgen"\nk = 2\n', "missing.txt: no such file"),
])
@pytest.mark.slow
def test_bad_specs_exit_2_in_one_line(tmp_path, text, needle):
    _slice(tmp_path)
    spec = tmp_path / "grid.toml"
    spec.write_text(text)
    r = run_cli("experiment", spec, "-o", tmp_path / "R.jsonl")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert needle in r.stderr, r.stderr
    assert not (tmp_path / "R.jsonl").exists()


@pytest.fixture(scope="module")
def assessed(tmp_path_factory):
    d = tmp_path_factory.mktemp("assess")
    rep = d / "a.json"
    r = run_cli("assess", SAMPLES / "meps400-setgen.txt", "--original", SAMPLES / "meps400-original.txt",
                "--report", rep)
    assert r.returncode == 0, r.stderr
    return rep, r.stdout


@pytest.mark.slow
def test_assess_with_the_original_measures_safer_alternatives(assessed):
    rep, out = assessed
    doc = json.loads(rep.read_text())
    alts = doc["alternatives"]
    labels = [a["label"] for a in alts]
    assert labels[0] == "this release" and len(alts) >= 3, labels  # this release and >= 2 alternatives
    assert sum(a["chosen"] for a in alts) == 1
    assert "sidecar" in doc["alternatives_note"]
    this = alts[0]
    # "this release" carries the assessment's own strongest attack, and its parameters from the sidecar
    assert this["privacy"]["attack"] == doc["strongest"]["attack"]
    assert this["cell"]["k"] == 3 and this["cell"]["random_privacy"] == 30 and this["check"]["passed"] is True
    for a in alts[1:]:
        assert all(k in a for k in CONTRACT) and a["cell"]["family"] == "setgen"
        assert a["check"]["passed"] is True and a["why"]
        assert 0 <= a["privacy"]["risk"] <= 1
    assert any(a["cell"]["k"] > 3 for a in alts[1:])
    # the hardened release of the family is the first alternative, made by semtui harden, on the one
    # utility axis of every family (the original's top pair supports as the release answers them)
    hardened = alts[1]
    assert hardened["label"].startswith("hardened") and hardened["cell"]["harden"] is True
    assert hardened["anonymize_command"].startswith("semtui harden ") and "--family setgen" in \
        hardened["anonymize_command"]
    assert all(a["utility"]["pair_support_error"] is not None for a in alts)
    assert "pair supports off by" in out
    chosen = next(a for a in alts if a["chosen"])
    if chosen["label"] == "this release":
        assert "Keep this release" in doc["verdict"]
    else:
        assert f"Publish instead: {chosen['label']}" in doc["verdict"]
        assert chosen["privacy"]["risk"] <= this["privacy"]["risk"]  # never one that takes back more
    assert "Publish this instead?" in out


@pytest.mark.slow
def test_the_assessment_plots_its_alternatives(assessed, tmp_path):
    pytest.importorskip("matplotlib")
    rep, _ = assessed
    r = run_cli("experiment", "plot", rep, "-o", tmp_path / "a.svg")
    assert r.returncode == 0, r.stderr
    assert "alternatives" in r.stdout and "this release" in (tmp_path / "a.svg").read_text()


@pytest.mark.slow
def test_assess_no_alternatives_and_no_original():
    r = run_cli("assess", SAMPLES / "meps400-setgen.txt", "--original", SAMPLES / "meps400-original.txt",
                "--no-alternatives", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["alternatives"] == [] and "--no-alternatives" in doc["alternatives_note"]
    r = run_cli("assess", SAMPLES / "meps400-setgen.txt", "--json")
    doc = json.loads(r.stdout)
    assert doc["alternatives"] == [] and "--original" in doc["alternatives_note"]


@pytest.mark.slow
def test_an_interrupt_while_the_alternatives_run_keeps_those_finished(tmp_path, tmp_path_factory):
    """The bar (stderr a terminal) names the alternative being measured; SIGINT as the first
    alternative starts (the test hook stops the run there) then writes every attack, the
    alternatives finished ("this release" at least) and the choice among them, partial."""
    import pty

    rep = tmp_path / "a.json"
    marker = tmp_path_factory.mktemp("pause") / "paused"
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200")
    env.setdefault("SEMTUI_CACHE_DIR", str(TEST_CACHE))
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "semtui", "assess", str(SAMPLES / "meps400-setgen.txt"),
                             "--original", str(SAMPLES / "meps400-original.txt"), "--report", str(rep)],
                            stdout=subprocess.PIPE, stderr=slave, text=True,
                            env=paused_at(r"\[alternative 1/", marker, env))
    os.close(slave)
    try:
        wait_paused(proc, marker, timeout=120, meanwhile=lambda: drain(master))
        proc.send_signal(signal.SIGINT)
        finish_draining(proc, master)
    finally:
        os.close(master)
    assert proc.returncode == 130
    doc = json.loads(rep.read_text())
    assert doc["partial"] is True and "interrupted" in doc["alternatives_note"]
    assert len(doc["attacks"]) == 6 and doc["strongest"] is not None  # every attack had finished
    alts = doc["alternatives"]
    assert alts[0]["label"] == "this release" and len(alts) < 4 and sum(a["chosen"] for a in alts) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
