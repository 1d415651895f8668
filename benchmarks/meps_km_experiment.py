"""What the semantic attack takes back from a k^m release (hierarchy generalisation,
Terrovitis et al. 2011) compared with a COAT-style release at the same k, on MEPS.

Original: ../shared/data/meps2005-conditions.txt (26,735 patients, 599 ICD-9 condition
names).  Hierarchy: ../shared/data/icd9.hierarchy.txt over 3-digit codes, its leaves
renamed to the condition names through icd9-3digit-names.tsv with the same substitutions
the data README describes (',' -> ';', '(' and ')' -> ' - '); leaves that never occur keep
their code.  Releases: `generalise_km` (AA, k = 5, m = 2 and 3) and `semtui anonymize setgen`
(k = 5, 300 random 3-6-item privacy constraints, seed 1, utility all, as in
docs/experiments.md).  Attacks: `semtui attack setgen --original ... --json` with the
embedding measure, methods rba, tba and ra (seed 1).

Run: nice python benchmarks/meps_km_experiment.py OUTDIR > report.md
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import names_hierarchy
from _util import SHARED_DATA, env_for, machine
from _util import semtui as run_semtui

from semtui import formats
from semtui.anonymize.hierarchy import generalise_km
from semtui.formats.text import write_setgen
from semtui.model.hierarchy import balanced

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
MEPS = DATA / "meps2005-conditions.txt"
REPO = Path(__file__).resolve().parents[1]
K = 5
METHODS = ("rba", "tba", "ra")


def semtui(*args: str) -> subprocess.CompletedProcess:
    return run_semtui(*args, env=env_for())


def group_facts(path: Path) -> dict:
    d = formats.read_transactions(path)
    sizes = d.group_sizes()
    rows_with_context = 0
    group_rows = 0
    for g in range(d.n_generalised):
        for r in d.group(g).tolist():
            group_rows += 1
            rows_with_context += bool(len(d.plain_items(r)))
    members = [len(d.members(g)) for g in range(d.n_generalised)]
    return {"groups": d.n_generalised, "group_rows": group_rows,
            "no_context": 1 - rows_with_context / group_rows if group_rows else 0.0,
            "mean_members": sum(members) / len(members) if members else 0.0,
            "largest_group": int(sizes.max()) if len(sizes) else 0}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    print(f"# k^m vs COAT on MEPS — {datetime.date.today()} — {machine()} — load {os.getloadavg()[0]:.1f}\n")
    data = formats.read_transactions(MEPS)
    h = names_hierarchy()
    # the shipped hierarchy has 20 chapters under its root; a balanced fanout-5 hierarchy
    # over the observed conditions in ICD-9 order (the paper's kind of hierarchy) pools them
    hb = balanced([h.labels[v] for v in h.leaf_order if h.labels[v] in data.vocab], 5)
    plans = [("ICD-9", h, 1), ("ICD-9", h, 2), ("balanced fanout 5, ICD-9 order", hb, 2),
             ("balanced fanout 5, ICD-9 order", hb, 3)]
    releases = {}
    for hname, hier, m in plans:
        r = generalise_km(data, hier, K, m, "aa")
        tag = f"km-k{K}-m{m}-{'icd9' if hier is h else 'bal5'}"
        path = out / f"{tag}.txt"
        write_setgen(r.data, path)
        (out / f"{tag}.json").write_text(json.dumps(r.to_json(), indent=1))
        name = f"k^m AA, k={K}, m={m}, {hname} hierarchy (NCP {r.ncp:.1%}, {len(r.cut)} rules)"
        releases[name] = path
    coat = out / f"coat-k{K}.txt"
    semtui("anonymize", "setgen", str(MEPS), "-k", str(K), "-o", str(coat), "--random-privacy", "300",
           "--sizes", "3-6", "--seed", "1")
    releases[f"COAT-style, k={K}, 300 constraints"] = coat

    print("| release | groups | group rows | rows without context | mean members | largest group |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, path in releases.items():
        f = group_facts(path)
        print(f"| {name} | {f['groups']} | {f['group_rows']:,} | {f['no_context']:.1%} | "
              f"{f['mean_members']:.1f} | {f['largest_group']:,} |")
    print()
    print("| release | method | eliminated | added | density | AUC | P | R | F1 | exposed items | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, path in releases.items():
        if group_facts(path)["no_context"] == 1.0:
            print(f"| {name} | all | (no row keeps a plain item: the context attack has nothing to score) "
                  "| | | | | | | | |")
            continue
        for method in METHODS:
            args = ["attack", "setgen", str(path), "--original", str(MEPS), "--method", method, "--json"]
            if method == "ra":
                args += ["--seed", "1"]
            t0 = time.perf_counter()
            rep = json.loads(semtui(*args).stdout)
            secs = time.perf_counter() - t0
            mt, pv = rep["metrics"], rep["privacy"]
            print(f"| {name} | {method} | {mt['eliminated']:,} | {mt['added']:,} | {mt['density']:.3f} | "
                  f"{mt['auc']:.3f} | {mt['precision']:.3f} | {mt['recall']:.3f} | {mt['f1']:.3f} | "
                  f"{pv['exposed_items']} of {pv['member_items']} | {secs:.0f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
