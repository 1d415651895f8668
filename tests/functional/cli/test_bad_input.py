"""Every bad input ends with exit code 2 and one line on stderr naming the file (and line);
never a traceback, and the input file is left exactly as it was."""

from __future__ import annotations

import hashlib

import pytest

CASES = {
    "empty.txt": (b"", None),
    "blank.txt": (b"\n  \n\n", None),
    "latin1.txt": (b"fine, line\ncaf\xe9, x\n", 2),
    "garbage.bin": (b"\x00\x01\x02\xff\xfe binary \x00", 1),
    "unbalanced-open.txt": (b"a, b\nc, (d, e\n", 2),
    "unbalanced-close.txt": (b"a, b)\n", 1),
    "nested.txt": (b"ok\nx, (a, (b, c))\n", 2),
    "empty-group.txt": (b"a\nb\nc, ()\n", 3),
    "bad.dat": (b"1 2 3\n4 five 6\n", 2),
    "negative.dat": (b"1 2\n3 -7\n", 2),
    "bad.jsonl": (b'{"items": ["a"]}\n{"items": ["b"\n', 2),
    "schema.jsonl": (b'{"items": ["a"]}\n{"id": 3}\n', 2),
    "nested.jsonl": (b'{"items": [["a", ["b"]]]}\n', 1),
    "bad.json": (b'{"format": "semtui-disassociated/1",\n "k": 2,\n "m": }\n', 3),
    "schema.json": (b'{"format": "semtui-disassociated/1", "k": 2, "m": 2, "clusters": [{"record_chunks": [[["a", 3]]]}]}', None),
    "wrongformat.json": (b'{"format": "something-else/1"}', None),
}


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, name):
    content, line = CASES[name]
    path = tmp_path / name
    path.write_bytes(content)
    before = digest(path), path.stat().st_mtime_ns
    result = cli("info", path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0]
    if line is not None:
        assert f"{path}:{line}:" in lines[0]
    assert result.stdout == ""
    assert (digest(path), path.stat().st_mtime_ns) == before


@pytest.mark.slow
def test_missing_file_and_directory(cli, tmp_path):
    for target, words in [(tmp_path / "nope.txt", "no such file"), (tmp_path, "directory")]:
        result = cli("info", target)
        assert result.returncode == 2
        assert words in result.stderr and str(target) in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_unknown_format_and_usage_errors(cli, samples):
    result = cli("info", samples / "medical-setgen.txt", "--format", "nonsense")
    assert result.returncode == 2 and "nonsense" in result.stderr
    result = cli("info")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    result = cli("no-such-command")
    assert result.returncode == 2


def test_disassociated_key_that_does_not_match(tmp_path, samples):
    from semtui import formats
    from semtui.errors import InputError
    from semtui.formats.disassociated import read_key

    bad = tmp_path / "key.json"
    bad.write_text('{"format": "semtui-disassociation-key/1", "clusters": [{"id": "P1", "record_chunks": [[0]], "term_chunk": []}]}')
    data = formats.read(samples / "disassociated.json")
    from semtui.model.belongs import check_belongs

    with pytest.raises(InputError, match="do not match"):
        check_belongs(data, key=read_key(bad), key_path=bad)
