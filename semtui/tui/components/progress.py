"""The attack's progress in place: what it is doing, a bar with ETA, and how to cancel.

One count and a bar that moves with it: a report of a step of many (``done`` of ``total``) whose
message ends in the step's own count (an assessment's ``[2/6] RBA with embedding: attacking
602/4962``) moves the bar by both -- two of six attacks done and 602/4962 of the third is 2.12/6 --
and the inner count is not written again beside it.  The ETA comes from the rate seen (the share
done over the time taken), and is shown only once it means something.
"""

from __future__ import annotations

import re
import time

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class AttackProgressBar(Horizontal):
    DEFAULT_CSS = """
    AttackProgressBar { height: 1; display: none; background: $boost; padding: 0 1; }
    AttackProgressBar.-running { display: block; }
    AttackProgressBar > #what { width: auto; max-width: 65%; margin-right: 1; text-wrap: nowrap; text-overflow: ellipsis; }  /* what it is doing moves: keep it; cut, it says so */
    AttackProgressBar > ProgressBar { width: 1fr; }
    AttackProgressBar Bar { width: 1fr; min-width: 8; }  /* the ETA and percentage keep their room */
    AttackProgressBar > #eta { width: auto; min-width: 9; color: $text-muted; }
    AttackProgressBar > #hint { width: auto; color: $text-muted; }
    """

    #: the ETA is shown once this share is done and this many seconds have passed
    ETA_AFTER_SHARE = 0.05
    ETA_AFTER_SECONDS = 3.0

    def compose(self) -> ComposeResult:
        yield Label("", id="what")
        yield ProgressBar(total=None, show_eta=False, id="bar")
        yield Label("", id="eta")
        yield Label(" esc cancels", id="hint")

    def start(self, title: str) -> None:
        self.started = time.monotonic()
        self.title = title
        self.is_cancelling = False
        self.query_one("#what", Label).update(title)
        self.query_one(ProgressBar).update(total=None, progress=0)
        self.query_one("#eta", Label).update("")
        self.query_one("#hint", Label).update(" esc cancels")
        self.add_class("-running")

    def update(self, title: str, done: int, total: int, message: str) -> None:
        if getattr(self, "is_cancelling", False):
            return  # the work's last reports before it sees the cancel: keep saying so
        share, message = progress_share(done, total, message)
        # what it is doing first: that is what moves, and a cut falls on the attack's name
        self.query_one("#what", Label).update(f"{message} · {title}" if message else title)
        bar = self.query_one(ProgressBar)
        if share is None:
            bar.update(total=None, progress=0)
        else:
            bar.update(total=1000, progress=round(share * 1000))
        self.query_one("#eta", Label).update(eta_text(share, time.monotonic() - getattr(self, "started", 0.0),
                                                      self.ETA_AFTER_SHARE, self.ETA_AFTER_SECONDS))

    def cancelling(self) -> None:
        """Escape was pressed: say so at once (the work stops at its next progress report,
        within a fraction of a second, docs/performance.md)."""
        self.is_cancelling = True
        self.query_one("#what", Label).update(f"cancelling… · {getattr(self, 'title', '')}")
        self.query_one("#hint", Label).update("")

    def stop(self) -> None:
        self.remove_class("-running")

    @property
    def running(self) -> bool:
        return self.has_class("-running")


#: a step's own count at the end of a progress message: ``attacking 602/4962``
_INNER = re.compile(r"\s+(\d[\d,]*)\s*/\s*(\d[\d,]*)\s*$")
#: the steps a message names on its way in: ``[alternative 1/4] … [2/6] …`` (the current one, from 1)
_STEP = re.compile(r"\[[^\[\]]*?(\d+)/(\d+)\]")


def progress_share(done: int, total: int, message: str) -> tuple[float | None, str]:
    """The share done (None: unknown) and the message to show.  ``done`` of ``total`` are steps
    finished; the message may name the step under way and the steps inside it (``[alternative
    1/4] k doubled: [2/6] TBA: attacking 40/120``): each level adds its part of the level above,
    so the bar moves with the finest count and never back within a step.  The trailing count is
    the bar's: it is not shown again as a second count."""
    message = message or ""
    levels: list[tuple[float, int]] = []  # (done at this level, of how many)
    for m in _STEP.finditer(message):
        i, n = int(m.group(1)), int(m.group(2))
        if n > 0 and 1 <= i <= n:
            levels.append((i - 1, n))
    shown = message
    m = _INNER.search(message)
    if m:
        a, b = (int(x.replace(",", "")) for x in m.groups())
        if b > 0:
            levels.append((min(a, b), b))
        shown = message[:m.start()]  # (0/0: a step that counts nothing says nothing)
    if total and total > 0:
        if levels and levels[0] == (done, total):
            levels = levels[1:]  # the message's first step is the one done/total counts
        levels.insert(0, (min(max(done, 0), total), total))
    if not levels:
        return None, shown
    share, scale = 0.0, 1.0
    for k, n in levels:
        scale /= n
        share += k * scale
    return min(max(share, 0.0), 1.0), shown


def eta_text(share: float | None, elapsed: float, after_share: float = 0.05, after_seconds: float = 3.0) -> str:
    """`` ETA 1:05``: what is left at the rate seen so far, once enough is done and enough time
    has passed for the rate to mean something; blank before."""
    if share is None or share < after_share or elapsed < after_seconds or share >= 1:
        return ""
    left = elapsed * (1 - share) / share
    m, sec = divmod(round(left), 60)
    h, m = divmod(m, 60)
    return f" ETA {h}:{m:02d}:{sec:02d}" if h else f" ETA {m}:{sec:02d}"
