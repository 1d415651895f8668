"""k^m-anonymity of plain or set-generalised transactions."""

from __future__ import annotations

import numpy as np

from semtui.checks.km.report import KmReport
from semtui.checks.km.violations import Progress, km_violations
from semtui.model import TransactionData


def check_transactions(data: TransactionData, k: int, m: int, progress: Progress = None) -> KmReport:
    """k^m-anonymity of plain or set-generalised transactions.  A generalised item counts as
    one item (what an attacker sees in a k^m release made by hierarchy generalisation, or in
    a COAT-style release): its id is the vocabulary size plus its index, its name its label."""
    v = len(data.vocab)
    tokens = data.tokens.astype(np.int64)
    ids = np.where(tokens >= 0, tokens, v - tokens - 1)
    core = km_violations(data.indptr, ids, k, m, v + data.n_generalised, progress=progress)
    names = [[data.vocab[int(i)] if i < v else data.label(int(i) - v) for i in t] for t in core.itemsets]
    return KmReport("set-generalised" if data.n_generalised else "transactions", k, m, core, names)
