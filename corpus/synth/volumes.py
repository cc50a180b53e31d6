"""Each volume's synthetic DATA.BIN (volumes.md §5), for `synth --volume`: its records per category,
its size, and the sectors each category spans.

DECISION: a later volume's synthetic archive is Infection's with that volume's extra records as
filler members of their categories (MUT: 3 spc, 1 pc, 1 town, 3 event; OUT and QUA: those and 41
desktop). Its anime-chunk figures stay Infection's (corpus-stats.md): the later volumes' are not
published (volumes.md §5 [INF]), so the extra members share the same chunk totals.

DECISION: its size is the disc's DATA.BIN (volumes.md §1: MUT 138,172,416, OUT and QUA 142,372,864
bytes). Its padding is Infection's per member (1,065,160 bytes over 1,023 members, scaled to its
member count), its compressed total the rest, and its inflated total keeps Infection's inflate ratio
(the later volumes' totals are not published). Its categories span Infection's sectors (formats.md
§1.3) plus the volume's extra sectors: first each category short of the sectors its members need
(the chunk split moves with the member count, so any category may need more), then the rest by the
categories' extra records, weighted by Infection's sectors per record there.
"""
from __future__ import annotations

from typing import List, NamedTuple, Sequence

from ..tables import CATEGORIES, DISC_BASE_SECTORS, DISC_RECORDS
from ..volumes import BY_KEY

SECTOR = 2048
INF_SECTORS = BY_KEY["inf"].data_bytes // SECTOR
INF_CSIZE = 135_599_928           # corpus-stats.md
INF_USIZE = 338_646_324
INF_SPANS = tuple((DISC_BASE_SECTORS[k + 1] if k + 1 < len(CATEGORIES) else INF_SECTORS) - DISC_BASE_SECTORS[k]
                  for k in range(len(CATEGORIES)))


def _with(**extra):
    return tuple(n + extra.get(c, 0) for c, n in zip(CATEGORIES, DISC_RECORDS))


MUT_EXTRA = dict(spc=3, pc=1, town=1, event=3)
VOLUME_RECORDS = {"inf": DISC_RECORDS, "mut": _with(**MUT_EXTRA),
                  "out": _with(desktop=41, **MUT_EXTRA), "qua": _with(desktop=41, **MUT_EXTRA)}


class Figures(NamedTuple):
    sectors: int          # the archive's size in sectors
    csize: int            # the members' compressed bytes
    usize: int            # the members' inflated bytes

    @property
    def padding(self) -> int:
        return self.sectors * SECTOR - self.csize


def figures(volume: str) -> Figures:
    """The volume's archive totals (Infection's are corpus-stats.md's)."""
    row = BY_KEY[volume]
    if row.data_bytes % SECTOR:
        raise ValueError(f"{row.name}'s DATA.BIN of {row.data_bytes} bytes is not whole sectors")
    if volume == "inf":
        return Figures(INF_SECTORS, INF_CSIZE, INF_USIZE)
    n = sum(VOLUME_RECORDS[volume])
    pad = (INF_SECTORS * SECTOR - INF_CSIZE) * n // sum(DISC_RECORDS)
    csize = row.data_bytes - pad
    return Figures(row.data_bytes // SECTOR, csize, csize * INF_USIZE // INF_CSIZE)


def spans(volume: str, need: Sequence[int]) -> List[int]:
    """Sectors per category for `volume`, given the sectors each category's members need at least
    (ValueError when the volume's archive cannot hold them). Infection's are formats.md §1.3's."""
    extra = figures(volume).sectors - INF_SECTORS
    out = list(INF_SPANS)
    for k, n in enumerate(need):
        if n > out[k]:
            extra -= n - out[k]
            out[k] = n
    if extra < 0:
        short = [CATEGORIES[k] for k, n in enumerate(need) if n > INF_SPANS[k]]
        raise ValueError(f"{BY_KEY[volume].name}'s archive of {figures(volume).sectors} sectors cannot hold what its "
                         f"members need ({sum(need)} sectors; short in {', '.join(short)})")
    if not extra:
        return out
    more = [r - d for r, d in zip(VOLUME_RECORDS[volume], DISC_RECORDS)]
    weights = [m * INF_SPANS[k] / DISC_RECORDS[k] for k, m in enumerate(more)]
    if not any(weights):
        weights = [1.0] * len(out)
    total = sum(weights)
    give = [int(extra * w / total) for w in weights]
    for k in sorted(range(len(out)), key=lambda k: -weights[k])[:extra - sum(give)]:
        give[k] += 1
    return [s + g for s, g in zip(out, give)]
