"""Chunk ids of an archive: `python -m corpus list [--grep PATTERN] [--check CHECK]`, and "did you mean"
for a typo."""
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


# The sub-record kinds (formats.md §4) each check compares: `corpus list --check C` keeps the chunks
# that hold one (the chunks the harness's C check applies to).
CHECK_RECORDS = {"controllers": (0x0102,), "materials": (0x0202,), "playback": (0x0102, 0x1901),
                 "notes": (0x0108,), "morph": (0x1901,), "fobj": (0x0101,)}


def with_records_for(corpus, ids, check):
    """The ids whose chunk holds a record `check` compares, in the order given."""
    kinds = CHECK_RECORDS[check]
    return [i for i in ids if any(corpus.chunk(i).anime.counts.get(k) for k in kinds)]


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
    if getattr(a, "check", None):
        ids = with_records_for(c, ids, a.check)
    for i in ids:
        print(printable(i))
    print(f"{counted(len(ids), 'chunk', sep='')} in {printable(c.label)}" + (f" matching {printable(a.grep)}" if a.grep else "")
          + (f" with records the {a.check} check compares" if getattr(a, "check", None) else ""), file=sys.stderr)
    return 0 if ids else 1
