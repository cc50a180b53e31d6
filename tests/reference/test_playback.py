"""Playback, animation-semantics.md §8: _AnimateForward's time, pose time and return value."""
import pytest

from reference.playback import forward

from .helpers import anim


def test_loop_posed_at_last_frame_then_reset_without_showing_it():
    """§8.1 step 5 / §8.2: a loop of N = 5 frames (last = 1024). The step that reaches frame 4 is
    posed at 1024, then the time resets to 0; the next step is posed at 256, never at 0."""
    a = anim(frames=5, loops=True)
    t, seen = 0, []
    for _ in range(9):
        r = a.forward(t, 256)
        seen.append((r.pose_at, r.time, r.ended, r.looped))
        t = r.time
    assert seen[:5] == [(256, 256, False, False), (512, 512, False, False), (768, 768, False, False),
                        (1024, 0, False, True), (256, 256, False, False)]
    assert [s[0] for s in seen] == [256, 512, 768, 1024, 256, 512, 768, 1024, 256]
    assert 0 not in [s[0] for s in seen]


@pytest.mark.parametrize("step", [1, 64, 128, 256, 512])
def test_loop_displayed_time_formula(step):
    """§8.2: for steps dividing the loop length, the displayed time after e ticks is
    ((e − 1) mod last) + 1."""
    a = anim(frames=5, loops=True)
    last = 1024
    t = 0
    for i in range(1, 3 * last // step + 2):
        r = a.forward(t, step)
        e = i * step
        assert r.pose_at == ((e - 1) % last) + 1
        t = r.time


def test_play_once_reaching_end_returns_ended():
    """§8.1 step 5: a play-once animation's step that reaches frame N − 1 returns 1."""
    a = anim(frames=5, loops=False)
    r = a.forward(768, 256)
    assert (r.time, r.pose_at, r.ended) == (1024, 1024, True)
    r = a.forward(900, 700)                 # clamped: eff = 124, posed at last, frame 3 -> 4
    assert (r.time, r.pose_at, r.ended, r.eff) == (1024, 1024, True, 124)


def test_play_once_held_at_end_returns_ended_and_evaluates_nothing():
    """§8.2: held at its last frame, every later step returns 1 with eff = 0: no evaluation, no read."""
    a = anim(frames=5, loops=False)
    for step in (1, 256, 700, 0xFFFF):
        r = a.forward(1024, step)
        assert (r.time, r.pose_at, r.ended, r.read, r.eff) == (1024, None, True, None, 0)


def test_zero_step_evaluates_nothing_and_reads_nothing():
    """§8.2: a zero step evaluates nothing and reads nothing."""
    for loops in (False, True):
        r = anim(frames=5, loops=loops).forward(300, 0)
        assert (r.time, r.pose_at, r.ended, r.read) == (300, None, False, None)


def test_zero_step_at_end_is_not_ended():
    """§8.1: at last with step 0, new = last is not > last, so ended stays false."""
    assert anim(frames=5).forward(1024, 0).ended is False


def test_looping_animation_at_last_returns_1_without_reset():
    """§8.2 edge case [GAME]: a loop whose time already equals last returns 1 and does not reset,
    because the frame does not change."""
    r = anim(frames=5, loops=True).forward(1024, 256)
    assert (r.time, r.pose_at, r.ended, r.looped) == (1024, None, True, False)


def test_step_inside_a_frame_reads_nothing():
    """§8.1 step 5: the frame did not change, so DecodeFrameChunk is not run."""
    r = anim(frames=10).forward(256, 100)
    assert (r.time, r.pose_at, r.read) == (356, 356, None)


def test_step_over_several_frames_reads_the_range():
    """§8.3: a step from frame 0 to frame 2 reads frames 1 … 2."""
    a = anim(frames=10)
    assert a.forward(0, 700).read == (0, 2)
    assert a.frames_read(0, 700) == (1, 2)
    assert a.frames_read(256, 100) is None


def test_time_wraps_in_u32():
    """§8.1 step 2: new = time + step with u32 wrap (256 + 0xFFFFFFFF = 255)."""
    r = anim(frames=10).forward(256, 0xFFFFFFFF)
    assert (r.time, r.pose_at) == (255, 255)


def test_one_frame_animation():
    """N = 1: last = 0; any step is clamped to eff = 0 and returns 1 (loops too: the frame never changes)."""
    for loops in (False, True):
        r = anim(frames=1, loops=loops).forward(0, 256)
        assert (r.time, r.pose_at, r.ended, r.looped) == (0, None, True, False)


def test_zero_frames():
    """§8.2: N = 0 wraps last to 0xFFFFFF00 in forward; the checks' last is max(0, …) = 0."""
    a = anim(frames=0)
    assert a.last == 0
    r = forward(0, 256, 0, False)
    assert (r.time, r.pose_at, r.ended) == (256, 256, False)


def test_pose_time_after_reset_evaluates_last_frame():
    """§8.2: pose_at is new before any reset; poses are evaluated at min(pose_at, last)."""
    a = anim(frames=5, loops=True)
    r = a.forward(768, 600)
    assert (r.pose_at, r.time, r.looped) == (1024, 0, True)


def test_records_read_by_a_step():
    """§8.3: a step applies the per-frame records of frames old + 1 … new (new clamped to N − 1),
    in file order; a step inside a frame, a zero step and frame 0's records read nothing."""
    from .helpers import fobj, morph, note
    a = anim(frames=6, notes=[note(0, 9, 9, 20), note(2, 1, 1, 20), note(5, 5, 5, 20)],
             morphs=[morph(2, 11, [(12, 1.0)]), morph(3, 11, [(12, 0.5)])],
             fobjs=[fobj(3, 30)])
    got = a.records_read(256, 600)                       # frames 2 … 3
    assert [(type(r).__name__, r.frame) for r in got] == [
        ("MorphRecord", 2), ("Note", 2), ("MorphRecord", 3), ("FObj", 3)]
    assert a.records_read(256, 100) == [] and a.records_read(0, 0) == []
    assert [r.frame for r in a.records_read(0, 99999)] == [2, 2, 3, 3, 5]
