"""The screen for plain transactions (an original, or any dataset without generalisation)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType

from semtui.tui.keys import bindings
from semtui.tui.screens.base import BaseScreen


class TransactionsScreen(BaseScreen):
    HELP_TITLE = "transactions"
    BINDINGS: ClassVar[list[BindingType]] = bindings("other")
