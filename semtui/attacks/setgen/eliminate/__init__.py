"""Eliminators of the set-generalisation attack: MDA, TBA, WBA, GBA, RBA, RA and PBA.

Each takes one *distance table* (rows: the transactions of an equivalence group, labelled
by their context; columns: the member items of the generalised item; lower = more
related) and eliminates the cells it believes are items the generalisation added.  The
reading of the papers is the one fixed in ``ALGORITHMS.md`` §1:

* weights: row weight ``1 / live cells of the row``, column weight ``1 / live cells of the
  column``; weighted distance ``D * (1 - w_row) * (1 - w_col)``;
* every row and every column is a *group*; its *vulnerability* is the largest gap between
  neighbouring sorted weighted distances (0 under two cells);
* δ (GBA, RBA) is the mean vulnerability of all groups of the initial weighted table; WBA's
  δ is the mean of the initial weighted table; TBA's is a given value or the mean of the raw
  distances;
* a group's *candidate* is its largest weighted distance, valid only if its row and its
  column keep a live cell once it is gone (the last-cell rule); invalid groups are skipped;
* ties: lowest row, then lowest column (for groups of equal vulnerability: the one whose
  candidate comes first that way, a row group before a column group).

Cells of three kinds are treated apart.  ``NaN`` is a missing distance: not a cell at all
(never eliminated, not counted for weights, groups, means or the last-cell rule).  A
negative distance (NGD can give one, and it is unreliable) and a *protected* cell (a term
the measure cannot score) are present: they count for weights and for the last-cell rule,
but take no part in gaps, means or candidates, and are never eliminated.  The cells that
do take part are called *scorable* below.

One module a job:

* :mod:`.methods`: :func:`eliminate`, one eliminator on one table (the methods' names, checks
  of the arguments, the dispatch);
* :mod:`.raw`: the eliminators on raw distances, deciding cell by cell: MDA, TBA, PBA, RA;
* :mod:`.wba`: WBA, weighted distances against one threshold;
* :mod:`.grouping`: GBA and RBA, groups by vulnerability (and how their loop is kept
  incremental: its docstring); :mod:`.vulnerability`: the groups' gaps, candidates and lower
  clusters, and each column kept sorted;
* :mod:`.engine`: which loop runs GBA, RBA and WBA, numpy's or the compiled one
  (``_compiled.py``, the same steps bit for bit);
* :mod:`.state`: the table being attacked (live cells, counts, weights from counts);
* :mod:`.result`: what a method did (:class:`EliminationResult`); :mod:`.report`: the report
  of ``semtui table eliminate``; :mod:`.labels`: how a result names a group (``row i``);
* :mod:`.replaying`: the weighted table after the first steps of a result or a recorded path.
"""

from semtui.attacks.setgen.eliminate.engine import (
    COMPILED_MIN_CELLS,
    ENGINES,
    MIN_CELLS_ENV,
    compiled_preload,
)
from semtui.attacks.setgen.eliminate.labels import group_label, parse_group
from semtui.attacks.setgen.eliminate.methods import METHODS, eliminate
from semtui.attacks.setgen.eliminate.raw import DEFAULT_POSTERIOR, DEFAULT_PROBABILITY, posterior
from semtui.attacks.setgen.eliminate.replaying import replay, weighted_along
from semtui.attacks.setgen.eliminate.report import TableEliminationReport
from semtui.attacks.setgen.eliminate.result import Elimination, EliminationResult
from semtui.runtime.compiled import NO_NUMBA_ENV  # every compiled kernel's switch, named with the eliminator's

__all__ = [
    "COMPILED_MIN_CELLS", "DEFAULT_POSTERIOR", "DEFAULT_PROBABILITY", "ENGINES", "METHODS",
    "MIN_CELLS_ENV", "NO_NUMBA_ENV", "Elimination", "EliminationResult", "TableEliminationReport",
    "compiled_preload", "eliminate", "group_label", "parse_group", "posterior", "replay",
    "weighted_along",
]
