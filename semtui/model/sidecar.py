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
    """A setgen sidecar or a k^m report, read and its k (and m) checked (InputError naming ``path``
    otherwise); whether it belongs to a release is checked where the release is opened."""
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


def read_release_sidecar(data_path) -> tuple[dict | None, Path | None]:
    """The sidecar beside ``data_path`` when there is one.  A JSON file there that is no
    sidecar says nothing (None); whether it is the sidecar of this release is checked where the
    release is opened (:func:`semtui.release.open_release`)."""
    side = sidecar_path(data_path)
    if side is None or not side.exists():
        return None, None
    from semtui.fileio import parse_json, read_text

    # a file there that cannot be read or is no JSON (binary, a folder, empty) is an error, not "no
    # sidecar": the release would be read without the k it was made for; a JSON document of another
    # kind there says nothing
    doc = parse_json(read_text(side), side)
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if not isinstance(fmt, str) or not fmt.startswith((SETGEN_SIDECAR, KM_SIDECAR)):
        return None, None
    check_sidecar_doc(doc, side)  # a sidecar that says a wrong k is refused
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
