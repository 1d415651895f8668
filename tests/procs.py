"""Processes as /proc shows them (Linux), for tests that check which processes outlive which:
no psutil, no mocks."""

from __future__ import annotations

import os
import time


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of ``pid``, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    return int(fields[1]), fields[0], int(fields[19])


def descendants(pid: int) -> dict[int, tuple[int, int]]:
    """Every living descendant of ``pid``: {pid: (parent pid, start time)}."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] != "Z":
                table[int(name)] = (st[0], st[2])
    out: dict[int, tuple[int, int]] = {}
    frontier = {pid}
    while frontier:
        nxt = {p for p, (pp, _) in table.items() if pp in frontier and p not in out}
        out.update({p: table[p] for p in nxt})
        frontier = nxt
    return out


def alive(procs: dict[int, tuple[int, int]]) -> list[int]:
    """Those of ``procs`` (from :func:`descendants`) still running: same pid and start time,
    not a zombie."""
    out = []
    for pid, (_, start) in procs.items():
        st = _stat(pid)
        if st is not None and st[1] != "Z" and st[2] == start:
            out.append(pid)
    return out


def workers(pid: int) -> dict[int, tuple[int, int]]:
    """The worker processes under ``pid``: its grandchildren (multiprocessing's fork server is
    a child of ``pid``, the workers are forked from it)."""
    d = descendants(pid)
    return {p: v for p, v in d.items() if v[0] != pid}


def wait_gone(procs: dict[int, tuple[int, int]], timeout: float) -> list[int]:
    """Wait until none of ``procs`` runs; those still running after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        left = alive(procs)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)
