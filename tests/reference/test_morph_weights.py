"""Morph weights, animation-semantics.md §9.1: the last F_Morpher record at a frame ≤ f."""
from .helpers import Bits, anim, morph

W1, W2, W3 = Bits(0x3F800000), Bits(0x3F000000), Bits(0x3E800000)


def flag_like():
    return anim(frames=6, loops=True, morphs=[
        morph(0, 11, [(12, W3)]), morph(1, 11, [(12, W1)]), morph(3, 11, [(12, W2), (13, W3)]),
        morph(4, 14, [(15, W1)]), morph(0, 16, [(17, W1)])])


def test_state_is_last_record_at_or_before_frame():
    a = flag_like()
    assert a.morph_weights(1) == {11: ((12, W1),)}
    assert a.morph_weights(2) == {11: ((12, W1),)}
    assert a.morph_weights(3) == {11: ((12, W2), (13, W3))}
    assert a.morph_weights(5) == {11: ((12, W2), (13, W3)), 14: ((15, W1),)}


def test_frame_zero_records_excluded():
    """§9.1 DECISION: frame 0's records are never applied by the game (§2.1), so a morpher whose
    only record is at frame 0 (16) has no state, and 11's frame-0 record is not its state at 0."""
    a = flag_like()
    assert 16 not in a.morph_weights(5)
    assert a.morph_weights(0) == {}


def test_state_persists_into_the_next_loop_pass():
    """§9.1: the state persists until the next record; on a later pass, frame 2 still shows
    frame 1's record, and 14 keeps frame 4's record until frame 4 is read again."""
    a = flag_like()
    assert a.morph_weights(2, after_loop=True) == {11: ((12, W1),), 14: ((15, W1),)}
