"""The base screen every release kind shares: the list pane, the right pane (detail, the
kind's own views, summary), search, the inspector and the job progress bar; the jobs it runs
(export, assessment) and what quitting would lose are :mod:`.jobs`.

A release kind's screen (:mod:`.setgen`, :mod:`.disassociated`, :mod:`.transactions`)
subclasses :class:`BaseScreen` and adds its views and keys; nothing here checks the kind.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Header, Input

from semtui.tui.components.detail import DetailPane
from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.lists import ListPane, source_for
from semtui.tui.components.progress import AttackProgressBar
from semtui.tui.components.summary import SummaryPanel
from semtui.tui.components.vtable import VirtualTable
from semtui.tui.keys import bindings, only
from semtui.tui.screens.jobs import ScreenJobs
from semtui.tui.session import Session

LIST_TITLES = {"group": "Equivalence groups", "cluster": "Clusters", "transaction": "Transactions"}
#: the list pane's share of the width (wide layout) or height, in tenths; < and > change it
SPLIT_DEFAULT = 5


class BackOverAnother:
    """``escape`` (Back) of a document's screen (an assessment, an experiment), opened on its own
    or over another: over another it goes back; as the first screen it has nowhere to go, and the
    footer does not offer it (q quits)."""

    @property
    def pushed(self) -> bool:
        return len(self.app.screen_stack) > 2

    def check_action(self, action: str, parameters) -> bool | None:
        return self.pushed if action == "back" else True

    def action_back(self) -> None:
        self.app.pop_screen()


class FilterBar(Input):
    """``/``: filters the list as you type; enter keeps the filter, escape clears it."""

    BINDINGS: ClassVar[list[BindingType]] = only("main.clear")

    def action_escape(self) -> None:
        self.value = ""
        self.screen.close_filter()


class RightPane(ContentSwitcher):
    """The views of the highlighted entity; ``z`` zooms it to the whole screen."""

    ALLOW_MAXIMIZE = True


class BaseScreen(ScreenJobs, Screen):
    """The shared screen; its jobs, export and assessment are :class:`~.jobs.ScreenJobs`'s,
    their keys bound here with the others."""

    HELP_TITLE = "main screen"
    HELP = ("Left/top: the list. Right/bottom: what the highlighted one holds. tab switches pane; "
            "enter dives in, i inspects (full text), / searches, n/N move between matches.")

    DEFAULT_CSS = """
    BaseScreen #body { layout: vertical; height: 1fr; }
    BaseScreen.-wide #body { layout: horizontal; }
    BaseScreen #list, BaseScreen #right { border: round $panel; border-title-color: $text-accent; }
    BaseScreen #list:focus-within, BaseScreen #right:focus-within { border: round $accent; }
    BaseScreen #list { height: 1fr; width: 1fr; }
    BaseScreen #right { height: 1fr; width: 1fr; }
    BaseScreen FilterBar { display: none; height: 3; }
    BaseScreen FilterBar.-open { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("main")

    def __init__(self, session: Session, attack_defaults: dict | None = None) -> None:
        super().__init__()
        self.session = session
        self.attack_values: dict = dict(attack_defaults or {})
        self.split = SPLIT_DEFAULT
        #: pushed over another screen (a document's): escape, with nothing else to undo, goes back
        self.pushed = False
        #: a record of an assessment to show once the screen is up (``dive_to_record``)
        self.pending_dive: dict | None = None
        #: assessments run here (``A``): [document, exported]
        self.assessments: list[list] = []
        #: the running attack was started by the app itself (plain ``semtui``), not by the user
        self.automatic_attack = False

    # ------------------------------------------------------------------ layout
    def right_views(self) -> ComposeResult:
        """The kind's own views, between the detail and the summary."""
        yield from ()

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="")
        source = source_for(self.session)
        with Container(id="body"):
            lst = ListPane(self.session, source, id="list")
            lst.border_title = LIST_TITLES[source.noun]
            yield lst
            with RightPane(initial="detail", id="right"):
                yield DetailPane(self.session, id="detail")
                yield from self.right_views()
                yield SummaryPanel(self.session, id="summary")
        bar = FilterBar(placeholder="search items (enter keeps it, escape clears it)", id="filter")
        bar.cursor_blink = False  # steady, and snapshots stay stable
        yield bar
        yield AttackProgressBar(id="progress")
        yield KeyFooter()

    @property
    def list_pane(self) -> ListPane:
        return self.query_one("#list", ListPane)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def switcher(self) -> ContentSwitcher:
        return self.query_one("#right", ContentSwitcher)

    @property
    def progress(self) -> AttackProgressBar:
        return self.query_one(AttackProgressBar)

    # Textual calls a handler of every class in the MRO: subclasses override these hooks,
    # never the ``on_*`` handlers themselves.
    def on_mount(self) -> None:
        self.title = f"semtui — {self.session.path.name}"
        self.say_companions()
        self.before_first_show()
        self.list_pane.focus()
        self.show_current()
        self._layout(self.app.size.width)
        self.after_first_show()
        if self.session.companions is not None:  # the key and the original, read once the screen is up
            self.call_after_refresh(self.app.read_companions)
        if self.pending_dive is not None:
            record, self.pending_dive = self.pending_dive, None
            self.call_after_refresh(self._dive, record)

    def _dive(self, record: dict) -> None:
        why = self.dive_to_record(record)
        if why:
            self.notify(why, severity="warning", timeout=6)

    def dive_to_record(self, record: dict) -> str | None:
        """Show an assessment's record at risk (``transaction``, from 0) where it lives in this
        release; returns why it cannot, or None."""
        return f"a {self.session.kind} release has no groups or clusters to show a record in"

    def before_first_show(self) -> None:
        """The kind's own set-up before the right pane is first filled."""

    def after_first_show(self) -> None:
        """The kind's work once the screen is up (e.g. the first attack)."""

    def companions_opened(self) -> None:
        """The release's key and original, read after the first paint, are in: show them (the
        list's own columns from them too, its cursor kept)."""
        opened = getattr(self.list_pane.source, "companions_opened", None)
        if opened is not None:
            opened()
            self.list_pane.columns_changed()
        self.say_companions()
        self.refresh_detail()

    def say_companions(self) -> None:
        """The title's second line: what the release is, the companions the kind names
        (:meth:`companions_words`), and those still read after the first paint (short: the title
        fits 80 columns)."""
        reading = self.session.reading
        self.sub_title = (self.session.title_kind + self.companions_words()
                          + (f" (reading {' + '.join(reading)}…)" if reading else ""))

    def companions_words(self) -> str:
        """The companions open, as the title names them (" + key + original"): none by default."""
        return ""

    def refresh_detail(self) -> None:
        """Show the highlighted entity again (its view, its marks or what is open changed)."""
        self.detail.show(self.list_pane.current, needle=self.list_pane.filter_text)
        self.show_current()

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width >= 140, "-wide")
        self._apply_split()

    def _apply_split(self) -> None:
        lst, right = self.list_pane, self.switcher
        if self.has_class("-wide"):
            lst.styles.width, right.styles.width = f"{self.split}fr", f"{10 - self.split}fr"
            lst.styles.height = right.styles.height = "1fr"
        else:
            lst.styles.height, right.styles.height = f"{self.split}fr", f"{10 - self.split}fr"
            lst.styles.width = right.styles.width = "1fr"

    def action_resize(self, delta: int) -> None:
        """``<`` / ``>``: give the list pane less or more of the room."""
        self.split = max(1, min(9, self.split + delta))
        self._apply_split()

    # ------------------------------------------------------------------ following the cursor
    def show_current(self) -> None:
        """Fill the right pane for the entity under the list cursor."""
        current = self.list_pane.current
        view = self.switcher.current
        if view == "detail":
            if current != self.detail.showing or self.detail.needle != self.list_pane.filter_text:
                self.detail.show(current, needle=self.list_pane.filter_text)
            self.switcher.border_title = self.detail.border_title
            self.switcher.border_subtitle = self.detail.border_subtitle
        elif view == "summary":
            self.query_one(SummaryPanel).refresh_summary()
            self.switcher.border_title = "Summary"
            self.switcher.border_subtitle = ""
        else:
            self.show_view(view, current)

    def show_view(self, view: str, current: int | None) -> None:
        """Fill one of the kind's own views (see :meth:`right_views`)."""

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table is self.list_pane:
            self.show_current()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        """``enter``: on the list, into the right pane; in the right pane, the inspector."""
        if event.table is self.list_pane:
            if self.switcher.current != "summary":
                self.right_focus_target().focus()
        else:
            self.action_inspect()

    def right_focus_target(self):
        view = self.switcher.current
        return self.query_one(f"#{view}")

    def action_next_pane(self) -> None:
        """``tab`` / ``shift+tab``: the list pane and the right pane's view, in turn."""
        if self.maximized is not None:
            self.minimize()
        right = self.right_focus_target()
        focused = self.focused
        in_list = focused is self.list_pane
        (right if in_list or focused is None else self.list_pane).focus()

    # ------------------------------------------------------------------ search
    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.add_class("-open")
        bar.value = self.list_pane.filter_text
        if self.maximized is not None:  # the bar lives under the list: show both
            self.minimize()
        # at once, not queued: keys typed right after ``/`` go to the filter
        self.set_focus(bar)

    def close_filter(self) -> None:
        self.query_one(FilterBar).remove_class("-open")
        self.list_pane.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FilterBar):
            self.list_pane.set_filter(event.value)
            self.show_current()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterBar):
            self.close_filter()
            if event.value and not self.list_pane.row_count:
                self.notify(f"nothing matches “{event.value}”")

    def clear_filter(self) -> bool:
        if not self.list_pane.filter_text:
            return False
        self.query_one(FilterBar).value = ""
        self.list_pane.set_filter("")
        self.show_current()
        self.notify("filter cleared")
        return True

    def action_escape(self) -> None:
        """``escape``: cancel running work, else clear the filter, else un-zoom, else (a screen
        opened from a document) back to the document."""
        if self.cancel_assessment():
            return
        if self.cancel_jobs():
            return
        if self.clear_filter():
            return
        if self.maximized is not None:
            self.minimize()
            return
        if self.pushed and self.app.screen is self:
            self.app.pop_screen()

    def cancel_jobs(self) -> bool:
        """Cancel this screen's long work; True if there was some."""
        return False

    def action_next_match(self) -> None:
        self._match(1)

    def action_prev_match(self) -> None:
        self._match(-1)

    def _match(self, direction: int) -> None:
        """``n``/``N``: the next transaction (in the detail) that matches the search, then the
        next group."""
        needle = self.list_pane.filter_text
        if not needle:
            self.notify("no search: press / first")
            return
        if self.switcher.current != "detail":
            self.switcher.current = "detail"
            self.show_current()
        if self.detail.next_match(direction):
            self.detail.focus()
            return
        lst = self.list_pane
        if lst.row_count:
            nxt = (lst.cursor_row + direction) % lst.row_count
            lst.move_to(nxt)
            self.show_current()
            self.detail.move_to(0 if direction > 0 else self.detail.row_count - 1)
            if not self.detail.is_match(self.detail.cursor_row):
                self.detail.next_match(direction)
            self.detail.focus()

    # ------------------------------------------------------------------ views
    def action_summary(self) -> None:
        if self.switcher.current == "summary":
            self.switcher.current = self.default_view()
        else:
            self.switcher.current = "summary"
        self.show_current()
        self.keep_focus_visible()
        self.refresh_bindings()

    def keep_focus_visible(self) -> None:
        """After the right pane changed view: focus follows into the view now shown (keys
        would otherwise go to a hidden widget)."""
        focused = self.focused
        if focused is not None and focused is not self.list_pane and self.switcher in focused.ancestors:
            self.right_focus_target().focus()

    def default_view(self) -> str:
        return "detail"

    def action_zoom(self) -> None:
        """``z``: the right pane over the whole screen, its cursor row shown whole (wrapped);
        again: back."""
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.switcher, container=False)

    def watch_maximized(self, old, new) -> None:
        """Zoomed, the right pane's tables draw their cursor row whole: every name and number
        of it, however long (one place, whatever un-zoomed the pane)."""
        for table in self.switcher.query(VirtualTable):
            table.set_wrap(new is not None)

    def action_inspect(self) -> None:
        """``i`` (or ``enter`` in the right pane): the full text of what is under the cursor."""
        from semtui.tui.components.inspector import Inspector, inspect_entity

        focused = self.focused
        found = self.inspect_focused(focused)
        if found is not None:
            title, body = found
        elif focused is self.detail and self.detail.row_count:
            title, body = self.detail.inspect(self.detail.cursor_row)
        else:
            current = self.list_pane.current
            if current is None:
                self.notify("nothing to inspect")
                return
            title, body = inspect_entity(self.session, current)
        self.app.push_screen(Inspector(title, body))

    def inspect_focused(self, focused):
        """The kind's own inspector for the focused widget: (title, renderable) or None."""
        return None

    # ------------------------------------------------------------------ keys that cannot act yet
    def why_not(self, action: str) -> str | None:
        """Why the screen's key for ``action`` cannot act now (its ``check_action`` said None):
        the kind screens word it; a key is never silent."""
        return None

    def on_key(self, event) -> None:
        """A key bound on this screen that cannot act now says why (a notice) instead of nothing:
        Textual runs no action whose ``check_action`` is None, and drops the key."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            action = binding.action.split("(", 1)[0]
            if self.check_action(action, ()) is None:
                why = self.why_not(action)
                if why:
                    event.stop()
                    self.notify(why)
                return

    def action_no_attack(self) -> None:
        self.notify(f"attacks need set-generalised data; this is {self.session.kind} data")

    def palette_commands(self) -> list[tuple[str, str, object]]:
        """Palette entries no key has: show a given result."""
        return [(f"Show result {i + 1}: {r.label}", "make it the current result", lambda i=i: self._show_result(i))
                for i, r in enumerate(getattr(self.session, "results", []))]

    def _show_result(self, i: int) -> None:
        self.session.current = i
        self.result_changed()

    def result_changed(self) -> None:
        """The current result changed: the kind's screen redraws what shows it."""
