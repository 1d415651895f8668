"""A release is opened in one place (semtui/release.py) and its companions are checked to belong
together once (issue 36): the faces never read a release themselves, no engine function runs the
belonging check again, and one ``semtui assess`` of a disassociated release with its key and
original runs it exactly once (counted in a real process)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

from semtui.errors import InputError
from semtui.release import DISASSOC, KM, PLAIN, SETGEN, Release, open_release

PACKAGE = Path(__file__).resolve().parents[2] / "semtui"

#: readers that open a release (or a release's key or sidecar); a face or engine module that calls
#: one of them opens a release itself.  ``read_transactions`` is not among them: it reads originals.
RELEASE_READERS = {"read", "read_key", "read_disassociated", "read_sidecar_doc", "read_release_sidecar"}


def _calls(path: Path) -> list[tuple[str, int]]:
    """(name, line) of every call in a module, by the called name (``formats.read`` -> ``read``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            base = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
            if name:
                out.append((name if base is None else f"{base}.{name}", node.lineno))
    return out


@pytest.mark.slow
def test_the_belonging_check_is_called_in_one_place():
    callers = sorted(f"{p.relative_to(PACKAGE.parent)}:{line}" for p in PACKAGE.rglob("*.py")
                     for name, line in _calls(p) if name.split(".")[-1] == "check_belongs")
    assert len(callers) == 1 and callers[0].startswith("semtui/release.py:"), callers


def test_the_faces_open_releases_only_through_semtui_release():
    """The CLI and the TUI never call a release reader: every release they show or attack comes
    from semtui.release (one reader, one check)."""
    found = []
    for face in ("cli", "tui"):
        for p in (PACKAGE / face).rglob("*.py"):
            for name, line in _calls(p):
                base, _, called = name.rpartition(".")
                if called in RELEASE_READERS and base in ("", "formats", "disassociated", "sidecar"):
                    if called == "read" and base == "":
                        continue  # a bare read() is a file's or a document's, never formats.read
                    found.append(f"{p.relative_to(PACKAGE.parent)}:{line} {name}")
    assert not found, found


_COUNT = r"""
import sys, threading
from semtui.model import belongs
code = belongs.check_belongs.__code__
calls = [0]
def profile(frame, event, arg):
    if event == "call" and frame.f_code is code:
        calls[0] += 1
sys.setprofile(profile)
threading.setprofile(profile)
from semtui.cli.main import run
sys.argv = ["semtui"] + sys.argv[1:]
try:
    run()
except SystemExit as exc:
    rc = exc.code
else:
    rc = 0
sys.setprofile(None)
sys.stderr.write(f"\ncheck_belongs calls: {calls[0]}\n")
sys.exit(rc)
"""


def _count_checks(*args) -> tuple[int, subprocess.CompletedProcess]:
    r = subprocess.run([sys.executable, "-c", _COUNT, *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    line = [x for x in r.stderr.splitlines() if x.startswith("check_belongs calls: ")]
    assert line, r.stderr[-2000:]
    return int(line[-1].split(": ")[1]), r


@pytest.mark.slow
def test_assess_of_a_disassociated_release_checks_belonging_once(tmp_path):
    """A disassociated release with its key and original: the re-association attacks, the cover
    attacks and the records at risk all work from the one opened release (there were ~9 checks)."""
    n, r = _count_checks("assess", SAMPLES / "disassociated.json", "--key", SAMPLES / "disassociated.key.json",
                         "--original", SAMPLES / "disassociated-original.txt", "--no-alternatives", "--json",
                         "--no-cache")
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(json.loads(r.stdout)["attacks"]) >= 7
    assert n == 1


@pytest.mark.slow
def test_attack_setgen_checks_belonging_once():
    n, r = _count_checks("attack", "setgen", SAMPLES / "meps400-setgen.txt", "--original",
                         SAMPLES / "meps400-original.txt", "--json", "--no-cache")
    assert r.returncode == 0, r.stderr[-2000:]
    assert n == 1


# ------------------------------------------------------------------------------ the Release
def test_a_release_says_its_family_k_and_what_was_checked():
    rel = open_release(SAMPLES / "meps400-setgen.txt", original=SAMPLES / "meps400-original.txt")
    assert rel.family == SETGEN and rel.k == json.loads((SAMPLES / "meps400-setgen.txt.json").read_text())["k"]
    assert rel.checked == ("original", "sidecar") and rel.scored and rel.m is None
    bare = rel.unscored()
    assert bare.original is None and bare.checked == ("sidecar",) and not bare.scored and bare.data is rel.data

    dis = open_release(SAMPLES / "disassociated.json", key=SAMPLES / "disassociated.key.json",
                       original=SAMPLES / "disassociated-original.txt")
    assert dis.family == DISASSOC and dis.checked == ("original", "key") and dis.scored and dis.k is None
    half = open_release(SAMPLES / "disassociated.json", original=SAMPLES / "disassociated-original.txt")
    assert not half.scored  # a disassociated release is scored with its key and original together

    plain = open_release(SAMPLES / "medical-original.txt")
    assert plain.family == PLAIN and plain.checked == ()


def test_a_km_report_makes_a_km_release(tmp_path, semtui):
    (tmp_path / "d.txt").write_text("a, b\nc, d\ne, f\ng, h\na, c\nb, d\n")  # items rarer than k: generalised
    assert semtui("hierarchy", "build", tmp_path / "d.txt", "--fanout", "2", "-o", tmp_path / "h.txt").rc == 0
    r = semtui("anonymize", "km", tmp_path / "d.txt", "--hierarchy", tmp_path / "h.txt", "-k", "2", "-m", "2",
               "-o", tmp_path / "r.txt")
    assert r.rc == 0, r.err
    rel = open_release(tmp_path / "r.txt", original=tmp_path / "d.txt")
    assert rel.family == KM and (rel.k, rel.m) == (2, 2) and rel.sidecar_path == str(tmp_path / "r.txt.json")


def test_companions_that_do_not_belong_are_refused_naming_them(tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("\n".join(["x, y"] * 400) + "\n")
    with pytest.raises(InputError) as exc:
        open_release(SAMPLES / "meps400-setgen.txt", original=other)
    assert exc.value.path is not None and str(other) in str(exc.value.path)
    with pytest.raises(InputError, match="--key is for disassociated releases"):
        open_release(SAMPLES / "meps400-setgen.txt", key=SAMPLES / "disassociated.key.json")
    with pytest.raises(InputError, match="expected a disassociated release"):
        open_release(SAMPLES / "meps400-setgen.txt", require="disassociated")


def test_a_release_made_in_memory_is_not_said_to_be_checked():
    """An anonymiser's own output (experiment cells, assess's alternatives) belongs by
    construction; a Release made from it says nothing was checked."""
    from semtui import formats

    rel = Release(formats.read(SAMPLES / "medical-setgen.txt"))
    assert rel.checked == () and rel.family == SETGEN and rel.k is None
