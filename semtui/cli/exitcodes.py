"""semtui's exit codes, in one place (docs/cli.md lists them for users).

=====  ==============================================================================
0      done; a check found nothing
1      a check found something (a violated privacy constraint, a k^m violation, a breach)
2      a usage or input error: one line on stderr naming the file (and line)
3      an internal error: a bug in semtui (the line asks to report it)
130    interrupted (Ctrl-C)
141    standard output was closed by its reader (``semtui ... | head``)
143    terminated (SIGTERM)
=====  ==============================================================================
"""

OK = 0
FOUND = 1
INPUT = 2
INTERNAL = 3
INTERRUPTED = 130
BROKEN_PIPE = 141
TERMINATED = 143
