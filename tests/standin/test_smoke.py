"""Smoke test: the stand-in's functions on hand-made chunks through eemu_ext, driven as checks.md
§8.3 prescribes, against values derived by hand (all exactly representable, so both float models
must give them). Covers ConvLCNum2ALCNum (§2.1), SetAnmCtrlWork (§2.4, §4, §6), _AnimateForward
(§8), DecodeF_Note / NoteProcess (§10), DecodeF_Morpher (§9.1), DecodeF_Obj (§11) and Modify (§9.2)."""
import pytest

pytest.importorskip("eemu_ext")
from corpus.anime import build_anime, obj_track, material_track, keyed, note, morph, fobj  # noqa: E402

from .driver import Driver  # noqa: E402
from .elfinfo import ELF_PATH  # noqa: E402

ONE, HALF, QUARTER = 0x3F800000, 0x3F000000, 0x3E800000
IDENTITY = [ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE]
NAMES = {3: "OBJ_a", 9: "MAT_m", 10: "MPH_m", 11: "MDL_t1", 12: "MDL_t2", 20: "OBJ_xnote", 21: "OBJ_f"}

LOOP = build_anime(
    object=7, frames=6, loops=True,
    tracks=[obj_track(3, pos=keyed((0, 0., 0., 0.), (4, 4., 8., -4.)), alpha=keyed((0, 0.), (4, 1.)))],
    materials=[material_track(9, u=keyed((0, 0.), (4, 1.)), v=0.25)],
    notes=[note(0, 9, 9, 20), note(2, 1, 10, 20), note(5, 2, 2, 20), note(5, 0x8005, 1, 20)],
    morphs=[morph(1, 10, [(11, 0.5)]), morph(3, 10, [(11, 0.25), (12, 1.0)])],
    fobjs=[fobj(2, 21, pos=(1, 2, 3), alpha=1.5, flags=1)])
ONCE = build_anime(object=7, frames=4, loops=False,
                   tracks=[obj_track(3, pos=keyed((0, 0., 0., 0.), (3, 3., 3., 3.)))],
                   notes=[note(3, 7, 7, 20)])


@pytest.fixture(params=["hw", "trunc"])
def d(request):
    return Driver(ELF_PATH, request.param)


def test_load_table_in_file_order_of_first_use(d):
    """§2.1 / executable-abi.md §5.4: one entry per 0x0102 record, then every other object at its
    first use (frame 0's note object included), with lc = 4*object + 1 and the ctrl's u16 kind."""
    table = d.load(LOOP)
    assert [o for o, _ in table] == [3, 9, 20, 10, 11, 21, 12]
    assert d.kind(table[0][1]) == 0x0102 and d.kind(table[1][1]) == 0x0202
    assert all(c == 0 for _, c in table[2:])


def test_controller_values_at_hand_derived_times(d):
    """§2.4: keys (0, 0) and (4 frames, 4.0): time 2 frames gives 2.0; alpha keys 0 -> 1 give 0.5;
    absent scale is 1.0, absent rotation the identity (§3.8); the coord gets T(p).R.S (§4)."""
    table = d.load(LOOP)
    d.new_anm()
    work, coord = d.work(table[0][1])
    d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", 0x01003000, work)
    s = d.step(work, 512)
    assert s["pos"] == [0x40000000, 0x40800000, 0xC0000000]          # (2, 4, -2)
    assert s["alpha"] == HALF
    assert s["scale"] == [ONE] * 3 and s["scale16"] == IDENTITY
    assert s["rot"] == IDENTITY
    local = d.words(coord + 0x40, 16)
    assert local[12:15] == [0x40000000, 0x40800000, 0xC0000000] and local[:12] == IDENTITY[:12]
    assert d.u32(coord + 0x88) == HALF
    d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", 0x01003000, work)
    assert d.step(work, 1)["pos"] == [0x3B800000, 0x3C000000, 0xBB800000]   # 2^-8, 2^-7, -2^-8
    d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", 0x01003000, work)
    assert d.step(work, 1280)["pos"] == [0x40800000, 0x41000000, 0xC0800000]  # the final hold: (4, 8, -4)


def test_multistep_equals_one_step(d):
    """§7: reset + 256 + 256 == reset + 512, bit for bit."""
    table = d.load(LOOP)
    d.new_anm()
    work, _ = d.work(table[0][1])
    d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", 0x01003000, work)
    d.step(work, 256)
    two = d.step(work, 256)
    d.call("ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork", 0x01003000, work)
    assert d.step(work, 512) == two


def test_material_offsets_with_crop(d):
    """§6: U = 0.5 -> 2048 - cropU 48 = 2000; V = 0.25 -> 1024 - s16(0xFFFF) = 1025."""
    table = d.load(LOOP)
    d.new_anm()
    mat, mchunk, lst, arr, index = (d.alloc(0x20) for _ in range(5))
    m = d.m
    m.write_u32(mat + 0x0C, mchunk)
    m.write_u16(mchunk + 0x14, 48)
    m.write_u16(mchunk + 0x16, 0xFFFF)
    m.write_u32(arr, mat)
    m.write_u32(lst, arr)
    m.write_u16(lst + 4, 1)
    m.write_u32(index + 4, lst)
    d.call("InitAnmCtrlWork__5ccAnmFP9ccAnmCtrlP10ccAnmIndex", 0x01003000, table[1][1], index)
    work = d.u32(0x01003000 + 0x104)
    d.call("SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki", 0x01003000, work, 512)
    assert d.words(0x01010000, 2) == [HALF, QUARTER]
    assert (m.read_u16(mat + 0x14), m.read_u16(mat + 0x16)) == (2000, 1025)


def test_playback_loop_with_note_morph_and_fobj_records(d):
    """§8.1 at speed 256 on a 6-frame loop: times 256..1024, then the step reaching frame 5 resets
    to 0; notes of frames old+1..new, newest first, time = old for frame old+1 (§10.2); frame 0's
    note never arrives; morph weights replace the morpher's pairs (§9.1); the F_Obj pose (§11)."""
    table = d.load(LOOP)
    inst = d.playback(table, NAMES)
    by_obj = {o: a for a, o in inst.items()}
    note_coord = by_obj[20]
    seen = []
    for i in range(6):
        t = d.forward(256)
        seen.append((t, [n[:4] for n in d.note_process()]))
    assert [s[0] for s in seen] == [(256, 0), (512, 0), (768, 0), (1024, 0), (0, 0), (256, 0)]
    assert [s[1] for s in seen] == [[], [(1, 10, 1, note_coord)], [], [],
                                    [(0x8005, 1, 4, note_coord), (2, 2, 4, note_coord)], []]
    assert d.note_process() == [], "the notes were freed by the last step"
    mph = by_obj[10]
    assert d.m.read_u16(mph + 0x10) == 1 and d.words(mph + 0x14, 2) == [by_obj[11], HALF]
    coord = by_obj[21]
    assert d.words(coord + 0x40 + 48, 3) == [ONE, 0x40000000, 0x40400000]
    assert d.u32(coord + 0x88) == ONE                    # 1.5 clamped
    assert d.m.read_u8(coord + 0xA2) & 3 == 3            # flags bit 0, position not zero


def test_playback_several_frames_per_step(d):
    """§8.1, §10.2 at speed 700: the first step reads frames 1-2 (frame 2's note gets its own
    frame, 2); the next is clamped at last = 1280, reads frames 3-5 and loops to 0."""
    table = d.load(LOOP)
    inst = d.playback(table, NAMES, speed=700)
    by_obj = {o: a for a, o in inst.items()}
    assert d.forward(700) == (700, 0)
    assert [n[:3] for n in d.note_process()] == [(1, 10, 2)]
    assert d.forward(700) == (0, 0)
    assert [n[:3] for n in d.note_process()] == [(0x8005, 1, 5), (2, 2, 5)]
    mph = by_obj[10]
    assert d.m.read_u16(mph + 0x10) == 2
    assert d.words(mph + 0x14, 4) == [by_obj[11], QUARTER, by_obj[12], ONE]


def test_play_once_end(d):
    """§8.1-8.2: a play-once animation returns 1 at its last frame and on every later step (eff 0);
    a zero step returns 0 and reads nothing; the note list is freed by every step."""
    table = d.load(ONCE)
    d.playback(table, {20: "OBJ_xnote"})
    assert d.forward(256) == (256, 0)
    assert d.forward(256) == (512, 0)
    assert d.forward(256) == (768, 1)
    assert [n[:3] for n in d.note_process()] == [(7, 7, 2)]
    frees = d.frees
    assert d.forward(256) == (768, 1)
    assert d.frees == frees + 1 and d.note_process() == []
    assert d.forward(0) == (768, 0)


def test_modify_blend(d):
    """§9.2: weight 0.5 -> lanes 2048; a 2x target scale is rescaled first; the add saturates;
    a -0 weight sets lane_z = -1; rwflag 0 blends into a GetWork buffer, bit 0 in place."""
    out, addr, base = d.modify([(100, -200, 300)], ONE, [([(300, -200, -100)], ONE, HALF)])
    assert out == [(200, -200, 100)] and addr != base
    out, addr, base = d.modify([(0, 0, 0)], ONE, [([(50, -25, 10)], 0x40000000, ONE)], in_place=True)
    assert out == [(100, -50, 20)] and addr == base
    out, _, _ = d.modify([(32000, -32000, 0)], ONE, [([(32767, -32768, 0)], ONE, 0x40000000)])
    assert out == [(32767, -32768, 0)]
    out, _, _ = d.modify([(0, 0, 0)], ONE, [([(10, 20, 4096)], ONE, 0x80000000)])
    assert out == [(0, 0, -1)]
