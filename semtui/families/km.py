"""k^m-anonymity by hierarchy generalisation (Terrovitis et al. 2011, ``semtui anonymize km``):
every itemset of at most m items occurs 0 or >= k times.  Its release is set-generalised, so it is
attacked and measured as one (:class:`semtui.families.setgen.Generalised`); its utility adds the
hierarchy's NCP and the multiple-level mining loss (ML², dML²)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import ClassVar

from semtui.families.common import Anonymised, Assessed, Published, Request, Sources, q
from semtui.families.setgen import Generalised
from semtui.reports import json_float


class Km(Generalised):
    """k^m generalisation along a hierarchy."""

    name = "km"
    params: ClassVar[dict[str, object]] = {"k": None, "m": None, "hierarchy": None, "fanout": 5, "order": "id", "algorithm": "aa",
                                           "harden": False}
    whole: ClassVar[dict[str, int]] = {"k": 2, "m": 1, "fanout": 2}
    flags = ("harden",)
    files = ("hierarchy",)
    companions_after_paint = False

    # ------------------------------------------------------------ an experiment's parameters
    def check_value(self, key: str, v: str) -> str | None:
        if key == "order":
            from semtui.measures.order import ORDERS

            if v not in ORDERS:
                return f"'order' must be one of {', '.join(ORDERS)} (got {v!r})"
        if key == "algorithm":
            from semtui.anonymize.hierarchy import ALGORITHMS

            if v not in ALGORITHMS:
                return f"'algorithm' must be one of {', '.join(ALGORITHMS)} (got {v!r})"
        return None

    def conflict(self, table: dict) -> tuple[str, str] | None:
        if "hierarchy" in table and ({"fanout", "order"} & set(table)):
            return ("give one of 'hierarchy' (a file) or 'fanout'/'order' (a hierarchy built from the original)",
                    "hierarchy")
        return None

    def check_cell(self, p: dict) -> tuple[str, str] | None:
        """Nothing to check of one cell's parameters together."""
        return None

    def canonical(self, full: dict) -> dict:
        """The parameters that apply: ``hierarchy`` replaces fanout/order."""
        if full.get("hierarchy"):
            full.pop("fanout", None)
            full.pop("order", None)
        return full

    def label_bits(self, p: dict) -> list[str]:
        bits = [f"hierarchy {Path(str(p['hierarchy'])).name}" if p.get("hierarchy")
                else f"fanout {p['fanout']} by {p['order']}"]
        if p.get("harden"):
            bits.append("hardened")
        if p.get("algorithm", "aa") != "aa":
            bits.append(str(p["algorithm"]).upper())
        return bits

    def read_files(self, p: dict, sources: Sources) -> None:
        if p.get("hierarchy"):
            sources.hierarchy(p)

    # ------------------------------------------------------------ anonymise
    def prepare(self, original, params: dict, sources: Sources, *, original_path, output, jobs: int = 1,
                note=None) -> Request:
        """The hierarchy the parameters name (a file, or one built from the original)."""
        return Request(self.name, original, dict(params), original_path, str(output),
                       inputs={"hierarchy": sources.hierarchy(params)}, jobs=jobs)

    def anonymise(self, request: Request, *, progress=None) -> Anonymised:
        """k^m generalisation with ``algorithm``; ``anonymize km``'s options past the spec's
        (``parts``, ``scheduler``, ``members``, ``minimal``, ``ml2_support``, ``ml2_max_size``)
        default to the anonymiser's own."""
        from semtui.anonymize.hierarchy import generalise_km

        p, h = request.params, request.inputs["hierarchy"]
        res = generalise_km(request.original, h, int(p["k"]), int(p["m"]), p.get("algorithm", "aa"),
                            parts=p.get("parts"), jobs=request.jobs, scheduler=p.get("scheduler"),
                            members=p.get("members", "observed"), minimal=p.get("minimal", True),
                            ml2_min_support=p.get("ml2_support"), ml2_max_size=p.get("ml2_max_size"),
                            path=request.original_path, progress=progress)
        return Anonymised(request, res.data, res.data, res, sidecar=res.to_json(), hierarchy=h,
                          figures={"seconds": res.seconds, "ncp_hierarchy": json_float(res.ncp),
                                   "hierarchy": {"leaves": h.n_leaves, "height": h.height}})

    def written_format(self, made: Anonymised, requested: str, hierarchy_path) -> tuple[str, str | None]:
        """The release format the release is written in (``nodes``: the k^m format, naming its
        hierarchy; ``leaves``: set-generalised text) and, when it cannot be the one requested, why."""
        from semtui.fileio import is_stdin
        from semtui.formats.km import can_write

        if requested == "nodes" and (is_stdin(hierarchy_path) or not can_write(made.data)):
            return "leaves", ("a hierarchy read from standard input has no file for the release to name"
                              if is_stdin(hierarchy_path) else "an item or node label holds a character the node "
                              "format cannot write ({, }, a comma or a bracket)")
        return requested, None

    def report(self, made: Anonymised, *, hierarchy_path, written: str, output) -> dict:
        """``anonymize km``'s report, the release's sidecar: the run's report with the files it
        names and the format the release is written in."""
        from semtui.formats.km import hierarchy_reference
        from semtui.reports import document

        doc = made.result.to_json()
        fmt = doc.pop("format")
        doc.pop("semtui_version")
        href = hierarchy_reference(hierarchy_path, output) if written == "nodes" else str(hierarchy_path)
        return document(fmt, {"original": str(made.request.original_path), "hierarchy_file": str(hierarchy_path),
                              "output": str(output), "release_format": "km" if written == "nodes" else "setgen",
                              **({"release_hierarchy": href} if written == "nodes" else {}), **doc})

    def writer(self, made: Anonymised, doc: dict, written: str, output):
        """How the release file is written (a function of the open file)."""
        from semtui.formats.km import dump_km
        from semtui.formats.text import dump_setgen

        if written == "nodes":
            def write_release(fh):
                dump_km(made.data, fh, doc["release_hierarchy"], made.params.get("members", "observed"), output)
        else:
            def write_release(fh):
                dump_setgen(made.data, fh, output)
        return write_release

    @staticmethod
    def _hierarchy_path(name: str) -> str:
        return str(Path(name).with_suffix("")) + ".hierarchy.txt"

    def publish(self, made: Anonymised, name: str) -> Published:
        """The release written as set-generalised text and read back; a hierarchy built from the
        original is written beside it."""
        pub = super().publish(made, name)
        if not made.params.get("hierarchy"):
            from semtui.formats.hierarchy import dump_hierarchy

            hpath = self._hierarchy_path(name)
            hbuf = io.StringIO()
            dump_hierarchy(made.hierarchy, hbuf, hpath)
            pub.extra_files.append((hpath, hbuf.getvalue()))
        return pub

    def command(self, params: dict, original_path, output: str) -> str:
        """The commands that make this release: the hierarchy built first when the parameters
        build one, then ``semtui anonymize km``."""
        p, o = params, q(original_path)
        if p.get("hierarchy"):
            hpath, build = p["hierarchy"], ""
        else:
            hpath = self._hierarchy_path(output)
            build = f"semtui hierarchy build {o} --fanout {p['fanout']} --order {p['order']} -o {q(hpath)} && "
        return (f"{build}semtui anonymize km {o} --hierarchy {q(hpath)} -k {p['k']} -m {p['m']}"
                + (f" --algorithm {p['algorithm']}" if p.get("algorithm", "aa") != "aa" else "") + f" -o {q(output)}")

    def check(self, release, made: Anonymised, progress=None) -> dict:
        """The independent checker's verdict (``check km``) on the release as published."""
        from semtui.checks.km import check_transactions

        p = made.params
        chk = check_transactions(release, int(p["k"]), int(p["m"]), progress=progress)
        return {"passed": bool(chk.holds), "checker": "check km",
                "detail": f"k={p['k']}, m={p['m']}: {chk.core.n_rows} transactions, "
                          f"{chk.core.n_violations} minimal violating itemsets"}

    def made_utility(self, original, release, made: Anonymised) -> dict:
        """The utility, the hierarchy's NCP, and the paper's multiple-level mining loss (§3.3, eqs. 1-2)."""
        from semtui.metrics.utility import ml2

        utility = self.utility(original, release)
        utility["ncp_hierarchy"] = made.figures["ncp_hierarchy"]
        mining = ml2(original, release, made.hierarchy)
        utility.update(ml2=mining["ml2"], dml2=mining["dml2"], ml2_min_support=mining["min_support"],
                       ml2_max_size=mining["max_size"])
        return utility

    # ------------------------------------------------------------ an assessed release
    def from_sidecar(self, doc: dict, side: Path) -> Assessed | None:
        """The parameters of a release made by ``anonymize km``, from its report (None: ``doc`` is no
        k^m report)."""
        if not str(doc.get("format", "")).startswith("semtui-km-report/"):
            return None
        p = {"k": int(doc["k"]), "m": int(doc["m"]), "algorithm": doc.get("algorithm", "aa")}
        h = doc.get("hierarchy_file")
        if h and Path(h).is_file():
            p["hierarchy"] = h
            note = f"parameters read from the report {side}"
        else:
            p.update(fanout=5, order="id")
            note = (f"parameters read from the report {side}; its hierarchy file {h!r} is not there: the "
                    "alternatives build one (fanout 5, items in id order)")
        return Assessed(self.name, p, True, note)

    def check_assessed(self, release, assessed: Assessed, *, original, key) -> dict | None:
        from semtui.checks.km import check_transactions

        p = assessed.params
        c = check_transactions(release, p["k"], p["m"])
        return {"passed": bool(c.holds), "checker": "check km",
                "detail": f"k={p['k']}, m={p['m']}: {c.core.n_violations} minimal violating itemsets"}


FAMILY = Km()
