"""Chunk ids of an archive: `python -m corpus list [--grep PATTERN]`, and "did you mean" for a typo."""
from __future__ import annotations

import difflib
import re
import sys

from .names import counted, printable


def matching(ids, pattern=None):
    """The ids containing `pattern` (a case-insensitive regular expression), in archive order."""
    if not pattern:
        return list(ids)
    rx = re.compile(pattern, re.IGNORECASE)
    return [i for i in ids if rx.search(i)]


def did_you_mean(case, ids, n=3):
    """Up to n ids close to `case`: by spelling, else those sharing its member or chunk name."""
    close = difflib.get_close_matches(case, ids, n=n, cutoff=0.6)
    if close:
        return close
    member, _, name = case.partition("::")
    parts = [p for p in (member, name) if p]
    return [i for i in ids if any(p.lower() in i.lower() for p in parts)][:n]


def list_main(a):
    from . import open_corpus
    c = open_corpus(data=a.path, image=a.image, disc=a.disc)
    try:
        ids = matching(c.chunk_ids(), a.grep)
    except re.error as exc:
        print(f"error: --grep {printable(a.grep)}: not a regular expression ({exc})", file=sys.stderr)
        return 2
    for i in ids:
        print(printable(i))
    print(f"{counted(len(ids), 'chunk', sep='')} in {printable(c.label)}" + (f" matching {printable(a.grep)}" if a.grep else ""),
          file=sys.stderr)
    return 0 if ids else 1
