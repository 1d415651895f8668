"""Words once: the sentences, labels and names both faces show (the CLI prints them, the TUI
draws them), each made here from the numbers it describes, so that the two never word the same
figure differently.  Plain functions over the engine's documents; nothing here imports a face
(textual, rich, typer), and nothing here imports the attacks, so that any engine module may use it.
"""

from __future__ import annotations

from pathlib import Path

# --------------------------------------------------------------------------- checks
#: what a privacy check's detail ends with when none of its constraints matches a transaction of
#: the release (the families' checks say it; :func:`check_words` reads it)
VACUOUS_CHECK = "none matches a transaction of the release, so nothing was checked"
#: the detail of a release whose parameters are unknown, so that it could not be checked
UNKNOWN_PARAMETERS = "not checked: the release's parameters are unknown"


def check_words(check: dict | None, *, full: bool = False) -> str:
    """A privacy check's verdict as every face words it (``semtui assess``'s and ``semtui
    harden``'s lines, the TUI's alternatives): "check passed", "check FAILED" or "not checked:
    WHY" (a release whose parameters are unknown, or a check that exercised nothing: never a
    pass). ``full``: the checker and what it found, e.g. "check privacy passed (k=3: 300
    constraints, 0 with support in (0, 3), 212 exercised)"."""
    check = check or {}
    passed, detail = check.get("passed"), check.get("detail") or ""
    if passed is None:
        why = (UNKNOWN_PARAMETERS.removeprefix("not checked: ") if detail == UNKNOWN_PARAMETERS
               else "none of its constraints matches a transaction of the release" if detail.endswith(VACUOUS_CHECK)
               else "")
        if full and detail and detail != UNKNOWN_PARAMETERS:
            return f"not checked ({detail})"
        return f"not checked: {why}" if why else "not checked"
    verb = "passed" if passed else "FAILED"
    if not full:
        return f"check {verb}"
    said = f"{check.get('checker') or 'check'} {verb}"
    return f"{said} ({detail})" if detail else said


#: the decimals of a support error's percent: a hardened or alternative release and this one often
#: differ by less than a point, which a whole percent would word alike
SUPPORT_ERROR_DECIMALS = 1


def support_error(v: float | None) -> str:
    """How far a release's supports are off (``pair_support_error``, ``item_support_error``: a
    share), as every face words it: "2.6%" (one decimal), "-" when unknown."""
    return "-" if v is None else f"{v:.{SUPPORT_ERROR_DECIMALS}%}"


def percents_apart(a: float, b: float, digits: int = 0) -> tuple[str, str]:
    """Two shares compared in words, as percents to ``digits`` decimals, or to as many more (up to
    three) as tell them apart where they differ: "79.4% against 79.2%", never "79% against 79%"."""
    for d in range(digits, digits + 4):
        x, y = f"{a:.{d}%}", f"{b:.{d}%}"
        if x != y or a == b:
            break
    return x, y


# --------------------------------------------------------------------------- chunks
def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, in the plural (``plural``, else ``noun`` + "s") unless ``n`` is 1:
    "1 cluster", "3 clusters", "2 breaches"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def chunk_label(j: int, joint: str | None = None) -> str:
    """The one name of a disassociated cluster's chunk, everywhere: ``C2`` for its second record
    chunk, ``J3/S1`` for the first shared chunk of joint cluster J3 (REFINE).  ``j`` counts from 1
    among the chunks of its kind (record chunks, or that joint cluster's shared chunks)."""
    return f"{joint}/S{j}" if joint else f"C{j}"


def cluster_chunk_labels(n_record_chunks: int, joints: list[tuple[str, int]]) -> list[str]:
    """The names of every chunk a cluster's cover problems can span, in the cover report's order
    (its ``chunk`` numbers, from 1): its record chunks, then each joint cluster's shared chunks.
    ``joints``: (joint cluster id, its number of shared chunks), in the release's order."""
    out = [chunk_label(j + 1) for j in range(n_record_chunks)]
    for jid, n in joints:
        out += [chunk_label(s + 1, jid) for s in range(n)]
    return out


def _field(p, name: str):
    """A field of an attack report's part: the engine's typed one (an attribute) or a document's (a key)."""
    return p.get(name) if isinstance(p, dict) else getattr(p, name, None)


def problem_chunks(p, labels: list[str] | None = None) -> tuple[str, str]:
    """A cover problem's two chunks by name: x's, and the earlier chunk's that holds I.  The
    report's own labels; a report without them (older) by ``labels`` (:func:`cluster_chunk_labels`
    of its cluster), else by number.  ``p``: the typed problem (``semtui.attacks.cover.ProblemEntry``)
    or a document's."""

    def one(label_key: str, n_key: str) -> str:
        if _field(p, label_key):
            return str(_field(p, label_key))
        n = int(_field(p, n_key))
        return labels[n - 1] if labels is not None and 0 < n <= len(labels) else chunk_label(n)

    return one("chunk_label", "chunk"), one("earlier_label", "earlier_chunk")


def problem_chunk_names(data, p) -> tuple[str, str]:
    """A cover problem's two chunks by their one name (x's, and the earlier one's that holds I):
    the report's labels, or (an older report without them) the names the release ``data`` gives
    its chunks (:func:`cluster_chunk_labels`).  ``p`` as :func:`problem_chunks`'s."""
    if (_field(p, "chunk_label") and _field(p, "earlier_label")) or data is None:
        return problem_chunks(p)
    c = next((c for c in data.clusters if c.id == _field(p, "cluster")), None)
    if c is None:
        return problem_chunks(p)
    joints = [data.joint_clusters[ji] for ji in data.joint_of().get(c.id, ())]
    return problem_chunks(p, cluster_chunk_labels(len(c.record_chunks), [(jc.id, len(jc.shared_chunks))
                                                                          for jc in joints]))


#: the column of a cluster's cover figures, named for what it counts: the most breaches found in
#: one of its chunks (the cover papers' count of vulnerable records).  A shared chunk's breaches
#: are counted across its joint cluster, and one record can hold several, so it is no count of
#: this cluster's records: it may exceed the cluster's size
MOST_BREACHES_LABEL = "max/ch"
MOST_BREACHES_HELP = ("cover / max/ch: cover problems found in the cluster, and the most breaches in one of its "
                      "chunks for the chosen attacker (the papers' count of vulnerable records; a shared chunk's "
                      "are counted across its joint cluster, so it can exceed the cluster's size)")

def most_breaches_words(cluster) -> str:
    """A cluster's count of vulnerable records (a cover report's ``clusters`` entry, typed or a
    document's) named for what it counts: the most breaches in one of its chunks, said against the
    cluster's size when it exceeds it (a shared chunk's breaches run over its joint cluster)."""
    n = int(_field(cluster, "vulnerable_records") or 0)
    size = _field(cluster, "size")
    out = f"at most {n:,} in one chunk"
    if isinstance(size, int) and n > size:
        out += f" (more than its {size:,} records: a shared chunk's count runs over its joint cluster)"
    return out


# --------------------------------------------------------------------------- exposed vs re-identified
#: two different things, worded once
EXPOSED = "exposed: a member item still possible in fewer than k transactions of its group"
REIDENTIFIED = ("re-identified: a generalised item of a record reduced to a single member (with the original: "
                "the record's own item)")


def exposure_words(n_exposed: int, n_items: int, k, k_source: str | None, reidentified_rows=None) -> str:
    """How many member items an attack left exposed, and apart from them how many rows it
    re-identified: the two are said side by side, never one for the other (no exposed item is
    not "nothing re-identified")."""
    out = (f"{n_exposed:,} of {n_items:,} member items exposed (cover after < k = {k}, k from "
           f"{k_source or '?'})")
    if isinstance(reidentified_rows, int):
        out += f"; {reidentified_rows:,} rows re-identified (a generalised item reduced to one member)"
    return out


def no_items_text(doc: dict) -> str:
    """What an assessment's empty items view says.  "Exposed" (fewer than k transactions can
    still hold a member) is not "re-identified" (a record's generalised item reduced to one
    member): with records re-identified it never reads as if nothing were at risk."""
    recs = doc.get("records_at_risk") or []
    reid = sum(1 for r in recs if r.get("reidentified"))
    if doc.get("kind") == "disassociated":
        return "no item was put back with its record"
    if not doc.get("records_at_risk") and not doc.get("scored"):
        return "no item is named without the original"
    base = "no member item is left possible in fewer than k transactions of its group (exposed)"
    if reid:
        n = doc.get("records_implicated", len(recs)) if len(recs) == reid else reid
        more = "+" if len(recs) < doc.get("records_implicated", len(recs)) else ""
        return (f"{base}; but {n:,}{more} records have a generalised item re-identified "
                "(reduced to its one member): 2 lists them")
    return base


def items_heading(doc: dict) -> str:
    """What an assessment's ``items_exposed`` lists: for a set-generalised release the member items
    most often exposed (by groups); for a disassociated one the items most often put back with
    their record (by records) -- which is not exposure."""
    if doc.get("kind") == "disassociated":
        return "Items most often put back with their record"
    return "Items most often exposed"


def record_words(rec: dict) -> str:
    """What one record at risk exposes, in words (an assessment's ``records_at_risk`` entry)."""
    return "; ".join(record_clauses(rec)) or "–"


def record_clauses(rec: dict) -> list[str]:
    """What one record at risk exposes, one clause per kind (``re-identified: a, b``, ``exposed:
    c``): :func:`record_words` joins them on one line, the TUI shows one clause a line."""
    parts = []
    if rec.get("reidentified"):
        parts.append("re-identified: " + ", ".join(rec["reidentified"]))
    if rec.get("misidentified"):
        parts.append("reduced to a wrong item: " + ", ".join(rec["misidentified"]))
    if rec.get("exposed"):
        parts.append("exposed: " + ", ".join(rec["exposed"]))
    if rec.get("items"):
        parts.append("put back: " + ", ".join(rec["items"]))
    if rec.get("cover_breaches"):
        parts.append("cover breaches: " + ", ".join(rec["cover_breaches"]))
    if not parts and rec.get("eliminated"):
        parts.append(f"{rec['eliminated']} members ruled out")
    return parts


def records_shown_words(shown: int, implicated: int) -> str:
    """How many of an assessment's records at risk its document lists: all of them, or the first
    few of many (the engine keeps the first :data:`semtui.assess.RECORDS_KEPT`, most at risk
    first) — a list that stops says so."""
    if shown >= implicated:
        return f"{implicated:,} implicated, most at risk first"
    return f"{shown:,} of {implicated:,} shown (the report keeps the first {shown:,}), most at risk first"


def no_better_than_chance_words(name: str, metrics) -> str:
    """A re-association that does no better than a random one (lift over random at most 1, or
    nothing right): it reaches no record by what it knows, so no record is counted for it.
    ``metrics``: the report's (typed, or a document's)."""
    lift = _field(metrics, "lift_over_random")
    how = f"lift {lift:.3f} over random" if isinstance(lift, (int, float)) else "nothing placed right"
    return f"{name} does no better than chance ({how}): no record is counted for it"


def record_line(rec: dict) -> str:
    """One record at risk on one line: its label (T1 is the first transaction: the document's
    ``transaction`` counts from 0), its source line, what it exposes, and the eliminations."""
    t = rec.get("transaction")
    label = f"T{t + 1}" if isinstance(t, int) else "T?"
    words = record_words(rec)
    if rec.get("correct") is not None:
        words += f" ({rec['correct']} of {rec['eliminated']} eliminations right)"
    elif rec.get("eliminated") and not words.endswith("ruled out"):
        words += f" ({rec['eliminated']} eliminations)"
    return f"{label} (line {rec.get('line', '?')}): {words}"


# --------------------------------------------------------------------------- intervals and how sure
def interval(figures: dict, key: str | None = None) -> tuple[float, float] | None:
    """A figure's 95 % interval ``(low, high)``, read from ``figures["intervals"][key]`` (or,
    without ``key``, ``figures`` is the interval itself) in either shape a document holds it:
    ``{"low", "high", "level", "resamples"}`` or, in documents written before one shape,
    ``[low, high]`` (:meth:`semtui.metrics.intervals.Interval.read`, the one reader)."""
    from semtui.metrics.intervals import Interval

    iv = Interval.read(figures if key is None else ((figures or {}).get("intervals") or {}).get(key))
    return None if iv is None else (iv.low, iv.high)


def how_sure_text(doc: dict) -> str:
    """"How sure" of an assessment document, in one sentence (after "How sure: "): the CLI's
    summary and the TUI's assessment screen both print it."""
    from semtui.metrics.intervals import no_interval_of

    hs = doc.get("how_sure") or {}
    figures = (doc.get("strongest") or {}).get("figures") or {}
    if not hs.get("scored", doc.get("scored")):
        # what cannot be said first: the limit matters more than the list of what ran
        return ("not scored. Cannot say: " + "; ".join(hs.get("cannot_say") or []) + ". Can say: "
                + "; ".join(hs.get("can_say") or []) + ".")
    if "auc_within_table" in hs:
        auc = hs.get("auc_within_table")
        iv = interval(hs.get("auc_interval"))
        out = f"AUC within table {auc:.3f}" if isinstance(auc, (int, float)) else "AUC within table –"
        if iv:
            out += f" [{iv[0]:.3f}, {iv[1]:.3f}]"
        out += " (0.5: a coin)"
        if not iv and (reason := no_interval_of(figures)):
            out += f"; {reason}"
        return out + "."
    if "accuracy_interval" in hs or "lift_interval" in hs:
        a, lift = (interval(hs.get(k)) for k in ("accuracy_interval", "lift_interval"))
        reason = no_interval_of(figures)
        if not (a or lift):
            return f"{reason}." if reason else "no interval."
        return ("accuracy " + (f"[{a[0]:.3f}, {a[1]:.3f}]" if a else "–") + ", lift over random "
                + (f"[{lift[0]:.2f}, {lift[1]:.2f}]" if lift else "–") + " (95 % bootstrap over clusters).")
    note = hs.get("note")
    return f"{note}." if note else "–"


def assessed_with(doc: dict) -> str:
    """The knowledge an assessment document's attackers were given, in a few words: its measures
    and its background (or none)."""
    measures = doc.get("measures") or []
    said = (("the measure " if len(measures) == 1 else "the measures ") + ", ".join(short_spec(m) for m in measures)
            if measures else "no measure")
    bg = doc.get("background")
    return said + (f" and the background {short_spec(bg)}" if bg else ", no background")


# --------------------------------------------------------------------------- what was not modelled
def not_modelled_notes(kind: str, *, background: str | None, corpus: str | None = None,
                       measures: list[str] | tuple[str, ...] = (), scored: bool = True,
                       short: bool = False) -> list[str]:
    """The attackers an assessment (or an experiment's cell) did not model, each a sentence
    without its final stop; ``short``: each in a few words (a screen's one line).  ``kind``:
    ``set-generalised`` (k^m too) or ``disassociated``."""
    out = []
    if not background:
        if kind == "disassociated":
            out.append(("the attacker who knows which items go together (NBA: no background)",
                        "an attacker who knows which items go together in a similar population (NBA) was not "
                        "modelled: give --background"))
        else:
            out.append(("the attacker who knows how common each item is (popularity, priors: no background)",
                        "an attacker who knows how common each item is (and which items go together) was not "
                        "modelled: give --background (transactions of a similar population, counts:FILE or "
                        "wordfreq:LANG)"))
    if not corpus and not any(str(m).startswith("ngd:") for m in measures):
        out.append(("meaning from a corpus (NGD: no corpus)",
                    "meaning from co-occurrence in a corpus (NGD) was not modelled: give --corpus INDEX"))
    if not scored:
        what = "key and the original" if kind == "disassociated" else "original"
        out.append((f"any score (no {what})", f"without the {what}, no attack could be scored"))
    return [pair[0] if short else pair[1] for pair in out]


def cell_not_modelled(cell: dict, kind: str, short: bool = False) -> list[str] | None:
    """The not-modelled notes of an experiment's cell, from the inputs it records (None: a cell
    that does not say what it was given, so nothing can be said); ``kind``: the kind of release
    its family makes (``set-generalised`` or ``disassociated``)."""
    inputs = cell.get("inputs")
    if not isinstance(inputs, dict):
        return None
    return not_modelled_notes(kind, background=inputs.get("background"), corpus=inputs.get("corpus"),
                              measures=inputs.get("measures") or (), scored=bool(inputs.get("original")),
                              short=short)


# --------------------------------------------------------------------------- result names
def short_spec(spec) -> str:
    """A measure or background as a name shows it: a file by its name (``scores:/a/b/x.csv`` ->
    ``scores:x.csv``)."""
    s = str(spec)
    kind, sep, arg = s.partition(":")
    if sep and ("/" in arg or "\\" in arg):
        return f"{kind}:{Path(arg).name}"
    if not sep and ("/" in s or "\\" in s):
        return Path(s).name
    return s


def background_source(report: dict) -> str | None:
    """The background an attack report was run with (its ``background``: a description, or the spec)."""
    bg = report.get("background")
    if isinstance(bg, dict):
        bg = bg.get("source") or bg.get("spec") or bg.get("path")
    return None if not bg else str(bg)


def knowledge_name(report: dict) -> str:
    """What the attacker knew, in a few words: the measure alone, or the background's table."""
    bg = background_source(report)
    if not bg:
        return ""
    kn = report.get("knowledge")
    return f"+{short_spec(bg)}" + (f" {kn}" if kn else "")


def result_name(report: dict) -> str:
    """An attack report's name, as every list and title shows it: its method, its measure AND
    its knowledge (``gba/embedding``, ``pba/embedding+bg.txt combined``, ``nba/+bg.txt``; a
    re-association's measure file by its name)."""
    fmt = str(report.get("format", ""))
    if fmt.startswith("semtui-cover-report/"):
        who = report.get("attacker", "?")
        if who == "knowledge" and report.get("knowledge"):
            who = f"knowledge {Path(str(report['knowledge'])).name}"
        return f"cover/{who}" + (f" seed {report['seed']}" if who in ("moderate", "weak") else "")
    if fmt.startswith("semtui-disassoc-report/"):
        extra = f" k{report['k']}" if report.get("k") is not None else ""
        measure = report.get("measure", "?")
        if report.get("method") == "nba" and background_source(report):
            measure = ""
        else:
            measure = "no measure" if measure is None else short_spec(measure)  # RA uses none
        return f"{report.get('method', '?')}/{measure}{knowledge_name(report)}{extra} seed {report.get('seed', 0)}"
    extra = f" seed {report['seed']}" if report.get("seed") is not None else ""
    return f"{report.get('method', '?')}/{report.get('measure', '?')}{knowledge_name(report)}{extra}"


#: the options that make an attack result, in the order a comparison names them
RESULT_OPTIONS = ("method", "measure", "background", "knowledge", "context", "aggregate", "threshold", "seed", "k")


def result_options(report: dict) -> dict:
    """The options that made an attack result, by :data:`RESULT_OPTIONS` (the background by its
    source, its knowledge table: ``none`` without one)."""
    out = {k: report.get(k) for k in RESULT_OPTIONS}
    bg = background_source(report)
    out["background"] = short_spec(bg) if bg else "none"
    if not bg:
        out["knowledge"] = None
    return out


def options_text(report: dict, other: dict | None = None) -> str:
    """The options of a result; with ``other``, only those that differ (``same options`` when none)."""
    mine = result_options(report)
    theirs = result_options(other) if other is not None else None
    diff = [k for k in RESULT_OPTIONS if theirs is None or mine[k] != theirs[k]]
    return " ".join(f"{k}={mine[k]}" for k in diff if mine[k] is not None) or "same options"


def utility_loss_words(ul: float, added_items: int, n_transactions: int) -> str:
    """COAT's utility loss with its scale (docs/anonymize.md, *Loss function*): UL sums
    ``(2^|g| - 1) * sup(g) / N`` over the generalised items, so it grows as 2 to the size of the
    largest ones -- 1.49e+16 alone reads as nothing.  Said as a power of two (about the number of
    members the costliest generalised items have) and beside the plainer cost, the items added per
    transaction."""
    import math

    if not isinstance(ul, (int, float)) or not math.isfinite(ul):
        return "utility loss –"
    figure = f"{ul:,.2f}" if ul < 1e6 else f"{ul:.3g}"
    power = f" ≈ 2^{math.log2(ul):.1f}" if ul >= 1 else ""
    per = f"; {added_items / n_transactions:.2f} items added per transaction" if n_transactions else ""
    return (f"utility loss {figure}{power} (UL: Σ (2^|g| − 1)·sup(g)/N over the generalised items — the sets each "
            f"may stand for, by the share of transactions holding it){per}")
