"""F_Obj poses, animation-semantics.md §11 (and checks.md §7)."""
from reference import eefloat as F
from reference.animation import clamp01, fobj_flag_bits
from reference.rotation import single_rotation

from .helpers import NEG0, ONE, Bits, anim, fobj


def eex1_like():
    """Like eex1 ANM_eex1dmg0: one record a frame for the body (object 30), none driven by a
    controller; frame f lifts z by 3.875·(f − 1) and tips 7.5°·(f − 1) about y and −7.5° about z.
    Frame 0 has a record too, which is never read."""
    recs = [fobj(f, 30, pos=(0.0, 0.0, 3.875 * (f - 1)), rot=(0.0, 7.5 * (f - 1), -7.5 * (f - 1)),
                 alpha=1.0, flags=1) for f in range(1, 31)]
    return anim(frames=31, fobjs=[fobj(0, 30, pos=(9.0, 9.0, 9.0))] + recs)


def test_record_in_force_is_the_last_read():
    """§11 reference rule: the last record with 1 ≤ frame ≤ min(T, last) >> 8. Frame 3's record has
    z = 7.75 and rotation (0, 15, −15)°."""
    a = eex1_like()
    r = a.fobj_pose(30, 3 * 256 + 100)
    assert r.frame == 3
    assert r.pos == (0, 0, 0x40F80000)                       # 7.75
    assert r.rot == (0, 0x41700000, 0xC1700000)              # (0, 15, −15)
    assert a.fobj_pose(30, 99999).frame == 30                # clamped to last


def test_frame_zero_record_never_read():
    """§11: frame 0's record is never read; before frame 1 there is no F_Obj pose."""
    a = eex1_like()
    assert a.fobj_pose(30, 0) is None
    assert a.fobj_pose(30, 255) is None
    assert a.obj_poses_at(256)[30].frame == 1


def test_pose_persists_across_a_loop_reset():
    """checks.md §7.5: after a loop reset the previous pass's pose stays until frame 1 is read."""
    a = eex1_like()
    assert a.fobj_pose(30, 0, after_loop=True).frame == 30


def test_local_matrix_translation_is_the_position():
    """§11 step 1: T(pos)·RotMatrix(rad)·S(scale), rad = f_div(f_mul(PI, deg), DEG180): the
    translation words 12-14 are the position bits, and the 3x3 is R ⊗ S."""
    a = eex1_like()
    r = a.fobj_pose(30, 3 * 256)
    L = a.fobj_local_matrix(r)
    assert L[12:15] == (0, 0, 0x40F80000) and L[15] == ONE
    R = single_rotation(r.rot, F.ops("hw"))
    assert [L[i] for i in (0, 1, 2, 4, 5, 6, 8, 9, 10)] == [R[i] for i in (0, 1, 2, 4, 5, 6, 8, 9, 10)]


def test_localtp_clamped():
    """§11 step 2 and its DECISION: clamp to [0, 1] by comparison; zero-exponent patterns compare
    equal to 0 and are kept raw."""
    o = F.ops("hw")
    assert clamp01(0x3F000000, o) == 0x3F000000
    assert clamp01(0x40000000, o) == ONE
    assert clamp01(0x7F800000, o) == ONE                      # E = 255 is just large
    assert clamp01(0xBF800000, o) == 0
    assert clamp01(0xFF800000, o) == 0
    assert clamp01(NEG0, o) == NEG0
    assert clamp01(0x00000001, o) == 0x00000001
    assert clamp01(ONE, o) == ONE


def test_flag_bits_rule():
    """§11 step 3: bit 0 := flags bit 0; bit 1 := 1 unless the position is zero and +0xA1 bit 0 is set."""
    o = F.ops("hw")
    moved = fobj(1, 30, pos=(0.0, 0.0, 1.0), flags=1)
    still = fobj(1, 30, pos=(Bits(NEG0), 0.0, Bits(0x00000001)), flags=0)
    assert fobj_flag_bits(moved, 0, o) == 3
    assert fobj_flag_bits(moved, 1, o) == 3
    assert fobj_flag_bits(still, 0, o) == 2
    assert fobj_flag_bits(still, 1, o) == 0


def two_objects():
    """Object 30 has a record at frames 2 and 5, object 31 at frame 3 only (and one at frame 0)."""
    return anim(frames=8, fobjs=[fobj(0, 31), fobj(2, 30), fobj(3, 31), fobj(5, 30)])


def test_a_step_that_evaluates_no_other_frame_reads_no_pose():
    """checks.md §7: within one frame (or a zero step) nothing is read and no coord is compared."""
    a = two_objects()
    assert a.fobj_poses_read(2 * 256, a.forward(2 * 256, 100), [30, 31]) is None
    assert a.fobj_poses_read(2 * 256, a.forward(2 * 256, 0), [30, 31]) is None


def test_a_step_reads_the_record_in_force_past_the_old_frame_and_leaves_the_others_in_force():
    """§11: a step into frame 4 from frame 2 reads object 31's frame-3 record; object 30's frame-2
    record was read before and persists (it is not read again). From frame 0 both are read."""
    a = two_objects()
    read = a.fobj_poses_read(2 * 256, a.forward(2 * 256, 2 * 256), [30, 31])
    assert {o: r.frame for o, r in read.items()} == {31: 3}
    read = a.fobj_poses_read(0, a.forward(0, 4 * 256), [30, 31])
    assert [(o, r.frame) for o, r in read.items()] == [(30, 2), (31, 3)]
    read = a.fobj_poses_read(0, a.forward(0, 4 * 256), [31])
    assert list(read) == [31]                                # only the objects asked about


def test_a_restart_applies_only_after_a_step_that_ends_a_play_once_animation():
    """checks.md §6.2 step 9: the plan's restart draw starts the next step at 0 only when the step
    ended a play-once animation; a looping one or a step that does not end plays on."""
    once, looping = two_objects(), anim(frames=8, loops=True, fobjs=[fobj(2, 30)])
    end = once.forward(6 * 256, 4 * 256)
    assert end.ended and once.restarts(end, True) and once.time_after(end, True) == 0
    assert not once.restarts(end, False) and once.time_after(end, False) == end.time != 0
    mid = once.forward(0, 256)
    assert not once.restarts(mid, True) and once.time_after(mid, True) == 256
    wrap = looping.forward(6 * 256, 4 * 256)
    assert not looping.restarts(wrap, True) and looping.time_after(wrap, True) == wrap.time
