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
