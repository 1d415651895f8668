"""Typed results inside, JSON at the edge (issue 36, item 3): the re-association and the cover
problem return typed reports (:class:`ReassociationReport`, :class:`CoverReport`), and a
set-generalisation attack its groups written up (:class:`GroupWriteUp`), whose ``to_json()`` is
the document they always wrote (the golden runs' documents, key for key), which ``from_json()``
reads back whole; and no engine module reads its own documents back by key."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES

from semtui import reports
from semtui.anonymize.disassociation import disassociate
from semtui.attacks.cover import CoverOptions, CoverReport, run_cover
from semtui.attacks.reassociation import ReassociationOptions, ReassociationReport, run_reassociation
from semtui.attacks.setgen.results import GroupWriteUp
from semtui.formats import read_transactions
from semtui.formats.disassociated import read_disassociated, read_key

sys.path.insert(0, str(REPO / "tests" / "golden"))
import golden_runs as g

D, DK, DO = "disassociated.json", "disassociated.key.json", "disassociated-original.txt"


@pytest.fixture(scope="module")
def sample():
    """The bundled disassociated sample (Table 3 of Alshuhail & Shao) with its key and original."""
    return read_disassociated(SAMPLES / D), read_key(SAMPLES / DK), read_transactions(SAMPLES / DO)


@pytest.fixture(scope="module")
def refined():
    """The bundled 400 MEPS patients disassociated with REFINE: joint clusters, shared chunks, and
    cover problems across them."""
    original = read_transactions(SAMPLES / "meps400-original.txt")
    made = disassociate(original, 3, 2, 12, joint_max_size=48)
    assert made.data.joint_clusters
    return made.data, made.key, original


def _golden(name: str) -> dict:
    return json.loads((g.RUNS_DIR / f"{name}.json").read_text())["stdout"]


# --------------------------------------------------------------------------- typed, and the golden document
@pytest.mark.parametrize("method", ["aba", "ra"])
def test_a_re_association_is_typed_and_writes_the_golden_document(sample, method):
    data, key, original = sample
    result = run_reassociation(data, key, original, ReassociationOptions(method=method, seed=3),
                               sources={"data": D, "key": DK, "original": DO})
    report = result.report
    assert isinstance(report, ReassociationReport)
    # read by attribute
    assert report.metrics.placements == report.summary.placements == sum(
        len(a) for c in report.clusters for u in c.units for a in [u.anchors])
    assert report.metrics.intervals.reason is not None        # one cluster: no interval, and why
    assert report.to_json()["format"] == "semtui-disassoc-report/2"
    assert g.normalise(report.to_json(), Path.cwd()) == _golden(f"disassoc-sample-attack-{method}")


@pytest.mark.parametrize("attacker", ["strong", "moderate", "weak"])
def test_a_cover_run_is_typed_and_writes_the_golden_document(sample, attacker):
    data, key, original = sample
    report = run_cover(data, CoverOptions(attacker=attacker, seed=3), original=original, key=key,
                       sources={"data": D, "original": DO, "knowledge": None, "key": DK})
    assert isinstance(report, CoverReport)
    assert report.summary.cover_problems == len(report.cover_problems)
    assert g.normalise(report.to_json(), Path.cwd()) == _golden(f"disassoc-sample-cover-{attacker}")


# --------------------------------------------------------------------------- read back whole
def _reassociations(sample, refined):
    data, key, original = sample
    yield "sample aba", run_reassociation(data, key, original, ReassociationOptions(method="aba", seed=1)).report
    yield "sample unjudged", run_reassociation(data, options=ReassociationOptions(method="mra")).report
    data, key, original = refined
    yield "refine informed", run_reassociation(data, key, original, ReassociationOptions(
        method="ra", seed=2, informed=True), sources={"data": "r.json", "key": "r.key.json"}).report
    yield "refine summary-only", run_reassociation(data, key, original, ReassociationOptions(
        method="ra", seed=2, summary_only=True, informed=True)).report
    yield "refine unjudged", run_reassociation(data, options=ReassociationOptions(method="ra")).report


def _covers(sample, refined):
    for data, key, original in (sample, refined):
        yield run_cover(data, original=original, key=key)
        yield run_cover(data, CoverOptions(attacker="weak", seed=4), original=original)
        yield run_cover(data, CoverOptions(attacker="moderate", seed=1), original=original, key=key,
                        sources={"data": "d.json", "original": "o.txt", "knowledge": None})
        yield run_cover(data)


def _as_written(doc: dict) -> dict:
    """A document as a file holds it (reports.dumps, read back)."""
    return json.loads(reports.dumps(doc))


@pytest.mark.slow
def test_every_re_association_report_reads_back_whole(sample, refined):
    seen = []
    for name, report in _reassociations(sample, refined):
        doc = report.to_json()
        back = ReassociationReport.from_json(_as_written(doc))
        assert back.to_json() == doc, name
        assert reports.dumps(back) == reports.dumps(report), name   # key for key, in order
        assert back == ReassociationReport.from_json(_as_written(back.to_json())), name
        seen.append(("metrics" in doc, bool(doc["joint_clusters"]), doc["summary"]["summary_only"],
                     "informed_reference" in (doc.get("metrics") or {})))
    # judged and not, joint clusters, --summary-only, the informed reference: every part was read back
    assert all(any(flags[i] for flags in seen) for i in range(4)) and not all(flags[0] for flags in seen)


def test_every_cover_report_reads_back_whole(sample, refined):
    problems = 0
    for report in _covers(sample, refined):
        doc = report.to_json()
        back = CoverReport.from_json(_as_written(doc))
        assert back.to_json() == doc
        assert reports.dumps(back) == reports.dumps(report)
        assert back == report
        problems += len(report.cover_problems)
    assert problems > 0


def test_a_re_association_kept_on_disk_streams_the_same_document(sample):
    """A release kept on disk keeps its report's clusters on disk (a Spool of typed entries):
    written, the same document as the report held whole."""
    import io

    from semtui.fileio import Spool

    data, key, original = sample
    opts = ReassociationOptions(method="ra", seed=4)
    held = run_reassociation(data, key, original, opts).report
    spooled = run_reassociation(read_disassociated(SAMPLES / D, spool=True), read_key(SAMPLES / DK, spool=True),
                                original, opts).report
    assert isinstance(spooled.clusters, Spool) and list(spooled.clusters) == list(held.clusters)
    fh = io.StringIO()
    reports.dump(spooled, fh)
    got, want = json.loads(fh.getvalue()), held.to_json()
    got["summary"]["seconds"] = want["summary"]["seconds"]
    assert got == want


def test_an_old_report_reads_back_with_what_it_lacks_left_out():
    """A cover report written before chunk labels and shared chunks, a re-association before the
    informed reference followed the tie rule: read back, written again without inventing them."""
    cover = {"format": "semtui-cover-report/1", "semtui_version": "0", "attacker": "strong", "seed": 0,
             "knowledge_itemsets": None, "outside_words": [],
             "summary": {"clusters": 1, "transactions": 4, "cover_problems": 1, "breaches": 1,
                         "vulnerable_records": 1, "clusters_with_breaches": 1, "seconds": 0.1},
             "clusters": [{"id": "P1", "size": 4, "record_chunks": 2, "cover_problems": 1, "breaches": 1,
                           "breaches_per_chunk": [0, 1], "vulnerable_records": 1}],
             "cover_problems": [{"cluster": "P1", "chunk": 2, "earlier_chunk": 1, "x": "x", "support_x": 2,
                                 "covered": ["a"], "covering": ["b"], "itemset": ["a", "b"],
                                 "supports": {"a": 2, "b": 3}, "itemset_support": 2, "breach": True}],
             "data": "d.json"}
    back = CoverReport.from_json(cover)
    assert back.cover_problems[0].chunk_label is None and back.source("data") == "d.json"
    assert {k: v for k, v in back.to_json().items() if k != "semtui_version"} == \
        {k: v for k, v in cover.items() if k != "semtui_version"}


SETGEN_RUNS = ["setgen-sample-attack-ra", "setgen-sample-attack-rba", "setgen-sample-attack-tba",
               "setgen-meps-attack-rba", "setgen-meps-attack-background"]


@pytest.mark.parametrize("name", SETGEN_RUNS)
def test_every_set_generalisation_group_reads_back_whole(name):
    """Each group of a set-generalisation attack's golden report (with and without the original,
    with a background) is read back typed and written again key for key, order included."""
    groups = _golden(name)["groups"]
    assert groups and any(g["eliminations"] for g in groups)
    for doc in groups:
        back = GroupWriteUp.from_json(doc)
        assert json.dumps(back.to_json()) == json.dumps(doc)
        assert len(back.eliminations) == len(doc["eliminations"])


# --------------------------------------------------------------------------- nothing reads its own document
ENGINE = ("assess", "harden", "families", "experiment")
RUNNERS = {"run_reassociation", "run_cover"}
#: functions that take a report of these attacks, or a set-generalisation attack's groups, as their
#: first argument (``result``, ``report`` or ``groups``)
TAKERS = {"reassoc_entry", "cover_entry", "reassoc_records", "cover_breaches", "setgen_records", "_levels"}


#: the typed reports' parts that are mappings by design: the intervals by figure (Intervals.get),
#: the files a run read, the background's description
MAPPINGS = {"intervals", "sources", "background"}


def _subscripts_of_reports(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module subscripts (``x["summary"]``) or ``.get``s a value that is, or hangs off,
    a re-association's or a cover run's result: a call of a runner, or a name bound (in the same
    function) to one or to an attribute of one, or the first parameter of a function in TAKERS."""
    found: list[tuple[int, str]] = []
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope in scopes:
        found += _in_scope(scope, list(ast.walk(scope)) if scope is not tree else _outside_functions(tree))
    return sorted(set(found))


def _outside_functions(tree) -> list:
    """The module's nodes that no function holds."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef)]
    return out


def _in_scope(scope, nodes) -> list[tuple[int, str]]:
    tainted: set[str] = set()

    def is_tainted(node) -> bool:
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            return name in RUNNERS
        if isinstance(node, ast.Attribute):
            return node.attr not in MAPPINGS and is_tainted(node.value)
        if isinstance(node, ast.Name):
            return node.id in tainted
        if isinstance(node, ast.Subscript):
            return is_tainted(node.value)
        return False

    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) and scope.name in TAKERS and scope.args.args:
        tainted.add(scope.args.args[0].arg)
    for _ in range(3):  # names bound from names bound from a result
        for node in nodes:
            if isinstance(node, ast.Assign) and is_tainted(node.value):
                tainted |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.For) and is_tainted(node.iter) and isinstance(node.target, ast.Name):
                tainted.add(node.target.id)
    found = []
    for node in nodes:
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str) and is_tainted(node.value):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and is_tainted(node.func.value)):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_engine_module_reads_an_attack_report_by_key():
    offenders = []
    for package in ENGINE:
        for path in sorted((REPO / "semtui" / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            offenders += [f"{path.relative_to(REPO)}:{line}: {code}" for line, code in _subscripts_of_reports(tree)]
    assert not offenders, "read by key, not by attribute:\n  " + "\n  ".join(offenders)


def test_the_check_finds_what_it_looks_for():
    code = ("def prove(rel):\n"
            "    s = run_cover(rel)['summary']\n"
            "    rep = run_reassociation(rel).report\n"
            "    m = rep.get('metrics')\n"
            "def reassoc_entry(result, opts):\n"
            "    return result.report['summary']['placements']\n")
    assert [line for line, _ in _subscripts_of_reports(ast.parse(code))] == [2, 4, 6, 6]
    fine = ("def f(x):\n    s = x['a']\n    return s['b'], run_cover(x).summary.breaches\n"
            "def g(x):\n    s = run_reassociation(x).report.metrics\n    return s.intervals.get('accuracy')\n")
    assert _subscripts_of_reports(ast.parse(fine)) == []


def test_the_collector_is_paused_while_any_block_is_open_and_back_after_the_last():
    """paused_gc blocks that overlap (as the TUI's companions thread and a worker's write-up do)
    leave the collector off until the last closes, then on; one that was off stays off; and two
    threads entering and leaving many times at once always leave it on."""
    import gc
    import threading

    from semtui.reports import paused_gc

    assert gc.isenabled()
    a, b = paused_gc(), paused_gc()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert not gc.isenabled()          # b is still open
    b.__exit__(None, None, None)
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()      # it was off before: left off
    finally:
        gc.enable()

    def work():
        for _ in range(3000):
            with paused_gc():
                pass

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(10):
            threads = [threading.Thread(target=work) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert gc.isenabled()
    finally:
        sys.setswitchinterval(switch)
