"""Finer points of the stand-in's contract: the playback frame data ConvLCNum2ALCNum writes
(animation-semantics.md §2.1), the looping-at-last edge case (§8.2), evaluation at min(T, last)
(§2.4), and robustness against malformed records (common.md: never hang, never read past a record)."""
import struct

import pytest

pytest.importorskip("eemu_ext")
from corpus.anime import build_anime, obj_track, keyed, note, morph, fobj  # noqa: E402

from .driver import ANM, CHUNK, Driver  # noqa: E402
from .elfinfo import ELF_PATH  # noqa: E402

TOP = 0xCCCCFF01


def records(words):
    """(type, payload) of each sub-record of a word list."""
    out, i = [], 0
    while i < len(words):
        n = words[i + 1]
        out.append((words[i], tuple(words[i + 2:i + 2 + n])))
        i += 2 + n
    return out


@pytest.fixture
def d():
    return Driver(ELF_PATH, "hw")


def test_frame_data_is_frame_1_on_without_top_1_with_table_positions(d):
    """§2.1 step 3: the reader opened on *(chunk+0x18) reads every sub-record from frame 1's
    records on, without Top 0's records and without Top 1, object references as table positions."""
    data = build_anime(object=7, frames=4, loops=False,
                       tracks=[obj_track(3, pos=(1, 2, 3))],
                       notes=[note(0, 1, 1, 20), note(1, 5, 6, 20), note(3, 7, 8, 21)],
                       morphs=[morph(2, 10, [(11, 0.5)])],
                       fobjs=[fobj(2, 22)])
    table = d.load(data)
    pos = {o: i for i, (o, _) in reversed(list(enumerate(table)))}
    w = struct.unpack_from("<I", data, 16)[0]
    src = records(list(struct.unpack_from(f"<{w}I", data, 20)))
    # expected: drop everything up to and including Top 1, then rewrite the object fields
    first = next(i for i, (t, p) in enumerate(src) if t == TOP and p[0] == 1)
    want = []
    for t, p in src[first + 1:]:
        p = list(p)
        if t & 0xFFFF in (0x0108, 0x0101):
            p[0] = pos[p[0]]
        elif t & 0xFFFF == 0x1901:
            p[0] = pos[p[0]]
            p[2] = pos[p[2]]
        want.append((t, tuple(p)))
    out = d.u32(CHUNK + 0x18)
    size = sum(2 + len(p) for _, p in want)
    assert records(d.words(out, size)) == want
    assert d.u32(0x01000840) == out + 4 * size, "the cursor ends after the frame data"


def test_looping_animation_at_last_returns_1_without_reset(d):
    """§8.2 edge case [GAME]: a loop whose time already equals last returns 1, keeps its time."""
    data = build_anime(object=7, frames=4, loops=True, tracks=[obj_track(3, pos=keyed((0, 0, 0, 0), (3, 3, 3, 3)))])
    d.playback(d.load(data), {})
    d.m.write_u32(ANM + 0x98, 3)
    d.m.write_u16(ANM + 0x9E, 0)
    assert d.forward(256) == (768, 1)


def test_single_frame_chunk_evaluates_at_last(d):
    """§2.4 / checks.md §2.1: with N = 1, last = 0, so time 1 poses the first keys' value."""
    data = build_anime(object=7, frames=1, loops=False,
                       tracks=[obj_track(3, pos=keyed((0, 1, 2, 3), (0, 5, 6, 7)))])
    (obj, ctrl), = d.load(data)
    d.new_anm()
    work, _ = d.work(ctrl)
    assert d.step(work, 1)["pos"] == [0x3F800000, 0x40000000, 0x40400000]


def test_malformed_records_do_not_hang_or_overrun(d):
    """A keyed controller claiming more keys than its record holds, and a record whose size runs
    past W, are read only within the data: ConvLCNum2ALCNum returns and the table stays sane."""
    data = bytearray(build_anime(object=7, frames=3, loops=True,
                                 tracks=[obj_track(3, pos=keyed((0, 0, 0, 0), (2, 1, 1, 1)))]))
    # the key count of the position controller: payload word 2 of the first 0x0102 record
    w = struct.unpack_from("<I", data, 16)[0]
    words = list(struct.unpack_from(f"<{w}I", data, 20))
    i = 0
    while words[i] & 0xFFFF != 0x0102:
        i += 2 + words[i + 1]
    struct.pack_into("<I", data, 20 + 4 * (i + 4), 0x7FFFFFFF)
    table = d.load(bytes(data))
    assert [o for o, _ in table] == [3]
    assert d.steps["ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs"] < 100_000
    struct.pack_into("<I", data, 20 + 4 * (i + 1), 0x00FFFFFF)   # the record's size past W
    assert d.load(bytes(data)) == []
