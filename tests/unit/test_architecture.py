"""The engine never imports textual or rich; the README's test command is what CI runs."""

from __future__ import annotations

import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

import semtui

FACES = ("semtui.cli", "semtui.tui")


def engine_modules() -> list[str]:
    names = []
    for mod in pkgutil.walk_packages(semtui.__path__, "semtui."):
        if mod.name.startswith(FACES) or mod.name == "semtui.__main__":
            continue
        names.append(mod.name)
    return names


def test_engine_never_imports_textual_or_rich():
    modules = engine_modules()
    assert "semtui.model" in modules and "semtui.formats" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as exc:\n"
        "        if 'textual' in str(exc) or 'rich' in str(exc): raise\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine loaded: {out.stdout}"


def test_cli_help_does_not_load_textual():
    code = ("import sys\nfrom semtui.cli.main import app\n"
            "print(any(m.startswith('textual') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_readme_quick_start_matches_ci():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    command = re.search(r'^TEST_COMMAND="(.*)"$', ci, re.M).group(1)
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", quick, re.S)
    commands = [line for block in blocks for line in block.strip().splitlines() if line.strip()]
    assert len(commands) == 2, commands
    assert commands[1] == command
    assert "semtui" in commands[0] and "sample_data" in commands[0]


def test_sample_data_is_found():
    from semtui.samples import sample_path

    assert sample_path().is_file()
    assert (sample_path().parent / "disassociated.json").is_file()


def test_import_contracts_hold():
    """The contracts in pyproject.toml ([tool.importlinter]): the layers, highest first (no module imports
    a layer above its own, even indirectly; every module under semtui/ placed: tests/unit/test_import_graph.py
    reads the same order); the engine never imports a face, textual or rich; checks share no code with
    anonymisers; families never import each other."""
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    out = subprocess.run([lint, "--config", str(REPO / "pyproject.toml")], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout and "kept" in out.stdout.lower()


def test_cli_registers_every_command_group():
    from semtui.cli.main import whole_command

    names = set(whole_command().commands)
    assert {"table", "attack", "corpus", "anonymize", "check", "info", "open", "score"} <= names


#: a module a job (issue 36): none much over 500 lines. The compiled eliminator loop is one numba
#: kernel whose steps must stay in one function to be compiled together.
MODULE_LINES = 540


def test_no_module_holds_several_jobs():
    long = {str(p.relative_to(REPO)): n for p in sorted((REPO / "semtui").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert len(list((REPO / "semtui").rglob("*.py"))) > 100   # the package was found
    assert not long, f"split by job (over {MODULE_LINES} lines): {long}"
