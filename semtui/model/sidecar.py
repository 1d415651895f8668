"""The sidecar beside a release, ``RELEASE.json``: what made it, and for which k.

Two anonymisers write one: ``anonymize setgen`` (``semtui-setgen-sidecar/1``) and
``anonymize km`` (its report, ``semtui-km-report/1``: k, m, the algorithm, the hierarchy file,
the cut, NCP and ML²).  Every reader of "the k a release was made for" (``attack setgen``'s
exposure, the TUI, ``info``) goes through :func:`read_release_sidecar`, so a k^m release is
as first-class as a set-based one: its k comes from its sidecar, never from its smallest group.
"""

from __future__ import annotations

from pathlib import Path

from semtui.errors import InputError

SETGEN_SIDECAR = "semtui-setgen-sidecar/"
KM_SIDECAR = "semtui-km-report/"


def sidecar_path(data_path) -> Path | None:
    """``DATA.json`` beside a release file (None for standard input)."""
    if data_path is None or str(data_path) == "-":
        return None
    return Path(str(data_path) + ".json")


def read_sidecar_doc(path: str | Path) -> dict:
    """A setgen sidecar or a k^m report, read and checked (InputError naming ``path`` otherwise)."""
    from semtui import reports

    return check_sidecar_doc(reports.read(path, (SETGEN_SIDECAR, KM_SIDECAR),
                                          "a release's sidecar (setgen sidecar or k^m report)"), path)


def check_sidecar_doc(doc: dict, path) -> dict:
    """The k (and a k^m report's m) a sidecar must give."""
    k = doc.get("k")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"the sidecar's k must be a positive integer (got {k!r})", path)
    if doc["format"].startswith(KM_SIDECAR):
        m = doc.get("m")
        if not isinstance(m, int) or isinstance(m, bool) or m < 1:
            raise InputError(f"the k^m report's m must be a positive integer (got {m!r})", path)
    return doc


def read_release_sidecar(data_path, data=None) -> tuple[dict | None, Path | None]:
    """The sidecar beside ``data_path`` when there is one.  A JSON file there that is no
    sidecar says nothing (None); one that is a sidecar of another release (``data`` given:
    :func:`semtui.model.belongs.check_belongs`) is refused with an InputError."""
    side = sidecar_path(data_path)
    if side is None or not side.is_file():
        return None, None
    from semtui import reports

    try:
        doc = reports.read(side, (SETGEN_SIDECAR, KM_SIDECAR), "a release's sidecar")
    except InputError:
        return None, None  # a JSON file there that is not a sidecar says nothing
    check_sidecar_doc(doc, side)  # a sidecar that says a wrong k is refused
    if data is not None:
        from semtui.model.belongs import check_belongs

        check_belongs(data, sidecar=doc, release_path=data_path, sidecar_path=side)
    return doc, side


def is_km(doc: dict | None) -> bool:
    return doc is not None and str(doc.get("format", "")).startswith(KM_SIDECAR)


def km_nodes(doc: dict) -> set[str]:
    """Every node label of a k^m report's cut (or of its local cuts)."""
    nodes = {r["node"] for r in doc.get("cut") or [] if isinstance(r, dict) and "node" in r}
    for part in doc.get("local_cuts") or []:
        nodes.update(r["node"] for r in part.get("cut") or [] if isinstance(r, dict) and "node" in r)
    return nodes


def km_facts(doc: dict) -> dict:
    """What ``info`` says of a k^m release from its sidecar (no original needed)."""
    rules = len(doc["cut"]) if doc.get("cut") is not None else sum(len(p.get("cut") or [])
                                                                  for p in doc.get("local_cuts") or [])
    out = {"k": doc["k"], "m": doc["m"], "algorithm": doc.get("algorithm"),
           "hierarchy_file": doc.get("hierarchy_file"), "cut_rules": rules, "ncp": doc.get("ncp")}
    ml = doc.get("ml2")
    if isinstance(ml, dict):
        out["ml2"] = ml.get("ml2")
        out["dml2"] = ml.get("dml2")
        out["ml2_min_support"] = ml.get("min_support")
        out["ml2_max_size"] = ml.get("max_size")
    return out
