"""Refusals made before any work is done: standard input given for two inputs, an output
that would overwrite an input, two outputs that are one file, an output whose folder is
missing or not writable (:func:`check_inputs`, :func:`check_outputs`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from semtui.errors import InputError
from semtui.fileio.reading import is_regular, is_stdin, is_stdout
from semtui.fileio.writing import claim_stdout


def _named(outputs) -> list[tuple[str | None, Path]]:
    items = outputs.items() if isinstance(outputs, Mapping) else ((None, o) for o in outputs)
    return [(name, Path(o)) for name, o in items if o is not None]


def check_inputs(inputs: Mapping[str, str | Path | Sequence[str | Path] | None] | Sequence[str | Path | None]) -> None:
    """Refuse, before anything is read, standard input (``-``) given for more than one input:
    a stream can be read once, and the second reader would get the first one's bytes.

    ``inputs`` maps each input's name (``"DATA"``, ``"--original"``) to its path (or a list of
    paths), or lists the paths.  Every command that reads several inputs calls this (through
    :func:`check_outputs` where it writes too)."""
    items = inputs.items() if isinstance(inputs, Mapping) else ((None, i) for i in inputs)
    readers: list[str | None] = []
    for name, value in items:
        for path in (value if isinstance(value, (list, tuple)) else [value]):
            if path is not None and is_stdin(path):
                readers.append(name)
    if len(readers) < 2:
        return
    names = list(dict.fromkeys(r for r in readers if r))
    who = " and ".join(names) if len(names) == len(readers) else f"{len(readers)} inputs"
    raise InputError(f"standard input ('-') is given for {who}: it can be read only once; give all but one "
                     "of them a file name")


def check_outputs(outputs: Mapping[str, str | Path | None] | list[str | Path | None],
                  inputs: Mapping[str, str | Path | Sequence[str | Path] | None] | Sequence[str | Path | None], *,
                  stdout_taken: str | None = None) -> None:
    """Refuse, before any work is done, outputs that would overwrite an input, two outputs
    that are the same file, and outputs whose folder is missing or not writable.

    ``outputs`` maps each output's option (``"-o"``, ``"--report"``) to its path, or lists the
    paths.  ``-`` is standard output: at most one output may go there, and not when
    ``stdout_taken`` names an option that prints there already (``"--json"``).  The output
    that goes there is remembered (:func:`stdout_output`): the command then prints its
    summary on stderr.  ``inputs`` as :func:`check_inputs` takes them (which it calls).
    """
    check_inputs(inputs)
    if isinstance(inputs, Mapping):
        inputs = [p for v in inputs.values() for p in (v if isinstance(v, (list, tuple)) else [v])]
    named = _named(outputs)
    to_stdout = [name or "an output" for name, o in named if is_stdout(o)]
    if len(to_stdout) > 1:
        raise InputError(f"{' and '.join(to_stdout)} both write to standard output ('-'): give all but one "
                         "of them a file name")
    if to_stdout and stdout_taken:
        raise InputError(f"{to_stdout[0]} - writes to standard output, where {stdout_taken} prints too: "
                         f"give {to_stdout[0]} a file name or drop {stdout_taken}")
    ins = [Path(i) for i in inputs if i is not None and not is_stdin(i)]
    seen: dict[Path, Path] = {}
    for _, out in named:
        if is_stdout(out):
            continue
        real = out.resolve()
        if any(real == src.resolve() for src in ins) and is_regular(real):
            raise InputError("output would overwrite an input file", out)
        if real in seen:
            raise InputError(f"two outputs are the same file ({seen[real]})", out)
        seen[real] = out
        if out.is_dir():
            raise InputError("is a directory, not a file", out)
        if out.exists() and not is_regular(real):
            continue  # a device or a FIFO, written in place
        folder = real.parent
        if not folder.is_dir():
            raise InputError("output directory does not exist", out)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError("output directory is not writable", out)
    if to_stdout:
        claim_stdout(to_stdout[0])
