"""The experiment cell options the tables of docs/experiments.md need (issue 22): a spec's
``attacks`` (which attacks every cell runs), setgen's ``unmarked`` (the release written unmarked
and attacked as ``attack setgen --unmarked`` does), and the disassociation figures REFINE's table
reads (shared chunks, the random re-association's breakages, the informed reference, the cover
problems across a shared chunk).  Real cells on a slice of MEPS, each a second or two."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLES

from semtui.errors import InputError
from semtui.experiment import make_cell, read_spec
from semtui.experiment.run import run_experiment

MEPS = SAMPLES / "meps400-original.txt"


def _cells(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _spec(tmp_path, text: str, name: str = "s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return read_spec(p)


@pytest.mark.slow
def test_attacks_runs_only_the_attacks_named_and_says_so(tmp_path):
    spec = _spec(tmp_path, f'original = "{MEPS}"\nattacks = ["tba", "RA"]\n'
                           '[[release]]\nfamily = "setgen"\nk = 3\nrandom_privacy = 40\n')
    assert spec.attacks == ("tba", "ra")
    out = tmp_path / "r.jsonl"
    run_experiment(spec, out)
    (cell,) = _cells(out)
    assert [a["method"] for a in cell["attacks"]] == ["tba", "ra"]
    assert cell["privacy"]["attacks_only"] == ["tba", "ra"] and cell["inputs"]["attacks"] == ["tba", "ra"]
    assert "strongest of those" in cell["privacy"]["note"]
    # the same RESULTS with every attack is other inputs: refused, never mixed
    every = _spec(tmp_path, f'original = "{MEPS}"\n[[release]]\nfamily = "setgen"\nk = 3\nrandom_privacy = 40\n',
                  "every.toml")
    with pytest.raises(InputError, match="other inputs"):
        run_experiment(every, out)


def test_no_attack_measures_the_release_only_and_a_bad_name_is_refused(tmp_path):
    spec = _spec(tmp_path, f'original = "{MEPS}"\nattacks = []\n'
                           '[[release]]\nfamily = "setgen"\nk = 3\nrandom_privacy = 40\n')
    out = tmp_path / "r.jsonl"
    run_experiment(spec, out)
    (cell,) = _cells(out)
    assert cell["attacks"] == [] and cell["privacy"]["risk"] is None  # unknown, never 0
    assert cell["check"]["passed"] and cell["utility"]["score"] > 0
    with pytest.raises(InputError) as e:
        _spec(tmp_path, f'original = "{MEPS}"\nattacks = ["tba", "magic"]\n'
                        '[[release]]\nfamily = "setgen"\nk = 3\n', "bad.toml")
    assert e.value.line == 2 and "magic" in str(e.value)


def test_unmarked_is_left_out_of_the_id_at_its_default():
    """Cells written before the option keep their ids (and resume)."""
    assert make_cell("setgen", {"k": 3, "unmarked": False}).id == "setgen:k=3,random_privacy=300,seed=1,sizes=3-6,utility=all"
    assert "unmarked=true" in make_cell("setgen", {"k": 3, "unmarked": True}).id


@pytest.mark.slow
def test_an_unmarked_release_is_recovered_and_attacked_like_the_marked_one(tmp_path):
    spec = _spec(tmp_path, f'original = "{MEPS}"\nattacks = ["tba", "ra"]\n'
                           '[[release]]\nfamily = "setgen"\nk = 3\nrandom_privacy = 40\nunmarked = [false, true]\n')
    out = tmp_path / "r.jsonl"
    run_experiment(spec, out)
    marked, unmarked = _cells(out)
    assert "unmarked" not in marked and unmarked["cell"]["unmarked"] is True
    assert "--unmarked" in unmarked["anonymize_command"] and "--unmarked" in unmarked["privacy"]["command"]
    assert "semtui-cell-" not in json.dumps(unmarked)  # the commands name the release, not a temporary file
    rec = unmarked["unmarked"]["k_known"]
    assert rec["k"] == 3 and rec["exactness"]["exact_matches"] == rec["exactness"]["true_groups"] > 0
    assert rec["cells"]["added_in_groups"] == rec["cells"]["added_items"] > 0
    assert unmarked["unmarked"]["k_unknown"]["k"] is None
    # recovered exactly, the unmarked release is the marked one to the attacker; the utility is
    # the marked release's (the same information)
    for a, b in zip(marked["attacks"], unmarked["attacks"]):
        assert a["figures"]["correct"] == b["figures"]["correct"] and a["figures"]["precision"] == b["figures"]["precision"]
    assert unmarked["utility"] == marked["utility"]
    assert unmarked["check"]["passed"]


@pytest.mark.slow
def test_disassociation_cells_carry_refines_figures(tmp_path):
    half = MEPS.read_text().splitlines(keepends=True)
    (tmp_path / "h1.txt").write_text("".join(half[:200]))
    (tmp_path / "h2.txt").write_text("".join(half[200:]))
    spec = _spec(tmp_path, 'original = "h1.txt"\nbackground = "h2.txt"\nattacks = ["nba", "ra", "cover"]\n'
                           '[[release]]\nfamily = "disassoc"\nk = 5\nm = 2\nmax_cluster_size = 30\n'
                           'refine = [false, true]\n')
    out = tmp_path / "r.jsonl"
    run_experiment(spec, out)
    two, joint = _cells(out)
    for cell in (two, joint):
        assert [a["method"] or a["attacker"] for a in cell["attacks"]] == ["nba", "ra", "strong", "moderate", "weak"]
        nba = cell["attacks"][0]
        assert nba["informed_reference"]["accuracy"] is not None
        assert 0 <= nba["figures"]["baseline_transaction_breakage"] <= 1
        assert 0 <= nba["figures"]["baseline_km_breakage"] <= 1
    strong = {c["cell"]["refine"]: next(a for a in c["attacks"] if a["attacker"] == "strong")["figures"]
              for c in (two, joint)}
    # two steps: no shared chunk, so no placement in one and no cover problem across one
    assert "shared_chunks" not in two["attacks"][0]["figures"] and strong[False]["spanning_shared_chunk"] == 0
    sh = joint["attacks"][0]["figures"]["shared_chunks"]
    assert 0 < sh["placements"] <= joint["attacks"][0]["figures"]["placements"]
    assert 0 < strong[True]["spanning_shared_chunk"] <= strong[True]["cover_problems"]
    assert strong[True]["held_by_every_record"] <= strong[True]["cover_problems"]
