"""k^m-anonymity by hierarchy generalisation: the shape of Terrovitis et al.'s Figs. 10-18.

Time (s), memory (count-tree nodes, the paper's measure; peak RSS for the headline run)
and NCP against |D|, |I|, m, k, the hierarchy height h and the number of parts, on
BMS-WebView-1/2 (and the MEPS conditions with the ICD-9 hierarchy).  Hierarchies are the
paper's artificial balanced ones (`semtui hierarchy build`), unless said otherwise.

Run: nice python benchmarks/bench_km.py [--quick]      (~10 min on 2 busy cores)
"""

from __future__ import annotations

import csv
import datetime
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _util import SHARED_DATA, machine, run_measured

from semtui import formats
from semtui.anonymize.hierarchy import generalise_km
from semtui.formats.hierarchy import read_hierarchy
from semtui.model import TransactionData
from semtui.model.hierarchy import balanced

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
WV1 = DATA / "bms-webview-1.dat"
WV2 = DATA / "bms-webview-2.dat"
QUICK = "--quick" in sys.argv


def by_id(items):
    return sorted(items, key=int)


def load(path: Path) -> TransactionData:
    return formats.read_transactions(path)


def prefix(data: TransactionData, n: int) -> TransactionData:
    return TransactionData.from_lists([data.token_names(i) for i in range(min(n, data.n_transactions))])


def modulo_domain(data: TransactionData, n_items: int) -> TransactionData:
    """The paper's reduced domains: item id modulo |I|, duplicates in a transaction removed.
    BMS ids step by 4 or more, so the ids are first made dense (their rank in id order)."""
    dense = {x: j for j, x in enumerate(by_id(data.vocab.items))}
    rows = [sorted({str(dense[x] % n_items) for x in data.token_names(i)}) for i in range(data.n_transactions)]
    return TransactionData.from_lists(rows)


def run(data, h, k, m, algorithm, **kw):
    r = generalise_km(data, h, k, m, algorithm, **kw)
    return r.seconds, r.count_tree_nodes, r.ncp


def table(title, header, rows):
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    sys.stdout.flush()


def fmt(secs, nodes, ncp):
    return [f"{secs:.2f}", f"{nodes:,}", f"{ncp:.2%}"]


def small_domains(wv2):
    """Figs. 10-12: prefixes of WV2, |I| = 40 by modulo, fanout 4 (h = 4), k = 100."""
    rows = []
    for n in (2000, 5000, 10000, 15000):
        d = modulo_domain(prefix(wv2, n), 40)
        h = balanced(by_id(d.vocab.items), 4)
        row = [f"{n:,}"]
        for a in ("oa", "da", "aa"):
            row += fmt(*run(d, h, 100, 3, a))
        rows.append(row)
    head = ["|D|"] + [f"{a} {x}" for a in ("OA", "DA", "AA") for x in ("s", "nodes", "NCP")]
    table("Fig. 10: |D| (|I| = 40, k = 100, m = 3, h = 4)", head, rows)
    base = prefix(wv2, 10000)
    rows = []
    for n_items in (40, 50, 60):
        d = modulo_domain(base, n_items)
        h = balanced(by_id(d.vocab.items), 4)
        row = [str(n_items), f"{h.count_cuts():,}"]
        for a in ("oa", "da", "aa"):
            row += fmt(*run(d, h, 100, 3, a))
        rows.append(row)
    table("Fig. 11: |I| (|D| = 10K, k = 100, m = 3, h = 4)", ["|I|", "cuts"] + head[1:], rows)
    d = modulo_domain(base, 40)
    h = balanced(by_id(d.vocab.items), 4)
    rows = []
    for m in (1, 2, 3, 4):
        row = [str(m)]
        for a in ("oa", "da", "aa"):
            row += fmt(*run(d, h, 100, m, a))
        rows.append(row)
    table("Fig. 12: m (|D| = 10K, |I| = 40, k = 100, h = 4)", ["m"] + head[1:], rows)


def large(wv1, wv2):
    """Figs. 13-18 on the full BMS data, fanout 5 unless varied."""
    h1 = balanced(by_id(wv1.vocab.items), 5)
    h2 = balanced(by_id(wv2.vocab.items), 5)
    sets = [("WV1", wv1, h1), ("WV2", wv2, h2)]
    rows = []
    for name, d, h in sets:
        row = [name, f"{d.n_transactions:,}", f"{h.n_leaves:,}", str(h.height)]
        for a in ("aa", "lra", "vpa"):
            row += fmt(*run(d, h, 5, 3, a))
        rows.append(row)
    head = [f"{a} {x}" for a in ("AA", "LRA", "VPA") for x in ("s", "nodes", "NCP")]
    table("Figs. 13a/14: AA, LRA, VPA on the BMS data (k = 5, m = 3, fanout 5, 3 parts)",
          ["data", "|D|", "|I|", "h"] + head, rows)
    rows = []
    for k in (5, 20, 100, 1000):
        row = [str(k)]
        for a in ("aa", "lra", "vpa"):
            try:
                row += fmt(*run(wv1, h1, k, 3, a))
            except Exception as exc:  # LRA refuses parts smaller than k
                row += ["-", "-", type(exc).__name__]
        rows.append(row)
    table("Figs. 13b/15: k (WV1, m = 3, fanout 5)", ["k"] + head, rows)
    rows = []
    for fan in (3, 4, 5, 8, 16):
        h = balanced(by_id(wv1.vocab.items), fan)
        row = [str(fan), str(h.height)]
        for a in ("aa", "lra", "vpa"):
            row += fmt(*run(wv1, h, 5, 3, a))
        rows.append(row)
    table("Figs. 13c/17: hierarchy height (WV1, k = 5, m = 3)", ["fanout", "h"] + head, rows)
    rows = []
    for m in (1, 2, 3, 4) if not QUICK else (1, 2, 3):
        row = [str(m)]
        for a in ("aa", "lra", "vpa"):
            row += fmt(*run(wv1, h1, 5, m, a))
        rows.append(row)
    table("Figs. 13d/16: m (WV1, k = 5, fanout 5)", ["m"] + head, rows)
    rows = []
    for parts in (2, 3, 4, 6):
        row = [str(parts)]
        for a in ("lra", "vpa"):
            row += fmt(*run(wv2, h2, 5, 3, a, parts=parts))
        rows.append(row)
    table("Fig. 18a/b: parts (WV2, k = 5, m = 3, fanout 5)",
          ["parts"] + [f"{a} {x}" for a in ("LRA", "VPA") for x in ("s", "nodes", "NCP")], rows)
    rows = []
    for jobs in (1, 2):
        row = [str(jobs)]
        for a in ("lra", "vpa"):
            t0 = time.perf_counter()
            run(wv2, h2, 5, 3, a, parts=4, jobs=jobs)
            row.append(f"{time.perf_counter() - t0:.2f}")
        rows.append(row)
    table("Fig. 19: parallel parts (WV2, k = 5, m = 3, 4 parts; 2 cores shared)", ["jobs", "LRA s", "VPA s"], rows)


def meps():
    """MEPS conditions as ICD-9 codes over the shipped ICD-9 hierarchy."""
    h = read_hierarchy(DATA / "icd9.hierarchy.txt")
    d = meps_codes()
    rows = []
    for m in (1, 2, 3):
        row = [str(m)]
        for a in ("aa", "vpa"):
            row += fmt(*run(d, h, 5, m, a))
        rows.append(row)
    table(f"MEPS 2005 conditions as ICD-9 codes ({d.n_transactions:,} patients, {len(d.vocab)} codes), "
          f"ICD-9 hierarchy ({h.n_leaves} leaves, h = {h.height}), k = 5",
          ["m"] + [f"{a} {x}" for a in ("AA", "VPA") for x in ("s", "nodes", "NCP")], rows)


def meps_codes() -> TransactionData:
    """One transaction per person of the 3-digit codes (missing codes, < 0, left out)."""
    people: dict[str, list[str]] = {}
    with open(DATA / "meps2005-conditions.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            code = row["ICD9CODX"]
            if code.startswith("-"):
                people.setdefault(row["DUPERSID"], [])
                continue
            people.setdefault(row["DUPERSID"], []).append(code)
    return TransactionData.from_lists([sorted(set(v)) for v in people.values() if v])


def headline():
    """The goal of issue 16: AA, k = 5, m = 3, all of WV2 with its shipped hierarchy, as a
    user runs it (a fresh process: start-up, reading and writing included)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for a in ("aa", "vpa"):
            secs, mb = run_measured(["anonymize", "km", str(WV2), "--hierarchy", str(DATA / "bms-webview-2.hierarchy.txt"),
                                     "-k", "5", "-m", "3", "--algorithm", a, "-o", str(Path(tmp) / "o.txt")], repeat=1)
            import json

            rep = json.loads((Path(tmp) / "o.txt.json").read_text())
            rows.append([a.upper(), f"{secs:.2f}", f"{rep['time_seconds']:.2f}", f"{mb:.0f}",
                         f"{rep['count_tree_nodes']:,}", f"{rep['ncp']:.2%}"])
    table("Headline: `semtui anonymize km` on all of BMS-WebView-2, shipped hierarchy (fanout 4, h = 7), "
          "k = 5, m = 3", ["algorithm", "wall s", "engine s", "peak RSS MB", "count-tree nodes", "NCP"], rows)


def main() -> None:
    for p in (WV1, WV2):
        if not p.exists():
            sys.exit(f"{p} is missing")
    load_avg = os.getloadavg()
    print(f"# k^m-anonymity benchmarks — {datetime.date.today()} — {machine()} — "
          f"load {load_avg[0]:.1f} {load_avg[1]:.1f} {load_avg[2]:.1f}")
    t0 = time.perf_counter()
    wv1, wv2 = load(WV1), load(WV2)
    headline()
    small_domains(wv2)
    large(wv1, wv2)
    meps()
    print(f"\n(total {time.perf_counter() - t0:.0f} s; load at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
