"""The semantic attack on set-generalised data (Shao & Ong, ACM TOIT 2017; Ong's thesis).

:mod:`.eliminate` holds the eliminators (MDA, TBA, WBA, GBA, RBA, RA) over one distance
table; :mod:`.tables` builds a group's distance table; :mod:`.kernel` attacks one group;
:mod:`.attack` runs the kernel over a whole release and :mod:`.merge` makes the release's figures
of the groups' outcomes; :mod:`.results` is each group written up, typed; :mod:`.knowledge` holds the strongest attacker's tables and which
knowledge carries the attack, in words; :mod:`.options` holds its options.
"""

from semtui.attacks.setgen.attack import (
    REPORT_FORMAT,
    SetgenAttackReport,
    attacked_dataset,
    load_report,
    release_k,
    run_setgen_attack,
    write_report,
)
from semtui.attacks.setgen.options import METHOD_HELP, AttackOptions, group_seed
from semtui.attacks.setgen.tables import AggregateSpec, ContextSpec, aggregate_table, contexts_for_group

__all__ = [
    "METHOD_HELP",
    "REPORT_FORMAT",
    "AggregateSpec",
    "AttackOptions",
    "ContextSpec",
    "SetgenAttackReport",
    "aggregate_table",
    "attacked_dataset",
    "contexts_for_group",
    "group_seed",
    "load_report",
    "release_k",
    "run_setgen_attack",
    "write_report",
]
