"""The footer every screen shows: help and quit first, so no width ever hides them.

Textual's footer lists the focused widget's and the screen's keys before the app's, and a
narrow terminal cuts the row from the right: at 80 columns ``? Help`` and ``q`` fell off.
Here the app's help and close keys lead, the rest follow in their usual order, and the
footer is compact (one space between keys). Keys that share an action but not a description
(``escape`` Back and ``q`` Close on a view over the main screen) are both shown, and a focused
table's hidden ``enter`` gives way to the screen's key for it (``enter`` Go to the record: the
table's Selected is what the screen answers with it). What does not fit
the width is left out whole, never cut mid-word, and an ellipsis says that more keys exist (``?``
lists them all).
"""

from __future__ import annotations

from collections import defaultdict

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel

#: actions shown first, in this order, whatever the screen: help and quit / close, then what the
#: screen is for (attacks and what they found), before moving about
FIRST = ("help", "close", "dismiss", "cancel", "answer(False)", "attack", "cover", "risk", "problems", "cycle_view",
         "run")


class KeyFooter(Footer):
    """A compact footer whose first keys are always help and quit / close."""

    DEFAULT_CSS = """
    KeyFooter FooterKey.-disabled { text-style: dim; }
    """

    def __init__(self, **kw) -> None:
        kw.setdefault("compact", True)
        kw.setdefault("show_command_palette", False)  # ctrl+p is in the help; the room goes to keys
        super().__init__(**kw)

    _composed_width = 0

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        by_key: dict[tuple[str, str], list] = defaultdict(list)
        for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items():
            if binding.id == "table.select":  # a table's enter is the screen's to answer (its Selected)
                binding = next((b for b in self.screen._bindings.key_to_bindings.get(key, ()) if b.show), binding)
            if binding.show:
                by_key[binding.action, binding.description].append((binding, enabled, tooltip))
        def app_first(k: tuple[str, str]) -> bool:  # the app's key (q Close) before a screen's (esc Back)
            return not str(by_key[k][0][0].id or "").startswith("app.")

        first = [k for a in FIRST for k in sorted((k for k in by_key if k[0] == a), key=app_first)]
        order = first + [k for k in by_key if k not in first]
        room = self._composed_width = self.app.size.width
        shown = []
        for n, k in enumerate(order):
            binding, enabled, tooltip = by_key[k][0]
            display = self.app.get_key_display(binding)
            width = len(display) + 1 + len(binding.description)  # "key description"
            last = n == len(order) - 1
            # a key and the space after it, and room for the "…" that would follow it; the last, itself
            if width + (0 if last else 2) > room:
                break
            room -= width + 1
            shown.append((binding, display, enabled, tooltip))
        self.styles.grid_size_columns = len(shown) + (len(shown) < len(order))
        for binding, display, enabled, tooltip in shown:
            yield FooterKey(binding.key, display, binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
        if len(shown) < len(order):
            yield FooterLabel("…")

    def on_resize(self, event: events.Resize) -> None:
        if self._bindings_ready and self.app.size.width != self._composed_width:
            self.call_after_refresh(self.recompose)
