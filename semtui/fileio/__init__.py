"""Reading input safely and writing output atomically: the one place semtui touches files.

No other module of semtui opens a file for writing, renames one into place or makes a
temporary file (tests/unit/test_one_writer.py checks it).  One module a job:

* :mod:`~semtui.fileio.reading`: every input read once (a stream's bytes held for the next
  reader), checked readable, decoded as UTF-8 or parsed as JSON with errors naming the line;
* :mod:`~semtui.fileio.lines`: text read a line at a time (:class:`TextLines`);
* :mod:`~semtui.fileio.preflight`: the refusals made before any work (:func:`check_outputs`);
* :mod:`~semtui.fileio.writing`: outputs written to temporary files and renamed into place
  together (:func:`write_together`, :func:`atomic_writer`, :func:`output_path`), or grown a
  whole line at a time (:func:`append_line`);
* :mod:`~semtui.fileio.spool`: lists and arrays kept on disk (:class:`Spool`, :class:`DiskArray`);
* :mod:`~semtui.fileio.private`: the score cache's private folder and database, and scratch
  folders removed with everything in them.

Callers import the names below from ``semtui.fileio``.
"""

from semtui.fileio.lines import TextLines, decoded_lines, iter_lines
from semtui.fileio.preflight import check_inputs, check_outputs
from semtui.fileio.private import (
    ScratchFolder,
    held_folder,
    private_file,
    private_folder,
    remove_process_scratch,
    scratch_files,
)
from semtui.fileio.reading import (
    STDIN,
    STDOUT,
    check_readable,
    decode_text,
    display_name,
    held,
    held_stream,
    identity,
    is_regular,
    is_stdin,
    is_stdout,
    on_disk,
    parse_json,
    read_bytes,
    read_head,
    read_text,
)
from semtui.fileio.spool import DiskArray, Spool, drop_pages
from semtui.fileio.writing import (
    STDOUT_NAME,
    PendingOutput,
    append_line,
    atomic_writer,
    claim_stdout,
    committed,
    discard_stdout,
    held_for_appending,
    output_path,
    rehold,
    reset,
    stdout_output,
    write_error,
    write_together,
    writing_together,
)

__all__ = [
    "STDIN", "STDOUT", "STDOUT_NAME", "DiskArray", "PendingOutput", "ScratchFolder", "Spool", "TextLines",
    "append_line", "atomic_writer", "check_inputs", "check_outputs", "check_readable", "claim_stdout",
    "committed", "decode_text", "decoded_lines", "discard_stdout", "display_name", "drop_pages", "held",
    "held_folder", "held_for_appending", "held_stream", "identity", "is_regular", "is_stdin", "is_stdout", "iter_lines", "on_disk", "output_path",
    "parse_json", "private_file", "private_folder", "read_bytes", "read_head", "read_text",
    "rehold", "remove_process_scratch", "reset", "scratch_files", "stdout_output", "write_error", "write_together",
    "writing_together",
]
