"""The screen for disassociated releases: clusters, their record and term chunks (and the
original transaction of each when the private key is open)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType

from semtui.model import DisassociatedData
from semtui.tui.keys import bindings
from semtui.tui.screens.base import BaseScreen


class DisassociatedScreen(BaseScreen):
    HELP_TITLE = "disassociated release"
    BINDINGS: ClassVar[list[BindingType]] = bindings("other")

    def after_first_show(self) -> None:
        data = self.session.data
        extra = " + key" if isinstance(data, DisassociatedData) and self.session.key else ""
        self.sub_title = f"{self.session.kind}{extra}"
