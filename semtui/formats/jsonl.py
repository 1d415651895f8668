"""JSON Lines transactions: ``{"id": ..., "items": ["a", ["b", "c"], "d"]}`` per line.

A nested list is a generalised item (its members).  ``id`` is optional.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from semtui.errors import InputError
from semtui.fileio import atomic_writer, read_text
from semtui.model import TransactionBuilder, TransactionData

SUFFIXES = {".jsonl", ".ndjson"}


def _item(value, path, lineno, *, nested: bool):
    if isinstance(value, str):
        if not value.strip():
            raise InputError("empty item name", path, lineno)
        return value.strip()
    if isinstance(value, list) and not nested:
        if not value:
            raise InputError("empty generalised item []", path, lineno)
        members = [_item(v, path, lineno, nested=True) for v in value]
        members = list(dict.fromkeys(members))
        return members if len(members) > 1 else members[0]
    if isinstance(value, list):
        raise InputError("nested generalised item: members must be strings", path, lineno)
    raise InputError(f"an item must be a string or a list of strings, got {type(value).__name__}", path, lineno)


def json_objects(text: str, path: str | Path) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line; anything but a JSON object is an
    InputError naming the line.  Shared by every reader of JSON Lines."""
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path, lineno) from None
        except RecursionError:
            raise InputError("invalid JSON: nested too deeply", path, lineno) from None
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", path, lineno)
        yield lineno, obj


def read_jsonl(path: str | Path) -> TransactionData:
    text = read_text(path)
    builder = TransactionBuilder()
    ids: list = []
    has_id = False
    for lineno, obj in json_objects(text, path):
        items = obj.get("items")
        if not isinstance(items, list):
            raise InputError("missing 'items' list", path, lineno)
        tokens = [_item(v, path, lineno, nested=False) for v in items]
        builder.add(tokens, lineno)
        if "id" in obj:
            has_id = True
        ids.append(obj.get("id"))
    if not builder.lines:
        raise InputError("no transactions in file", path)
    return builder.build(ids=ids if has_id else None)


def write_jsonl(data: TransactionData, path: str | Path) -> None:
    with atomic_writer(path) as fh:
        for i in range(data.n_transactions):
            obj = {"id": data.ids[i] if data.ids is not None else i, "items": data.token_names(i)}
            fh.write(json.dumps(obj, ensure_ascii=False))
            fh.write("\n")
