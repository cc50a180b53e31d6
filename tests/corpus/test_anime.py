"""Anime chunk 0x0700 parsing and building (formats.md §4)."""
import struct

import pytest

from corpus import CorpusError
from corpus.anime import (Bits, build_anime, f32, fobj, keyed, material_track, morph, note, obj_track,
                          other, parse_anime, resolve)
from corpus.records import END_LOOP, END_PLAY_ONCE, KIND_F_NOTE, KIND_OBJECT, KIND_TOP

W = "t.cmp::ANM_t"


def sample(**kw):
    d = dict(object=7, frames=4, loops=True,
             tracks=[obj_track(3, pos=keyed((0, 1.0, 2.0, 3.0), (3, 4.0, 5.0, 6.0)), rot=(0, 90, -200),
                               alpha=Bits(0x80000000)),
                     obj_track(4, scale=keyed((0, Bits(1), 1, 1), (9, 2, 2, 2)))],
             materials=[material_track(9, u=keyed((0, 0.0), (3, -1.5)), v=0.25)],
             morphs=[morph(f, 11, [(12, 0.5), (13, 0.25)]) for f in range(1, 4)],
             notes=[note(2, 2, 2, 20), note(2, 0x8005, 1, 20)],
             fobjs=[fobj(1, 30, pos=(0, 0, 7.75), rot=(0, 15, -15))],
             others=[other(0, 0x0609, [1, 2, 3]), other(1, 0x0601, [0] * 4), other(3, 0x0502, [5] * 8)])
    d.update(kw)
    return d


def test_round_trip_exact_bytes():
    b = build_anime(**sample())
    a = parse_anime(b, where=W)
    assert build_anime(a) == b
    assert a.words == (len(b) - 20) // 4 and struct.unpack_from("<I", b, 4)[0] == 3 + a.words


def test_fields_keep_raw_bits():
    a = parse_anime(build_anime(**sample()), where=W)
    assert a.frames == 4 and a.loops and a.end == END_LOOP
    t0, t1 = a.tracks
    assert t0.flags == 2 | (1 << 3) | (0 << 6) | (1 << 9)
    assert t0.pos.keys == ((0, (f32(1.0), f32(2.0), f32(3.0))), (3, (f32(4.0), f32(5.0), f32(6.0))))
    assert t0.rot.value == (0, f32(90), f32(-200)) and t0.alpha.value == (0x80000000,)
    assert t1.scale.keys[0][1][0] == 1 and t1.scale.keys[1][0] == 9       # denormal kept, key past N-1
    assert t0.scale.absent and t1.pos.absent and t1.index == 1
    m = a.materials[0]
    assert m.u.kind == 2 and m.v.value == (f32(0.25),) and m.flags == 2 | (1 << 3)
    assert [r.frame for r in a.morphs] == [1, 2, 3] and a.morphs[0].pairs == ((12, f32(0.5)), (13, f32(0.25)))
    assert [(n.frame, n.event, n.param, n.object) for n in a.notes] == [(2, 2, 2, 20), (2, 0x8005, 1, 20)]
    fo = a.fobjs[0]
    assert fo.frame == 1 and fo.pos == (0, 0, f32(7.75)) and fo.rot == (0, f32(15), f32(-15))
    assert [(o.frame, o.kind) for o in a.others] == [(0, 0x0609), (1, 0x0601), (3, 0x0502)]
    assert a.counts[KIND_TOP] == 5 and a.counts[KIND_OBJECT] == 2 and a.counts[KIND_F_NOTE] == 2
    assert [f for f, _ in a.tops] == [0, 1, 2, 3, END_LOOP]


def test_ext_targets_resolved_and_bounded():
    """formats.md §3.7: follow ext up to 64 hops; a record keeps its own object."""
    a = parse_anime(build_anime(**sample()), ext={3: 5, 5: 6, 4: 4}, where=W)
    assert (a.tracks[0].object, a.tracks[0].target) == (3, 6)
    assert a.tracks[1].target == 4
    cyc = {1: 2, 2: 1}
    assert resolve(cyc, 1) in (1, 2)
    chain = {i: i + 1 for i in range(100)}
    assert resolve(chain, 0) == 64


def test_records_anywhere_and_frames_from_current_top():
    """§4.2: a parser accepts controller records under any Top and missing Tops."""
    b = build_anime(object=1, frames=6, end=END_PLAY_ONCE, tops=[0, 2, 5],
                    tracks=[obj_track(3, pos=(1, 2, 3), frame=2)], notes=[note(5, 2, 1, 9)])
    a = parse_anime(b, where=W)
    assert a.tracks[0].frame == 2 and a.notes[0].frame == 5
    assert [f for f, _ in a.tops] == [0, 2, 5, END_PLAY_ONCE]
    with pytest.raises(ValueError):
        build_anime(object=1, frames=6, tops=[0], notes=[note(3, 2, 1, 9)])


def _patch(b, off, val):
    b = bytearray(b)
    struct.pack_into("<I", b, off, val)
    return bytes(b)


def expect(b, kind, text):
    with pytest.raises(CorpusError) as e:
        parse_anime(b, where=W)
    assert e.value.member == W and e.value.kind == kind and e.value.offset is not None
    assert text in str(e.value) and W in str(e.value) and "offset 0x" in str(e.value)
    return e.value


def test_rejects_controller_kinds_3_to_7():
    b = build_anime(object=1, frames=1, tracks=[obj_track(3, pos=(1, 2, 3))])
    a = parse_anime(b)
    off = a.tracks[0].offset
    for k in range(3, 8):
        expect(_patch(b, off + 12, k), KIND_OBJECT, f"controller kind {k}")


def test_rejects_keyed_with_no_keys():
    b = build_anime(object=1, frames=2, tracks=[obj_track(3, pos=keyed((0, 1, 1, 1), (1, 2, 2, 2)))])
    off = parse_anime(b).tracks[0].offset
    expect(_patch(b, off + 16, 0), KIND_OBJECT, "0 keys")


def test_rejects_overrun_and_short_walk():
    b = build_anime(**sample())
    # W one word larger than the data: the walk overruns
    bb = _patch(_patch(b + b"\0" * 4, 16, (len(b) - 20) // 4 + 1), 4, (len(b) - 20) // 4 + 4)
    with pytest.raises(CorpusError):
        parse_anime(bb, where=W)
    # a sub-record whose size runs past W
    a = parse_anime(b)
    off = a.notes[0].offset
    expect(_patch(b, off + 4, 1000), KIND_F_NOTE, "overrun")
    # truncated bytes
    expect(b[:-4], 0x0700, "run past")


def test_rejects_unknown_kind_bad_tag_no_end_top_and_trailing_records():
    b = build_anime(**sample())
    a = parse_anime(b)
    off = a.notes[0].offset
    expect(_patch(b, off, 0xCCCC0777), 0x0777, "unknown sub-record kind")
    expect(_patch(b, off, 0x12340108), KIND_F_NOTE, "tag")
    # the end Top replaced by an ordinary Top
    end_off = a.tops[-1][1]
    expect(_patch(b, end_off + 8, 3), KIND_TOP, "no end Top")
    # a Top after the end Top
    body = b[20:] + struct.pack("<III", 0xCCCCFF01, 1, 0)
    w = len(body) // 4
    bb = struct.pack("<5I", 0xCCCC0700, 3 + w, 7, 4, w) + body
    expect(bb, KIND_TOP, "follows the end Top")


def test_rejects_wrong_fixed_sizes():
    b = build_anime(object=1, frames=2, notes=[note(1, 2, 0, 5)], fobjs=[fobj(1, 4)],
                    morphs=[morph(1, 6, [(7, 1.0)])])
    a = parse_anime(b)
    # F_Morpher with a pair count that disagrees with its size
    expect(_patch(b, a.morphs[0].offset + 12, 5), 0x1901, "pairs")
    # the pair-count padding bits are kept, not an error
    bb = _patch(b, a.morphs[0].offset + 12, 0xABCD0001)
    assert parse_anime(bb).morphs[0].pad == 0xABCD and build_anime(parse_anime(bb)) == bb


def test_error_names_member_offset_kind():
    e = CorpusError("bad", member="m.cmp::ANM_x", offset=0x34, kind=0x0102)
    assert str(e) == "member m.cmp::ANM_x, offset 0x34, kind 0x0102: bad"
    import pickle
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.member, e2.offset, e2.kind) == ("m.cmp::ANM_x", 0x34, 0x0102)
