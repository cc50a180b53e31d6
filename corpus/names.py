"""Names read from a data file (member FNAMEs, object names, chunk ids), shown and quoted safely.

A name comes from bytes an archive holds, so it may hold anything: quotes, `$(...)`, escape
sequences. Two rules keep it harmless wherever it goes:

* printable(name): what a person sees (terminal, HTML, JUnit): every character that is not
  printable is written as a backslash escape (\\x1b, \\u2028), so no escape sequence reaches a
  terminal and no control character reaches an XML file.
* shell_word(name): one shell word that a POSIX shell reads back as exactly `name`, made only of
  printable characters, so a printed command is safe to paste whatever the name holds.

is_synthetic(chunk id) tells a chunk built by code (`synthetic::...`) from an archive's.
"""
from __future__ import annotations

import re
import shlex

_SURROGATE_BYTES = re.compile("[\udc80-\udcff]")
SYNTHETIC = "synthetic::"      # the ids of every chunk built by code: the Modify blends and the edge chunks


def is_synthetic(cid) -> bool:
    """A chunk built by code (synthetic::..., corpus/synth/edge.py), counted apart from an
    archive's chunks."""
    return isinstance(cid, str) and cid.startswith(SYNTHETIC)


def _escape(ch: str) -> str:
    n = ord(ch)
    if n < 0x100:
        return f"\\x{n:02x}"
    return f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def printable(text) -> str:
    """`text` with every non-printable character (C0/C1 controls, DEL, format and separator
    characters) written as a \\x / \\u escape."""
    s = "" if text is None else str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


def printable_lines(text) -> str:
    """printable() of each line of a multi-line text, keeping its line breaks."""
    return "\n".join(printable(line) for line in str(text).split("\n"))


def shell_word(text) -> str:
    """One shell word for `text`, printable throughout.

    DECISION: a word with a non-printable character is written in ANSI-C quoting ($'...', in
    bash, zsh, ksh and POSIX.1-2024 sh); every other word is shlex.quote's single-quoted form,
    which any POSIX shell reads literally. A byte above 0x7F written as \\xNN reaches the program
    as a raw byte; from_argv() maps it back to the latin-1 character the name was decoded to.
    """
    s = str(text)
    if s.isprintable():
        return shlex.quote(s)
    out = []
    for ch in s:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(_escape(ch))
    return "$'" + "".join(out) + "'"


def from_argv(arg: str) -> str:
    """A name given on the command line: bytes that were not UTF-8 (Python's surrogate escapes)
    become the latin-1 characters that names are decoded to (corpus.ccsf, corpus.databin)."""
    return _SURROGATE_BYTES.sub(lambda m: chr(ord(m.group()) - 0xDC00), arg)


def counted(n, noun: str, plural: str | None = None, sep: str = ",") -> str:
    """'1 chunk', '2 chunks', '4,091 chunks', '1 mismatch', '3 mismatches': a count and its noun."""
    if plural is None:
        plural = noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
    number = f"{n:,}".replace(",", sep) if isinstance(n, int) else str(n)
    return f"{number} {noun if n == 1 else plural}"
