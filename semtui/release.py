"""A release, opened once: the one place that reads a release with its companions and checks
that they belong together.

A user names a release and, beside it, what they have of it: the original transactions, a
disassociated release's private key, the sidecar or ``anonymize km`` report that says which k
(and m) it was made for.  :func:`open_release` reads each of them once, recovers the generalised
items of an unmarked release when asked, and runs the belonging check
(:func:`semtui.model.belongs.check_belongs`) **once** over everything given.  It returns a
:class:`Release`, which every command and the TUI session work from: the engine takes what a
``Release`` holds and never checks again (its functions document that their inputs belong).

Nothing here words a figure or knows a face; a file that cannot be read, or does not belong,
raises :class:`InputError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from semtui import formats
from semtui.errors import InputError
from semtui.model.belongs import check_belongs
from semtui.model.disassociated import DisassociatedData, DisassociationKey
from semtui.model.sidecar import KM_SIDECAR, read_release_sidecar, read_sidecar_doc
from semtui.model.transactions import TransactionData
from semtui.reports import paused_gc

#: the families of anonymisation a release can come from (and ``plain``: no generalised item)
SETGEN, KM, DISASSOC, PLAIN = "setgen", "km", "disassoc", "plain"

#: what :func:`open_release` may be asked to require of the release file
TRANSACTIONS, DISASSOCIATED = "transactions", "disassociated"


@dataclass(frozen=True, eq=False)
class Release:
    """A release and its companions, read and checked to belong together.

    ``data`` is the release as the engine attacks it: for an unmarked release opened with
    ``recover``, its generalised items recovered (``unmarked`` keeps the release as read).
    ``checked`` names what the belonging check covered (``original``, ``key``, ``sidecar``)."""

    data: TransactionData | DisassociatedData
    path: str | None = None
    original: TransactionData | None = None
    original_path: str | None = None
    key: DisassociationKey | None = None
    key_path: str | None = None
    #: the sidecar (``anonymize setgen``'s) or ``anonymize km``'s report, when there is one
    sidecar: dict | None = None
    sidecar_path: str | None = None
    #: an unmarked release as read (``data`` holds it with its generalised items recovered)
    unmarked: TransactionData | None = None
    #: the k the unmarked release's generalised items were recovered with
    recovery_k: int | None = None
    checked: tuple[str, ...] = ()

    @property
    def family(self) -> str:
        """``disassoc``, ``km`` (a k^m release: its report says so), ``setgen`` or ``plain``."""
        if isinstance(self.data, DisassociatedData):
            return DISASSOC
        if self.sidecar is not None and str(self.sidecar.get("format", "")).startswith(KM_SIDECAR):
            return KM
        return SETGEN if self.data.n_generalised else PLAIN

    @property
    def k(self) -> int | None:
        """The k the release was made for, from its sidecar (None: no sidecar)."""
        return None if self.sidecar is None else int(self.sidecar["k"])

    @property
    def m(self) -> int | None:
        """A k^m release's m, from its report (None otherwise)."""
        return int(self.sidecar["m"]) if self.family == KM else None

    @property
    def kind(self) -> str:
        return self.data.kind

    @property
    def anonymised(self) -> bool:
        """Whether a family's anonymiser made it (a plain release holds no generalised item)."""
        return self.family != PLAIN

    @property
    def scored(self) -> bool:
        """Whether attacks on it can be scored: the original is open (and, for a disassociated
        release, the key that says where each item came from)."""
        if isinstance(self.data, DisassociatedData):
            return self.original is not None and self.key is not None
        return self.original is not None

    @property
    def half_scored(self) -> bool:
        """A disassociated release opened with its key or its original but not both: its metrics
        need the two, so an attack on it cannot be scored."""
        return isinstance(self.data, DisassociatedData) and (self.key is None) != (self.original is None)

    def unscored(self) -> Release:
        """The same release without its original and key: what an unscored run is given."""
        return replace(self, original=None, original_path=None, key=None, key_path=None,
                       checked=tuple(c for c in self.checked if c == "sidecar"))


def _str(path) -> str | None:
    return None if path is None else str(path)


def open_release(
    path: str | Path,
    *,
    original: str | Path | None = None,
    key: str | Path | None = None,
    sidecar: str | Path | None = None,
    require: str | None = None,
    format: str | None = None,
    names: str | Path | None = None,
    spool: bool = False,
    original_matrix: bool = False,
    unmarked: bool = False,
    recover: bool = False,
    recovery_k: int | None = None,
    read_sidecar: bool = True,
) -> Release:
    """Read the release at ``path`` with its companions and check once that they belong together.

    ``sidecar``: the release's sidecar or ``anonymize km`` report given by name; otherwise the one
    beside a set-generalised release (``RELEASE.json``) is read when there is one
    (``read_sidecar=False``: not looked for).  ``names``: a FIMI file's id-to-name map.  ``require``: ``transactions`` or ``disassociated`` (anything else is refused,
    naming the file).  ``spool``: a disassociated release's and its key's clusters kept on disk
    (a run on ``--scheduler``).  ``original_matrix``: the original read straight into its incidence
    over the release's items (:class:`semtui.model.transactions.OriginalMatrix`), as a streamed
    re-association needs it.  ``unmarked``: the release does not mark its generalised items (it
    writes their members as plain items), so its original is checked by shape only and its sidecar,
    written of the marked release, is not held against it; ``recover``: they are recovered here
    (attacks.setgen.unknown) with ``recovery_k``, else the sidecar's k, else the thesis' rule."""
    data = read_release(path, require=require, format=format, spool=spool, names=names)
    return with_companions(data, path, original=original, key=key, sidecar=sidecar, spool=spool,
                           original_matrix=original_matrix, unmarked=unmarked, recover=recover,
                           recovery_k=recovery_k, read_sidecar=read_sidecar)


@paused_gc()
def read_release(path: str | Path, *, require: str | None = None, format: str | None = None,
                 spool: bool = False, names: str | Path | None = None) -> TransactionData | DisassociatedData:
    """The release file alone, read once (:func:`open_release`'s first half: a face that must see
    what kind of release it is before it knows the companions, the TUI given an attack report,
    calls the two halves itself)."""
    if require == TRANSACTIONS:
        return formats.read_transactions(path, format, names=names)
    data = formats.read(path, format, names=names, spool=spool)
    if require == DISASSOCIATED and not isinstance(data, DisassociatedData):
        raise InputError(f"expected a disassociated release, got a {data.kind} dataset", path)
    return data


@paused_gc()
def with_companions(
    data: TransactionData | DisassociatedData,
    path: str | Path | None,
    *,
    original: str | Path | None = None,
    key: str | Path | None = None,
    sidecar: str | Path | None = None,
    spool: bool = False,
    original_matrix: bool = False,
    unmarked: bool = False,
    recover: bool = False,
    recovery_k: int | None = None,
    read_sidecar: bool = True,
) -> Release:
    """:func:`open_release`'s second half: read the companions of the release ``data`` read from
    ``path`` and run the belonging check once over everything given."""
    disassociated = isinstance(data, DisassociatedData)
    the_key = None
    if key is not None:
        if not disassociated:
            raise InputError(f"--key is for disassociated releases; {path} is {data.kind} data", key)
        from semtui.formats.disassociated import read_key

        the_key = read_key(key, spool=spool)
    side = side_path = None
    if sidecar is not None:
        side, side_path = read_sidecar_doc(sidecar), sidecar
    elif read_sidecar and not disassociated and path is not None and (data.n_generalised or unmarked or recover):
        side, side_path = read_release_sidecar(path)
    as_read = None
    if recover:
        if disassociated or data.n_generalised:
            raise InputError("--unmarked is for a set-generalised release written without its generalised items "
                             f"marked; {path} is {data.kind} data" + ("" if disassociated else " that marks them"),
                             path)
        from semtui.attacks.setgen.unknown import recover as recover_items

        if recovery_k is None and side is not None:
            recovery_k = int(side["k"])
        as_read, data = data, recover_items(data, recovery_k).data
    orig = None
    if original is not None:
        orig = formats.read_original_matrix(original, data.vocab) if original_matrix and disassociated \
            else formats.read_transactions(original)
    checked = tuple(name for name, given in (("original", orig), ("key", the_key), ("sidecar", side))
                    if given is not None)
    # an unmarked release's recovered items hold added items as plain ones: its original is checked
    # by shape only, and its sidecar (written of the marked release) is not held against them
    unmarked = unmarked or recover
    check_belongs(data, original=orig, key=the_key, sidecar=None if unmarked else side,
                  release_path=path, original_path=original, key_path=key, sidecar_path=side_path,
                  by_item=not unmarked)
    if unmarked:
        checked = tuple(c for c in checked if c != "sidecar")
    return Release(data=data, path=_str(path), original=orig, original_path=_str(original), key=the_key,
                   key_path=_str(key), sidecar=side, sidecar_path=_str(side_path), unmarked=as_read,
                   recovery_k=recovery_k if as_read is not None else None, checked=checked)
