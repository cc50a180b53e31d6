"""Overlays: the code the game loads at run time into the window at 0x00400800 (executable-abi.md §1.2).

The executable names four overlay sections, ``gcmn.prg``, ``demo.prg``, ``desktop.prg`` and
``toppage.prg``, with symbols but no bytes; their bytes are the files ``DATA/<NAME>.PRG`` beside the
executable: a 0x40-byte header (magic ``MWo3``, u32 id, base, text size, data size, bss size, ctor
start, ctor end, a 32-byte name), then the bytes. They all share the window, so an address there
means different code depending on which overlay is resident; at most one is.
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Optional

from eemu_ext.errors import ElfError

OVERLAY_BASE = 0x00400800
OVERLAYS = ("gcmn.prg", "demo.prg", "desktop.prg", "toppage.prg")
PRG_MAGIC = b"MWo3"
PRG_HEADER = 0x40
_HEAD = struct.Struct("<4s7I32s")


class OverlayError(ElfError):
    """An overlay that cannot be found or read, or a .PRG file that is malformed."""


def overlay_name(text: str) -> Optional[str]:
    """'gcmn', 'GCMN', 'gcmn.prg' or 'GCMN.PRG' -> 'gcmn.prg'; None when it names no overlay."""
    t = text.strip().lower()
    if not t.endswith(".prg"):
        t += ".prg"
    return t if t in OVERLAYS else None


def prg_file_name(overlay: str) -> str:
    """'gcmn.prg' -> 'GCMN.PRG' (the file under DATA/)."""
    return overlay.upper()


@dataclass
class Overlay:
    """One .PRG file: its header fields and the bytes it loads at ``base``."""
    name: str               # the overlay section it fills ('gcmn.prg')
    path: str
    ident: int
    base: int
    text: int
    data: int
    bss: int
    ctor_start: int
    ctor_end: int
    label: str
    body: bytes = field(repr=False)

    @property
    def extent(self) -> int:
        """Bytes it occupies from base: text, data, then the zeroed bss."""
        return self.text + self.data + self.bss

    def image(self) -> bytes:
        return self.body + bytes(self.bss)


def parse_prg(raw: bytes, path: str, overlay: str, window: int = OVERLAY_BASE) -> Overlay:
    """The .PRG bytes `raw` as an Overlay; OverlayError naming path and offset when malformed. window:
    the executable's overlay window (each volume has its own, volumes.md §1)."""
    if len(raw) < PRG_HEADER:
        raise OverlayError(f"{path}: truncated overlay header ({len(raw)} bytes, the header has 0x40)")
    magic, ident, base, text, data, bss, c0, c1, label = _HEAD.unpack_from(raw, 0)
    if magic != PRG_MAGIC:
        raise OverlayError(f"{path}: offset 0x0: not an overlay file (magic {magic!r}, expected b'MWo3')")
    if base != window:
        raise OverlayError(f"{path}: offset 0x8: base 0x{base:08x}, not the overlay window 0x{window:08x}")
    body = raw[PRG_HEADER:]
    if text + data != len(body):
        raise OverlayError(f"{path}: offset 0xC: text 0x{text:x} + data 0x{data:x} bytes, but the file holds "
                           f"0x{len(body):x} after its header")
    if bss > 0x01000000 - window:
        raise OverlayError(f"{path}: offset 0x14: bss size 0x{bss:x} reaches past 0x01000000")
    name = label.split(b"\0", 1)[0].decode("latin-1")
    if not name.isprintable():
        name = repr(name)
    return Overlay(overlay, path, ident, base, text, data, bss, c0, c1, name, body)


def read_prg(path: str, overlay: str, window: int = OVERLAY_BASE) -> Overlay:
    path = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise OverlayError(f"{path}: cannot read overlay {overlay}: {e.strerror or e}") from None
    return parse_prg(raw, path, overlay, window)


def find_prg(image_path: str, overlay: str) -> str:
    """DATA/<NAME>.PRG beside the executable (the name matched without regard to case)."""
    data_dir = os.path.join(os.path.dirname(os.path.abspath(image_path)), "DATA")
    want = prg_file_name(overlay)
    try:
        for entry in sorted(os.listdir(data_dir)):
            if entry.upper() == want and os.path.isfile(os.path.join(data_dir, entry)):
                return os.path.join(data_dir, entry)
    except OSError:
        pass
    raise OverlayError(f"overlay {overlay}: no DATA/{want} beside the executable {image_path}")
