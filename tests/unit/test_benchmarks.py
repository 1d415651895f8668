"""benchmarks/ keeps one way of running semtui and no circle (issue 36, part 5): every script
parses, imports no other script (only the shared modules) and starts semtui only through
benchmarks/_util.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
#: the modules the scripts share; a script imports only these of benchmarks/
SHARED = {"_util", "_data"}
#: scripts allowed to break the rules below (none: every script runs semtui through _util)
EXCEPTIONS: set[str] = set()
#: a semtui process started another way than _util: "-m", "semtui" in an argv
_OWN_RUN = re.compile(r"""["']-m["']\s*,\s*["']semtui["']""")

SCRIPTS = sorted(BENCH.glob("*.py"))


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):  # function-level imports included
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_parses_and_imports_no_other_script(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    if path.stem in EXCEPTIONS:
        return
    scripts = {p.stem for p in SCRIPTS} - SHARED
    assert not (_imported(tree) & scripts), f"{path.name} imports another script"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_runs_semtui_only_through_util(path: Path) -> None:
    if path.stem == "_util" or path.stem in EXCEPTIONS:
        return
    hits = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if _OWN_RUN.search(line)]
    assert not hits, f"{path.name} starts semtui itself (lines {hits}): use _util.semtui / run_once / measured"


def test_the_shared_modules_import_no_script() -> None:
    scripts = {p.stem for p in SCRIPTS} - SHARED
    for name in SHARED:
        path = BENCH / f"{name}.py"
        if path.exists():
            assert not (_imported(ast.parse(path.read_text(encoding="utf-8"))) & scripts), name


def test_util_is_the_one_runner() -> None:
    """The pattern the test looks for is the one _util uses (so the test can see a second way)."""
    assert _OWN_RUN.search((BENCH / "_util.py").read_text(encoding="utf-8"))


def test_every_script_the_docs_name_exists() -> None:
    """A retired script (one a spec now reproduces) is named nowhere any more."""
    root = BENCH.parent
    missing = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md")), *SCRIPTS,
                *sorted((BENCH / "specs").glob("*.toml"))]:
        for name in re.findall(r"benchmarks/(\w+\.py)", doc.read_text(encoding="utf-8")):
            if not (BENCH / name).exists():
                missing.append(f"{doc.relative_to(root)}: {name}")
    assert not missing, missing
