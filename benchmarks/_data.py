"""Datasets the benchmark scripts share: MEPS split in halves, MED as content words or through
`semtui extract`, setgen releases of them, the ICD-9 hierarchy renamed to MEPS's condition
names; and the no-op measure of the runs that need none.  (Moved here from the scripts that
used to import one another: attack_experiment, extract_experiment, meps_km_experiment,
disassoc_knowledge.)"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from _util import SHARED_DATA, env_for, semtui

from semtui import formats
from semtui.measures.base import Measure
from semtui.model import TransactionBuilder, TransactionData

DATA = SHARED_DATA if SHARED_DATA.exists() else Path("/work/shared/data")
MEPS = SHARED_DATA / "meps2005-conditions.txt"
MED = SHARED_DATA / "med-medline-abstracts.all"


def split_meps(work: Path) -> tuple[TransactionData, Path]:
    """MEPS's first half (the release's patients) and the NGD index of the second half."""
    from semtui.corpus import build_index

    whole = formats.read(MEPS)
    half = whole.n_transactions // 2
    first, second = TransactionBuilder(), TransactionBuilder()
    for i in range(whole.n_transactions):
        (first if i < half else second).add(whole.token_names(i))
    corpus = work / "meps-half2.txt"
    formats.write(second.build(), corpus)
    index = work / "meps-half2.sqlite"
    if not index.exists():
        build_index([corpus], index, kind="transactions")
    return first.build(), index


def med_abstracts() -> list[tuple[int, str]]:
    """MED's abstracts: (their .I number, their text on one line)."""
    text = MED.read_text(encoding="utf-8", errors="replace")
    docs = []
    for block in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        number, _, rest = block.partition("\n")
        body = rest.split(".W", 1)[-1]
        docs.append((int(number.strip()), " ".join(body.split())))
    return docs


def med_transactions(work: Path) -> tuple[TransactionData, Path]:
    """The even abstracts as transactions of their content words (words of >= 4 letters found
    in 5 to 30 % of the abstracts) and the NGD index of the odd abstracts' text (the
    construction before issue 25)."""
    from semtui.corpus import build_index

    docs = med_abstracts()
    words = [sorted(set(re.findall(r"[a-z][a-z\-]{3,}", body.lower()))) for _, body in docs]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(docs)
    keep = {w for w, c in df.items() if 5 <= c <= 0.3 * n}
    even = TransactionBuilder()
    odd_lines = []
    for (number, body), ws in zip(docs, words):
        if number % 2 == 0:
            even.add([w for w in ws if w in keep])
        else:
            odd_lines.append(body)
    corpus = work / "med-odd.txt"
    corpus.write_text("\n".join(odd_lines) + "\n", encoding="utf-8")
    index = work / "med-odd.sqlite"
    if not index.exists():
        build_index([corpus], index, kind="lines")
    return even.build(), index


def med_words(work: Path) -> tuple[Path, Path]:
    """MED as content words, as the MED specs read it (strongest_med.toml, knowledge_med.toml):
    WORK/med-words-even.txt, the even abstracts' words found in 5-30 % of the abstracts
    (:func:`med_transactions`, which also writes med-odd.txt and its index med-odd.sqlite), and
    WORK/med-words-odd.txt, the odd abstracts' distinct words of >= 4 letters (the background).
    Written once."""
    even_path, odd_path = work / "med-words-even.txt", work / "med-words-odd.txt"
    if not odd_path.exists():
        even, _ = med_transactions(work)
        formats.write(even, even_path)
        odd = TransactionData.from_lists([sorted(set(re.findall(r"[a-z][a-z\-]{3,}", body.lower())))
                                          for number, body in med_abstracts() if number % 2])
        formats.write(odd, odd_path)
    return even_path, odd_path


def bms_halves(work: Path, n: int) -> tuple[Path, Path, Path]:
    """BMS-WebView-N whole (WORK/bmsN.txt) and split in halves by line, blank lines dropped
    (WORK/bmsN-half1.txt the release's sessions, bmsN-half2.txt the attacker's), as the BMS specs
    read them.  Written once."""
    import shutil

    whole, first, second = work / f"bms{n}.txt", work / f"bms{n}-half1.txt", work / f"bms{n}-half2.txt"
    if not whole.exists():
        shutil.copyfile(DATA / f"bms-webview-{n}.dat", whole)
    if not second.exists():
        rows = [ln + "\n" for ln in whole.read_text(encoding="utf-8").splitlines() if ln.strip()]
        half = len(rows) // 2
        first.write_text("".join(rows[:half]), encoding="utf-8")
        second.write_text("".join(rows[half:]), encoding="utf-8")
    return whole, first, second


def anonymised(data: TransactionData, work: Path, stem: str, ks: list[int], n: int, sizes: tuple[int, int]) -> dict:
    """COAT-style releases of ``data`` (``n`` random privacy constraints of ``sizes`` items,
    seed 1) at each k, written once to WORK/STEM-kK.txt."""
    from semtui.anonymize.setgen import anonymize, random_privacy

    privacy = random_privacy(data, n, sizes, seed=1)
    out = {}
    for k in ks:
        path = work / f"{stem}-k{k}.txt"
        if not path.exists():
            formats.write(anonymize(data, privacy, k).data, path)
        out[k] = path
    return out


def med_extract(work: Path) -> tuple[Path, Path, Path, Path]:
    """MED through `semtui extract` (issue 25): the even abstracts' transactions (the original),
    the odd ones' (the background), the odd abstracts' text and its NGD index, in WORK."""
    from semtui.formats.documents import iter_sourced_documents

    def run(*args: str) -> str:
        r = semtui(*args, env=env_for(), check=False)
        if r.returncode:
            raise SystemExit(f"semtui {' '.join(args)}: {r.stderr}")
        return r.stderr.strip()

    ext = work / "med-extract.txt"
    t0 = time.perf_counter()
    print(f"`semtui extract`: {run('extract', str(MED), '-o', str(ext))} — {time.perf_counter() - t0:.1f} s "
          "for the whole command\n")
    lines = ext.read_text(encoding="utf-8").split("\n")[:-1]
    ids = [row.split("\t")[3] for row in (ext.parent / (ext.name + ".sources.tsv")).read_text().split("\n")[1:-1]]
    assert len(ids) == len(lines)
    even = [ln for ln, i in zip(lines, ids) if int(i) % 2 == 0]
    odd = [ln for ln, i in zip(lines, ids) if int(i) % 2 == 1]
    original, background = work / "med-extract-even.txt", work / "med-extract-odd.txt"
    original.write_text("\n".join(even) + "\n", encoding="utf-8")
    background.write_text("\n".join(odd) + "\n", encoding="utf-8")
    texts = [" ".join(d.text.split()) for d in iter_sourced_documents([MED], "smart") if int(d.id) % 2 == 1]
    corpus = work / "med-odd-abstracts.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    index = work / "med-odd.sqlite"
    run("corpus", "build", "--lines", str(corpus), "-o", str(index))
    return original, background, corpus, index


def names_hierarchy():
    """The shipped ICD-9 hierarchy with its 3-digit code leaves renamed to MEPS's condition
    names (the data README's substitutions: ',' -> ';', '(' and ')' -> ' - ')."""
    from semtui.formats.hierarchy import read_hierarchy
    from semtui.model.hierarchy import Hierarchy

    h = read_hierarchy(DATA / "icd9.hierarchy.txt")
    names = {}
    for line in (DATA / "icd9-3digit-names.tsv").read_text().splitlines():
        code, name = line.split("\t")
        names[code] = name.replace(",", ";").replace("(", " - ").replace(")", " - ")
    labels = [names.get(lab, lab) if h.is_leaf[v] else lab for v, lab in enumerate(h.labels)]
    if len(set(labels)) != len(labels):
        sys.exit("two ICD-9 codes share a name: the renamed hierarchy would merge them")
    return Hierarchy(labels, h.parent)


class NoMeasure(Measure):
    """RA and NBA score nothing with a measure; this keeps the run from opening one."""

    kind = "similarity"
    name = "none"

    def _matrix(self, a, b):
        import numpy as np

        return np.zeros((len(a), len(b)))


def meps_disassociated(work: Path, stem: str = "meps-disassoc") -> tuple[Path, Path]:
    """All of MEPS disassociated as the assess benchmarks measure it (k = 3, m = 2, clusters <= 30,
    REFINE) and its key: ``WORK/STEM.json`` and ``WORK/STEM.key.json``, made once."""
    dis, key = work / f"{stem}.json", work / f"{stem}.key.json"
    if not (dis.exists() and key.exists()):
        semtui("anonymize", "disassoc", SHARED_DATA / "meps2005-conditions.txt", "-k", 3, "-m", 2,
               "--max-cluster-size", 30, "-o", dis, "--key", key, env=env_for())
    return dis, key


def first_paint_releases(work: Path) -> dict[str, list[str]]:
    """The first-paint releases of issue 39 (bench_tui_waits.py, bench_tui_paint_tmux.py) (made once into ``work``): name -> release and its companions."""
    meps, bms2 = SHARED_DATA / "meps2005-conditions.txt", SHARED_DATA / "bms-webview-2.dat"
    out = {
        "setgen MEPS k=3 + original": (["anonymize", "setgen", meps, "-k", 3, "--random-privacy", 300, "--sizes",
                                        "3-6", "--seed", 1, "-o", work / "meps-setgen.txt"],
                                       [work / "meps-setgen.txt", f"original={meps}"]),
        "disassoc BMS-WebView-2 + key + original": (
            ["anonymize", "disassoc", bms2, "-k", 5, "-m", 2, "--max-cluster-size", 30, "-o", work / "bms2.json",
             "--key", work / "bms2.key.json"],
            [work / "bms2.json", f"key={work / 'bms2.key.json'}", f"original={bms2}"]),
        "k^m BMS-WebView-2 + report": (
            ["anonymize", "km", bms2, "--hierarchy", SHARED_DATA / "bms-webview-2.hierarchy.txt", "-k", 5, "-m", 2,
             "-o", work / "bms2-km.txt"],
            [work / "bms2-km.txt", f"report={work / 'bms2-km.txt.json'}"]),
        "k^m MEPS + report": (
            ["anonymize", "km", meps, "--hierarchy", work / "meps-h.txt", "-k", 5, "-m", 2, "-o", work / "meps-km.txt"],
            [work / "meps-km.txt", f"report={work / 'meps-km.txt.json'}"]),
    }
    if not (work / "meps-h.txt").exists():
        semtui("hierarchy", "build", meps, "--fanout", 5, "--order", "support", "-o", work / "meps-h.txt")
    for make, opened in out.values():
        if not Path(opened[0]).exists():
            semtui(*make)
    return {name: [str(a) for a in opened] for name, (_, opened) in out.items()}
