"""Generalisation hierarchies: the ``leaf;level1;...;*`` format, its checks, cuts, and the
balanced artificial hierarchies of the k^m paper's §6."""

from __future__ import annotations

import pytest

from semtui.errors import InputError
from semtui.formats.hierarchy import parse_hierarchy, read_hierarchy, write_hierarchy
from semtui.model.hierarchy import balanced, from_paths

FIG1_TEXT = "a1;A;ALL\na2;A;ALL\nb1;B;ALL\nb2;B;ALL\n"


def test_fig1_structure():
    h = parse_hierarchy(FIG1_TEXT, "h.txt")
    assert h.n_leaves == 4 and h.n_nodes == 7 and h.height == 3
    assert h.labels[h.root] == "ALL"
    assert sorted(h.labels[v] for v in h.leaves(h.node("A"))) == ["a1", "a2"]
    assert h.is_ancestor(h.node("A"), h.node("a2")) and not h.is_ancestor(h.node("A"), h.node("b1"))
    assert h.count_cuts() == 5  # Fig. 3: the five possible domain generalisations
    assert h.level_counts() == [1, 2, 4]


def test_preorder_ids_make_subtrees_contiguous():
    h = parse_hierarchy("x;P;Q;*\ny;R;Q;*\nz;S;*\nw;P;Q;*\n", "h")
    for v in range(h.n_nodes):
        desc = [u for u in range(h.n_nodes) if u == v or h.is_ancestor(v, u)]
        assert desc == list(range(v, v + h.size[v]))
        assert set(h.leaves(v).tolist()) == {u for u in desc if h.is_leaf[u]}


@pytest.mark.parametrize("text, message, line", [
    ("a;A;*\nb;B;ROOT\n", "one root", 2),
    ("a;A;*\na;B;*\n", "leaf 'a' already given on line 1", 2),
    ("a;A;*\nb;B;*\nc;A;B;*\n", "'A' is under 'B' here but under '*' on line 1", 3),
    ("a;A;B;A;*\n", "occurs twice on one path (a cycle)", 1),
    ("a;A;*\nb;a;*\n", "'a' is a leaf (line 1) and cannot be an internal node", 2),
    ("a;A;*\nA;*\n", "'A' is an internal node on an earlier line", 2),
    ("a;;*\n", "empty label", 1),
    ("a\n", "a leaf and its ancestors", 1),
])
def test_bad_hierarchies_name_the_line(text, message, line):
    with pytest.raises(InputError) as exc:
        parse_hierarchy(text, "h.txt")
    assert message in str(exc.value)
    assert exc.value.line == line
    assert str(exc.value).startswith(f"h.txt:{line}: ")


def test_empty_file_is_refused():
    with pytest.raises(InputError, match="no hierarchy paths"):
        parse_hierarchy("# only a comment\n\n", "h.txt")


def test_consecutive_repeats_are_one_node():
    h = parse_hierarchy("a;A;A;B;*\nb;C;C;B;*\n", "h")
    assert h.n_nodes == 6 and h.labels.count("A") == 1


def test_balanced_groups_consecutive_items_like_the_paper():
    items = [str(i) for i in range(3340)]
    h = balanced(items, 5)
    assert h.level_counts() == [1, 2, 6, 27, 134, 668, 3340]  # h = 7, as the paper's WV2
    assert h.height == 7
    assert h.labels[int(h.parent[h.node("0")])] == "0,4"
    assert all(h.n_leaves_under[v] <= 5 for v in h.parent[h.leaf_order])


def test_round_trip(tmp_path):
    h = balanced([f"i{j}" for j in range(23)], 3)
    path = tmp_path / "h.txt"
    write_hierarchy(h, path)
    back = read_hierarchy(path)
    assert back.labels == h.labels and (back.parent == h.parent).all()


def test_from_paths_equals_the_parser():
    h = from_paths([line.split(";") for line in FIG1_TEXT.split()])
    assert h.labels == parse_hierarchy(FIG1_TEXT, "x").labels


def test_shipped_hierarchies_parse(shared_data):
    h = read_hierarchy(shared_data / "bms-webview-2.hierarchy.txt")
    assert h.n_leaves == 3340 and h.height == 7
    icd = read_hierarchy(shared_data / "icd9.hierarchy.txt")
    assert icd.n_leaves == 1221 and icd.labels[icd.root] == "*"


def test_cli_build_and_info(tmp_path, cli):
    import json

    (tmp_path / "d.txt").write_text("3, 1, 2\n10, 4\n5, 6, 7, 8, 9\n")
    r = cli("hierarchy", "build", tmp_path / "d.txt", "--fanout", "3", "-o", tmp_path / "h.txt")
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "h.txt").read_text().splitlines()
    assert lines[0] == "1;1,3;1,9;*" and lines[-1] == "10;10,10;10,10/2;*"
    info = cli("hierarchy", "info", tmp_path / "h.txt", "--json")
    facts = json.loads(info.stdout)
    assert facts["leaves"] == 10 and facts["height"] == 4 and facts["nodes_per_depth"] == [1, 2, 4, 10]


@pytest.mark.slow
def test_cli_info_bad_file_exit_2(tmp_path, cli):
    (tmp_path / "h.txt").write_text("a;A;*\na;B;*\n")
    r = cli("hierarchy", "info", tmp_path / "h.txt")
    assert r.returncode == 2
    assert r.stderr.strip() == f"semtui: error: {tmp_path / 'h.txt'}:2: leaf 'a' already given on line 1"


@pytest.mark.slow
def test_cli_build_orders(tmp_path, cli):
    """--order decides which items share a class: supports 2:3, 3:3, 1:1, 4:1."""
    (tmp_path / "d.txt").write_text("1, 2\n2, 3\n2, 3\n4\n3\n")

    def build(*opts, name="h.txt"):
        r = cli("hierarchy", "build", tmp_path / "d.txt", "--fanout", "2", "-o", tmp_path / name, *opts)
        assert r.returncode == 0, r.stderr
        return (tmp_path / name).read_text().splitlines()

    assert build() == ["1;1,2;*", "2;1,2;*", "3;3,4;*", "4;3,4;*"]
    assert build("--order", "support", name="s.txt") == ["2;2,3;*", "3;2,3;*", "1;1,4;*", "4;1,4;*"]
    shuffled = build("--order", "random", "--seed", "3", name="r1.txt")
    assert shuffled == build("--order", "random", "--seed", "3", name="r2.txt")
    assert sorted(x.split(";")[0] for x in shuffled) == ["1", "2", "3", "4"]
    bad = cli("hierarchy", "build", tmp_path / "d.txt", "--fanout", "2", "-o", tmp_path / "b.txt", "--order", "x")
    assert bad.returncode == 2 and "unknown --order 'x'" in bad.stderr and not (tmp_path / "b.txt").exists()
