"""A persistent cache of computed scores, so a second run recomputes nothing.

One SQLite file, ``scores.sqlite`` under ``$SEMTUI_CACHE_DIR``, else
``$XDG_CACHE_HOME/semtui``, else ``~/.cache/semtui``.  Scores are keyed by the measure's
``identity`` (which changes whenever its scores could: index path + mtime, vectors hash,
...).  Every term gets an integer id per identity; a term's *row* is one blob holding the ids
of the terms it was scored against and the scores (sorted by id; float64, so a cached score
is the computed one to the bit), so a lookup
is two indexed queries and a vectorised search per row, never a Python loop over pairs, and
a pair costs 12 bytes.  Every measure is symmetric, so a pair is found from either side.

Filling costs the run almost nothing: :meth:`ScoreCache.store` only keeps the computed blocks,
and :meth:`ScoreCache.commit` hands them to a background thread that writes them all in one
transaction (WAL, ``synchronous=OFF``: the cache can be rebuilt, so it never waits for the disk)
while the attack goes on.  Every read, and the interpreter's exit, first waits for writes under
way, so a lookup always sees what was stored before it; at exit the connections are closed,
which folds the write-ahead log into the file.

The cache is bounded: rows carry the time they were last used and, past the size limit
(``SEMTUI_CACHE_MB``, default 256 MB), the least recently used are dropped.  It is an
optimisation: if its directory cannot be written or the file is not a cache (corrupt),
scores are computed as if it were absent, and ``problem_hook`` (the CLI's warning line) is
told once why.  ``semtui cache info|clear`` inspects and removes it.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

import numpy as np

from semtui.fileio import private_file, private_folder
from semtui.measures.base import Measure

DEFAULT_LIMIT_MB = 256

#: called once with a one-line reason when the cache cannot be used (the CLI prints it)
problem_hook: Callable[[str], None] | None = None

#: background writes under way (threads), in every ScoreCache of this process
_writes: list[threading.Thread] = []
_writes_lock = threading.Lock()


def flush() -> None:
    """Wait for every background write of this process to end (reads call it first, and so
    does the interpreter's exit: a score stored is never lost to a normal exit)."""
    while True:
        with _writes_lock:
            if not _writes:
                return
            job = _writes[0]
        job.join()
        with _writes_lock:
            if job in _writes:
                _writes.remove(job)


#: the caches with an open connection, closed at exit (the last connection to close folds the
#: write-ahead log into the file and removes it, so a big fill leaves no 50 MB log behind)
_open: weakref.WeakSet = weakref.WeakSet()


def _at_exit() -> None:
    flush()
    for cache in list(_open):
        cache.close()


atexit.register(_at_exit)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS terms (measure TEXT NOT NULL, term TEXT NOT NULL, id INTEGER NOT NULL, "
    "PRIMARY KEY (measure, term)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS rows (measure TEXT NOT NULL, id INTEGER NOT NULL, used REAL NOT NULL, "
    "partners BLOB NOT NULL, scores BLOB NOT NULL, PRIMARY KEY (measure, id)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS rows_used ON rows (used)",
)


def cache_dir() -> Path:
    env = os.environ.get("SEMTUI_CACHE_DIR")
    if env:
        return Path(env)
    return _default_dir()


def _default_dir() -> Path:
    """semtui's own folder under ``$XDG_CACHE_HOME`` or ``~/.cache`` (kept 0700)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "semtui"


def cache_limit_bytes() -> int:
    """The size bound: ``SEMTUI_CACHE_MB`` megabytes, else 256."""
    try:
        mb = float(os.environ.get("SEMTUI_CACHE_MB", DEFAULT_LIMIT_MB))
    except ValueError:
        mb = DEFAULT_LIMIT_MB
    return int(max(mb, 1) * 1e6)


class ScoreCache:
    def __init__(self, path: str | Path | None = None, limit_bytes: int | None = None):
        self.path = Path(path) if path is not None else cache_dir() / "scores.sqlite"
        self.limit_bytes = cache_limit_bytes() if limit_bytes is None else int(limit_bytes)
        self._con: sqlite3.Connection | None = None
        #: blocks stored and not yet committed: (identity, terms_a, terms_b, values)
        self._pending: list[tuple[str, list[str], list[str], np.ndarray]] = []
        self.disabled = False
        #: why the cache is off, when it is (unwritable folder, corrupt file)
        self.problem: str | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self._con is None and not self.disabled:
            try:
                # it holds other users' index paths and what they scored: 0700 folder, 0600 files
                private_folder(self.path.parent, tighten=self.path.parent == _default_dir())
                for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
                    if p == self.path or p.exists():
                        private_file(p)
                # used by one thread at a time: the caller's, or the background write it waits for
                con = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
                # a cache can be rebuilt: no fsync (an OS crash may cost it, never a run's result)
                con.execute("PRAGMA synchronous=OFF")
                con.execute("PRAGMA auto_vacuum=INCREMENTAL")
                con.execute("PRAGMA journal_mode=WAL")
                if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'scores'").fetchone():
                    con.execute("DROP TABLE scores")  # the pair-per-row layout of semtui 0.1
                for statement in _SCHEMA:
                    con.execute(statement)
                con.execute("CREATE TEMP TABLE IF NOT EXISTS req (t TEXT PRIMARY KEY)")
                con.commit()
                self._con = con
                _open.add(self)
            except (OSError, sqlite3.Error) as exc:
                self.disabled = True
                self.problem = f"{self.path}: {exc}"
                if problem_hook is not None:
                    problem_hook(f"the score cache {self.path} cannot be used ({exc}); scores are "
                                 f"computed without it ('semtui cache clear' removes it)")
        return self._con

    # ------------------------------------------------------------------ ids and rows
    def _ids(self, con: sqlite3.Connection, identity: str, terms: list[str], create: bool) -> dict[str, int]:
        found: dict[str, int] = {}
        # a measure the cache has never seen (a first fill) has no ids to look up
        if con.execute("SELECT 1 FROM terms WHERE measure = ? LIMIT 1", (identity,)).fetchone():
            con.execute("DELETE FROM req")
            con.executemany("INSERT OR IGNORE INTO req(t) VALUES (?)", ((t,) for t in terms))
            found = dict(con.execute("SELECT term, id FROM terms WHERE measure = ? AND term IN (SELECT t FROM req)",
                                     (identity,)).fetchall())
        if create:
            missing = [t for t in dict.fromkeys(terms) if t not in found]
            if missing:
                start = con.execute("SELECT COALESCE(MAX(id), -1) + 1 FROM terms WHERE measure = ?",
                                    (identity,)).fetchone()[0]
                new = {t: start + i for i, t in enumerate(missing)}
                con.executemany("INSERT INTO terms(measure, term, id) VALUES (?, ?, ?)",
                                ((identity, t, i) for t, i in new.items()))
                found.update(new)
        return found

    def _rows(self, con: sqlite3.Connection, identity: str, ids: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        out = {}
        for lo in range(0, len(ids), 900):  # SQLite's bound on parameters
            chunk = ids[lo:lo + 900]
            marks = ",".join("?" * len(chunk))
            for i, partners, scores in con.execute(
                    f"SELECT id, partners, scores FROM rows WHERE measure = ? AND id IN ({marks})", (identity, *chunk)):
                out[i] = (np.frombuffer(partners, dtype=np.int32), np.frombuffer(scores, dtype=np.float64))
        return out

    def lookup(self, identity: str, terms_a: list[str], terms_b: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Cached scores (NaN where absent) and a mask of which pairs were found."""
        out = np.full((len(terms_a), len(terms_b)), np.nan)
        found = np.zeros(out.shape, dtype=bool)
        flush()
        con = self._connect()
        if con is None or not len(terms_a) or not len(terms_b):
            return out, found
        try:
            ids = self._ids(con, identity, [*terms_a, *terms_b], create=False)
            if not ids:
                return out, found
            ia = np.array([ids.get(t, -1) for t in terms_a], dtype=np.int64)
            ib = np.array([ids.get(t, -1) for t in terms_b], dtype=np.int64)
            wanted = sorted({int(i) for i in np.concatenate([ia, ib]) if i >= 0})
            rows = self._rows(con, identity, wanted)
            if rows:
                con.executemany("UPDATE rows SET used = ? WHERE measure = ? AND id = ?",
                                ((time.time(), identity, i) for i in rows))
                con.commit()
        except sqlite3.Error:
            return out, found
        for side, (ids_x, ids_y) in enumerate(((ia, ib), (ib, ia))):
            for x, rid in enumerate(ids_x.tolist()):
                row = rows.get(rid)
                if row is None:
                    continue
                partners, scores = row
                pos = np.searchsorted(partners, ids_y)
                pos = np.minimum(pos, len(partners) - 1)
                hit = (partners[pos] == ids_y) & (ids_y >= 0)
                if not hit.any():
                    continue
                values = scores[pos[hit]]
                if side == 0:
                    out[x, hit], found[x, hit] = values, True
                else:
                    out[hit, x], found[hit, x] = values, True
        return out, found

    def store(self, identity: str, terms_a: list[str], terms_b: list[str], values: np.ndarray) -> None:
        """Remember ``values`` (``len(terms_a) x len(terms_b)``), each row under its term of
        ``terms_a``; written at the next :meth:`commit`."""
        if self.disabled or not len(terms_a) or not len(terms_b):
            return
        self._pending.append((identity, list(terms_a), list(terms_b), np.asarray(values, dtype=np.float64)))

    def commit(self, wait: bool = True) -> None:
        """Write the blocks stored since the last commit in one transaction and keep the cache
        within its bound; with ``wait=False`` in a background thread (the caller goes on; every
        read waits for it)."""
        pending, self._pending = self._pending, []
        if not pending or self.disabled:
            return
        if wait:
            flush()
            self._write(pending)
            return
        job = threading.Thread(target=self._write_after, args=(pending, list(_writes)),
                               name="semtui-score-cache", daemon=True)
        with _writes_lock:
            _writes.append(job)
        job.start()

    def _write_after(self, pending, earlier: list[threading.Thread]) -> None:
        for other in earlier:  # writes happen in the order they were committed
            other.join()
        self._write(pending)

    def _write(self, pending: list[tuple[str, list[str], list[str], np.ndarray]]) -> None:
        """Every pending block in one transaction: the ids of all their terms at once (per
        measure), the rows to merge in one query, one ``executemany``."""
        con = self._connect()
        if con is None:
            return
        try:
            records = []
            for identity in dict.fromkeys(block[0] for block in pending):
                blocks = [block for block in pending if block[0] == identity]
                terms = [t for _, a, b, _ in blocks for t in (*a, *b)]
                ids = self._ids(con, identity, terms, create=True)
                old = self._rows(con, identity, sorted({ids[t] for _, a, _, _ in blocks for t in a}))
                for _, terms_a, terms_b, values in blocks:
                    records += self._records(identity, ids, old, terms_a, terms_b, values)
            con.executemany("INSERT OR REPLACE INTO rows(measure, id, used, partners, scores) VALUES (?, ?, ?, ?, ?)",
                            records)
            con.commit()
            self._bound(con)
        except sqlite3.Error:
            con.rollback()

    @staticmethod
    def _records(identity: str, ids: dict[str, int], old: dict, terms_a: list[str], terms_b: list[str],
                 values: np.ndarray) -> list[tuple]:
        """The rows of one block: a term's partners (sorted ids) and scores as two blobs,
        merged with what the cache already holds for it (the new scores win)."""
        ia = [ids[t] for t in terms_a]
        ib = np.array([ids[t] for t in terms_b], dtype=np.int32)
        order = np.argsort(ib, kind="stable")
        ib_sorted = ib[order]
        v = np.ascontiguousarray(values[:, order])
        partners_blob = ib_sorted.tobytes()
        now = time.time()
        records = []
        for x, rid in enumerate(ia):
            if rid in old:
                p_old, s_old = old[rid]
                keep = ~np.isin(p_old, ib_sorted)
                partners = np.concatenate([p_old[keep], ib_sorted])
                scores = np.concatenate([s_old[keep], v[x]])
                o = np.argsort(partners, kind="stable")
                old[rid] = (partners[o], scores[o])  # a later block of the same row merges with this
                records.append((identity, rid, now, old[rid][0].tobytes(), old[rid][1].tobytes()))
            else:
                old[rid] = (ib_sorted, v[x])
                records.append((identity, rid, now, partners_blob, v[x].tobytes()))
        return records

    def _bound(self, con: sqlite3.Connection) -> None:
        """Drop the least recently used rows while the cache is over its limit."""
        size = self.size_bytes(con)
        if size <= self.limit_bytes:
            return
        target = self.limit_bytes * 0.8
        excess = size - target
        dropped = 0
        victims = []
        for measure, i, n in con.execute("SELECT measure, id, length(partners) + length(scores) FROM rows ORDER BY used"):
            victims.append((measure, i))
            dropped += n
            if dropped >= excess:
                break
        con.executemany("DELETE FROM rows WHERE measure = ? AND id = ?", victims)
        con.commit()
        con.execute("PRAGMA incremental_vacuum")
        con.commit()

    @staticmethod
    def size_bytes(con: sqlite3.Connection) -> int:
        pages = con.execute("PRAGMA page_count").fetchone()[0] - con.execute("PRAGMA freelist_count").fetchone()[0]
        return int(pages * con.execute("PRAGMA page_size").fetchone()[0])

    # ------------------------------------------------------------------ for `semtui cache`
    def info(self) -> dict:
        """Where the cache is, its size and bound, and the pairs it holds per measure."""
        flush()
        facts: dict = {"path": str(self.path), "exists": self.path.exists(), "bytes": 0, "limit_bytes": self.limit_bytes,
                       "pairs": 0, "measures": {}}
        if not facts["exists"]:
            return facts
        facts["bytes"] = sum(p.stat().st_size for p in self._files())
        try:
            con = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True, timeout=30)
            try:
                rows = con.execute("SELECT measure, SUM(length(partners)) / 4 FROM rows GROUP BY measure").fetchall()
            finally:
                con.close()
        except sqlite3.Error as exc:
            facts["problem"] = f"not a usable cache ({exc})"
            return facts
        facts["measures"] = {m: int(c or 0) for m, c in rows}
        facts["pairs"] = int(sum(facts["measures"].values()))
        return facts

    def _files(self) -> list[Path]:
        return [p for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")) if p.exists()]

    def remove(self) -> int:
        """Delete the cache files (a corrupt cache included); returns the bytes freed."""
        self.close()
        freed = 0
        for p in self._files():
            freed += p.stat().st_size
            p.unlink()
        return freed

    def clear(self, identity: str | None = None) -> int:
        """Forget every score (or one measure's); returns the rows dropped."""
        flush()
        self._pending = []
        con = self._connect()
        if con is None:
            return 0
        args = () if identity is None else (identity,)
        where = "" if identity is None else " WHERE measure = ?"
        cur = con.execute("DELETE FROM rows" + where, args)
        con.execute("DELETE FROM terms" + where, args)
        con.commit()
        con.execute("PRAGMA incremental_vacuum")
        con.commit()
        return cur.rowcount

    def close(self) -> None:
        flush()
        if self._con is not None:
            self._con.close()
            self._con = None


class CachedMeasure(Measure):
    """Wraps a measure: scores come from the cache, only missing pairs are computed."""

    def __init__(self, inner: Measure, cache: ScoreCache | None = None):
        self.inner = inner
        self.pairs_per_step = inner.pairs_per_step
        self.cache = cache if cache is not None else ScoreCache()
        self.name = inner.name
        self.kind = inner.kind
        #: pairs computed by the measure (not found in the cache) since creation
        self.computed = 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def unknown(self, terms) -> list[str]:
        return self.inner.unknown(terms)

    def _finish(self, scores: np.ndarray, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        return self.inner._finish(scores, terms_a, terms_b)

    def capped(self, scores: np.ndarray) -> np.ndarray | None:
        return self.inner.capped(scores)

    def _scores(self, terms_a: list[str], terms_b: list[str], progress=None) -> np.ndarray:
        """One lookup for the whole table, then only the missing pairs computed, in blocks of
        rows (the inner measure's step) with progress between blocks."""
        identity = self.inner.identity
        out, found = self.cache.lookup(identity, terms_a, terms_b)
        if found.all():
            return out
        # terms never seen (whole rows missing) against everything, then the remaining
        # rows against the columns they still miss: a new term costs its row and column
        new_rows = np.flatnonzero(~found.any(axis=1))
        if len(new_rows):
            self._compute(out, found, new_rows, np.arange(len(terms_b)), terms_a, terms_b, identity, progress)
        rows = np.flatnonzero(~found.all(axis=1))
        if len(rows):
            cols = np.flatnonzero(~found[rows].all(axis=0))
            self._compute(out, found, rows, cols, terms_a, terms_b, identity, progress)
        return out

    def _matrix(self, terms_a: list[str], terms_b: list[str]) -> np.ndarray:
        return self._scores(terms_a, terms_b)

    def _compute(self, out, found, rows, cols, terms_a, terms_b, identity, progress=None) -> None:
        sub_b = [terms_b[j] for j in cols]
        step = max(1, self.inner.pairs_per_step // max(len(cols), 1))
        for lo in range(0, len(rows), step):
            if progress is not None:
                progress(lo, len(rows), "scoring")
            block = rows[lo:lo + step]
            sub_a = [terms_a[i] for i in block]
            values = np.asarray(self.inner._matrix(sub_a, sub_b), dtype=np.float64)
            self.computed += values.size
            out[np.ix_(block, cols)] = values
            found[np.ix_(block, cols)] = True
            self.cache.store(identity, sub_a, sub_b, values)
        self.cache.commit(wait=False)  # written in the background while the caller goes on
