"""The types every family speaks in (:mod:`semtui.families` holds the protocol that uses them).

Kept apart from the package's ``__init__`` so that a family module can import them without an
import circle (the package imports its families to register them).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

#: the two kinds of release the attacks see (an assessment's ``kind``)
SET_GENERALISED, DISASSOCIATED = "set-generalised", "disassociated"


class Planned(NamedTuple):
    """One attack of an assessment's plan: ``attack`` names the family of attacks that runs it
    (``setgen``: the elimination attack, ``reassoc``: re-association, ``cover``: the cover
    problem; the Assessor has one runner for each) and ``options`` its options."""

    attack: str
    options: dict


class Sources(Protocol):
    """Where a family's parameters that name files are read from: an experiment's cells read each
    once for every cell (:class:`semtui.experiment.cells.Context`), ``semtui anonymize`` as named
    (:class:`FileSources`)."""

    def privacy(self, path: str) -> list[list[str]]:
        """The privacy constraints a file holds."""

    def utility(self, spec: str, constraints) -> list[list[str]] | None:
        """The utility constraints a ``--utility`` spec names, given the privacy constraints."""

    def hierarchy(self, params: dict):
        """The hierarchy a k^m release's parameters name (its file, or one built from the original)."""


@dataclass
class FileSources:
    """``semtui anonymize``'s sources: each file read as the option names it (a privacy file is
    text; a hierarchy already read may be handed over, so the command reads it first)."""

    original: object
    given_hierarchy: object | None = None

    def privacy(self, path: str) -> list[list[str]]:
        from semtui.anonymize.setgen import read_privacy

        return read_privacy(path)

    def utility(self, spec: str, constraints) -> list[list[str]] | None:
        from semtui.anonymize.setgen import utility_constraints

        return utility_constraints(spec, self.original, constraints)

    def hierarchy(self, params: dict):
        if self.given_hierarchy is not None:
            return self.given_hierarchy
        from semtui.formats.hierarchy import read_hierarchy

        return read_hierarchy(params["hierarchy"])


@dataclass
class Request:
    """What a family's anonymiser is given (:meth:`Family.prepare`): the original, the family's
    parameters, and what they name read or drawn (``inputs``: the privacy and utility
    constraints, a hierarchy).  ``notes``: what a face warns about before the run (e.g. fewer
    random constraints than asked for)."""

    family: str
    original: object
    params: dict
    original_path: str
    output: str
    inputs: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: processes for the anonymiser's parts (k^m LRA/VPA)
    jobs: int = 1


@dataclass
class Anonymised:
    """A release as a family's anonymiser made it, with the documents written beside it.

    ``data``: the release as the anonymiser made it (generalised items marked); ``released``: as
    it is written (an unmarked set-generalised release: each generalised item as its members);
    ``result``: the anonymiser's own result (its summary, the figures a face prints);
    ``sidecar``: the sidecar or report kept beside the release (None: a disassociated release,
    whose key is ``key``); ``figures``: what the run measured of itself (``seconds``, ...);
    ``hierarchy``: a k^m release's hierarchy (its mining loss needs it)."""

    request: Request
    data: object
    released: object
    result: object
    sidecar: dict | None = None
    key: object | None = None
    hierarchy: object | None = None
    figures: dict = field(default_factory=dict)

    @property
    def params(self) -> dict:
        return self.request.params

    @property
    def marked(self):
        """An unmarked release's generalised items marked (None: the release marks them itself)."""
        return None if self.released is self.data else self.data


@dataclass
class Published:
    """A release written in its file format and read back, as it would be published (what an
    experiment's cell checks and attacks): ``text`` the release file, ``release`` it read back,
    ``marked`` an unmarked release read back with its generalised items marked, ``key_text`` a
    disassociated release's key, ``extra_files`` (path, text) written beside a kept release."""

    text: str
    release: object
    marked: object | None = None
    key_text: str | None = None
    extra_files: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Assessed:
    """An assessed release as an experiment's cell: its family, its parameters, and what was assumed."""

    family: str
    params: dict
    known: bool
    note: str
    #: the privacy constraints of a set-generalised release (from its sidecar), for the check
    constraints: list | None = None


def q(x) -> str:
    """A path or value quoted for the shell, as the reproducing commands write it."""
    return shlex.quote(str(x))


def key_path(name: str) -> str:
    """Where a disassociated release's key is written beside the release ``name``."""
    return str(Path(name).with_suffix("")) + ".key.json"
