"""Note delivery, animation-semantics.md §10 (DecodeF_Note, the time field, lifetime, NoteProcess order)."""
from .helpers import anim, note


def ctu1body_like(loops=False):
    """A frame-5 pair like ctu1body ANM_ctu1atc0: (2, 2), then (0x8005, 1), plus other frames."""
    return anim(frames=10, loops=loops, notes=[
        note(0, 9, 9, 20),                 # frame 0: never handed on
        note(2, 3, 0, 20),
        note(5, 2, 2, 20), note(5, 0x8005, 1, 20),
        note(7, 0x8003, 4, 21),
        note(9, 1, 1, 20),                 # the last frame, N − 1
    ])


def ev(lst):
    return [(n.event, n.param) for n in lst]


def test_ctu1body_order_last_record_first():
    """§10.4: within a frame the last record comes first: (0x8005, 1) before (2, 2)."""
    a = ctu1body_like()
    got = a.passed_notes(4 * 256, 256)
    assert ev(got) == [(0x8005, 1), (2, 2)]
    assert [n.time for n in got] == [4, 4]             # frame old + 1 gets time := old (§10.2)
    assert [n.object for n in got] == [20, 20]


def test_newest_frame_first():
    """§10.4: a step over frames 2 … 7 delivers frame 7's note, then 5's (last first), then 2's."""
    got = ctu1body_like().passed_notes(256, 6 * 256 + 10)
    assert ev(got) == [(0x8003, 4), (0x8005, 1), (2, 2), (3, 0)]
    assert [n.frame for n in got] == [7, 5, 5, 2]


def test_time_field_rule():
    """§10.2: notes of frame old + 1 get time := old; later frames get their own frame."""
    got = ctu1body_like().passed_notes(256, 6 * 256 + 10)   # old = 1
    assert [(n.frame, n.time) for n in got] == [(7, 7), (5, 5), (5, 5), (2, 1)]
    got = ctu1body_like().passed_notes(4 * 256 + 200, 3 * 256)   # old = 4, new frame 7
    assert [(n.frame, n.time) for n in got] == [(7, 7), (5, 4), (5, 4)]


def test_frame_zero_never_handed_on():
    """§10.3: frame 0's notes are never delivered, not from time 0 and not after a loop reset."""
    for loops in (False, True):
        a = ctu1body_like(loops)
        t, seen = 0, []
        for _ in range(30):
            seen += a.passed_notes(t, 256)
            t = a.forward(t, 256).time
        assert all(n.frame != 0 for n in seen)
        assert (9, 9) not in ev(seen)


def test_asking_twice_gives_the_same():
    """§10.3: a second NoteProcess delivers the same notes again: the rule is a pure function."""
    a = ctu1body_like()
    assert a.passed_notes(0, 2000) == a.passed_notes(0, 2000)


def test_empty_for_zero_step_inside_frame_and_held_end():
    """§10.3: a zero step, a step inside one frame, and a step held at a play-once end leave the
    list empty."""
    a = ctu1body_like()
    assert a.passed_notes(4 * 256, 0) == []
    assert a.passed_notes(4 * 256 + 1, 200) == []
    assert a.passed_notes(9 * 256, 256) == []


def test_last_frame_delivered_by_the_step_reaching_it_even_in_a_loop():
    """§10.3: the last frame's notes arrive with the step that reaches it; a loop delivers frames
    1 … N − 1 again on every pass."""
    a = ctu1body_like(loops=True)
    t, passes = 0, []
    for _ in range(3 * 9):
        got = a.passed_notes(t, 256)
        r = a.forward(t, 256)
        if r.pose_at == 9 * 256:
            assert ev(got) == [(1, 1)]
            passes.append(r.looped)
        t = r.time
    assert passes == [True, True, True]


def test_steps_past_the_end_are_clamped():
    """§10.4 step 2: new = min(time + step, last)."""
    got = ctu1body_like().passed_notes(8 * 256, 0xFFFF)
    assert ev(got) == [(1, 1)]
    assert got[0].time == 8


def test_forward_note_pairs_agree_with_passed_rule():
    """checks.md §6.2 step 7: the (event, param) pairs from forward()'s read range equal passed_notes."""
    import random
    for loops in (False, True):
        a = ctu1body_like(loops)
        rng = random.Random(f"fwd-notes:{loops}")
        t = 0
        for _ in range(300):
            s = rng.choice([0, 256, rng.randint(1, 600), rng.randint(1, 0xFFFF), rng.randint(1, 5000)])
            assert a.forward_notes(t, s) == ev(a.passed_notes(t, s)), (t, s)
            t = a.forward(t, s).time
