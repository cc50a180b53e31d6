"""A DATA.BIN shorter than the executable's index tables say (formats.md §1.3): which members,
and so which Anime chunks, are gone.

Read from the archive alone, a truncated DATA.BIN looks like an archive with one damaged last
member; the index tables still list every member with its offset and csize, so they say how
much is missing. The tables are trusted to describe the archive only when the members they
place inside the file carry the names the tables give them (the stand-in's tables describe
the synthetic DATA.BIN, the game's the disc's); otherwise nothing is said.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Optional

from .databin import ArchiveBytes, parse_gzip_header
from .errors import CorpusError
from .tables import ElfImage, read_tables


@dataclass
class Truncation:
    size: int                      # the archive's bytes
    expected: int                  # the bytes the index tables cover
    cut: Optional[str]             # the member the end falls inside, if any
    gone: List[str] = field(default_factory=list)    # members wholly past the end, in table order

    def text(self, path) -> str:
        shown = ", ".join(self.gone[:8]) + (f" and {len(self.gone) - 8} more" if len(self.gone) > 8 else "")
        return (f"{path} is truncated: {self.size:,} bytes where the executable's index tables place "
                f"{self.expected:,}; {len(self.gone) + bool(self.cut)} members and every Anime chunk in them are "
                f"missing" + (f" ({self.cut} cut short at 0x{self.size:X}" + (f"; gone: {shown})" if shown else ")")
                              if self.cut else f" ({shown})"))


def past_the_end(data_path, image_path, image_symbols=None) -> Optional[Truncation]:
    """The Truncation of `data_path` by `image_path`'s index tables, or None when the archive holds
    every member they list, or the tables do not describe this archive (or cannot be read).
    image_symbols: {name: address} of a stripped image's sidecar, as for open_corpus."""
    try:
        with open(image_path, "rb") as f:
            recs, ofs = read_tables(ElfImage(f.read(), os.fspath(image_path), image_symbols))
        arc = ArchiveBytes(data_path)
    except (OSError, CorpusError, KeyError, ValueError, TypeError):
        return None
    size = len(arc)
    placed = [(ofs[r.category] + r.offset, r) for r in recs]
    inside = [(off, r) for off, r in placed if off + 64 <= size]
    if not placed or not inside:
        return None
    named = 0
    for off, r in inside:
        try:
            _, fname, _, _ = parse_gzip_header(arc.read(off, min(4096, size - off)), where=r.member_name, offset=off)
        except CorpusError:
            continue
        named += fname == r.member_name
    if named < max(1, len(inside) // 2):      # the tables are of another archive
        return None
    expected = max(off + r.csize for off, r in placed)
    if size >= expected:
        return None
    cut = next((r.member_name for off, r in placed if off < size < off + r.csize), None)
    gone = [r.member_name for off, r in sorted(placed, key=lambda x: x[0]) if off >= size]
    return Truncation(size, expected, cut, gone)


def check_archive(data_path, image_path, image_symbols=None):
    """The one-line text of a truncation, or None (a whole archive, or tables of another one)."""
    if not data_path or not image_path or not os.path.isfile(data_path):
        return None
    t = past_the_end(data_path, image_path, image_symbols)
    return t.text(data_path) if t else None
