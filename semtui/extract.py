"""From documents to transactions, as the papers prepared their data (``semtui extract``).

Thesis §5.1.1 (Ong 2015): tag each document's words with a part-of-speech tagger; take the
items that follow the patterns Noun + Noun, Adjective + Noun and Noun; then drop stop words,
duplicates (singular and plural forms are one item) and a noun that already appears inside
an extracted phrase.  Search queries of one or two words are items as they are.  Every rule
is an option of :class:`ExtractOptions` whose default is the thesis'.

The tagger is TextBlob's pattern tagger (``PatternTagger``: a Brill tagger whose lexicon ships
inside the ``textblob`` wheel, so nothing is downloaded at run time; TextBlob's NLTK-backed
defaults, which download data, are never used).  It is the optional extra ``semtui[text]``.

Items are lower case; a word is letters, digits, ``-`` and ``'`` with at least one letter
(anything else — punctuation, numbers, ``a/b`` — breaks a pattern), so every item can be
written in the text format.  A stop word and a one-letter noun are never part of an item.
Singular and plural are merged by writing a plural noun (tagged NNS/NNPS) in its singular
form.  Before tagging, a word broken by a hyphen at a line's end (``frac-\ntion``, as the MED
abstracts are typeset) is joined (``join_broken``; not a rule of the thesis).

Output: one transaction per document, aligned document for document (a document with no
item is the text format's empty transaction ``-``), and a sidecar (TSV) naming each
document's source: ``document  file  line  id``.  Documents are streamed; with ``min_df`` > 1
the extracted items (not the text) are held until every document has been read.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from semtui.errors import InputError
from semtui.formats.documents import ByteCounter, Document, iter_sourced_documents, source_bytes
from semtui.formats.text import EMPTY_TRANSACTION
from semtui.reports import Report
from semtui.runtime.progress import ProgressCallback, no_progress

#: The thesis' patterns: Noun + Noun, Adjective + Noun, Noun.
PATTERNS = ("nn", "jn", "n")
DOCUMENT_KINDS = ("auto", "lines", "jsonl", "smart", "split", "text")
BACKENDS = ("pattern",)
EXTRA = "text"
#: The sidecar's columns.
SIDECAR_HEADER = "document\tfile\tline\tid"

_NOUN = frozenset({"NN", "NNS", "NNP", "NNPS"})
_PLURAL = frozenset({"NNS", "NNPS"})
_ADJECTIVE = frozenset({"JJ", "JJR", "JJS"})
_WORD = re.compile(r"^[^\W_][\w'-]*$")
#: a word broken across a line ("frac-\ntion") or by a hyphen and spaces ("ven- tricular")
_BROKEN = re.compile(r"(?<=[^\W\d_])-(?:[ \t]*\r?\n[ \t]*|[ \t]+)(?=[^\W\d_])")
#: plurals the pattern singulariser gets wrong in medical text (nystagmus -> nystagmu,
#: viruses -> viruse, stenoses -> stenose, data -> datum)
_SINGULAR = {"criteria": "criterion", "data": "data", "media": "media", "bacteria": "bacterium",
             "pancreas": "pancreas", "diabetes": "diabetes", "lens": "lens",
             # -oes of a noun in -oe, which the singulariser takes for -o (heroes -> hero): toes -> "to"
             "toes": "toe", "foes": "foe", "hoes": "hoe", "canoes": "canoe", "oboes": "oboe", "floes": "floe"}
_LETTER = re.compile(r"[^\W\d_]")

#: English function words and the vaguest nouns; a public-domain list in the spirit of the
#: SMART system's (the thesis does not name its list).
STOP_WORDS = frozenset("""
a about above across after afterwards again against all almost alone along already also although
always am among amongst an and another any anybody anyhow anyone anything anyway anywhere are
around as at be became because become becomes becoming been before beforehand behind being below
beside besides between beyond both but by can cannot could did do does doing done down during
each either else elsewhere enough etc even ever every everybody everyone everything everywhere
except few for former formerly from further had has have having he hence her here hereafter
hereby herein hers herself him himself his how however i ie if in indeed into is it its itself
just last latter latterly least less many may me meanwhile might mine more moreover most mostly
much must my myself neither never nevertheless next no nobody none noone nor not nothing now
nowhere of off often on once one ones only onto or other others otherwise our ours ourselves out
over own per perhaps please rather same several she should since so some somebody somehow someone
something sometime sometimes somewhere still such than that the their theirs them themselves
then thence there thereafter thereby therefore therein thereupon these they thing things this
those though through throughout thru thus to together too toward towards under until up upon us
very via was we well were what whatever when whence whenever where whereafter whereas whereby
wherein whereupon wherever whether which while whither who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves
""".split())


@dataclass(frozen=True)
class ExtractOptions:
    """How documents become transactions; every default is the thesis'."""

    kind: str = "auto"
    field: str = "text"
    split: str | None = None
    patterns: tuple[str, ...] = PATTERNS
    stop_words: frozenset[str] = STOP_WORDS
    merge_plurals: bool = True
    drop_nested: bool = True
    queries: bool = False
    min_df: int = 1
    max_items: int = 0
    backend: str = "pattern"
    join_broken: bool = True  # ours, not the thesis': join "frac-\ntion" before tagging

    def validate(self) -> None:
        if self.kind not in DOCUMENT_KINDS:
            raise InputError(f"unknown document kind {self.kind!r} (choose from {', '.join(DOCUMENT_KINDS)})")
        if self.kind == "split" and not self.split:
            raise InputError("--split needs a regular expression", option="split")
        bad = [p for p in self.patterns if p not in PATTERNS]
        if bad or not self.patterns:
            raise InputError(f"unknown pattern {', '.join(bad) or '(none)'} (choose from {', '.join(PATTERNS)})",
                             option="patterns")
        if self.min_df < 1:
            raise InputError("must be at least 1", option="min_df")
        if self.max_items < 0:
            raise InputError("must be 0 (no limit) or more", option="max_items")
        if self.backend not in BACKENDS:
            raise InputError(f"unknown backend {self.backend!r} (choose from {', '.join(BACKENDS)})",
                             option="backend")


def parse_patterns(text: str) -> tuple[str, ...]:
    """``"nn,jn,n"`` → ``("nn", "jn", "n")`` (order and duplicates do not matter)."""
    return tuple(dict.fromkeys(p.strip().lower() for p in text.split(",") if p.strip()))


def read_stop_words(path: str | Path) -> frozenset[str]:
    """A stop-word file: one word per line (``#`` starts a comment)."""
    from semtui.fileio import read_text

    text = read_text(path, allow_empty=True)
    return frozenset(w for line in text.split("\n") if (w := line.split("#", 1)[0].strip().lower()))


# --------------------------------------------------------------------------- the tagger
Tagger = Callable[[str], list[tuple[str, str]]]


_PATTERN: list = []  # the two modules, loaded once per process (the lexicon loads on first use)


def _pattern_modules():
    """``textblob.en`` (the pattern tagger) and ``textblob.en.inflect``, imported without
    running ``textblob/__init__.py``: that imports NLTK (about a second of start-up, none of it
    used here).  The two modules need only the standard library.  The package entries are
    taken out of ``sys.modules`` again, so that a later ``import textblob`` loads it whole."""
    if _PATTERN:
        return _PATTERN[0]
    _PATTERN.append(_load_pattern())
    return _PATTERN[0]


def _load_pattern():
    import importlib
    import importlib.util
    import sys

    spec = importlib.util.find_spec("textblob")
    if spec is None or sys.modules.get("textblob", True) is None:
        raise ImportError("textblob")
    if "textblob" in sys.modules:  # already imported whole: use it
        return importlib.import_module("textblob.en"), importlib.import_module("textblob.en.inflect")
    sys.modules["textblob"] = importlib.util.module_from_spec(spec)  # the package, its __init__ not run
    try:
        return importlib.import_module("textblob.en"), importlib.import_module("textblob.en.inflect")
    finally:
        for name in [n for n in sys.modules if n == "textblob" or n.startswith("textblob.")]:
            del sys.modules[name]


def pattern_tagger() -> Tagger:
    """TextBlob's pattern tagger (what ``textblob.en.taggers.PatternTagger().tag`` runs; offline:
    its lexicon is inside the wheel)."""
    try:
        en, _ = _pattern_modules()
    except ImportError:
        raise InputError("extract needs the optional extra 'text' (TextBlob's offline pattern tagger): "
                         "pip install 'semtui[text]'") from None
    tag = en.tag
    return lambda text: tag(text, tokenize=True)


def open_tagger(backend: str = "pattern") -> Tagger:
    if backend != "pattern":
        raise InputError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})", option="backend")
    return pattern_tagger()


def _singular() -> Callable[[str], str]:
    singularize = _pattern_modules()[1].singularize

    def singular(word: str) -> str:
        if word in _SINGULAR:
            return _SINGULAR[word]
        if word.endswith("uses"):  # viruses, fetuses
            return word[:-2]
        if word.endswith("oses"):  # stenoses, diagnoses
            return word[:-2] + "is"
        if word.endswith(("us", "is", "ss")):  # nystagmus, lupus, analysis, glass: already singular
            return word
        return singularize(word)

    return singular


# --------------------------------------------------------------------------- the rules
def items_of(tagged: Sequence[tuple[str, str]], opts: ExtractOptions,
             singularize: Callable[[str], str] | None = None) -> list[str]:
    """The items of one tagged document under the thesis' rules, in order of first
    occurrence."""
    return [item for item, _ in _counted_items(tagged, opts, singularize)]


#: (word, tag) -> (the word as an item's word, or None; "n" noun, "j" adjective, "" neither),
#: per option set; emptied when it grows past _MEMO_MAX (memory stays bounded)
_MEMO_MAX = 500_000


def _classify(word: str, tag: str, opts: ExtractOptions, singularize) -> tuple[str | None, str]:
    w = word.lower()
    if not _WORD.match(w) or not _LETTER.search(w) or w in opts.stop_words:
        return None, ""
    if tag in _NOUN:
        if len(w) < 2:  # a single letter ("group b, c") is no item, not even inside a phrase
            return None, ""
        if opts.merge_plurals and tag in _PLURAL and singularize is not None:
            w = singularize(w) or w
            if w in opts.stop_words or len(w) < 2:  # a plural of a stop word ("nos", "ones") is one too
                return None, ""
        return w, "n"
    if tag in _ADJECTIVE:
        return w, "j"
    return None, ""


def _counted_items(tagged, opts: ExtractOptions, singularize, memo: dict | None = None) -> list[tuple[str, int]]:
    if memo is None:
        memo = {}
    elif len(memo) > _MEMO_MAX:
        memo.clear()
    words: list[str | None] = []
    kinds: list[str] = []
    for token in tagged:
        got = memo.get(token)
        if got is None:
            got = memo[token] = _classify(token[0], token[1], opts, singularize)
        words.append(got[0])
        kinds.append(got[1])
    if opts.merge_plurals:
        _one_form(words, kinds)
    pats = set(opts.patterns)
    phrases: list[tuple[int, int, str]] = []
    nouns: list[tuple[int, int, str]] = []
    inside: set[str] = set()
    for i, k in enumerate(kinds):
        if k == "n" and "n" in pats:
            nouns.append((i, 1, words[i]))
        if i + 1 < len(kinds) and kinds[i + 1] == "n" and words[i] != words[i + 1]:
            if (k == "n" and "nn" in pats) or (k == "j" and "jn" in pats):
                phrases.append((i, 0, f"{words[i]} {words[i + 1]}"))
                inside.add(words[i + 1])
                if k == "n":
                    inside.add(words[i])
    # in the order they occur (a phrase before the noun it starts with)
    found = sorted(phrases + [n for n in nouns if not (opts.drop_nested and n[2] in inside)])
    counts = Counter(item for _, _, item in found)
    return [(item, counts[item]) for item in dict.fromkeys(item for _, _, item in found)]


#: how a plural noun ends, and what its singular ends with instead (the longest ending first)
_PLURAL_ENDINGS = (("ies", "y"), ("es", ""), ("s", ""))


def _one_form(words: list[str | None], kinds: list[str]) -> None:
    """A noun of one document written in one form (the thesis: singular and plural are one
    item): a plural the singulariser leaves as it is ("quarters": it knows "living quarters")
    or tags as a singular noun, beside its singular in the same document, becomes that
    singular.  Only nouns of this document are compared, so no word is changed for a
    singular it never meets ("news" stays, "new" being an adjective)."""
    nouns = {w for w, k in zip(words, kinds) if k == "n"}
    singular_of = {}
    for w in nouns:
        for ending, instead in _PLURAL_ENDINGS:
            if len(w) > len(ending) + 1 and w.endswith(ending) and (one := w[: -len(ending)] + instead) in nouns:
                singular_of[w] = one
                break
    if singular_of:
        for i, w in enumerate(words):
            if kinds[i] == "n" and w in singular_of:
                words[i] = singular_of[w]


def query_item(text: str) -> str | None:
    """A query of one or two words, as it is (lower case, spaces collapsed), or None.  Commas
    and brackets, which the text format cannot hold, become spaces."""
    words = re.sub(r"[,()]", " ", text).lower().split()
    if not words or len(words) > 2:
        return None
    item = " ".join(words)
    return None if item == EMPTY_TRANSACTION else item


class Extractor:
    """Documents to item lists, with one tagger loaded once."""

    def __init__(self, opts: ExtractOptions, tagger: Tagger | None = None):
        opts.validate()
        self.opts = opts
        self.tag = tagger or open_tagger(opts.backend)
        self.singularize = _singular() if opts.merge_plurals else None
        self._memo: dict = {}  # (word, tag) -> its class, for this extractor's options

    def items(self, text: str) -> list[str]:
        if not text.strip():
            return []
        if self.opts.queries:
            whole = query_item(text)
            if whole is not None:
                return [whole]
        if self.opts.join_broken:
            text = _BROKEN.sub("", text)
        counted = _counted_items(self.tag(text), self.opts, self.singularize, self._memo)
        if self.opts.max_items and len(counted) > self.opts.max_items:
            order = sorted(range(len(counted)), key=lambda j: -counted[j][1])[: self.opts.max_items]
            counted = [counted[j] for j in sorted(order)]
        return [item for item, _ in counted]


# --------------------------------------------------------------------------- the command
@dataclass
class ExtractReport(Report):
    """What ``extract`` wrote."""

    FORMAT = "semtui-extract/1"

    output: str
    sidecar: str
    documents: int
    empty: int
    items: int
    distinct_items: int
    dropped_by_min_df: int
    seconds: float
    bytes: int
    backend: str = "pattern"
    options: dict = field(default_factory=dict)

    def payload(self) -> dict:
        return {"output": self.output, "sidecar": self.sidecar, "documents": self.documents,
                "empty_transactions": self.empty, "items": self.items, "distinct_items": self.distinct_items,
                "dropped_by_min_df": self.dropped_by_min_df, "bytes_read": self.bytes,
                "seconds": round(self.seconds, 3), "backend": self.backend, "options": self.options}


def sidecar_path(output: str | Path) -> Path:
    return Path(f"{output}.sources.tsv")


def _sidecar_line(n: int, doc: Document) -> str:
    def clean(x) -> str:
        return "" if x is None else str(x).replace("\t", " ").replace("\n", " ")

    return f"{n}\t{clean(doc.file)}\t{clean(doc.line)}\t{clean(doc.id)}\n"


def documents(sources: Sequence[str | Path], opts: ExtractOptions,
              counter: ByteCounter | None = None) -> Iterator[Document]:
    """Every document of ``sources``, empty ones included (the shared reader of
    :mod:`semtui.formats.documents`)."""
    return iter_sourced_documents(sources, opts.kind, opts.field, opts.split, keep_empty=True, counter=counter)


def extract(sources: Sequence[str | Path], output: str | Path, *, sidecar: str | Path | None = None,
            opts: ExtractOptions = ExtractOptions(), progress: ProgressCallback = no_progress,
            tagger: Tagger | None = None) -> ExtractReport:
    """Write one transaction per document of ``sources`` to ``output`` and each document's
    source to ``sidecar`` (default ``OUTPUT.sources.tsv``), committed together (both private:
    they hold the documents' content)."""
    from semtui.fileio import writing_together

    opts.validate()
    if not sources:
        raise InputError("no source to extract from")
    for s in sources:
        if str(s) != "-" and not Path(s).exists():
            raise InputError("no such file", s)
    side = Path(sidecar) if sidecar is not None else sidecar_path(output)
    extractor = Extractor(opts, tagger)
    start = time.perf_counter()
    counter = ByteCounter()
    total = source_bytes(sources)
    n = empty = n_items = 0
    df: Counter = Counter()
    held: list[list[str]] = []
    progress(0, total, "extracting")
    last = 0.0
    with writing_together([(output, True), (side, True)]) as (out, src):
        src.write(SIDECAR_HEADER + "\n")
        for doc in documents(sources, opts, counter):
            n += 1
            items = extractor.items(doc.text)
            src.write(_sidecar_line(n, doc))
            if opts.min_df > 1:
                df.update(items)
                held.append(items)
            else:
                df.update(items)
                n_items += len(items)
                empty += not items
                out.write(", ".join(items) + "\n" if items else EMPTY_TRANSACTION + "\n")
            now = time.monotonic()
            if now - last > 0.1:
                last = now
                progress(counter.done, total, f"{n:,} documents")
        dropped = 0
        if opts.min_df > 1:
            keep = {i for i, c in df.items() if c >= opts.min_df}
            dropped = len(df) - len(keep)
            for items in held:
                kept = [i for i in items if i in keep]
                n_items += len(kept)
                empty += not kept
                out.write(", ".join(kept) + "\n" if kept else EMPTY_TRANSACTION + "\n")
            distinct = len(keep)
        else:
            distinct = len(df)
        if n == 0:
            raise InputError("the sources hold no document", sources[0])
    progress(total, total, f"{n:,} documents")
    options = {"kind": opts.kind, "patterns": list(opts.patterns), "merge_plurals": opts.merge_plurals,
               "drop_nested": opts.drop_nested, "queries": opts.queries, "min_df": opts.min_df,
               "max_items": opts.max_items, "stop_words": len(opts.stop_words),
               "join_broken": opts.join_broken}
    return ExtractReport(str(output), str(side), n, empty, n_items, distinct, dropped,
                         time.perf_counter() - start, counter.done, opts.backend, options)
