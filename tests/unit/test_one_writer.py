"""Which writers exist: semtui.fileio is the one package that opens a file for writing,
renames one into place or makes a temporary file (docs/cli.md, Output).  Every other module
writes to a handle fileio gives it (``write_together``, ``atomic_writer``) or builds in the
path ``fileio.output_path`` gives it; a second writer would again replace devices, lose
modes or commit half a pair (issue 19), so this scan fails as soon as one appears."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "semtui"
#: the one writer, a package: every module under it may write (its modules each do one job)
THE_WRITER = "semtui/fileio/"
#: SQLite databases, each opened by path: the persistent score cache (a cache, updated in
#: place under SQLite's own locking, never a command's output) and the corpus index, which
#: is built in the temporary file fileio.output_path hands out (or opened read-only).
SQLITE = {"semtui/measures/cache.py", "semtui/measures/corpus.py", "semtui/corpus.py"}
#: the one executor points its worker processes' standard streams at /dev/null (so a worker
#: never holds semtui's pipe open): it opens /dev/null and dup2()s it, and writes no file
STDIO = {"semtui/runtime/executor.py", "semtui/runtime/_forkserver.py"}


def _devnull_only(call: ast.Call) -> bool:
    """open(os.devnull, ...) or os.open(os.devnull, ...): no file is written."""
    return bool(call.args) and _dotted(call.args[0]) == "os.devnull"

#: calls that create, replace or open a file for writing, by their dotted name
FORBIDDEN_CALLS = {
    "os.fdopen", "os.replace", "os.rename", "os.renames", "os.link", "os.symlink", "os.mkfifo", "os.mknod",
    "os.truncate", "os.dup2", "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copyfileobj",
    "shutil.move", "np.save", "np.savez", "np.savez_compressed", "np.savetxt", "numpy.save", "numpy.savetxt",
    "json.dump", "pickle.dump",
}
#: methods that write a file whatever their object (Path.write_text, DataFrame.to_csv, ndarray.tofile)
FORBIDDEN_METHODS = {"write_text", "write_bytes", "to_csv", "to_parquet", "tofile", "mkstemp", "touch"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _mode(call: ast.Call, position: int) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == "mode":
            return kw.value
    return call.args[position] if len(call.args) > position else None


def _writes(mode: ast.AST | None) -> bool:
    """An open() mode that may write: one holding w, a, x or +, or one not known statically."""
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return True


def _in_memory(call: ast.Call) -> bool:
    """``sqlite3.connect(":memory:")``: a database that never touches a file."""
    return bool(call.args) and isinstance(call.args[0], ast.Constant) and call.args[0].value == ":memory:"


def writers_in(path: Path, rel: str) -> list[str]:
    """Every place in ``path`` (shown as ``rel``) that writes a file other than through fileio."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
    found = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(m.split(".")[0] == "tempfile" for m in mods):
                found.append(f"{where}: imports tempfile")
            continue
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if rel in STDIO and (name == "os.dup2" or (name in ("open", "os.open") and _devnull_only(node))):
            continue
        if name == "open" and _writes(_mode(node, 1)):
            found.append(f"{where}: open(..., writing)")
        elif method == "open" and name not in ("os.open",) and _writes(_mode(node, 0)):
            found.append(f"{where}: {name}(writing)")
        elif name == "os.open" and len(node.args) > 1 and (
                {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)} & WRITE_FLAGS):
            found.append(f"{where}: os.open(..., writing)")
        elif name in FORBIDDEN_CALLS:
            found.append(f"{where}: {name}")
        elif method in FORBIDDEN_METHODS:
            found.append(f"{where}: .{method}()")
        elif name == "sqlite3.connect" and rel not in SQLITE and not _in_memory(node):
            found.append(f"{where}: sqlite3.connect")
    return found


def in_the_writer(rel: str) -> bool:
    """Whether the module at ``rel`` (a path from the repository's root) is part of fileio."""
    return rel.startswith(THE_WRITER)


@pytest.mark.slow
def test_fileio_is_the_only_writer():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 50
    found = [w for f in files if not in_the_writer(rel := f.relative_to(REPO).as_posix()) for w in writers_in(f, rel)]
    assert found == [], "write through semtui.fileio (write_together / atomic_writer / output_path):\n" + "\n".join(found)


def test_the_writer_is_the_package_and_only_it():
    """The exemption covers fileio's own modules, which do write (renames, temporary files,
    spools), and no module beside it whose name merely starts the same way."""
    writer = sorted((REPO / THE_WRITER).rglob("*.py"))
    assert len(writer) >= 2
    writes = {f.name for f in writer if writers_in(f, f.relative_to(REPO).as_posix())}
    assert {"writing.py", "spool.py"} <= writes, writes
    assert in_the_writer("semtui/fileio/writing.py")
    assert not in_the_writer("semtui/fileio.py")
    assert not in_the_writer("semtui/fileio_extra.py")
    assert not in_the_writer("semtui/formats/fileio/writing.py")


#: one line per way of writing a file, then lines that only read
PROBE_WRITES = [
    "import tempfile",
    "open('x', 'w')",
    "open('x', mode='ab')",
    "open('x', 'r+')",
    "open('x', m)",
    "Path('x').open('w')",
    "Path('x').write_text('a')",
    "Path('x').write_bytes(b'a')",
    "os.open('x', os.O_WRONLY | os.O_CREAT)",
    "os.fdopen(3, 'w')",
    "os.replace('a', 'b')",
    "os.rename('a', 'b')",
    "shutil.copyfile('a', 'b')",
    "json.dump({}, fh)",
    "df.to_csv('x')",
    "np.save('x', a)",
    "sqlite3.connect('x')",
]
PROBE_READS = ["open('x')", "open('x', 'rb')", "Path('x').open()", "os.open('x', os.O_RDONLY)", "json.dumps({})"]


def test_the_scan_sees_every_kind_of_writer(tmp_path):
    """The scan is only worth what it catches: each way of writing a file is found, reading is not."""
    probe = tmp_path / "probe.py"
    probe.write_text("\n".join(PROBE_WRITES + PROBE_READS) + "\n")
    found = writers_in(probe, "semtui/probe.py")
    assert [int(f.split(":")[1]) for f in found] == list(range(1, len(PROBE_WRITES) + 1)), found
    assert writers_in(probe, "semtui/measures/cache.py")[-1].split(":")[1] == str(len(PROBE_WRITES) - 1)
