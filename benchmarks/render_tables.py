"""Render docs/experiments.md's tables from `semtui experiment` RESULTS (each cell holds every
attack the assessment ran on it, `attacks`).

    python benchmarks/render_tables.py strongest RESULTS.jsonl [--name "MEPS half"] [--background NAME]
    python benchmarks/render_tables.py methods RESULTS.jsonl
    python benchmarks/render_tables.py disassoc RESULTS.jsonl

`strongest`: the strongest-attacker table (every knowledge table of PBA and TBA); `methods`: the
per-method tables of the set-generalisation attack (every eliminator, every measure, RA);
`disassoc`: the re-association table; `unmarked` and `recovery`: the unmarked section's two
tables.  Tables over several datasets take `NAME=RESULTS.jsonl` arguments:

    python benchmarks/render_tables.py cover BMS-WebView-1=cover_bms1.jsonl BMS-WebView-2=cover_bms2.jsonl
    python benchmarks/render_tables.py refine_cover|refine|knowledge NAME=RESULTS.jsonl ...

Prints markdown on stdout.
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
        # RA runs once, under GloVe (assess's RA): its row goes with GloVe's, and every F1 lift is over it
        ra_block = "embedding" if "embedding" in measures else (measures[0] if measures else None)
        for m in measures:
            for a in [ra if m == ra_block else None, *[a for a in atk if a["measure"] == m and a["method"] != "mda"]]:
                if a is None:
                    continue
                g = a["figures"]
                small = g.get("small_tables") or {}
                lift = g["f1"] / ra_f1 if ra_f1 and g.get("f1") is not None else None
                print(f"| {c['cell']['k']} | {'ngd' if m.startswith('ngd:') else m} | {a['method'].upper()} | {f(g.get('auc_within_table'))}"
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


def n(v) -> str:
    return "–" if v is None else f"{v:,}"


def ci(g: dict, key: str, d: int = 3, lift: bool = False) -> str:
    """``v [lo, hi]`` from a re-association figure and its interval."""
    v = (g.get("intervals") or {}).get(key)
    d2 = 2 if lift else d
    out = f(g.get(key), d2)
    return out + (f" [{v[0]:.{d2}f}, {v[1]:.{d2}f}]" if isinstance(v, list) and None not in v else "")


def named(args: list[str]) -> list[tuple[str, list[dict]]]:
    """``NAME=RESULTS.jsonl`` arguments: each dataset's cells."""
    out = []
    for a in args:
        name, _, path = a.partition("=")
        out.append((name, cells(path)))
    return out


def by_attacker(c: dict) -> dict:
    return {a["attacker"]: a["figures"] for a in c.get("attacks", []) if a["family"] == "cover"}


def cover(parts: list[tuple[str, list[dict]]]) -> None:
    """Cover problems on BMS-WebView (k = 3, m = 2, max cluster size 10..50), one table per
    REFINE setting found."""
    for refine in (False, True):
        rows = [(name, c) for name, cs in parts for c in cs
                if c["cell"]["k"] == 3 and c["cell"]["m"] == 2 and c["cell"].get("refine", True) is refine]
        if not rows:
            continue
        print(f"\n{'With REFINE (the default today)' if refine else 'The first two steps (no REFINE)'}:\n")
        extra = " of them, I held by every record |" if refine else ""
        print("| dataset | max cluster size | clusters | cover problems (= strong breaches) | vulnerable records: "
              "strong / moderate / weak | really co-occurring |" + extra)
        print("|---|---:|---:|---:|---|---:|" + ("---:|" if refine else ""))
        for name, c in sorted(rows, key=lambda r: (r[0], r[1]["cell"]["max_cluster_size"])):
            a = by_attacker(c)
            st, mo, we = a.get("strong") or {}, a.get("moderate") or {}, a.get("weak") or {}
            print(f"| {name} | {c['cell']['max_cluster_size']} | {n(c['utility'].get('clusters'))} | "
                  f"{n(st.get('cover_problems'))} | {n(st.get('vulnerable_records'))} / {n(mo.get('vulnerable_records'))}"
                  f" / {n(we.get('vulnerable_records'))} | {n(st.get('real_pairs'))} |"
                  + (f" {n(st.get('held_by_every_record'))} |" if refine else ""))


def refine_cover(parts: list[tuple[str, list[dict]]]) -> None:
    """Cover problems before and after REFINE (k = 5, m = 2, N = 30, whole datasets, the strong attacker)."""
    print("| dataset | release | cover problems (spanning a shared chunk) | I held by every record | vulnerable records "
          "| clusters with breaches | (x, covered) pairs really together | s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    out: dict = {}  # a dataset's release in two RESULTS files: the later file's, printed once
    for name, cs in parts:
        for c in cs:
            p = c["cell"]
            if (p["k"], p["m"], p["max_cluster_size"]) != (5, 2, 30):
                continue
            st = next((a for a in c.get("attacks", []) if a.get("attacker") == "strong"), None)
            if st is not None:
                out[(name, bool(p.get("refine", True)))] = st
    for name in dict.fromkeys(name for name, _ in parts):
        for refine in (False, True):
            st = out.get((name, refine))
            if st is None:
                continue
            g = st["figures"]
            print(f"| {name} | {'REFINE' if refine else 'two steps'} | {n(g.get('cover_problems'))} "
                  f"({n(g.get('spanning_shared_chunk'))}) | {n(g.get('held_by_every_record'))} | "
                  f"{n(g.get('vulnerable_records'))} | {n(g.get('clusters_with_breaches'))} | "
                  f"{n(g.get('real_pairs'))} | {st.get('seconds', 0):.0f} |")


def _reassoc_row(name: str, label: str, who: str, a: dict, release: str | None = None) -> str:
    g = a["figures"]
    sh = g.get("shared_chunks")
    lead = f"| {name} | {release} | {who} |" if release is not None else f"| {name} | {label} | {who} |"
    out = lead
    if release is not None:
        out += f" {n(g.get('placements'))} ({n((sh or {}).get('placements', 0))}) |"
    out += (f" {ci(g, 'accuracy')} | {ci(g, 'lift_over_random', lift=True)} | {f(g.get('transaction_breakage'))} "
            f"({f(g.get('baseline_transaction_breakage'))}) | {f(g.get('km_breakage'))} "
            f"({f(g.get('baseline_km_breakage'))}) |")
    if release is not None:
        out += f" {f(sh.get('accuracy')) + ' (' + f(sh.get('baseline_accuracy')) + ')' if sh else '–'} |"
    return out + f" {a.get('seconds', 0):.0f} |"


def _reference_row(name: str, a: dict, release: str | None = None) -> str:
    r = a["informed_reference"]
    iv_ = r.get("intervals") or {}

    def c(key, d=3):
        v = iv_.get(key)
        return f(r.get(key), d) + (f" [{v[0]:.{d}f}, {v[1]:.{d}f}]" if isinstance(v, list) and None not in v else "")
    if release is not None:
        return (f"| {name} | {release} | *informed reference (not an attack)* | {n(r.get('placements'))} | "
                f"{c('accuracy')} | {c('lift_over_random', 2)} | {f(r.get('transaction_breakage'))} | | | |")
    return (f"| {name} | *the original itself (reference, not an attack)* | NBA | {c('accuracy')} | "
            f"*{c('lift_over_random', 2)}* | {f(r.get('transaction_breakage'))} | | |")


def refine(parts: list[tuple[str, list[dict]]]) -> None:
    """Re-association before and after REFINE (first half released, k = 5, m = 2, N = 30; RA, NBA)."""
    print("| dataset | release | attacker | placements (shared) | accuracy [95 % CI] | lift over budget-matched random "
          "[95 % CI] | transaction breakage (random) | k^m breakage (random) | shared: accuracy (random) | s |")
    print("|---|---|---|---:|---|---|---|---|---|---:|")
    for name, cs in parts:
        for refine_ in (False, True):
            for c in cs:
                if c["cell"].get("refine", True) is not refine_:
                    continue
                rel = "REFINE" if refine_ else "two steps"
                atk = {a["method"]: a for a in c.get("attacks", []) if a["family"] == "reassociation"}
                for m, who in (("ra", "RA (no knowledge)"), ("nba", "NBA, background: the second half")):
                    if m in atk:
                        print(_reassoc_row(name, "", who, atk[m], rel))
                ref = next((a for a in atk.values() if a.get("informed_reference")), None)
                if ref is not None:
                    print(_reference_row(name, ref, rel))


def knowledge(parts: list[tuple[str, list[dict]]]) -> None:
    """Re-association with knowledge (k = 3, m = 2, N = 30): RA, the paper's methods per measure,
    NBA with the background, the informed reference."""
    print("| dataset | knowledge | method | accuracy [95 % CI] | lift over budget-matched random [95 % CI] | "
          "transaction breakage (random) | k^m breakage (random) | s |")
    print("|---|---|---|---|---|---|---|---:|")
    for name, cs in parts:
        for c in cs:
            atk = [a for a in c.get("attacks", []) if a["family"] == "reassociation"]
            order = sorted(atk, key=lambda a: (a["method"] != "ra", a["method"] == "nba"))
            for a in order:
                m = a["method"]
                if m == "ra":
                    know, who = "none", "RA"
                elif m == "nba":
                    know, who = f"background: {Path(a['background'] or '').name}", "NBA"
                else:
                    meas = a["measure"] or ""
                    know = f"ngd ({Path(meas[4:]).name})" if meas.startswith("ngd:") else meas
                    who = m.upper()
                print(_reassoc_row(name, know, who, a))
            ref = next((a for a in atk if a.get("informed_reference")), None)
            if ref is not None:
                print(_reference_row(name, ref))


def unmarked(rows: list[dict]) -> None:
    """The attack on the marked and the unmarked release (the same k), every attack run."""
    print("| release | method | groups | eliminated | correct | precision [95 % CI] | recall (all added items) | "
          "error ratio vs random | AUC within |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|")
    atks = [(c, a) for c in rows for a in c.get("attacks", []) if a["family"] == "setgen" and not a.get("knowledge")]
    for c, a in sorted(atks, key=lambda ca: (ca[1]["method"] != "rba", ca[1]["method"], bool(ca[0]["cell"].get("unmarked")))):
        g = a["figures"]
        print(f"| {'unmarked' if c['cell'].get('unmarked') else 'marked'} | {a['method'].upper()} | {n(g.get('groups'))} | "
              f"{n(g.get('eliminated'))} | {n(g.get('correct'))} | {f(g.get('precision'))}{iv(g, 'precision')} | "
              f"{f(g.get('recall'))} | {f(g.get('error_ratio'))} | {f(g.get('auc_within_table'))} |")


def recovery(rows: list[dict]) -> None:
    """How exactly an unmarked release's groups come back, with k (from the sidecar) and without."""
    print("| k | true groups | recovered (k known) | exact | collisions | plain items absorbed | left plain (< k "
          "transactions) | added items reachable | thesis' rules alone: exact / groups | recovered (k unknown) | exact "
          "| seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for c in sorted(rows, key=lambda c: c["cell"]["k"]):
        u = c.get("unmarked")
        if not u:
            continue
        d, nk = u["k_known"], u["k_unknown"]
        ex, cl, r = d.get("exactness") or {}, d.get("cells") or {}, d.get("thesis_rules") or {}
        print(f"| {c['cell']['k']} | {n(ex.get('true_groups'))} | {n(ex.get('recovered_groups'))} | "
              f"{n(ex.get('exact_matches'))} | {n(ex.get('collided'))} | {n(ex.get('plain_items_absorbed'))} | "
              f"{n(ex.get('true_groups_below_support'))} | {n(cl.get('added_in_groups'))} / {n(cl.get('added_items'))} | "
              f"{n(r.get('exact_matches'))} / {n(r.get('recovered_groups'))} | "
              f"{n((nk.get('exactness') or {}).get('recovered_groups'))} | {n((nk.get('exactness') or {}).get('exact_matches'))} "
              f"| {d.get('seconds', 0):.2f} |")


def med(rows: list[dict]) -> None:
    """MED through extract: the papers' attack, every method (MDA included), every measure.  RA
    runs once (assess's, seed 0, under GloVe): the F1 lift over RA is given for GloVe's rows only."""
    print("| k | measure | method | AUC within [95 % CI] | density per item | precision [95 % CI] | recall (all added) "
          "| F1 | random same budget: P | error ratio vs it | F1 lift over RA |")
    print("|---:|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    for c in rows:
        if c["cell"]["family"] != "setgen":
            continue
        atk = [a for a in c.get("attacks", []) if a["family"] == "setgen" and not a.get("knowledge")]
        ra = next((a for a in atk if a["method"] == "ra"), None)
        ra_f1 = (ra or {}).get("figures", {}).get("f1")
        measures = list(dict.fromkeys(a["measure"] for a in atk if a["measure"]))
        for m in measures:
            for a in ([ra] if m == "embedding" else []) + [a for a in atk if a["measure"] == m]:
                if a is None:
                    continue
                g = a["figures"]
                lift = g["f1"] / ra_f1 if m == "embedding" and ra_f1 and g.get("f1") is not None else None
                name = "ngd" if m.startswith("ngd:") else m
                print(f"| {c['cell']['k']} | {name} | {a['method'].upper()} | {f(g.get('auc_within_table'))}"
                      f"{iv(g, 'auc_within_table', 2)} | {f(g.get('density_per_item'))} | {f(g.get('precision'))}"
                      f"{iv(g, 'precision', 2)} | {f(g.get('recall'))} | {f(g.get('f1'))} | "
                      f"{f((g.get('baseline') or {}).get('precision'))} | {f(g.get('error_ratio'), 2)} | {f(lift, 2)} |")


def med_knowledge(rows: list[dict]) -> None:
    """MED through extract with the other half as background: PBA and TBA on every knowledge
    table (the semantics table with NGD, as the papers), F1 lift over GloVe's RA."""
    print("| k | method | knowledge | AUC within [95 % CI] | precision [95 % CI] | recall (all added) [95 % CI] | F1 | "
          "F1 lift over RA | error ratio vs random | random same budget: P | popularity same budget: P / R / error ratio |")
    print("|---:|---|---|---|---|---|---:|---:|---:|---:|---|")
    for c in rows:
        if c["cell"]["family"] != "setgen":
            continue
        ra = next((a for a in c.get("attacks", []) if a["family"] == "setgen" and a["method"] == "ra"), None)
        ra_f1 = (ra or {}).get("figures", {}).get("f1")
        know = [a for a in c.get("attacks", []) if a.get("knowledge") and (a.get("measure") or "").startswith("ngd:")]
        # as the section lists them: PBA prior, the papers' attack (TBA semantics, once), PBA's
        # other tables, TBA's other tables
        order = [a for a in know if a["attack"].startswith("PBA on the prior")]
        order += [a for a in know if a["attack"].startswith("TBA on the semantics")][:1]
        order += [a for a in know if a["attack"].startswith("PBA") and "prior" not in a["attack"]]
        order += [a for a in know if a["attack"].startswith("TBA") and "semantics" not in a["attack"]]
        for a in order:
            g = a["figures"]
            base, pop = g.get("baseline") or {}, g.get("popularity") or {}
            lift = g["f1"] / ra_f1 if ra_f1 and g.get("f1") is not None else None
            print(f"| {c['cell']['k']} | {(a['method'] or '').upper()} | {a['knowledge']} | "
                  f"{f(g.get('auc_within_table'))}{iv(g, 'auc_within_table')} | {f(g.get('precision'))}{iv(g, 'precision')}"
                  f" | {f(g.get('recall'))}{iv(g, 'recall')} | {f(g.get('f1'))} | {f(lift, 2)} | "
                  f"{f(g.get('error_ratio'), 2)} | {f(base.get('precision'))} | {f(pop.get('precision'))} / "
                  f"{f(pop.get('recall') if pop.get('precision') is not None else None)} / {f(pop.get('error_ratio'), 2)} |")


def med_disassoc(rows: list[dict]) -> None:
    """MED through extract, disassociated: every re-association attack, and the k^m release's figures."""
    knowledge([("MED extract", [c for c in rows if c["cell"]["family"] == "disassoc"])])
    for c in rows:
        if c["cell"]["family"] != "km":
            continue
        u = c["utility"]
        print(f"\nk^m {c['label']}: NCP {f(u.get('ncp_hierarchy'), 4)} (over the hierarchy), generalised items "
              f"{n(u.get('generalised_items'))}, exact share {f(u.get('exact_share'), 4)}; check: "
              f"{c['check']['detail']}\n")
        print("| method | knowledge | measure | precision | recall (all added) | error ratio vs random | random P | "
              "density per item |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        for a in c.get("attacks", []):
            g = a["figures"]
            print(f"| {(a['method'] or '').upper()} | {a.get('knowledge') or '–'} | {a.get('measure') or '–'} | "
                  f"{f(g.get('precision'))} | {f(g.get('recall'))} | {f(g.get('error_ratio'), 2)} | "
                  f"{f((g.get('baseline') or {}).get('precision'))} | {f(g.get('density_per_item'))} |")


def km(rows: list[dict]) -> None:
    """k^m releases of MEPS against the papers' attack: each release's NCP and groups, and every
    attack with its error ratio against RA on the same release."""
    print("| release | NCP | groups | group rows | rows no attack could score | method | eliminated | added | density "
          "| AUC (pooled) | P | R | F1 | error ratio vs RA | exposed items |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in rows:
        p = c["cell"]
        name = (f"k^m, {Path(str(p.get('hierarchy'))).name if p.get('hierarchy') else 'fanout ' + str(p.get('fanout'))}"
                f", m = {p.get('m')}" if p["family"] == "km" else f"COAT-style k = {p['k']}")
        ncp = c["utility"].get("ncp_hierarchy", c["utility"].get("ncp"))
        atk = [a for a in c.get("attacks", []) if a["family"] == "setgen" and not a.get("knowledge")]
        ra = next((a for a in atk if a["method"] == "ra"), None)
        ra_p = (ra or {}).get("figures", {}).get("precision")
        for a in atk:
            g = a["figures"]
            rows_ = a.get("rows")
            unscored = 1 - a["attacked_rows"] / rows_ if rows_ and a.get("attacked_rows") is not None else None
            er = (1 - g["precision"]) / (1 - ra_p) if g.get("precision") is not None and ra_p not in (None, 1) else None
            print(f"| {name} | {f(ncp * 100 if ncp is not None else None, 1)} % | {n(g.get('groups'))} | {n(rows_)} | "
                  f"{f(unscored * 100 if unscored is not None else None, 1)} % | {a['method'].upper()} | "
                  f"{n(g.get('eliminated'))} | {n(g.get('added'))} | {f(g.get('density'))} | {f(g.get('auc_pooled'))} | "
                  f"{f(g.get('precision'))} | {f(g.get('recall'))} | {f(g.get('f1'))} | {f(er, 2)} | "
                  f"{n(a.get('exposed_items'))} of {n(a.get('member_items'))} |")


def structure(parts: list[tuple[str, list[dict]]], folder: Path) -> None:
    """Finding 1's table from the kept releases of the structure specs: per release its groups,
    their rows, the share of those rows with no plain item (no context for the papers' attack),
    the mean members of a generalised item and the largest group."""
    import numpy as np

    from semtui import formats

    print("| release | groups | group rows | rows without context | mean members per generalised item | "
          "largest group |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, rows in parts:
        for c in sorted(rows, key=lambda c: c["cell"]["k"]):
            path = Path(c["release"]) if Path(c["release"]).is_absolute() else folder / c["release"]
            data = formats.read_transactions(path)
            indptr, grows = data.groups()
            sizes = np.diff(indptr)
            lengths = data.lengths
            plain = np.bincount(data.row_of_token()[data.tokens >= 0], minlength=len(lengths))
            no_context = float((plain[grows] == 0).mean()) if len(grows) else 0.0
            members = np.diff(data.gen_indptr)
            print(f"| {name}, k={c['cell']['k']} | {data.n_generalised} | {int(sizes.sum()):,} | "
                  f"{100 * no_context:.1f} % | {members.mean():.1f} | {int(sizes.max()):,} |")


MULTI = {"cover": cover, "refine_cover": refine_cover, "refine": refine, "knowledge": knowledge}


def main() -> None:
    kind = sys.argv[1]
    if kind == "structure":  # NAME=RESULTS ...: the kept releases are read from RESULTS' folder
        parts = named(sys.argv[2:])
        structure(parts, Path(sys.argv[2].split("=", 1)[1]).parent)
        return
    if kind in MULTI:
        MULTI[kind](named(sys.argv[2:]))
        return
    path = sys.argv[2]
    opts = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    rows = cells(path)
    if kind == "unmarked":
        unmarked(rows)
    elif kind == "km":
        km(rows)
    elif kind in ("med", "med_knowledge", "med_disassoc"):
        {"med": med, "med_knowledge": med_knowledge, "med_disassoc": med_disassoc}[kind](rows)
    elif kind == "recovery":
        recovery(rows)
    elif kind == "strongest":
        strongest(rows, opts.get("--name", "MEPS half"), opts.get("--background", "meps-half2.txt"))
    elif kind == "methods":
        methods(rows)
    elif kind == "disassoc":
        disassoc(rows)
    else:
        raise SystemExit(f"unknown table {kind!r}: strongest, methods, disassoc, unmarked, recovery, "
                         f"{', '.join(MULTI)}")


if __name__ == "__main__":
    main()
