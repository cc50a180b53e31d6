"""Records per category of each volume's DATA.BIN (volumes.md §5), for `synth --volume`.

DECISION: a later volume's synthetic archive is Infection's with that volume's extra records as
filler members of their categories (MUT: 3 spc, 1 pc, 1 town, 3 event; OUT and QUA: those and 41
desktop). Its anime-chunk figures stay Infection's (corpus-stats.md): the later volumes' are not
published (volumes.md §5 [INF]), so the extra members share the same chunk totals. The sizes keep
Infection's base sectors, so a split may leave a category no room (OUT's and QUA's at seed 1): the
generator then stops with that category named.
"""
from __future__ import annotations

from ..tables import CATEGORIES, DISC_RECORDS


def _with(**extra):
    return tuple(n + extra.get(c, 0) for c, n in zip(CATEGORIES, DISC_RECORDS))


MUT_EXTRA = dict(spc=3, pc=1, town=1, event=3)
VOLUME_RECORDS = {"inf": DISC_RECORDS, "mut": _with(**MUT_EXTRA),
                  "out": _with(desktop=41, **MUT_EXTRA), "qua": _with(desktop=41, **MUT_EXTRA)}
