"""What the order of identical sub-records gave away (docs/experiments.md, "The order of a record
chunk leaked the transaction order of identical sub-records").

Until 2026-11-26 `anonymize disassoc` wrote identical sub-records of a chunk in the cluster's row
order (transaction order; in a shared chunk member by member); now in an order drawn from
`--seed`, per chunk.  The release is the same file either way, so the old key is this one with
every run of identical sub-records put back in row order (the clusters' `records`, the order the
anonymiser held them in).  Per dataset (k, m, N as given; REFINE on, as by default):

* the **same-position join** (sub-record r of C2..Cn is C1's sub-record r's transaction, for
  non-empty sub-records): right how often under each key, against what the content allows (for
  position r, |G1 & Gj| / (|G1| |Gj|), G the transactions of the identical sub-records at r) and
  against a uniform guess (1 / cluster size);
* **shared chunks**: of the adjacent identical shared sub-records from different members, the
  share in member order (0.5 when the order says nothing of the member);
* with ``--attack``: `semtui attack disassoc` (ABA, the default measure) with `--ties first` and
  `--ties random` against each key: accuracy, lift over the budget-matched random baseline,
  transaction and k^m breakage, and the lift of the cluster placements and of the shared
  placements apart.

Run: python benchmarks/chunk_order.py WORK_DIR [--data bms1,meps] [-k 5] [-m 2] [-N 30]
                                     [--seeds 0,1,2] [--attack]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

from _util import SHARED_DATA, machine, semtui

SHARED = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))
DATASETS = {"bms1": ("BMS-WebView-1", SHARED / "bms-webview-1.dat"),
            "meps": ("MEPS", SHARED / "meps2005-conditions.txt")}


def subs(chunk: list) -> list[tuple]:
    return [tuple(s) for s in chunk]


def row_order_key(release: dict, key: dict) -> dict:
    """The key as the anonymiser wrote it before: identical sub-records in row order."""
    records = {c["id"]: c["records"] for c in key["clusters"]}
    out = json.loads(json.dumps(key))

    def reorder(chunk: list, ts: list, rank: dict) -> list:
        # the content order is the release's; only the transactions within a run of identical
        # sub-records move, to row order
        content = subs(chunk)
        by_content: dict = {}
        for s, t in zip(content, ts):
            by_content.setdefault(s, []).append(t)
        for run in by_content.values():
            run.sort(key=rank.__getitem__, reverse=True)
        return [by_content[s].pop() for s in content]

    for c, ck in zip(release["clusters"], out["clusters"]):
        rank = {t: i for i, t in enumerate(records[c["id"]])}
        ck["record_chunks"] = [reorder(ch, ts, rank) for ch, ts in zip(c["record_chunks"], ck["record_chunks"])]
    for j, jk in zip(release["joint_clusters"], out["joint_clusters"]):
        rows = [t for cid in j["clusters"] for t in records[cid]]
        rank = {t: i for i, t in enumerate(rows)}
        jk["shared_chunks"] = [reorder(ch, ts, rank) for ch, ts in zip(j["shared_chunks"], jk["shared_chunks"])]
    return out


def same_position(release: dict, key: dict) -> dict:
    hits = tried = 0
    content = uniform = 0.0
    for c, ck in zip(release["clusters"], key["clusters"]):
        chunks = c["record_chunks"]
        if len(chunks) < 2:
            continue
        first, t1 = subs(chunks[0]), ck["record_chunks"][0]
        g1: dict = {}
        for s, t in zip(first, t1):
            g1.setdefault(s, set()).add(t)
        for ch, tj in zip(chunks[1:], ck["record_chunks"][1:]):
            cj = subs(ch)
            gj: dict = {}
            for s, t in zip(cj, tj):
                gj.setdefault(s, set()).add(t)
            for r, s in enumerate(cj):
                if s:
                    tried += 1
                    hits += tj[r] == t1[r]
                    content += len(g1[first[r]] & gj[s]) / (len(g1[first[r]]) * len(gj[s]))
                    uniform += 1 / c["size"]
    return {"right": hits, "of": tried, "content_allows": round(content, 1), "uniform": round(uniform, 1)}


def member_order(release: dict, key: dict) -> dict:
    member = {t: c["id"] for c in key["clusters"] for t in c["records"]}
    up = pairs = 0
    for j, jk in zip(release["joint_clusters"], key["joint_clusters"]):
        pos = {cid: i for i, cid in enumerate(j["clusters"])}
        for ch, ts in zip(j["shared_chunks"], jk["shared_chunks"]):
            s = subs(ch)
            for r in range(len(s) - 1):
                a, b = member[ts[r]], member[ts[r + 1]]
                if s[r] == s[r + 1] and a != b:
                    pairs += 1
                    up += pos[a] < pos[b]
    return {"in_member_order": up, "of": pairs, "share": round(up / pairs, 3) if pairs else None}


def attack(release: Path, key: Path, original: Path, ties: str) -> dict:
    from semtui.wording import interval  # either interval shape a report holds

    r = semtui("attack", "disassoc", release, "--key", key, "--original", original, "--ties", ties, "--json",
               check=False)
    if r.returncode != 0:
        sys.exit(f"attack failed: {r.stderr}")
    doc = json.loads(r.stdout)
    m = doc["metrics"]
    parts = {}
    for part in ("clusters", "joint_clusters"):
        correct = placed = base = 0.0
        for x in doc[part]:
            pm = x["metrics"]
            correct += pm["correct"]
            placed += pm["placements"]
            base += (pm["baseline_accuracy"] or 0) * pm["placements"]
        parts[part] = round(correct / base, 3) if base else None
    return {"accuracy": round(m["accuracy"], 4), "lift": round(m["lift_over_random"], 3),
            "lift_ci": [round(x, 3) for x in interval(m, "lift_over_random")],
            "transaction_breakage": round(m["transaction_breakage"], 3),
            "baseline_transaction_breakage": round(m["baseline"]["transaction_breakage"], 3),
            "km_breakage": round(m["km_breakage"], 3), "baseline_km_breakage": round(m["baseline"]["km_breakage"], 3),
            "lift_cluster_placements": parts["clusters"], "lift_shared_placements": parts["joint_clusters"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--data", default="bms1,meps")
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("-m", type=int, default=2)
    ap.add_argument("-N", type=int, default=30)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--attack", action="store_true")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    print(f"# chunk order, {datetime.date.today()}, {machine()}, load {os.getloadavg()[0]:.1f} at the start\n")
    for name in a.data.split(","):
        label, path = DATASETS[name]
        for seed in [int(s) for s in a.seeds.split(",")]:
            rel, key = a.work / f"{name}-{seed}.json", a.work / f"{name}-{seed}.key.json"
            semtui("anonymize", "disassoc", path, "-k", a.k, "-m", a.m, "--max-cluster-size", a.N, "--seed", seed,
                   "-o", rel, "--key", key)
            release, k_new = json.loads(rel.read_text()), json.loads(key.read_text())
            k_old = row_order_key(release, k_new)
            old = a.work / f"{name}.rowkey.json"
            old.write_text(json.dumps(k_old))
            print(f"{label} seed {seed}: same-position join, seeded order {same_position(release, k_new)}"
                  + (f", row order {same_position(release, k_old)}" if seed == 0 else ""))
            print(f"{label} seed {seed}: shared chunks, seeded order {member_order(release, k_new)}"
                  + (f", row order {member_order(release, k_old)}" if seed == 0 else ""))
            if a.attack:
                for ties in ("first", "random"):
                    if seed == 0:
                        print(f"{label} ABA --ties {ties}, row-order key: {attack(rel, old, path, ties)}")
                    print(f"{label} ABA --ties {ties}, seed {seed}: {attack(rel, key, path, ties)}")
    print(f"\nload {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
