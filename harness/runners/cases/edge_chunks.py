"""The edge chunks beyond the disc (corpus/synth/edge.py) as bulk chunks with their own ids.

Every wrap and saturation boundary the spec documents that the disc never reaches (texture offsets
past s16, rotations past +-180 and at the quantisation wrap, a key back in time on every channel
kind, zero-exponent positions, a morph rescale leaving s16) is checked by every profile, whatever
archive the run reads: the chunks are built by code, so they do not depend on it. An Anime edge
chunk gets every check that applies to it (harness/runners/cases/chunk.py); the morph edge chunk is
Modify blends, compared exactly. The per-chunk record is interfaces.md §4's.
"""
from __future__ import annotations

import time as _time

from corpus.synth import edge
from harness.checks.morph import MorphCase
from harness.compare.tally import Tally

PREFIX = edge.PREFIX


def ids(checks=None):
    """The edge chunk ids, in the order `make bulk` appends them to its selection: all of them,
    or those on which one of `checks` (--check names) applies."""
    out = [PREFIX + n for n in edge.NAMES] + [PREFIX + edge.MORPH_NAME]
    if not checks:
        return out
    from harness.checks import Case, applicable, resolve
    from harness.profiles import profile
    want = {resolve(c).name for c in checks}
    return [cid for cid in out if want & set(applicable(Case(chunk(cid).anime, profile("quick")))
                                             if cid != PREFIX + edge.MORPH_NAME else ["morph"])]


def is_edge(cid) -> bool:
    return isinstance(cid, str) and cid.startswith(PREFIX)


def chunk(cid):
    """The edge chunk `cid` with a parsed .anime (an unknown id is a ValueError naming it)."""
    if not is_edge(cid) or cid[len(PREFIX):] == edge.MORPH_NAME:
        raise ValueError(f"{cid!r} is not an Anime edge chunk (known: {', '.join(ids()[:-1])})")
    return _Chunk(edge.edge_chunk(cid[len(PREFIX):]))


def morph_cases():
    return [MorphCase(label, base, bs, targets) for label, base, bs, targets in edge.morph_rescale_cases()]


def is_blends(cid) -> bool:
    """Whether edge chunk `cid` is Modify blends (no Anime chunk)."""
    return cid == PREFIX + edge.MORPH_NAME


def check_edge(game, cid, ctx, prof, index=None, only=None, plots=True, blend=None):
    """The record of edge chunk `cid`: every applicable check (or `only` those), or the Modify
    blends of the morph edge chunk (against `blend`, a model run's, when given). plots: as
    check_chunk's."""
    from harness.runners.cases.chunk import check_chunk, describe_error, result
    from harness.runners.cases.morph_pseudo import check_blends
    if cid == PREFIX + edge.MORPH_NAME:
        def coverage(cases, tally):
            tally.quirk("morph_rescale_leaves_s16", sum(1 for c in cases for ps, s, _ in c.targets
                                                        for p in rescaled(ps, s, c.base_scale)
                                                        for x in p if not -32768 <= x <= 32767))
        return check_blends(game, _Named(cid), ctx, index, morph_cases, coverage, blend,
                            run=not only or "morph" in only)
    try:
        ch = chunk(cid)
    except Exception as exc:
        return result(_Named(cid), index, _time.time(), Tally(), {}, describe_error(exc, "setup"), ctx, {})
    return check_chunk(game, ch, ctx, every_record(prof, ch.anime), only=only, index=index, plots=plots)


def every_record(prof, anim):
    """DECISION: an edge chunk is small and exists for its boundaries, so under every profile it
    checks every track, every key boundary +-1 and at least the nightly's random times (the disc's
    chunks keep the profile's caps)."""
    from dataclasses import replace
    return replace(prof, max_tracks=max(prof.max_tracks, len(anim.tracks)), max_boundaries=-1,
                   times=max(prof.times, 6))


def rescaled(positions, scale_bits, base_bits):
    """The target's components times ratio = scale / base, in double and unwrapped (coverage only:
    which ones leave s16)."""
    from harness.compare.bits import f32
    base = f32(base_bits)
    if not base or scale_bits == base_bits:
        return positions
    r = f32(scale_bits) / base
    return [tuple(int(r * c) for c in p) for p in positions]


class _Chunk:
    """An edge chunk as the checks read a corpus chunk: id, data, names, ext, anime."""

    def __init__(self, e):
        from corpus.anime import parse_anime
        self.id, self.data, self.names, self.ext = e.id, e.data, e.names, e.ext
        self.anime = parse_anime(e.data, ext=e.ext, where=e.id)

    @property
    def file(self):
        raise ValueError(f"{self.id} is an edge chunk built by code: it has no archive member")

    def resolve(self, obj):
        return obj


class _Named:
    def __init__(self, cid):
        self.id = cid
