"""The families of anonymisation behind one protocol (semtui/families/, issue 36 part 2).

What differs between set generalisation, k^m and disassociation lives in semtui/families/; the
layers above ask the family (``FAMILIES[name]``, ``family_of(release)``) instead of branching on it.

**The branches that are left** (``family ==``, ``.family in``, ``isinstance(…, DisassociatedData)``
outside semtui/families/), found by :func:`branches` and held to :data:`LEFT` below, each with who
owns it:

* semtui/release.py — ``Release.family`` itself, ``open_release``'s ``require`` and ``--key`` checks
  (the lead's; the one place that tells the families apart when a release is read);
* semtui/model/belongs.py, semtui/model/info.py, semtui/formats/__init__.py — below the families
  layer (model, formats): they read and check the two kinds of data, which the families layer sits on
  and cannot be asked from there (an upward import).

The modules cleaned are asserted to hold none: semtui/experiment/ (cells, spec, alternatives,
plot), semtui/cli/ (``check km`` asks the family for its witness, ``assess`` the release whether
it is half scored), semtui/tui/ (its screen, list and detail per family are one table keyed by
``Release.family``; an attack report is read and checked by its family) and semtui/assess/ (the
family says whether a release can be assessed, and scored; the family of *attacks* that runs a
planned attack is its ``attack``, one word for one meaning).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES

from semtui import formats
from semtui.families import FAMILIES, Family, FileSources, family_of

PACKAGE = REPO / "semtui"
PATTERNS = (re.compile(r"\bfam(ily)?\s*(==|!=)"), re.compile(r"\.family\s+(not\s+)?in\b"),
            re.compile(r"isinstance\([^)]*DisassociatedData"))

#: modules outside semtui/families/ that still branch on the family (module docstring: why, whose)
LEFT = {
    "semtui/release.py", "semtui/model/belongs.py", "semtui/model/info.py", "semtui/formats/__init__.py",
}


def branches() -> dict[str, list[tuple[int, str]]]:
    """Every line outside semtui/families/ that branches on the family: {module path: [(line, text)]}."""
    out: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("semtui/families/"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if any(p.search(line) for p in PATTERNS):
                out.setdefault(rel, []).append((n, line.strip()))
    return out


def test_the_cleaned_modules_never_branch_on_the_family():
    found = branches()
    cleaned = {rel: hits for rel, hits in found.items()
               if rel.startswith(("semtui/experiment/", "semtui/cli/", "semtui/tui/")) or rel.startswith("semtui/assess/")}
    assert not cleaned, cleaned


def test_what_is_left_is_only_where_the_docstring_says():
    """A new branch on the family outside semtui/families/ fails here: ask the family instead (or,
    below the families layer, say so in LEFT and the module docstring)."""
    found = branches()
    stray = {rel: hits for rel, hits in found.items() if rel not in LEFT}
    assert not stray, stray


def test_every_family_provides_the_whole_protocol():
    members = [name for name in dir(Family) if not name.startswith("_")] + list(Family.__annotations__)
    for name, family in FAMILIES.items():
        assert family.name == name
        missing = [m for m in members if not hasattr(family, m)]
        assert not missing, (name, missing)
    assert tuple(FAMILIES) == ("setgen", "disassoc", "km")  # the order a spec's error lists them in


def test_family_of_a_release_its_data_and_its_name():
    from semtui.errors import InputError
    from semtui.release import Release, open_release

    setgen = formats.read(SAMPLES / "meps400-setgen.txt")
    dis = formats.read(SAMPLES / "disassociated.json")
    assert family_of(setgen).name == "setgen" and family_of(dis).name == "disassoc"
    assert family_of(Release(dis)).kind == "disassociated"
    assert family_of(open_release(SAMPLES / "meps400-setgen.txt")).name == "setgen"  # its sidecar is setgen's
    assert family_of("km").name == "km"
    with pytest.raises(InputError, match="unknown family 'coat'"):
        family_of("coat")


def test_the_assessor_runs_the_plan_its_family_makes():
    from semtui.assess import AssessInputs, Assessor
    from semtui.release import Release

    for path in ("meps400-setgen.txt", "disassociated.json"):
        release = Release(formats.read(SAMPLES / path))
        inputs = AssessInputs(data=path, background="wordfreq:en")
        a = Assessor(release, inputs)
        assert a.plan() == family_of(release.data).plan(inputs)
        assert {attack for attack, _ in a.plan()} <= set(Assessor._RUNNERS)
    dis = FAMILIES["disassoc"]
    moderate = next(p for p in dis.plan(AssessInputs(data="d.json")) if p.options.get("attacker") == "moderate")
    assert "give --original" in dis.unrunnable(moderate, original=None)
    assert dis.unrunnable(moderate, original=object()) is None


def _cell_release(family_name: str, params: dict, tmp_path: Path):
    """What an experiment's cell makes: the family's anonymiser, the release written and read back,
    and the command said to reproduce it."""
    from semtui.experiment.cells import Context
    from semtui.experiment.spec import make_cell

    original = SAMPLES / "meps400-original.txt"
    ctx = Context(original=formats.read_transactions(original), original_path=str(original))
    cell = make_cell(family_name, params)
    family = FAMILIES[family_name]
    name = str(tmp_path / ("cell" + family.release_ext))
    p = dict(cell.params)
    made = family.anonymise(family.prepare(ctx.original, p, ctx, original_path=ctx.original_path, output=name))
    return made, family.publish(made, name), family.command(p, ctx.original_path, name)


def _untimed(doc):
    """A document without its timings and the output's name (written elsewhere)."""
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if "seconds" not in k and k != "output"}
    if isinstance(doc, list):
        return [_untimed(v) for v in doc]
    return doc


@pytest.mark.parametrize("family_name, params", [
    ("setgen", {"k": 3, "random_privacy": 40}),
    ("setgen", {"k": 2, "random_privacy": 30, "unmarked": True}),
    ("disassoc", {"k": 3, "m": 2, "max_cluster_size": 20}),
])
def test_a_cell_s_command_reproduces_its_release(family_name, params, tmp_path, semtui):
    """``semtui anonymize`` and an experiment's cell are one implementation: the command a cell
    names writes the very release (and sidecar, and key) the cell made."""
    made, published, command = _cell_release(family_name, params, tmp_path / "cell")
    args = shlex.split(command)
    assert args[:2] == ["semtui", "anonymize"]
    for i, a in enumerate(args):  # the command's outputs, written elsewhere
        if args[i - 1] in ("-o", "--key"):
            args[i] = a.replace(str(tmp_path / "cell"), str(tmp_path / "cli"))
    (tmp_path / "cli").mkdir()
    r = semtui(*args[1:])
    assert r.rc == 0, r.err
    out = tmp_path / "cli" / Path(args[args.index("-o") + 1]).name
    assert out.read_text() == published.text
    if made.sidecar is not None:
        side = json.loads(Path(str(out) + ".json").read_text())
        assert _untimed(side) == _untimed(json.loads(json.dumps(made.sidecar)))
    if published.key_text is not None:
        assert Path(args[args.index("--key") + 1]).read_text() == published.key_text


def test_file_sources_read_each_file_as_anonymize_names_it(tmp_path):
    data = formats.read_transactions(SAMPLES / "medical-original.txt")
    (tmp_path / "p.txt").write_text("flu,hiv\n")
    assert FileSources(data).privacy(str(tmp_path / "p.txt")) == [["flu", "hiv"]]
    assert FileSources(data).utility("all", []) is None
