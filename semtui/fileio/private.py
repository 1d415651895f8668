"""semtui's own private places, never outputs: the score cache's folder and database
(:func:`private_folder`, :func:`private_file`: 0700 and 0600, tightened when found more open)
and scratch folders (:func:`scratch_files`, :class:`ScratchFolder`) removed with everything
in them, on the way out of an interrupted run too (:func:`remove_process_scratch`)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path


def private_folder(path: str | Path, *, tighten: bool = True) -> Path:
    """A folder of semtui's own that holds private data (the score cache): made 0700 if absent,
    and, with ``tighten``, an existing one is brought down to 0700 (a folder someone else named
    for us, ``SEMTUI_CACHE_DIR``, is left as it is: it may be shared, like /tmp)."""
    p = Path(path)
    p.mkdir(mode=0o700, parents=True, exist_ok=True)
    if tighten and stat.S_IMODE(p.stat().st_mode) & 0o077:
        os.chmod(p, 0o700)
    return p


@contextlib.contextmanager
def scratch_files(files: Sequence[tuple[str, str]]) -> Iterator[Path]:
    """A private temporary folder (0700) holding ``files`` (name, text), removed with everything
    in it on exit: for an engine step that must hand code reading files a path (an experiment
    cell's unmarked release and its sidecar, for the unmarked attack), never an output."""
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="semtui-scratch-"))
    try:
        for name, text in files:
            (folder / name).write_text(text, encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class ScratchFolder:
    """A private temporary folder (0700) that a run's helpers write into (a local Dask
    cluster's workers: their spill and lock files), removed with everything in it by
    :meth:`close` -- on the way out of an interrupted run too, where the helpers themselves
    are killed before they could clean up."""

    def __init__(self, prefix: str = "semtui-scratch-"):
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
        _SCRATCH.add(self.path)

    def close(self) -> None:
        # removed now, and again as the process leaves (remove_process_scratch): a helper still
        # starting when a signal landed may write into it in between
        _remove_tree(self.path)


#: the scratch folders not yet removed (:func:`remove_process_scratch` removes them)
_SCRATCH: set[Path] = set()


def _remove_tree(folder: Path, attempts: int = 20) -> None:
    """Remove a folder whose writers may still be going away (a killed worker's files vanish
    and appear under rmtree): again, briefly, until it is gone."""
    import shutil
    import time

    for _ in range(attempts):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.lexists(folder):
            return
        time.sleep(0.05)


def remove_process_scratch(*others: str | Path) -> None:
    """Remove what this process made in the temporary folder and has not removed yet: its
    scratch folders and ``others`` (the folder multiprocessing made for the fork server's
    socket, :func:`semtui.runtime.executor.process_folder`) -- for a process that leaves with
    ``os._exit``, where their owners' exit handlers do not run."""
    for folder in [*_SCRATCH, *map(Path, others)]:
        _remove_tree(folder)
        _SCRATCH.discard(folder)


def private_file(path: str | Path) -> Path:
    """A file semtui updates in place (an SQLite database) that holds private data: created
    empty with 0600 if absent, brought down to 0600 if it is more open.  Not an output (those go
    through :func:`write_together`), so it is never renamed."""
    p = Path(path)
    fd = os.open(p, os.O_RDONLY | os.O_CREAT, 0o600)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return p


#: the longest path of a Unix socket (sun_path: 108 bytes with its NUL)
SOCKET_PATH_MAX = 107


def held_folder(prefix: str, *, socket_name: int = 0) -> tuple[str, int] | None:
    """A new temporary folder ``PREFIXxxxxxxxx`` held by this process (an advisory ``flock`` on
    it, released by any exit: the descriptor returned holds it), after removing every such folder
    no process holds any more (its owner was killed outright, SIGKILL, and removed nothing).  None
    when none can be made (the caller falls back on its own).  Multiprocessing's folder for the fork
    server's socket (:func:`semtui.runtime.executor`).  ``socket_name``: the length of a socket's
    name to be made inside it; None when its path would be too long for a socket (a long TMPDIR:
    the caller's own, shorter-named folder may still fit)."""
    import fcntl
    import shutil

    base = tempfile.gettempdir()
    if socket_name and len(base) + len(prefix) + 8 + socket_name + 2 > SOCKET_PATH_MAX:
        return None
    with contextlib.suppress(OSError):
        for name in os.listdir(base):
            if name.startswith(prefix) and _unheld(os.path.join(base, name), fcntl):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    try:
        folder = tempfile.mkdtemp(prefix=prefix, dir=base)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return folder, fd


def _unheld(folder: str, fcntl) -> bool:
    """Whether no process holds ``folder`` (:func:`held_folder`): its owner is gone."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
