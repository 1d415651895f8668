"""REFINE before and after (issue 24): speed, utility and re-association risk.

1. **Speed and size** (whole processes): `semtui anonymize disassoc` on BMS-WebView-2, k=5, m=2,
   max cluster size 30, with and without REFINE: best wall and CPU time of 3 fresh processes and
   the peak RSS.  Goals: under 6 s and 800 MB; associated share at least 3x the two-step release.
2. **Utility** on BMS-WebView-1, BMS-WebView-2 and MEPS (k=5, m=2, N=30): the associated share
   ((cluster, item) pairs of the original held in a record or shared chunk), the term-chunk
   share, the share of the original's item pairs (per record) that stay together in one
   sub-record ("pairs kept", exact from the release: an item occurrence is in one place only),
   the moved items that share their shared sub-record with another item, and the check.
3. **Risk**: the first half of each dataset released (k=5, m=2, N=30), attacked by RA, by NBA
   with the second half as background (the strongest attacker with knowledge measured so far,
   docs/experiments.md) and the informed reference (NBA with the original's own statistics),
   each against the budget-matched random re-association (chunk rule), 95 % intervals over
   clusters; with and without REFINE.

4. **Cover problems** (whole datasets) before and after, under the strong attacker.

Run: nice python benchmarks/bench_refine.py [--parts speed,utility,cover,risk] > out.md
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _util import SHARED_DATA, env_for, machine, measured, semtui

from semtui import formats
from semtui.anonymize.disassociation import disassociate
from semtui.attacks.background import Background
from semtui.attacks.reassociation import ReassociationOptions, run_reassociation
from semtui.checks.km import check_disassociated
from semtui.model import TransactionData

SHARED_DATA = Path(os.environ.get("SEMTUI_SHARED_DATA", SHARED_DATA))
K, M, N = 5, 2, 30
FILES = {"BMS-WebView-1": "bms-webview-1.dat", "BMS-WebView-2": "bms-webview-2.dat",
         "MEPS": "meps2005-conditions.txt"}


def speed() -> None:
    print("## Speed and size: BMS-WebView-2, k=5, m=2, max cluster size 30 (whole process, best of 3)\n")
    print("| release | wall (s) | CPU (s) | peak RSS (MB) | release + key (MB) | associated share |")
    print("|---|---:|---:|---:|---:|---:|")
    shares = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("two steps (--no-refine)", ["--no-refine"]), ("REFINE (default)", [])):
            out, key = Path(tmp) / "r.json", Path(tmp) / "r.key.json"
            args = ["anonymize", "disassoc", str(SHARED_DATA / "bms-webview-2.dat"), "-k", str(K), "-m", str(M),
                    "--max-cluster-size", str(N), "-o", str(out), "--key", str(key), *extra]
            wall, cpu, peak = measured(args, env=env_for())
            summary = json.loads(semtui(*args, "--json", env=env_for()).stdout)
            shares[label] = summary["associated_share"]
            size = (out.stat().st_size + key.stat().st_size) / 1e6
            print(f"| {label} | {wall:.2f} | {cpu:.2f} | {peak:.0f} | {size:.1f} | {summary['associated_share']:.4f} |",
                  flush=True)
    a, b = shares.values()
    print(f"\nAssociated share with REFINE / without: {b / a:.2f}x (goal: at least 3x)\n")


def pairs_kept(data) -> tuple[float, float]:
    """(share of the original's per-record item pairs kept together in one sub-record, the
    same over record chunks only).  Every item occurrence is in exactly one place, so the
    pairs inside sub-records are real pairs of their records; the original's come from the
    same occurrences: sum over sub-records of C(len, 2) / sum over records of C(len, 2)."""
    def pairs(chunks) -> int:
        lens = np.concatenate([np.diff(ch.indptr) for ch in chunks]) if chunks else np.zeros(0, np.int64)
        return int((lens * (lens - 1) // 2).sum())

    rec = pairs([ch for c in data.clusters for ch in c.record_chunks])
    shared = pairs([ch for j in data.joint_clusters for ch in j.shared_chunks])
    return rec, shared


def utility() -> None:
    print(f"## Utility before and after REFINE (k={K}, m={M}, max cluster size {N}, default --joint-max-size)\n")
    print("| dataset | release | clusters | joint clusters (clusters in them) | term-chunk terms | associated share "
          "| pairs kept together | moved items with company | check km | anonymiser (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for title, name in FILES.items():
        orig = formats.read_transactions(SHARED_DATA / name)
        lens = np.diff(np.asarray(orig.indptr))
        # distinct items per record (the FIMI reader keeps repeats; disassociation counts them once)
        distinct = np.array([len(set(orig.transaction(i).tolist())) for i in range(orig.n_transactions)])
        total_pairs = int((distinct * (distinct - 1) // 2).sum())
        del lens
        for label, refine in (("two steps", False), ("REFINE", True)):
            r = disassociate(orig, K, M, N, refine=refine)
            s = r.summary()
            rec, shared = pairs_kept(r.data)
            ok = check_disassociated(r.data, K, M, r.key, orig).holds
            joint = f"{s['joint_clusters']:,} ({s['clusters_in_joint_clusters']:,})" if refine else "–"
            company = f"{s['shared_occurrences_with_company']:.3f}" if refine else "–"
            print(f"| {title} | {label} | {s['clusters']:,} | {joint} | {s['term_chunk_terms']:,} | "
                  f"{s['associated_share']:.4f} | {(rec + shared) / total_pairs:.4f} | {company} | "
                  f"{'holds' if ok else 'FAILS'} | {s['seconds']:.2f} |", flush=True)
            if not ok:
                sys.exit(f"{title}: the REFINE release fails check km")


def halves(title: str):
    whole = formats.read_transactions(SHARED_DATA / FILES[title])
    half = whole.n_transactions // 2
    rows = [whole.token_names(i) for i in range(whole.n_transactions)]
    return TransactionData.from_lists(rows[:half]), TransactionData.from_lists(rows[half:])


def fmt(x, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def iv(m: dict, key: str, digits: int = 3) -> str:
    from semtui.wording import interval

    v = interval(m, key)
    return fmt(m.get(key), digits) + (f" [{v[0]:.{digits}f}, {v[1]:.{digits}f}]" if v else "")


def risk(parts: list[str], jobs: int, releases: tuple = ("two steps", "REFINE")) -> None:
    from _data import NoMeasure

    print(f"## Re-association risk before and after REFINE (first half released, k={K}, m={M}, N={N}; "
          "seed 1, random ties)\n")
    print("| dataset | release | attacker | placements (shared) | accuracy [95 % CI] | lift over budget-matched "
          "random [95 % CI] | transaction breakage (random) | k^m breakage (random) | shared: accuracy (random) "
          "| s |")
    print("|---|---|---|---:|---|---|---|---|---|---:|")
    for title in parts:
        first, second = halves(title)
        bg = Background.from_transactions(second, "the second half")
        for label, refine in (("two steps", False), ("REFINE", True)):
            if label not in releases:
                continue
            rel = disassociate(first, K, M, N, refine=refine)
            rows = [("RA (no knowledge)", ReassociationOptions(method="ra", seed=1, wmd_measure=None, jobs=jobs,
                                                               informed=False), {"measure": NoMeasure()}),
                    ("NBA, background: the second half", ReassociationOptions(
                        method="nba", background="second half", seed=1, wmd_measure=None, jobs=jobs),
                     {"background": bg})]
            for who, opts, kw in rows:
                t0 = time.perf_counter()
                rep = run_reassociation(rel.data, rel.key, first, opts, **kw).report
                secs = time.perf_counter() - t0
                m, b, s = rep["metrics"], rep["metrics"]["baseline"], rep["summary"]
                sh = m.get("shared_chunks")
                shared = f"{fmt(sh['accuracy'])} ({fmt(sh['baseline_accuracy'])})" if sh else "–"
                print(f"| {title} | {label} | {who} | {s['placements']:,} ({s.get('shared_placements', 0):,}) | "
                      f"{iv(m, 'accuracy')} | {iv(m, 'lift_over_random', 2)} | {fmt(m['transaction_breakage'])} "
                      f"({fmt(b['transaction_breakage'])}) | {fmt(m['km_breakage'])} ({fmt(b['km_breakage'])}) | "
                      f"{shared} | {secs:.0f} |", flush=True)
                ref = m.get("informed_reference")
            if ref:
                print(f"| {title} | {label} | *informed reference (the original's own statistics; not an attack)* | "
                      f"{ref['placements']:,} | {iv(ref, 'accuracy')} | {iv(ref, 'lift_over_random', 2)} | "
                      f"{fmt(ref['transaction_breakage'])} | | | |", flush=True)


def cover() -> None:
    from semtui.attacks.cover import CoverOptions, run_cover

    print(f"## Cover problems before and after REFINE (whole datasets, k={K}, m={M}, N={N}; the strong attacker: "
          "every cover problem is a breach)\n")
    print("| dataset | release | cover problems (of them spanning a shared chunk) | of them with I held by every record "
          "of the cluster | vulnerable records | clusters with breaches | (x, covered) pairs really together | s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for title, name in FILES.items():
        orig = formats.read_transactions(SHARED_DATA / name)
        for label, refine in (("two steps", False), ("REFINE", True)):
            rel = disassociate(orig, K, M, N, refine=refine)
            t0 = time.perf_counter()
            rep = run_cover(rel.data, CoverOptions(attacker="strong"), original=orig)
            secs = time.perf_counter() - t0
            s = rep["summary"]
            shared = sum(1 for p in rep["cover_problems"] if "/S" in p.get("chunk_label", "") + p.get("earlier_label", ""))
            # a covering itemset held by every record of the cluster says nothing the cluster does not
            size = {c["id"]: c["size"] for c in rep["clusters"]}
            whole = sum(1 for p in rep["cover_problems"] if p["itemset_support"] == size[p["cluster"]])
            print(f"| {title} | {label} | {s['cover_problems']:,} ({shared:,}) | {whole:,} | {s['vulnerable_records']:,} | "
                  f"{s['clusters_with_breaches']:,} | {s['real_pairs']:,} | {secs:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--parts", default="speed,utility,cover,risk")
    ap.add_argument("--risk-data", default="BMS-WebView-1,BMS-WebView-2,MEPS")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--releases", default="two steps,REFINE", help="the risk part's releases")
    args = ap.parse_args()
    print(f"# REFINE before and after — {datetime.date.today()} — {machine()} — load at start "
          f"{os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[1]:.1f} (5 min)\n")
    parts = args.parts.split(",")
    if "speed" in parts:
        speed()
    if "utility" in parts:
        utility()
    if "cover" in parts:
        cover()
    if "risk" in parts:
        risk(args.risk_data.split(","), args.jobs, tuple(args.releases.split(",")))
    print(f"\nload at end {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[1]:.1f} (5 min)")


if __name__ == "__main__":
    main()
