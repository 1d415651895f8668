"""`semtui extract`: the thesis' rules (§5.1.1) on small hand-written documents, output aligned
document for document, and bad input as everywhere (one line naming the file and line, exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semtui import formats
from semtui.errors import InputError
from semtui.extract import ExtractOptions, Extractor, extract
from semtui.formats.text import EMPTY_TRANSACTION

pytest.importorskip("textblob")

DEFAULT = Extractor(ExtractOptions())


def items(text: str, **kw) -> list[str]:
    return (Extractor(ExtractOptions(**kw)) if kw else DEFAULT).items(text)


# --------------------------------------------------------------------------- the rules
def test_patterns_noun_noun_adjective_noun_noun():
    assert items("The patient had a long history of heart disease.") == ["patient", "long history", "heart disease"]
    assert items("The patient had a long history of heart disease.", patterns=("nn",)) == ["heart disease"]
    assert items("The patient had a long history of heart disease.", patterns=("jn",)) == ["long history"]
    assert items("The patient had a long history of heart disease.", patterns=("n",)) == [
        "patient", "history", "heart", "disease"]


def test_a_noun_inside_an_extracted_phrase_is_dropped():
    # "history" is inside "long history", "heart" and "disease" inside "heart disease"; "history"
    # alone later in the document is dropped too
    assert items("A long history of heart disease. The history was noted.") == ["long history", "heart disease"]
    assert items("A long history of heart disease. The history was noted.", drop_nested=False) == [
        "long history", "history", "heart disease", "heart", "disease"]


def test_singular_and_plural_are_one_item():
    assert items("Kidney stones. The kidney stone was removed.") == ["kidney stone"]
    assert items("The rats received insulin injections; the injection lowered glucose levels.") == [
        "rat", "insulin injection", "glucose level"]
    assert items("Kidney stones. The kidney stone was removed.", merge_plurals=False) == [
        "kidney stones", "kidney stone"]


def test_plural_forms_the_singulariser_gets_wrong():
    assert items("Viruses, stenoses, nystagmus and areas of carcinomas.") == [
        "virus", "stenosis", "nystagmus", "area", "carcinoma"]


def test_a_word_broken_at_a_line_end_is_joined():
    assert items("Acute renal fail-\nure in the ven- tricle.") == ["renal failure", "ventricle"]
    assert "ventricle" not in items("Acute renal fail-\nure in the ven- tricle.", join_broken=False)


def test_stop_words_are_never_items():
    assert items("Something about the others and this.") == []
    # "others" and "something" are nouns to the tagger: without the stop list they are items
    assert items("Something about the others and this.", stop_words=frozenset()) == ["something", "other"]
    assert items("The treatment of acute renal failure in children.",
                 stop_words=frozenset({"treatment"})) == ["renal failure", "child"]


def test_short_queries_are_items_as_they_are():
    assert items("cheap flights", queries=True) == ["cheap flights"]
    assert items("Insulin", queries=True) == ["insulin"]
    # three words or more go through the rules
    assert items("new york hotels", queries=True) == ["new york", "york hotel"]
    assert items("cheap flights") == ["cheap flight"]


def test_max_items_keeps_the_most_frequent_in_document_order():
    text = "Insulin and glucose. Insulin again, insulin. Glucose twice. A rat."
    assert items(text) == ["insulin", "glucose", "rat"]
    assert items(text, max_items=2) == ["insulin", "glucose"]


def test_items_can_always_be_written_in_the_text_format():
    got = items("Tumor (benign), cells/ml and 3-dimensional x-ray images; 5 mg of A-B, 10%.")
    assert got and all(not set(",()\n/") & set(i) and i != EMPTY_TRANSACTION for i in got)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(alphabet=st.sampled_from("abc XYZ.,()-;/\t1é"), max_size=30), min_size=1, max_size=8))
def test_output_is_aligned_line_for_line(tmp_path_factory, docs):
    """--lines: one transaction per line of the input, blank lines included, whatever the text."""
    tmp = tmp_path_factory.mktemp("align")
    src = tmp / "docs.txt"
    src.write_text("\n".join(d.replace("\n", " ") for d in docs) + "\n", encoding="utf-8")
    out = tmp / "out.txt"
    report = extract([src], out, opts=ExtractOptions(kind="lines"))
    lines = out.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == len(docs) == report.documents
    for line in lines:
        if line == EMPTY_TRANSACTION:
            continue
        assert not set("()/;\t") & set(line), line  # every item is writable as it is
        assert all(i and i == i.strip().lower() and i != EMPTY_TRANSACTION for i in line.split(", ")), line
    side = (tmp / "out.txt.sources.tsv").read_text().split("\n")[1:-1]
    assert [int(r.split("\t")[2]) for r in side] == list(range(1, len(docs) + 1))
    assert formats.read(out).n_transactions == len(docs)


# --------------------------------------------------------------------------- the command
SMART = """.I 1
.W
Insulin injections lowered glucose levels in diabetic rats.
.I 2
.T
.I 3
.W
Renal failure in children.
"""


def test_smart_collection_is_detected_and_an_empty_record_is_a_dash(semtui, tmp_path):
    src = tmp_path / "tiny.all"
    src.write_text(SMART, encoding="utf-8")
    out = tmp_path / "t.txt"
    r = semtui("extract", src, "-o", out)
    assert r.rc == 0, r.err
    assert out.read_text().split("\n") == ["insulin injection, glucose level, diabetic rat", EMPTY_TRANSACTION,
                                           "renal failure, child", ""]
    side = (tmp_path / "t.txt.sources.tsv").read_text().split("\n")
    assert side[0] == "document\tfile\tline\tid"
    assert side[1:4] == [f"1\t{src}\t1\t1", f"2\t{src}\t4\t2", f"3\t{src}\t6\t3"]
    assert oct(out.stat().st_mode & 0o777) == "0o600"  # the documents' content: private
    data = formats.read(out)
    assert data.n_transactions == 3 and data.lengths.tolist() == [3, 0, 2]


@pytest.mark.slow
def test_stdin_jsonl_and_split(semtui, tmp_path, cli):
    out = tmp_path / "q.txt"
    r = cli("extract", "-", "--lines", "--queries", "-o", out, input="cheap flights\n\nnew york hotels\n")
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "cheap flights\n-\nnew york, york hotel\n"
    assert "\t<stdin>\t2\t" in (tmp_path / "q.txt.sources.tsv").read_text()
    j = tmp_path / "notes.jsonl"
    j.write_text('{"id": "a7", "note": "Acute renal failure."}\n{"id": 8, "note": ""}\n', encoding="utf-8")
    r = semtui("extract", j, "--field", "note", "-o", out, "--json")
    assert r.rc == 0, r.err
    assert json.loads(r.out)["documents"] == 2
    assert out.read_text() == "renal failure\n-\n"
    assert (tmp_path / "q.txt.sources.tsv").read_text().split("\n")[1:3] == [f"1\t{j}\t1\ta7", f"2\t{j}\t2\t8"]
    s = tmp_path / "notes.txt"
    s.write_text("Heart disease.\n=== 2\nKidney stones.\nMore kidney stones.\n=== 3\n", encoding="utf-8")
    r = semtui("extract", s, "--split", r"=+ \d+", "-o", out)
    assert r.rc == 0, r.err
    assert out.read_text() == "heart disease\nkidney stone\n"


def test_min_df_drops_rare_items(semtui, tmp_path):
    src = tmp_path / "d.txt"
    src.write_text("Heart disease and asthma.\nHeart disease.\nGangrene.\n", encoding="utf-8")
    out = tmp_path / "o.txt"
    assert semtui("extract", src, "--lines", "--min-df", "2", "-o", out).rc == 0
    assert out.read_text() == "heart disease\nheart disease\n-\n"


@pytest.mark.parametrize(("content", "args", "needles"), [
    (b"Heart disease.\nbinary \x00 here\n", ["--lines"], ["d.txt:2", "binary"]),
    (b"Heart disease.\nbad \xff byte\n", ["--lines"], ["d.txt:2", "UTF-8"]),
    (b'{"text": "Heart disease."}\n{"body": "x"}\n', ["--jsonl", "--field", "text"], ["d.txt:2", "'text'"]),
    (b'{"text": "Heart disease."}\n{"text": \n', ["--jsonl"], ["d.txt:2", "JSON"]),
    (b"Heart disease.\n", ["--lines", "--patterns", "nn,vb"], ["--patterns", "vb"]),
    (b"Heart disease.\n", ["--lines", "--min-df", "0"], ["--min-df"]),
    (b"Heart disease.\n", ["--split", "(["], ["--split"]),
    (b"Heart disease.\n", ["--lines", "--smart"], ["--lines", "--smart"]),
])
def test_bad_input_is_one_line_exit_2(semtui, tmp_path, content, args, needles):
    src = tmp_path / "d.txt"
    src.write_bytes(content)
    out = tmp_path / "o.txt"
    out.write_text("old\n")
    r = semtui("extract", src, *args, "-o", out)
    assert r.rc == 2
    r.one_error_line(*needles)
    assert out.read_text() == "old\n"  # nothing written
    assert not (tmp_path / "o.txt.sources.tsv").exists()


def test_stdout_needs_a_named_sidecar(semtui, tmp_path):
    src = tmp_path / "d.txt"
    src.write_text("Heart disease.\n")
    r = semtui("extract", src, "--lines", "-o", "-")
    assert r.rc == 2
    r.one_error_line("--sidecar")
    r = semtui("extract", src, "--lines", "-o", "-", "--sidecar", tmp_path / "s.tsv")
    assert r.rc == 0 and r.out == "heart disease\n"


def test_without_the_extra_one_line_names_it(tmp_path):
    src = tmp_path / "d.txt"
    src.write_text("Heart disease.\n")
    code = ("import sys; sys.modules['textblob'] = None; from semtui.cli.main import run; "
            f"run(['extract', {str(src)!r}, '--lines', '-o', {str(tmp_path / 'o.txt')!r}])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "semtui[text]" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o.txt").exists()


def test_the_engine_refuses_an_unknown_kind():
    with pytest.raises(InputError, match="unknown document kind"):
        ExtractOptions(kind="pdf").validate()


@pytest.mark.slow
def test_med_extracts_every_abstract(shared_data, tmp_path, semtui):
    out = tmp_path / "med.txt"
    r = semtui("extract", shared_data / "med-medline-abstracts.all", "-o", out, "--json")
    assert r.rc == 0, r.err
    report = json.loads(r.out)
    assert report["documents"] == 1033
    data = formats.read(out)
    assert data.n_transactions == 1033
    side = (tmp_path / "med.txt.sources.tsv").read_text().split("\n")[1:-1]
    assert [r.split("\t")[3] for r in side] == [str(i) for i in range(1, 1034)]
    assert "renal failure" in data.vocab.items
