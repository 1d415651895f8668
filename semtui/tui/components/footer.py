"""The footer every screen shows: help and quit first, so no width ever hides them.

Textual's footer lists the focused widget's and the screen's keys before the app's, and a
narrow terminal cuts the row from the right: at 80 columns ``? Help`` and ``q`` fell off.
Here the app's help and close keys lead, the rest follow in their usual order, and the
footer is compact (one space between keys).
"""

from __future__ import annotations

from collections import defaultdict

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

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

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        by_action: dict[str, list] = defaultdict(list)
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        first = [a for a in FIRST if a in by_action]
        order = first + [a for a in by_action if a not in first]
        self.styles.grid_size_columns = len(order)
        for action in order:
            binding, enabled, tooltip = by_action[action][0]
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
