"""Render docs/experiments.md's tables from `semtui experiment` RESULTS (each cell holds every
attack the assessment ran on it, `attacks`).

    python benchmarks/render_tables.py strongest RESULTS.jsonl [--name "MEPS half"] [--background NAME]
    python benchmarks/render_tables.py methods RESULTS.jsonl
    python benchmarks/render_tables.py disassoc RESULTS.jsonl

`strongest`: the strongest-attacker table (every knowledge table of PBA and TBA); `methods`: the
per-method tables of the set-generalisation attack (every eliminator, every measure, RA);
`disassoc`: the re-association table.  Prints markdown on stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def cells(path: str) -> list[dict]:
    out = []
    for line in Path(path).read_text().splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a torn last line: semtui experiment drops it too
    return out


def f(v, d: int = 3) -> str:
    return "–" if v is None else f"{v:.{d}f}"


def iv(figs: dict, key: str, d: int = 3) -> str:
    v = (figs.get("intervals") or {}).get(key)
    if isinstance(v, dict):
        v = [v.get("low"), v.get("high")]
    if not v or None in v:
        return ""
    return f" [{v[0]:.{d}f}, {v[1]:.{d}f}]"


def release_name(c: dict, name: str) -> str:
    p = c["cell"]
    if p["family"] == "km":
        return f"{name}, k^m k={p['k']} m={p['m']} fanout {p.get('fanout', '?')}"
    return f"{name}, COAT k={p['k']}"


def strongest(rows: list[dict], name: str, background: str) -> None:
    print("| release | background | method | knowledge | AUC within [95 % CI] | precision [95 % CI] | recall (all "
          "added) [95 % CI] | error ratio vs random | random same budget: P | popularity same budget: P / R / "
          "error ratio |")
    print("|---|---|---|---|---|---|---|---:|---:|---|")
    for c in rows:
        for a in c.get("attacks", []):
            if not a.get("knowledge"):
                continue
            g = a["figures"]
            base, pop = g.get("baseline") or {}, g.get("popularity") or {}
            print(f"| {release_name(c, name)} | {background} | {(a['method'] or '').upper()} | {a['knowledge']} | "
                  f"{f(g.get('auc_within_table'))}{iv(g, 'auc_within_table')} | {f(g.get('precision'))}"
                  f"{iv(g, 'precision')} | {f(g.get('recall'))}{iv(g, 'recall')} | {f(g.get('error_ratio'), 2)} | "
                  f"{f(base.get('precision'))} | {f(pop.get('precision'))} / "
                  f"{f(pop.get('recall') if pop.get('precision') is not None else None)} / "
                  f"{f(pop.get('error_ratio'), 2)} |")


def methods(rows: list[dict]) -> None:
    print("| k | measure | method | AUC within [95 % CI] | AUC pooled | density per item / pooled | precision "
          "[95 % CI] | recall all / attackable | F1 | random same budget: P | error ratio vs it | F1 lift over RA | "
          "≤16 members: groups, precision, error ratio |")
    print("|---:|---|---|---|---:|---|---|---|---:|---:|---:|---:|---|")
    for c in rows:
        atk = [a for a in c.get("attacks", []) if a["family"] == "setgen" and not a.get("knowledge")]
        ra = next((a for a in atk if a["method"] == "ra"), None)
        ra_f1 = (ra or {}).get("figures", {}).get("f1")
        measures = list(dict.fromkeys(a["measure"] for a in atk if a["measure"]))
        for m in measures:
            for a in [ra, *[a for a in atk if a["measure"] == m and a["method"] != "mda"]]:
                if a is None:
                    continue
                g = a["figures"]
                small = g.get("small_tables") or {}
                lift = g["f1"] / ra_f1 if ra_f1 and g.get("f1") is not None else None
                print(f"| {c['cell']['k']} | {m} | {a['method'].upper()} | {f(g.get('auc_within_table'))}"
                      f"{iv(g, 'auc_within_table', 2)} | {f(g.get('auc_pooled'))} | {f(g.get('density_per_item'))} / "
                      f"{f(g.get('density'))} | {f(g.get('precision'))}{iv(g, 'precision', 2)} | {f(g.get('recall'))} / "
                      f"{f(g.get('recall_attackable'))} | {f(g.get('f1'))} | "
                      f"{f((g.get('baseline') or {}).get('precision'))} | {f(g.get('error_ratio'), 2)} | {f(lift, 2)} | "
                      f"{small.get('groups', '–')}, {f(small.get('precision'))}, {f(small.get('error_ratio'), 2)} |")


def disassoc(rows: list[dict]) -> None:
    print("| k | method | accuracy (95 % CI) | lift over RA | lift over budget-matched | transaction breakage (RA) | "
          "k^m breakage (RA) |")
    print("|---:|---|---|---:|---:|---|---|")
    for c in rows:
        atk = [a for a in c.get("attacks", []) if a["family"] == "reassociation"]
        ra = next((a for a in atk if a["method"] == "ra"), None)
        rf = (ra or {}).get("figures") or {}
        for a in atk:
            g = a["figures"]
            ci = (g.get("intervals") or {}).get("accuracy")
            ci = f" ({ci[0]:.3f}–{ci[1]:.3f})" if isinstance(ci, list) and None not in ci else ""
            lift_ra = g["accuracy"] / rf["accuracy"] if rf.get("accuracy") and g.get("accuracy") is not None else None
            name = a["method"].upper() if a["method"] != "assign" else "assign"
            print(f"| {c['cell']['k']} | {name} | {f(g.get('accuracy'))}{ci} | {f(lift_ra, 2)} | "
                  f"{f(g.get('lift_over_random'), 2)} | {f(g.get('transaction_breakage'))} "
                  f"({f(rf.get('transaction_breakage'))}) | {f(g.get('km_breakage'))} ({f(rf.get('km_breakage'))}) |")


def main() -> None:
    kind, path = sys.argv[1], sys.argv[2]
    opts = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    rows = cells(path)
    if kind == "strongest":
        strongest(rows, opts.get("--name", "MEPS half"), opts.get("--background", "meps-half2.txt"))
    elif kind == "methods":
        methods(rows)
    elif kind == "disassoc":
        disassoc(rows)
    else:
        raise SystemExit(f"unknown table {kind!r}: strongest, methods or disassoc")


if __name__ == "__main__":
    main()
