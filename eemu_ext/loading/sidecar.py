"""The symbol sidecar of a stripped executable: ``<executable>.syms``, the users' format (volumes.md §2).

One symbol a line, tab-separated: ``section va size type name [how]``. The section is ``main`` or an
overlay's bare name (``gcmn``, ``demo``, ``desktop``, ``toppage``; the reader appends ``.prg``); va is
hexadecimal, with or without ``0x``; size is decimal; the type is ``FUNC`` or ``OBJECT``; the optional
``how`` names the pass that carried the name (``exact``, ``call``, ``order``, ...). The later volumes of
the game ship stripped, and this file is where their symbols live. A malformed line is an ElfError
that names ``file:line`` and what is wrong with it; a field is quoted short, never printed raw.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional

from eemu_ext.errors import ElfError
from eemu_ext.loading.overlays import OVERLAYS

MAIN = "main"
KINDS = ("FUNC", "OBJECT")
BARE = tuple(o[:-len(".prg")] for o in OVERLAYS)
HOWS = ("exact", "call", "order", "data", "pointer", "content", "layout", "ref")
# The passes without a measured error rate (volumes.md §2, §7.2): a name carried by another one is
# refused for a function the harness calls or stubs unless confirmed (harness/executable.py).
TRUSTED_HOWS = ("exact", "call")
_DEC = re.compile(r"[0-9]{1,10}\Z")
_NAME = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*\Z")
_HEX = re.compile(r"(0[xX])?[0-9A-Fa-f]{1,8}\Z")
MAX_LINE = 4096
# DECISION: a sidecar holds at most MAX_BYTES: the retail executable's 35,383 symbols at up to
# 120 characters a line are about 4 MiB; a larger file is refused before it is read.
MAX_BYTES = 16 << 20


class SidecarError(ElfError):
    """A sidecar that cannot be read, or a malformed line of one (the message starts file:line)."""


@dataclass(frozen=True)
class SideSymbol:
    section: str          # 'main' or an overlay section name ('gcmn.prg')
    va: int
    size: int
    kind: str             # 'FUNC' | 'OBJECT'
    name: str
    line: int
    how: Optional[str] = None   # the carrying pass, None when the line has no sixth column


def beside(image_path: str) -> Optional[str]:
    """``<image>.syms`` when that file exists, else None."""
    path = os.fspath(image_path) + ".syms"
    return path if os.path.isfile(path) else None


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _va(path, n, text) -> int:
    if not _HEX.match(text):
        raise SidecarError(f"{path}:{n}: va {_short(text)} is not a hexadecimal number (0x00100000)")
    return int(text, 16)


def _size(path, n, text) -> int:
    # DECISION: the size is decimal and at most 32 bits; a hex size (0x64), which stops the users'
    # own reader, is refused naming the line.
    if not _DEC.match(text) or int(text) > 0xFFFFFFFF:
        raise SidecarError(f"{path}:{n}: size {_short(text)} is not a decimal number of bytes "
                           f"(the sidecar's sizes are decimal, volumes.md §2)")
    return int(text)


def parse_line(path: str, n: int, line: str) -> Optional[SideSymbol]:
    """The symbol of line n, None for a blank line or a '#' comment; SidecarError when malformed."""
    # DECISION: blank lines, '#' comments and a trailing CR are allowed; the separator is the tab.
    text = line.rstrip("\r\n")
    if len(text) > MAX_LINE:
        raise SidecarError(f"{path}:{n}: line of {len(text)} characters (at most {MAX_LINE})")
    if not text.strip() or text.lstrip().startswith("#"):
        return None
    fields = text.split("\t")
    if len(fields) not in (5, 6):
        raise SidecarError(f"{path}:{n}: {len(fields)} tab-separated fields, expected 5 or 6 "
                           f"(section va size type name [how])")
    section, va, size, kind, name, *rest = (f.strip() for f in fields)
    # DECISION: a section other than main and the four bare overlay names, which the users' reader
    # skips, is refused here: a skipped line could hold a function the harness calls.
    if section != MAIN:
        if section not in BARE:
            raise SidecarError(f"{path}:{n}: section {_short(section)} is neither main nor an overlay's bare "
                               f"name ({', '.join(BARE)})")
        section += ".prg"
    va_i = _va(path, n, va)
    size_i = _size(path, n, size)
    if kind not in KINDS:
        raise SidecarError(f"{path}:{n}: type {_short(kind)} is neither FUNC nor OBJECT")
    if not _NAME.match(name):
        raise SidecarError(f"{path}:{n}: name {_short(name)} is not a symbol name")
    how = rest[0] if rest and rest[0] else None
    if how is not None and how not in HOWS:
        raise SidecarError(f"{path}:{n}: how {_short(how)} is not a carrying pass ({', '.join(HOWS)})")
    return SideSymbol(section, va_i, size_i, kind, name, n, how)


def read_sidecar(path) -> List[SideSymbol]:
    """Every symbol of the sidecar at path, in file order."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as e:
        raise SidecarError(f"{path}: cannot read the symbol sidecar: {e.strerror or e}") from None
    if len(raw) > MAX_BYTES:
        size = os.path.getsize(path) if os.path.isfile(path) else len(raw)
        raise SidecarError(f"{path}: {size} bytes, larger than a symbol sidecar may be ({MAX_BYTES} bytes)")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise SidecarError(f"{path}:{line}: not ASCII text (byte 0x{raw[e.start]:02x} at offset {e.start})") from None
    out = []
    seen = {}                 # name -> the symbols of that name so far
    for n, line in enumerate(text.split("\n"), 1):
        sym = parse_line(path, n, line)
        if sym is not None:
            for other in seen.get(sym.name, ()):
                if _together(other.section, sym.section):
                    where = sym.section if sym.section == other.section else f"{other.section} and {sym.section}"
                    raise SidecarError(f"{path}:{n}: {sym.name} is listed twice in {where}, at lines "
                                       f"{other.line} and {n}")
            seen.setdefault(sym.name, []).append(sym)
            out.append(sym)
    return out


def _together(a: str, b: str) -> bool:
    """Whether symbols of sections a and b can resolve at once. DECISION: a name listed twice in
    one section, or in main and an overlay, is refused (the run would use one of them silently);
    two overlays may share a name, since at most one of them is resident."""
    return a == b or MAIN in (a, b)
