"""Hardening k^m: a hierarchy whose siblings are alike to the attacker, then the same k^m
anonymiser (the package text, :mod:`semtui.harden`)."""

from __future__ import annotations

from pathlib import Path

from semtui.harden.proof import (
    DEFAULT_BANDS,
    DEFAULT_CLASS_SIZE,
    DEFAULT_ROUNDS,
    NOT_MODELLED,
    REPORT_FORMAT,
    Hardened,
    Made,
    ReleaseProof,
    _family,
    _harden_command,
    _plain_name,
    _q,
    prove_generalised,
)
from semtui.harden.setgen import knowledge_profiles


def _harden_km(original, params, bg, knowledge, original_path, output, hierarchy, progress):
    from semtui.families.common import FileSources
    from semtui.measures.order import profile_order
    from semtui.model.hierarchy import balanced

    fam = _family("km")
    p = {"algorithm": "aa", **params}
    fanout = int(p.pop("fanout", 5) or 5)
    if hierarchy is not None:
        h = hierarchy
        built = False
    else:
        names = sorted(original.vocab.items, key=_id_key)
        log_prior, vectors = knowledge_profiles(bg, names)
        order = profile_order(log_prior, vectors, window=fanout * fanout)
        h = balanced([names[i] for i in order], fanout)
        built = True
    request = fam.prepare(original, {**p, "hierarchy": p.get("hierarchy") or "(built)"},
                          FileSources(original, given_hierarchy=h), original_path=original_path, output=output)
    progress(0, 1, "k^m over the hardened hierarchy")
    made = fam.anonymise(request)
    # the plain anonymiser: the hierarchy given, else one in id order (hierarchy build's default)
    if built:
        from semtui.measures.order import ordered_leaves

        ph = balanced(ordered_leaves(original, "id"), fanout)
    else:
        ph = h
    preq = fam.prepare(original, {**p, "hierarchy": p.get("hierarchy") or "(id order)"},
                       FileSources(original, given_hierarchy=ph), original_path=original_path,
                       output=_plain_name(output))
    progress(0, 1, "the plain k^m anonymiser")
    plain = fam.anonymise(preq)
    if built:  # the plain release's reproducing command builds its own id-ordered hierarchy
        plain.request.params.pop("hierarchy", None)
        plain.request.params.update(fanout=fanout, order="id")
    hpath = _hierarchy_path(output) if built else str(p.get("hierarchy"))
    method = {"name": "hierarchy of exchangeable siblings" if built else "the hierarchy given",
              "fanout": fanout if built else None, "knowledge": knowledge,
              "order": "decreasing prior, then a co-occurrence-profile chain within each window of fanout² leaves"
              if built else None, "hierarchy_file": hpath,
              "command": _harden_command("km", KmHardening().own_options(p), p["k"], knowledge, original_path,
                                         output)}
    ucons = {"given": None, "honoured": True, "note": "k^m has no utility constraints; the hierarchy is "
             + ("built by harden and written beside the release" if built else "the one given")}
    rounds_doc = [{"round": 0, "note": "k^m: the hierarchy is chosen once; no attack-in-the-loop regrouping"}]
    return made, plain, rounds_doc, method, ucons, (h if built else None)


def _hierarchy_path(output) -> str:
    return str(Path(str(output)).with_suffix("")) + ".hierarchy.txt"


def _id_key(x: str):
    try:
        return (0, int(x), "")
    except ValueError:
        return (1, 0, x)


class KmHardening:
    """k^m: a hierarchy of exchangeable siblings, then the same k^m anonymiser."""

    name = "km"
    options = ("-m", "--hierarchy", "--algorithm")

    def make(self, original, params, bg, knowledge, original_path, output, *, hierarchy=None, rounds, bands, size,
             progress, note) -> Made:
        return Made(*_harden_km(original, params, bg, knowledge, original_path, output, hierarchy, progress))

    #: what no attack of its proof models
    not_modelled = NOT_MODELLED
    #: its release has a sidecar (as anonymize writes it)
    sidecar = True

    def prove(self, out: Made, **how) -> list[ReleaseProof]:
        """The hardened and the plain release, checked and attacked alike (:func:`prove_generalised`)."""
        return prove_generalised(out, hardening=self, **how)

    def hardened(self, original, params, bg, knowledge, original_path, output, *, progress):
        """The hardened release alone (no proof) and its ``semtui harden`` command: over harden's own
        hierarchy (a hierarchy or an order the parameters name is what hardening replaces)."""
        params = {k: v for k, v in params.items() if k not in ("hierarchy", "order")}
        out = self.make(original, params, bg, knowledge, original_path, output, rounds=DEFAULT_ROUNDS,
                        bands=DEFAULT_BANDS, size=DEFAULT_CLASS_SIZE, progress=progress, note=None)
        return out.made, out.method["command"]

    def own_options(self, p: dict) -> list[str]:
        out = [f"-m {p['m']}"]
        if p.get("hierarchy"):
            out.append(f"--hierarchy {_q(p['hierarchy'])}")
        if p.get("algorithm", "aa") != "aa":
            out.append(f"--algorithm {p['algorithm']}")
        return out

    def plain_command(self, params: dict, original_path, name: str) -> str:
        p = {"algorithm": "aa", **params}
        if not p.get("hierarchy"):  # the plain anonymiser's hierarchy: hierarchy build's default order
            p.update(fanout=p.get("fanout", 5), order="id")
        # as leaf lists: the text the proof attacked
        return _family(self.name).command(p, original_path, name) + " --release-format leaves"

    def mark_sidecar(self, made, method: dict, ucons: dict, knowledge: str) -> None:
        return None  # the k^m report is written by the face (outputs), which marks it

    def built_hierarchy(self, output, hierarchy) -> Path | None:
        """Where a hierarchy harden builds is written (None: one was given)."""
        return Path(_hierarchy_path(output)) if hierarchy is None else None

    def outputs(self, done: Hardened, *, output, sidecar, hierarchy_path, knowledge, key=None) -> list[tuple]:
        """What the CLI writes, as ``anonymize km --release-format leaves`` does: the release as leaf
        lists (the text the proof attacked), its report (the sidecar), and a built hierarchy."""
        from semtui.formats.hierarchy import dump_hierarchy

        fam, made = _family(self.name), done.made
        built = done.hierarchy is not None
        side_doc = fam.report(made, hierarchy_path=hierarchy_path, written="leaves", output=output)
        side_doc["harden"] = {"report_format": REPORT_FORMAT, "knowledge": knowledge, "hierarchy_built": built}
        out = [(output, fam.writer(made, side_doc, "leaves", output)), (sidecar, side_doc)]
        if built:
            out.append((hierarchy_path, lambda fh: dump_hierarchy(done.hierarchy, fh, hierarchy_path)))
        return out


