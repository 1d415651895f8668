"""`semtui attack setgen --background` end to end, as real processes (issue 20)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli


def _scores(tmp_path) -> str:
    f = tmp_path / "none.csv"
    f.write_text("a,b,distance\n")
    return f"scores:{f}"


@pytest.mark.slow
def test_background_on_the_sample(samples, tmp_path):
    """The bundled MEPS sample attacked with a background made of its other half."""
    lines = (samples / "meps400-original.txt").read_text().splitlines(keepends=True)
    bg = tmp_path / "background.txt"
    bg.write_text("".join(lines[200:]))  # half of the sample as the attacker's similar population
    index = tmp_path / "bg.sqlite"
    assert run_cli("corpus", "build", "--transactions", bg, "-o", index).returncode == 0
    report = tmp_path / "r.json"
    r = run_cli("attack", "setgen", samples / "meps400-setgen.txt", "--original", samples / "meps400-original.txt",
                "--background", bg, "--measure", f"ngd:{index}", "--no-cache", "--report", report)
    assert r.returncode == 0, r.stderr
    assert "Which knowledge carries the attack" in r.stdout
    assert "carried by" in r.stdout and "popularity" in r.stdout
    doc = json.loads(report.read_text())
    # the default tries PBA and TBA and reports the one that takes back more, saying so
    choice = doc["method_choice"]
    assert set(choice["candidates"]) == {"pba", "tba"} and doc["method"] == choice["chosen"]
    cand = choice["candidates"]
    assert cand[doc["method"]]["correct"] == max(c["correct"] for c in cand.values()) == doc["metrics"]["correct"]
    assert "PBA and TBA both tried" in r.stdout and doc["knowledge"] == "combined"
    assert doc["background"]["cooccurrence"] is True
    assert doc["summary"]["skipped_rows"] == 0  # every row attacked with what the attacker has
    kn = doc["metrics"]["knowledge"]
    assert set(kn) == {"prior", "semantics", "background", "combined"}
    for v in ("prior", "background", "combined"):
        assert kn[v]["precision"] > kn[v]["baseline"]["precision"]  # knowledge beats chance here
        assert "intervals" in kn[v]
    assert doc["metrics"]["popularity"]["eliminated"] == doc["metrics"]["eliminated"]


@pytest.mark.slow
def test_all_generalised_release_with_and_without_knowledge(tmp_path):
    """A release that keeps no plain item (as k^m with m >= 2 does): with no knowledge it is
    reported as such, exit 0; with a counts: background it is attacked."""
    release = tmp_path / "r.txt"
    release.write_text("(flu, rash)\n(flu, rash)\n(flu, rash), (cough, gout)\n(cough, gout)\n")
    original = tmp_path / "o.txt"
    original.write_text("flu\nflu\nflu, cough\ncough\n")
    r = run_cli("attack", "setgen", release, "--original", original, "--measure", _scores(tmp_path),
                "--method", "tba", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["attacked_rows"] == 0 and "no knowledge at all" in doc["summary"]["knowledge"]
    counts = tmp_path / "c.csv"
    counts.write_text("N,1000\nflu,300\nrash,2\ncough,250\ngout,3\nflu,cough,80\nflu,gout,0\nrash,cough,0\n"
                      "rash,gout,0\nflu,rash,0\ncough,gout,0\n")
    r = run_cli("attack", "setgen", release, "--original", original, "--measure", _scores(tmp_path),
                "--background", f"counts:{counts}", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    eliminated = {e["item"] for g in doc["groups"] for e in g["eliminations"]}
    assert eliminated == {"rash", "gout"} and doc["metrics"]["precision"] == 1.0
    # the embedding knows flu and cough, not the made-up rare members: they are eliminated all the
    # same, so the warning about them must not say "never eliminated"
    release.write_text("(flu, xqzvrash)\n(flu, xqzvrash)\n(flu, xqzvrash), (cough, xqzvgout)\n(cough, xqzvgout)\n")
    counts.write_text(counts.read_text().replace("rash", "xqzvrash").replace("gout", "xqzvgout"))
    r = run_cli("attack", "setgen", release, "--original", original, "--background", f"counts:{counts}", "--json")
    assert r.returncode == 0, r.stderr
    assert {e["item"] for g in json.loads(r.stdout)["groups"] for e in g["eliminations"]} == {"xqzvrash", "xqzvgout"}
    assert "xqzvrash" in r.stderr and "never eliminated" not in r.stderr
    assert "the background still scores them" in r.stderr


@pytest.mark.parametrize(("args", "needle"), [
    (["--background", "counts:"], "--background"),
    (["--background", "wordfreq:xx"], "no frequency list"),
    (["--method", "pba"], "--method"),
    (["--knowledge", "prior"], "--knowledge"),
    (["--background", ""], "--background: the background is empty"),  # was ignored: the papers' attack, exit 0
])
def test_bad_background_options(samples, tmp_path, args, needle):
    r = run_cli("attack", "setgen", samples / "meps400-setgen.txt", "--measure", _scores(tmp_path), *args)
    assert r.returncode == 2
    assert needle in r.stderr and "Traceback" not in r.stderr


def test_bad_background_file_names_its_line(samples, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("N,10\nflu,notanumber\n")
    r = run_cli("attack", "setgen", samples / "meps400-setgen.txt", "--measure", _scores(tmp_path),
                "--background", f"counts:{bad}")
    assert r.returncode == 2
    assert f"{bad}:2" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_a_background_that_knows_no_member_is_refused(samples, tmp_path):
    """A background sharing no item with the release's generalised items gives every member the
    same prior: the attack eliminated nothing and said "took back none" with exit 0, a false
    all-clear from a wrong file.  It is refused, naming the file."""
    bg = tmp_path / "other.txt"
    bg.write_text("zzz, yyy\nqqq\n")
    r = run_cli("attack", "setgen", samples / "meps400-setgen.txt", "--measure", _scores(tmp_path),
                "--background", bg)
    assert r.returncode == 2, r.stdout
    assert f"{bg}:" in r.stderr and "none of" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_background_that_knows_no_term_is_refused_by_nba(samples, tmp_path):
    """The same for `attack disassoc` (nba): every lift 0, placements by ties alone, reported
    as the take of an attacker with background knowledge (exit 0)."""
    bg = tmp_path / "other.txt"
    bg.write_text("zzz, yyy\nqqq\n")
    r = run_cli("attack", "disassoc", samples / "disassociated.json", "--key", samples / "disassociated.key.json",
                "--original", samples / "disassociated-original.txt", "--background", bg)
    assert r.returncode == 2, r.stdout
    assert f"{bg}:" in r.stderr and "none of" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_semantics_table_is_never_attacked_as_pba(samples, tmp_path):
    """--knowledge semantics with PBA explicitly: refused (PBA reads surprisals); by default
    TBA, and the report says so (it said pba while running TBA)."""
    bg = tmp_path / "bg.txt"
    bg.write_text("".join((samples / "meps400-original.txt").read_text().splitlines(keepends=True)[200:]))
    args = ("attack", "setgen", samples / "meps400-setgen.txt", "--background", bg, "--knowledge", "semantics",
            "--measure", "embedding")
    r = run_cli(*args, "--method", "pba")
    assert r.returncode == 2 and "--method" in r.stderr and "semantics" in r.stderr
    r = run_cli(*args, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["method"] == "tba"


def test_the_groups_table_says_when_it_shows_only_the_first_ten(samples, semtui):
    """The MEPS-400 release has 11 equivalence groups; the table shows 10, and a new user missed the
    eleventh (no eliminations) with nothing saying so: the title says how many it shows."""
    args = ["attack", "setgen", samples / "meps400-setgen.txt", "--original", samples / "meps400-original.txt",
            "--background", samples / "meps400-background.txt"]
    doc = json.loads(semtui(*args, "--json").out)
    n = len(doc["groups"])
    assert n > 10
    text = semtui(*args).out
    assert f"Groups (most eliminations first; the first 10 of {n}: the JSON report lists every one)" in text
