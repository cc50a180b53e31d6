"""An output path checked before anything is opened for writing (docs/truth.md §1, §4).

A command that writes a file refuses, before it reads or writes anything, an output that is one of
its inputs (the same file under any name), a directory, or a place it cannot write: a clean
one-line error (exit 2), the input untouched and nothing left behind.
"""
from __future__ import annotations

import os

from corpus.names import printable

from harness import HarnessError


def _same(a, b):
    """One file under two names (a link, another spelling), or the same name where none exists yet."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def check_output(path, flag, inputs=(), partial=False):
    """Raise HarnessError naming `flag` and the path when `path` cannot be this command's output.
    inputs: the command's input files (None entries ignored); partial: the command writes
    `path`.partial first and renames it, so that name must be free for a file too."""
    label = f"{flag} {printable(str(path))}"
    if not path:
        raise HarnessError(f"{flag}: an empty path")
    for p in filter(None, inputs):
        if _same(path, p):
            raise HarnessError(f"{label}: that is an input of this command ({printable(str(p))}); "
                               f"give another output path")
    for p in [path] + ([str(path) + ".partial"] if partial else []):
        if os.path.isdir(p):
            raise HarnessError(f"{flag} {printable(str(p))}: a directory, not a file")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise HarnessError(f"{label}: not writable")
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise HarnessError(f"{label}: cannot write there ({printable(parent)} is "
                           f"{'not a directory' if not os.path.isdir(parent) else 'not writable'})")
