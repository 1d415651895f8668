"""Metrics, each defined once with what it measures: :mod:`.elimination` (precision, recall,
F1, pooled and within-table AUC, density, the budget-matched random baseline, bootstrap
intervals) for attacks that eliminate generalised members.  Families that follow add their
own modules here (re-association: accuracy, breakage, WMD; utility: UL, NCP)."""
