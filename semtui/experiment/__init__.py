"""Experiments (issue 22): candidate releases measured for risk and utility.

* :mod:`.spec` — the TOML spec and its grid of cells (:func:`read_spec`, :class:`CellParams`);
* :mod:`.cells` — one engine for a candidate release: anonymise → check → the assessment's
  attacks → utility → one ``semtui-experiment/1`` cell (:func:`run_cell`);
* :mod:`.run` — a spec's grid into RESULTS.jsonl, one whole line per cell, resumable
  (:func:`run_experiment`, :func:`read_results`);
* :mod:`.alternatives` — the safer releases ``assess`` measures, one small table per family;
* :mod:`.plot` — the two figures (matplotlib, the ``semtui[plot]`` extra).
"""

from semtui.experiment.cells import FORMAT, Context, run_cell
from semtui.experiment.run import read_results, run_experiment
from semtui.experiment.spec import CellParams, Spec, make_cell, read_spec

__all__ = ["FORMAT", "CellParams", "Context", "Spec", "make_cell", "read_results", "read_spec", "run_cell",
           "run_experiment"]
