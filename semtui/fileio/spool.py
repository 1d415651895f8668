"""What a run must hold whole but uses a part at a time, kept on disk: :class:`Spool` (a list
of picklable items) and :class:`DiskArray` (a numpy array that grows), each in an unnamed
temporary file in ``TMPDIR`` that nothing outlives (``O_TMPFILE`` where the system has it,
else unlinked at once); :func:`drop_pages` lets a mapped array's pages go."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

from semtui.errors import InputError


def _unnamed_file(what: str):
    """An unnamed temporary file (``O_TMPFILE`` where the system has it, else unlinked at once:
    nothing is left behind however the process ends) in ``TMPDIR``."""
    try:
        return tempfile.TemporaryFile(prefix="semtui-spool-")
    except OSError as exc:
        raise InputError(f"cannot make a temporary file for {what}: {exc.strerror or exc}",
                         tempfile.gettempdir()) from None


def _write_at(fd: int, data, offset: int, what: str) -> int:
    """Write all of ``data`` at ``offset``; the offset after it.  A full disk names TMPDIR."""
    try:
        view = memoryview(data).cast("B")
        while view:
            n = os.pwrite(fd, view, offset)
            offset += n
            view = view[n:]
    except OSError as exc:
        raise InputError(f"cannot write {what} to a temporary file: {exc.strerror or exc}",
                         tempfile.gettempdir()) from None
    return offset


class Spool(Sequence):
    """A list kept on disk: each item appended is pickled to an unnamed temporary file (made
    with ``O_TMPFILE`` where the system has it, else unlinked at once: nothing is left behind
    however the process ends), with its end offset (on disk too: a Spool of any length holds
    at most a block of each in memory).  Read back by index or in order.  For what a run must
    hold whole but uses a part at a time (the clusters of a large release and of its key, the
    report's per-cluster entries on ``--scheduler``).  ``TMPDIR`` says where; a full disk is an
    :class:`InputError`."""

    _BLOCK = 1 << 20
    _ENDS_BLOCK = 1 << 16   # end offsets held before they are written, and read back at once

    def __init__(self, what: str = "spool"):
        import numpy as np

        self.what = what
        self._fh = _unnamed_file(what)
        self._fd = self._fh.fileno()
        try:
            self._ends = DiskArray(np.int64, what)   # each item's end offset, on disk too
        except BaseException:
            self._fh.close()
            raise
        self._ends._BLOCK = self._ENDS_BLOCK
        self._end = 0
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._written = 0

    def append(self, item) -> None:
        import pickle

        data = pickle.dumps(item, protocol=5)
        self._pending.append(data)
        self._pending_size += len(data)
        self._end += len(data)
        self._ends.append(self._end)
        if self._pending_size >= self._BLOCK:
            self._flush()

    def extend(self, items) -> None:
        for item in items:
            self.append(item)

    def _flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending, self._pending_size = [], 0
        self._written = _write_at(self._fd, data, self._written, self.what)

    def __len__(self) -> int:
        return len(self._ends)

    def _span(self, i: int) -> tuple[int, int]:
        if not i:
            return 0, int(self._ends.read(0, 1)[0])
        start, end = self._ends.read(i - 1, i + 1).tolist()
        return start, end

    def __getitem__(self, i):
        import pickle

        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self._ends)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        self._flush()
        start, end = self._span(i)
        return pickle.loads(os.pread(self._fd, end - start, start))

    def __iter__(self):
        import pickle

        self._flush()
        n, i, start = len(self._ends), 0, 0
        while i < n:
            ends = self._ends.read(i, min(n, i + self._ENDS_BLOCK)).tolist()   # the next items' end offsets
            k = 0
            while k < len(ends):
                j = k  # the items that fit in a block (at least one)
                while j < len(ends) and (j == k or ends[j] - start <= self._BLOCK):
                    j += 1
                block = os.pread(self._fd, ends[j - 1] - start, start)
                a = start
                for b in ends[k:j]:
                    yield pickle.loads(block[a - start:b - start])
                    a = b
                start, k = ends[j - 1], j
            i += len(ends)

    def close(self) -> None:
        self._fh.close()
        self._ends.close()

    def __reduce__(self):
        raise TypeError(f"a Spool ({self.what}) stays on the machine that made it: ship its items, not it")


class DiskArray:
    """A numpy array of one type (integers, or float64 figures) kept on disk as it grows (an
    unnamed temporary file, as :class:`Spool`'s; at most a block of items held before it is
    written), then read back memory-mapped (:meth:`view`) or a span at a time (:meth:`read`):
    what a large original's sparse matrix is made of on ``--scheduler``, so that the driver's
    memory holds only the pages in use.  Those pages are the page cache's, which the kernel can
    take back; :func:`drop_pages` lets them go at once."""

    _BLOCK = 1 << 20  # items held before they are written

    def __init__(self, dtype, what: str = "an array"):
        from array import array

        import numpy as np

        self.dtype = np.dtype(dtype)
        self.what = what
        self._pending = array(self.dtype.char)
        if self._pending.itemsize != self.dtype.itemsize:
            raise TypeError(f"no array.array type for {self.dtype}")
        self._fh = _unnamed_file(what)
        self._written = 0   # bytes
        self._view = None

    def append(self, value: int) -> None:
        self._pending.append(value)
        if len(self._pending) >= self._BLOCK:
            self._flush()

    def extend(self, values) -> None:
        """Append ``values`` (a sequence of ints, or an array of this type)."""
        import numpy as np

        if isinstance(values, np.ndarray):
            self._pending.frombytes(np.ascontiguousarray(values, dtype=self.dtype).tobytes())
        else:
            self._pending.extend(values)
        if len(self._pending) >= self._BLOCK:
            self._flush()

    def _flush(self) -> None:
        from array import array

        if self._view is not None:
            raise ValueError(f"{self.what}: appended to after it was read")
        if self._pending:
            self._written = _write_at(self._fh.fileno(), self._pending, self._written, self.what)
            self._pending = array(self.dtype.char)

    def __len__(self) -> int:
        return self._written // self.dtype.itemsize + len(self._pending)

    def view(self):
        """The whole array, read-only, over the file's pages (no more appends after this)."""
        import mmap

        import numpy as np

        if self._view is None:
            self._flush()
            if not self._written:
                self._view = np.zeros(0, dtype=self.dtype)
            else:
                mapped = mmap.mmap(self._fh.fileno(), self._written, access=mmap.ACCESS_READ)
                self._view = np.frombuffer(mapped, dtype=self.dtype)
            self._view.flags.writeable = False
        return self._view

    def read(self, start: int, stop: int):
        """Items ``start:stop`` (as far as there are) as an array in memory, read from the file
        (not mapped: no page of the file stays in this process) and from the block not written
        yet; appending may go on after."""
        import numpy as np

        size = self.dtype.itemsize
        written = self._written // size
        stop = min(max(stop, start), len(self))
        lo, hi = min(start, written), min(stop, written)
        buf = bytearray((hi - lo) * size)
        view, offset = memoryview(buf), lo * size
        while view:
            got = os.preadv(self._fh.fileno(), [view], offset)
            if not got:
                raise InputError(f"{self.what}: its temporary file ended early", tempfile.gettempdir())
            offset += got
            view = view[got:]
        out = np.frombuffer(buf, dtype=self.dtype)
        if stop > written:   # the rest still in the block not written
            out = np.concatenate([out, np.frombuffer(self._pending, dtype=self.dtype)[max(start, written) - written:
                                                                                      stop - written]])
        return out

    def astype(self, dtype, what: str | None = None) -> DiskArray:
        """A copy of this array in another integer type, converted a block at a time."""
        out = DiskArray(dtype, what or self.what)
        v = self.view()
        for start in range(0, len(v), self._BLOCK):
            out.extend(v[start:start + self._BLOCK])
            drop_pages(v)
        return out

    def close(self) -> None:
        """Let its file go (read no more after)."""
        self._view = None
        self._fh.close()

    def __reduce__(self):
        raise TypeError(f"a DiskArray ({self.what}) stays on the machine that made it: ship its values, not it")


def drop_pages(*arrays) -> None:
    """Let the pages of memory-mapped arrays (:meth:`DiskArray.view`, or a sparse matrix made
    of them) go from this process's memory; they are read back from the file when next used.
    Arrays in memory are left alone.  For a pass over a large original a block at a time."""
    import mmap

    for a in arrays:
        if hasattr(a, "indptr"):  # a scipy CSR/CSC matrix
            drop_pages(a.indptr, a.indices, a.data)
            continue
        base = a
        while getattr(base, "base", None) is not None:
            base = base.base
        if isinstance(base, memoryview):
            base = base.obj
        if isinstance(base, mmap.mmap) and not base.closed:
            base.madvise(mmap.MADV_DONTNEED)
