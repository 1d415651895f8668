"""The experiment engine's pieces: the spec's grid and cell ids, the utility figures on the
papers' running example, the Pareto frontier, the choice among alternatives, RESULTS reading
and the append primitive."""

from __future__ import annotations

import os

import pytest
from conftest import SAMPLES
from hypothesis import given
from hypothesis import strategies as st

from semtui.errors import InputError
from semtui.experiment import make_cell, read_results, read_spec
from semtui.experiment.alternatives import choose, distance
from semtui.experiment.plot import pareto


def test_the_grid_is_each_tables_product_with_defaults_filled_in(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('original = "o.txt"\n[[release]]\nfamily = "setgen"\nk = [2, 4]\nseed = [1, 2]\n'
                    '[[release]]\nfamily = "km"\nk = 5\nm = [2, 3]\n'
                    '[[release]]\nfamily = "setgen"\nk = 2\nseed = 1\n')  # a cell already in the grid runs once
    s = read_spec(spec)
    ids = [c.id for c in s.cells()]
    assert ids == ["setgen:k=2,random_privacy=300,seed=1,sizes=3-6,utility=all",
                   "setgen:k=2,random_privacy=300,seed=2,sizes=3-6,utility=all",
                   "setgen:k=4,random_privacy=300,seed=1,sizes=3-6,utility=all",
                   "setgen:k=4,random_privacy=300,seed=2,sizes=3-6,utility=all",
                   "km:algorithm=aa,fanout=5,k=5,m=2,order=id",
                   "km:algorithm=aa,fanout=5,k=5,m=3,order=id"]
    assert s.original == tmp_path / "o.txt"
    # the id does not depend on how the parameters were written
    assert make_cell("setgen", {"seed": 1, "k": 2}).id == make_cell("setgen", {"k": 2, "sizes": "3-6"}).id
    # a privacy file replaces the random constraints; a hierarchy file the fanout and order
    assert "random_privacy" not in make_cell("setgen", {"k": 2, "privacy": "p.txt"}).id
    assert "fanout" not in make_cell("km", {"k": 2, "m": 2, "hierarchy": "h.txt"}).id


def test_a_measure_file_is_read_from_the_spec_folder(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('original = "o.txt"\nmeasure = ["embedding", "ngd:i.sqlite"]\n'
                    '[[release]]\nfamily = "disassoc"\nk = 2\nm = 2\nmax_cluster_size = 10\n')
    assert read_spec(spec).measures == ("embedding", f"ngd:{tmp_path / 'i.sqlite'}")


def test_utility_of_the_papers_running_example():
    """Fig. 2 of Shao & Ong: 4 patients, 12 conditions; (blood pressure, icd, limbs, injury) holds 6 of
    the 14 occurrences, 4 members each."""
    from semtui import formats
    from semtui.metrics.release_utility import generalised_utility

    u = generalised_utility(formats.read_transactions(SAMPLES / "medical-original.txt"),
                            formats.read_transactions(SAMPLES / "medical-setgen.txt"))
    assert u["ncp"] == pytest.approx(6 * 4 / 12 / 14, abs=1e-6)
    assert u["exact_share"] == pytest.approx(8 / 14, abs=1e-6)
    assert u["added_items"] == 4 * 4 - 6
    assert u["ul"] == pytest.approx((2 ** 4 - 1) * 4 / 4)
    assert u["score"] == pytest.approx(1 - u["ncp"], abs=1e-6)


def test_utility_of_the_disassociated_sample():
    from semtui import formats
    from semtui.metrics.release_utility import disassociated_utility

    u = disassociated_utility(formats.read(SAMPLES / "disassociated.json"))
    # record chunks {blood, treatment, lung, cancer} and {tumor, biopsy}; term chunk of 3
    assert u["associated_share"] == pytest.approx(6 / 9, abs=1e-6) and u["term_chunk_terms"] == 3


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30))
@pytest.mark.slow
def test_the_pareto_frontier(points):
    front = pareto(points)

    def dominates(a, b):
        return a[0] <= b[0] and a[1] >= b[1] and (a[0] < b[0] or a[1] > b[1])

    assert front
    for i in front:  # nothing dominates a frontier point
        assert not any(dominates(p, points[i]) for p in points)
    for j in set(range(len(points))) - set(front):  # every other point is dominated
        assert any(dominates(p, points[j]) for p in points)


def _cell(label, er, score, risk=0.5, passed=True, beats=True, family="setgen"):
    return {"label": label, "cell": {"family": family}, "check": {"passed": passed},
            "privacy": {"attack": "x", "beats_chance": beats, "risk": risk,
                        "figures": {"error_ratio": er} if family == "setgen" else {"lift": er}},
            "utility": {"score": score}}


def test_the_choice_is_closest_to_chance_then_most_useful():
    cells = [_cell("this release", 0.2, 0.99), _cell("a", 0.8, 0.90), _cell("b", 0.78, 0.95),
             _cell("c", 0.99, 0.5, passed=False), _cell("d", 0.95, 0.99, risk=0.6)]
    assert distance(cells[1]) == pytest.approx(0.2)
    # a and b are within the tolerance of each other, b keeps more; c failed its check; d takes back more
    assert choose(cells) == 2
    assert choose([cells[0], cells[4]]) == 0
    # no attack beating chance is distance 0; a lift below 1 too
    assert distance(_cell("d", 0.3, 1, beats=False)) == 0
    assert distance(_cell("e", 0.9, 1, family="disassoc")) == 0
    assert distance(_cell("f", 1.3, 1, family="disassoc")) == pytest.approx(0.3)


def test_results_drop_a_torn_last_line_and_refuse_other_bad_lines(tmp_path):
    good = '{"format":"semtui-experiment/1","id":"a"}\n'
    p = tmp_path / "R.jsonl"
    p.write_text(good + '{"format":"semtui-exp')
    r = read_results(p)
    assert [c["id"] for c in r.cells] == ["a"] and "R.jsonl:2: dropped a torn last line" in r.torn
    p.write_text(good + good[:-20] + "\n")  # a complete last line cut short: torn as well
    assert read_results(p).torn
    p.write_text("some notes of mine\n")  # not a RESULTS file: never taken for a torn line (nor rewritten)
    with pytest.raises(InputError, match="not valid JSON"):
        read_results(p)
    p.write_text("not json\n" + good)
    with pytest.raises(InputError, match=r"R\.jsonl:1"):
        read_results(p)
    p.write_text('{"format": "other"}\n' + good)
    with pytest.raises(InputError, match="not a semtui-experiment/2 line"):
        read_results(p)


def test_append_line_adds_whole_lines_and_makes_a_private_file(tmp_path):
    from semtui.fileio import append_line

    p = tmp_path / "R.jsonl"
    append_line(p, '{"a": 1}', private=True)
    append_line(p, '{"b": 2}\n', private=True)
    assert p.read_text() == '{"a": 1}\n{"b": 2}\n'
    assert os.stat(p).st_mode & 0o777 == 0o600
    with pytest.raises(InputError, match="is a directory"):
        append_line(tmp_path, "x")


@pytest.mark.slow
def test_a_release_no_attack_could_score_has_unknown_risk_never_the_safest(tmp_path):
    """A k^m release with nothing plain and no background: no attack scores a row, so the risk
    is unknown (None), not 0 -- and such a release is never chosen as the one closest to chance."""
    from conftest import SAMPLES

    from semtui.experiment.alternatives import distance
    from semtui.experiment.run import run_experiment
    from semtui.experiment.spec import read_spec

    spec = tmp_path / "s.toml"
    spec.write_text(f'original = "{SAMPLES / "meps400-original.txt"}"\n[[release]]\nfamily = "km"\nk = [3]\n'
                    'm = [2]\nfanout = 5\n')
    out = tmp_path / "r.jsonl"
    run_experiment(read_spec(spec), out)
    import json

    cell = json.loads(out.read_text().splitlines()[0])
    assert cell["utility"]["ml2"] is not None and 0 <= cell["utility"]["ml2"] <= 1
    p = cell["privacy"]
    assert p["figures"]["eliminated"] == 0
    assert p["risk"] is None and "unknown" in p["note"]
    assert distance(cell) == float("inf")


@pytest.mark.slow
def test_a_spec_takes_harden_and_its_cells_are_semtui_hardens_releases(tmp_path):
    """``harden = true`` (issue 37 item 6): the cell's release is the one ``semtui harden`` makes of
    its family (its command says so), it passes the family's checker, and a cell without it keeps
    the id it had before the parameter existed.  A hardened disassociation has no cover problem."""
    import json

    from semtui.experiment.run import run_experiment
    from semtui.experiment.spec import read_spec

    lines = (SAMPLES / "meps400-original.txt").read_text().splitlines(keepends=True)
    (tmp_path / "o.txt").write_text("".join(lines[:200]))
    spec = tmp_path / "s.toml"
    spec.write_text('original = "o.txt"\n[[release]]\nfamily = "setgen"\nk = 3\nrandom_privacy = 10\nharden = true\n'
                    '[[release]]\nfamily = "disassoc"\nk = 3\nm = 2\nmax_cluster_size = 20\nharden = true\n')
    s = read_spec(spec)
    assert [c.id for c in s.cells()] == ["setgen:harden=true,k=3,random_privacy=10,seed=1,sizes=3-6,utility=all",
                                         "disassoc:harden=true,k=3,m=2,max_cluster_size=20,refine=true,safe=false"]
    assert "harden" not in make_cell("setgen", {"k": 3, "harden": False}).id
    out = tmp_path / "r.jsonl"
    run_experiment(s, out)
    setgen, dis = (json.loads(x) for x in out.read_text().splitlines())
    for cell, family in ((setgen, "setgen"), (dis, "disassoc")):
        assert "hardened" in cell["label"] and cell["check"]["passed"] is True, cell["check"]
        assert cell["anonymize_command"].startswith("semtui harden ") and f"--family {family}" in \
            cell["anonymize_command"]
        assert cell["utility"]["pair_support_error"] is not None
    assert dis["privacy"]["cover_vulnerable_share"] == 0
