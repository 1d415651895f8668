"""The strongest attacker on set-generalised data (ALGORITHMS.md §7): distance tables from the
attacker's background knowledge (:mod:`semtui.attacks.background`), beside the papers' semantic
ones.

For a member ``x`` of a generalised item in a row whose plain context is ``C`` and whose other
generalised items are ``G``, the attacker scores how likely ``x`` is original, in naive-Bayes
log-odds form::

    score(x) = log P(x) + w · ( Σ_{c∈C} log P(c|x)/P(c) + Σ_{g∈G} log Σ_{y∈g} π_y P(y|x)/P(y) )

* ``log P(x)`` is the **prior**: an anonymiser adds members from the whole domain, so an added
  member is, far more often than an original one, an item few people have;
* the plain context enters through the background's co-occurrence (lift);
* a generalised context item ``g`` says "one of these is real": its evidence is the mixture of its
  members' lifts, each weighted by ``π_y``, how likely ``y`` is the real one (its prior share
  within ``g``);
* ``w`` is ``1/|C ∪ G|`` (``mean``, the default: the score is then the mean of
  ``log P(x | e)`` over the evidence ``e``) or 1 (naive Bayes as written, ``sum``); measured on
  MEPS and MED, docs/experiments.md.

The table's *distance* is the **surprisal** ``-score(x)``: farther = less likely original, so the
papers' eliminators apply unchanged.  A cell whose surprisal comes out negative (a member its
context makes near-certain under naive Bayes) is never eliminated, as for negative NGD.

The variants a report gives side by side (docs/attacks.md):

* ``prior`` - ``-log P(x)`` alone (what an attacker who only knows how common items are does);
* ``semantics`` - the measure's table alone (the papers' attack);
* ``background`` - prior and co-occurrence with the plain and generalised context;
* ``combined`` - ``background`` plus the measure as one more evidence term: its distance,
  standardised within the row, scaled to the row's spread of surprisal, times
  :data:`SEMANTIC_WEIGHT`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from semtui.attacks.background import Background
from semtui.model import TransactionData

#: the variants of a knowledge attack, in the order a report lists them
VARIANTS = ("prior", "semantics", "background", "combined")

#: what each variant's attacker knows, in words (the CLI and the TUI summary)
VARIANT_HELP = {
    "prior": "how common each item is (the background's frequencies), nothing else",
    "semantics": "the measure's meaning of the context (the papers' attack)",
    "background": "how common each item is and which items go together (plain and generalised context)",
    "combined": "all of it: frequencies, co-occurrence and the measure",
}

#: the weight of the semantic evidence term in ``combined`` (in units of the row's surprisal spread)
SEMANTIC_WEIGHT = 0.5

#: how the context's evidence adds up: ``mean`` (measured best, docs/experiments.md) or ``sum``
#: (naive Bayes as written, which over-counts many weakly related context items)
EVIDENCE = ("mean", "sum")


@dataclass(frozen=True)
class Knowledge:
    """What every group of a knowledge attack shares (arrays only: picklable for workers)."""

    surprisal: np.ndarray  # per member position: -log P(x)
    lift: np.ndarray | None  # member position x context position: log P(c|x)/P(c)
    gen_lift: np.ndarray | None  # generalised item x member position: log Σ π_y P(y|x)/P(y)
    evidence: str = "mean"
    semantic_weight: float = SEMANTIC_WEIGHT


def build_knowledge(background: Background, data, member_ids: np.ndarray, ctx_ids: np.ndarray,
                    evidence: str = "mean") -> Knowledge:
    """Priors and lifts for every member and context item of a release, in one vectorised pass
    over the background (member_ids, ctx_ids: vocabulary ids of the release)."""
    names = data.vocab.names
    bx = background.ids(names(member_ids))
    surprisal = -background.log_prior(bx)
    if not background.has_cooccurrence:
        return Knowledge(surprisal, None, None, evidence)
    bc = background.ids(names(ctx_ids))
    lift = background.log_lift(bx, bc) if len(ctx_ids) else np.zeros((len(member_ids), 0))
    # members x members lift, and each generalised item's mixture over its members
    mm = background.log_lift(bx, bx)  # mm[x, y] = log P(y|x)/P(y)
    pos = np.full(len(data.vocab), -1, dtype=np.int64)
    pos[member_ids] = np.arange(len(member_ids))
    g_of = np.repeat(np.arange(data.n_generalised), np.diff(data.gen_indptr))
    m_pos = pos[data.gen_members]
    prior = np.exp(-surprisal)
    weights = _prior_shares(prior[m_pos], g_of, data.n_generalised)
    gen_lift = _mixture(mm, m_pos, g_of, weights, data.n_generalised)
    return Knowledge(surprisal, lift, gen_lift, evidence)


def _prior_shares(prior: np.ndarray, g_of: np.ndarray, n_groups: int) -> np.ndarray:
    total = np.bincount(g_of, weights=prior, minlength=n_groups)
    return prior / np.where(total[g_of] > 0, total[g_of], 1.0)


def _mixture(mm: np.ndarray, m_pos: np.ndarray, g_of: np.ndarray, weights: np.ndarray, n_groups: int) -> np.ndarray:
    """``out[g, x] = log Σ_{y∈g} π_y exp(mm[x, y])`` (a log-sum-exp per group, vectorised)."""
    from scipy.sparse import csr_matrix

    shift = mm.max(axis=1, keepdims=True) if mm.size else np.zeros((mm.shape[0], 1))
    e = np.exp(mm - shift)  # members x members
    pi = csr_matrix((weights, (g_of, m_pos)), shape=(n_groups, mm.shape[0]))
    mix = np.asarray(pi @ e.T)  # groups x members
    with np.errstate(divide="ignore"):
        return np.log(np.maximum(mix, 1e-300)) + shift[:, 0][None, :]


def knowledge_table(k: Knowledge, member_pos: np.ndarray, ctx_pos: np.ndarray, ctx_indptr: np.ndarray,
                    gctx_items: np.ndarray, gctx_indptr: np.ndarray, n_rows: int, variant: str) -> np.ndarray:
    """The rows x members surprisal table of one equivalence group (``prior`` or ``background``).

    ``ctx_pos``: context positions (CSR over rows by ``ctx_indptr``); ``gctx_items``: the rows'
    other generalised items (CSR by ``gctx_indptr``)."""
    base = np.broadcast_to(-k.surprisal[member_pos][None, :], (n_rows, len(member_pos)))
    if variant == "prior" or k.lift is None:
        return np.array(-base)
    ev = np.zeros((n_rows, len(member_pos)))
    count = np.zeros(n_rows)
    if len(ctx_pos):
        seg = np.repeat(np.arange(n_rows), np.diff(ctx_indptr))
        ev += _segment_sums(k.lift[member_pos][:, ctx_pos], seg, n_rows)
        count += np.bincount(seg, minlength=n_rows)
    if k.gen_lift is not None and len(gctx_items):
        seg = np.repeat(np.arange(n_rows), np.diff(gctx_indptr))
        ev += _segment_sums(k.gen_lift[gctx_items][:, member_pos].T, seg, n_rows)
        count += np.bincount(seg, minlength=n_rows)
    if k.evidence == "mean":
        ev = ev / np.maximum(count, 1)[:, None]
    return -(base + ev)


def _segment_sums(block: np.ndarray, seg: np.ndarray, n_rows: int) -> np.ndarray:
    """``block`` (members x flat entries) summed over each row's entries: rows x members."""
    from scipy.sparse import csr_matrix

    ind = csr_matrix((np.ones(len(seg)), (np.arange(len(seg)), seg)), shape=(len(seg), n_rows))
    return np.asarray(ind.T @ block.T)


def combine(background_table: np.ndarray, semantic_table: np.ndarray, weight: float) -> np.ndarray:
    """``background`` plus the measure as one more evidence term: per row, the semantic distance
    standardised within the row and scaled to the row's spread of surprisal.  Rows or cells the
    measure cannot score keep the background's value."""
    out = background_table.copy()
    sem = np.asarray(semantic_table, dtype=np.float64)
    ok = np.isfinite(sem) & (sem >= 0)
    cnt = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(ok, sem, 0.0)
        mean = s.sum(axis=1) / np.maximum(cnt, 1)
        var = (np.where(ok, (sem - mean[:, None]) ** 2, 0.0)).sum(axis=1) / np.maximum(cnt, 1)
        sd = np.sqrt(var)
        bsd = background_table.std(axis=1)
        z = np.where(ok & (sd[:, None] > 0), (sem - mean[:, None]) / np.where(sd > 0, sd, 1.0)[:, None], 0.0)
    out += weight * bsd[:, None] * z
    return out


# --------------------------------------------------------------------------- in words
def knowledge_words(data: TransactionData, background) -> str:
    """Which knowledge the attacker had, in one sentence (how many rows it could not score is
    ``summary.unscored``'s, and only there).  Without a background it says that the stronger
    attacker was not modelled: a figure of the papers' attacker alone must never read as the
    release's risk (ALGORITHMS.md §6-7)."""
    no_plain = not (data.tokens >= 0).any()
    if background is not None:
        what = "priors and co-occurrence" if background.has_cooccurrence else "priors only (no co-occurrence: a frequency list, or counts without pairs)"
        return f"background {background.source}: {what}"
    if no_plain:
        return ("no knowledge at all: the release keeps no plain item, so the measure has no context to score "
                "against, and no background was given (--background gives the attacker priors and the "
                "generalised context); nothing was attacked — not a sign that nothing can be")
    return ("the measure only (the papers' attacker); an attacker who also knows how common each item is and "
            "which items go together was not modelled, and on real data often takes back more: give --background "
            "(data of a similar population, counts:FILE or wordfreq:LANG)")


#: an AUC within table this close to the prior's says the prior carries the attack
CARRY_MARGIN = 0.01


def carried_by(metrics: dict, cooccurrence: bool = True) -> list[str]:
    """Sentences that say which knowledge carries the attack (CLI and TUI print them).
    ``cooccurrence``: False for a prior-only background (a frequency list, counts without pairs), whose background
    and combined tables hold no co-occurrence and must not be described as if they did."""
    kn = metrics["knowledge"]
    lines = []
    help_ = dict(VARIANT_HELP)
    if not cooccurrence:
        help_["background"] = "how common each item is (no co-occurrence to add)"
        help_["combined"] = "how common each item is and the measure"
    for v in VARIANTS:
        f = kn[v]
        if f.get("recall") is None:
            continue
        er = (f.get("baseline") or {}).get("error_ratio")
        if f.get("auc_within_table") is None and not f.get("eliminated"):
            # nothing to judge it by: not "takes back 0%", which reads as a measured outcome
            lines.append(f"knowing {help_[v]}: scored no row here (nothing it knows to score against), "
                         "so not tried")
            continue
        lines.append(f"knowing {help_[v]}: takes back {f['recall']:.0%} of the added items at precision "
                     f"{_num(f.get('precision'))} (error ratio {_num(er, 2)})")
    # which knowledge ranks added members below original ones best (AUC within table: the same
    # for every eliminator, so the verdict does not depend on the method's threshold)
    auc = {v: kn[v].get("auc_within_table") for v in VARIANTS if kn[v].get("auc_within_table") is not None}
    if not auc:
        return [*lines, "no knowledge could score a member against an original one here"]
    best = max(auc, key=lambda v: (round(auc[v], 3), -VARIANTS.index(v)))
    words = {"prior": "how common each item is", "semantics": "the meaning of the context (the measure)",
             "background": "how common items are and which go together", "combined": "all of it together"}
    if not cooccurrence:
        words["background"] = "how common each item is (no co-occurrence)"
        words["combined"] = "how common each item is and the measure together"
    verdict = f"carried by {words[best]} (AUC within table {auc[best]:.3f})"
    if best != "prior" and "prior" in auc and auc[best] - auc["prior"] <= CARRY_MARGIN:
        verdict = (f"carried by how common each item is (AUC within table {auc['prior']:.3f}); "
                   f"{words[best]} adds only {auc[best] - auc['prior']:.3f}")
    # the table's recall, as it shows it: "adds nothing" is never said beside a table that takes back more
    shown = {v: round(kn[v]["recall"], 3) for v in VARIANTS if kn[v].get("recall") is not None}
    more = [v for v in VARIANTS if v != "prior" and "prior" in shown and shown.get(v, -1.0) > shown["prior"]]
    if (best == "prior" or verdict.startswith("carried by how common")) and more:
        top = max(more, key=lambda v: (shown[v], -VARIANTS.index(v)))
        verdict += (f"; knowing {words[top]} ranks no better, but takes back more ({kn[top]['recall']:.0%} of "
                    f"the added items against {kn['prior']['recall']:.0%})"
                    + (" (the measure's meaning was not tried: it scored no row)" if "semantics" not in auc else ""))
    elif best == "prior":
        untried = "semantics" not in auc  # the measure scored no row: it was not tried, not found useless
        added = "meaning and co-occurrence add" if cooccurrence else "meaning adds"
        verdict += (("; co-occurrence adds nothing on this data" if cooccurrence else "")
                    + " (the measure's meaning was not tried: it scored no row)" if untried
                    else f"; {added} nothing on this data")
    # the risk to report: the most that any attacker tried takes back while beating chance
    beat = [v for v in VARIANTS if kn[v].get("recall") is not None
            and (kn[v].get("baseline") or {}).get("error_ratio") is not None
            and kn[v]["baseline"]["error_ratio"] < 1.0]  # 0.0 (no wrong elimination) beats chance too
    if beat:
        top = max(beat, key=lambda v: (kn[v]["recall"], -VARIANTS.index(v)))
        verdict += (f". The most any attacker tried takes back: {kn[top]['recall']:.0%} of the added items at "
                    f"precision {_num(kn[top].get('precision'))}, knowing {words[top]}")
    return [*lines, verdict]


def _num(v, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"
