"""Rotations, animation-semantics.md §3: quantisation §3.1, RotMatrix and ⊗ §3.2, cossin §3.3,
m2a/a2m §3.4-3.5, keyed rotations §3.6, single-value rotations §3.7, absent §3.8; local matrix §4."""
import math
import random

import numpy as np
import pytest

from reference import eefloat as F
from reference.rotation import (HALF_PI, SIN, IDENTITY16, a2m, cossin, m2a, mul_matrix, quantise,
                                rot_matrix, single_rotation)

from .helpers import NEG0, ONE, Bits, keyed, one, track_anim

MODELS = ["hw", "trunc"]
DEG = {0: 0, 90: 0x42B40000, 180: 0x43340000, 360: 0x43B40000, -90: 0xC2B40000, 450: 0x43E10000,
       200: 0x43480000, -200: 0xC3480000}


def cossin_by_the_steps(a, o):
    """A second, literal transcription of §3.3 steps 1-14 (to check rotation.cossin against)."""
    neg = (a >> 31) == 1 and ((a >> 23) & 0xFF) != 0
    x = o.f_add(HALF_PI, a) if neg else o.f_sub(HALF_PI, a)
    x2 = o.f_mul(x, x)
    p0, p1, p2, p3 = (o.f_mul(o.f_mul(SIN[k], x), x2) for k in range(4))
    p0, p1, p2 = o.f_mul(p0, x2), o.f_mul(p1, x2), o.f_mul(p2, x2)
    r = o.f_add(x, p3)
    p0, p1 = o.f_mul(p0, x2), o.f_mul(p1, x2)
    r = o.f_add(r, p2)
    p0 = o.f_mul(p0, x2)
    r = o.f_add(r, p1)
    r = o.f_add(r, p0)
    q = o.f_sqrt(o.f_sub(ONE, o.f_mul(r, r)))
    return (o.f_sub(0, q) if neg else o.f_add(0, q)), r


@pytest.mark.parametrize("model", MODELS)
def test_quantisation_hand_values(model):
    """§3.1: TO_S16 × deg (exact here: 90.0 etc. have no low multiplier bits), truncate, s16 wrap,
    × FROM_S16. 90° -> 16384 -> π/2 = 0x3FC90FDB (FROM_S16 · 2^14); 180° -> 32768 wraps to −32768
    -> −π = 0xC0490FDB; 360° -> 65536 wraps to 0 -> +0; 450° -> 81920 wraps to 16384 -> π/2."""
    o = F.ops(model)
    assert quantise(DEG[90], o) == 0x3FC90FDB
    assert quantise(DEG[-90], o) == 0xBFC90FDB
    assert quantise(DEG[180], o) == 0xC0490FDB
    assert quantise(DEG[360], o) == 0
    assert quantise(DEG[450], o) == 0x3FC90FDB
    assert quantise(0, o) == 0
    assert quantise(NEG0, o) == 0


@pytest.mark.parametrize("model", MODELS)
def test_cossin_matches_literal_steps(model):
    """§3.3 against a second transcription of its 14 steps, over awkward and random angles."""
    o = F.ops(model)
    rng = random.Random(f"cossin:{model}")
    angles = [0, NEG0, 0x80000001, 0x00000001, HALF_PI, 0xBFC90FDB, 0x40490FDB, 0xC0490FDB,
              0x405F66F3, 0xC05F66F3, 0x7F800000, 0xFF7FFFFF]
    angles += [rng.getrandbits(32) & 0xC0FFFFFF for _ in range(200)]
    for a in angles:
        assert cossin(a, o) == cossin_by_the_steps(a, o), hex(a)


@pytest.mark.parametrize("model", MODELS)
def test_negative_zero_angles_count_as_non_negative(model):
    """§3.3 step 1: −0 and negative zero-exponent patterns are not negative: same (sin, cos) as +0,
    and the sine is +0 (f_add(+0, q)), not −0."""
    o = F.ops(model)
    assert cossin(NEG0, o) == cossin(0, o) == cossin(0x807FFFFF, o)
    assert cossin(0, o) == (0, 0x3F800000)          # the polynomial at π/2 comes out at 1.0


@pytest.mark.parametrize("model", MODELS)
def test_single_value_zero_degrees_is_identity(model):
    """§3.7 at (0, 0, 0): rad = f_div(f_mul(PI, +0), DEG180) = +0; cossin(+0) = (+0, 1.0), c′ = 1.0,
    s′ = +0, n = f_sub(+0, +0) = +0, so every ⊗ gives the identity bits exactly."""
    assert single_rotation((0, 0, 0), F.ops(model)) == IDENTITY16


def test_single_value_90_degrees_hw_bits():
    """§3.7 at (0, 0, 90°), hw. f_mul(PI, 90.0) = 0x438D5F25 (exact Booth: 90.0 has no low
    multiplier bits; truncated); ÷ 180.0: the exact significand is 13176793.6, trunc 0xC90FD9, and
    the SRT divider gives trunc + 1: rad = 0x3FC90FDA, one ulp below HALF_PI. Then x = HALF_PI − rad
    = 2^-23 (0x34000000); every polynomial term is ≥ 25 binades below x, so hw's add leaves x
    unchanged: cos = 0x34000000; r·r = 2^-46, 1 − 2^-46 = 1.0 (d ≥ 25), √1 = 1.0: sin = 1.0.
    Rz columns [c, 1, 0, 0], [−1, c, 0, 0]; Ry = Rx = identity bits; scratch words w0,w1,w2,w4,..."""
    o = F.ops("hw")
    assert o.f_mul(0x40490FDB, DEG[90]) == 0x438D5F25
    assert o.f_div(0x438D5F25, 0x43340000) == 0x3FC90FDA
    assert cossin(0x3FC90FDA, o) == (0x3F800000, 0x34000000)
    a = track_anim(rot=one(0.0, 0.0, 90.0))
    p = a.pose(0, 0)
    assert p.rot == [0x34000000, 0x3F800000, 0, 0xBF800000, 0x34000000, 0, 0, 0, 0x3F800000]
    assert not p.rot_keyed and p.passed == 0


def test_single_value_90_degrees_trunc_bits():
    """§3.7 at (0, 0, 90°), trunc: rad = trunc(13176793.6) -> 0x3FC90FD9, x = 2^-22; x + S3·x³
    truncates just below: cos = 0x347FFFFF; 1 − r² truncates to 0x3F7FFFFF and so does its root."""
    o = F.ops("trunc")
    assert o.f_div(0x438D5F25, 0x43340000) == 0x3FC90FD9
    assert cossin(0x3FC90FD9, o) == (0x3F7FFFFF, 0x347FFFFF)
    p = track_anim(rot=one(0.0, 0.0, 90.0), float_model="trunc").pose(0, 0)
    assert p.rot == [0x347FFFFF, 0x3F7FFFFF, 0, 0xBF7FFFFF, 0x347FFFFF, 0, 0, 0, 0x3F800000]


@pytest.mark.parametrize("model", MODELS)
def test_single_value_200_degrees_sine_sign_defect(model):
    """§3.3 known errors: at 200° the angle is positive, so the sine is +√(1 − cos²) = +0.342
    where sin 200° = −0.342; the cosine, from the polynomial at π/2 − 3.49, is right (−0.9397).
    At −200° the signs swap: sine −0.342 where sin(−200°) = +0.342."""
    o = F.ops(model)
    for deg, sign in ((200, 0), (-200, 1)):
        m = single_rotation((0, 0, DEG[deg]), o)
        s, c = m[1], m[0]                           # Rz column 0 = (c, s): words 0 and 1
        assert c >> 31 == 1 and abs(F.bits_to_double(c) - math.cos(math.radians(200))) < 1e-5
        assert s >> 31 == sign
        assert abs(abs(F.bits_to_double(s)) - 0.3420201) < 1e-5
        assert m[4] == s ^ 0x80000000               # n = f_sub(+0, s)
    # the frozen bits (sin, cos) at +200° as the steps of §3.3 give them
    rad = o.f_div(o.f_mul(0x40490FDB, DEG[200]), 0x43340000)
    assert rad == 0x405F66F3
    assert cossin(rad, o) == ({"hw": 0x3EAF1C44, "trunc": 0x3EAF1C43}[model], 0xBF708FE1)


def test_absent_rotation_is_identity():
    """§3.8: 0x3F800000 on the diagonal, +0 elsewhere; .rot gives the 9 scratch words."""
    p = track_anim(pos=one(1.0, 2.0, 3.0)).pose(0, 10)
    assert p.rot == [ONE, 0, 0, 0, ONE, 0, 0, 0, ONE]
    assert p.rot_kind == 0 and p.rot16 == IDENTITY16


def test_mul_matrix_operand_roles():
    """§3.2: in L ⊗ R the left factor's element is fs and the right factor's lane is ft.
    ee-float.md §5 rows 11/12: MUL(1.0, 0x3FFFFFFF) = 0x3FFFFFFE but MUL(0x3FFFFFFF, 1.0) = 0x3FFFFFFF."""
    o = F.ops("hw")
    X = list(IDENTITY16)
    X[0] = 0x3FFFFFFF
    assert mul_matrix(IDENTITY16, X, o)[0] == 0x3FFFFFFE    # fs = 1.0 (left), ft = 0x3FFFFFFF
    assert mul_matrix(X, IDENTITY16, o)[0] == 0x3FFFFFFF    # fs = 0x3FFFFFFF (left), ft = 1.0


@pytest.mark.parametrize("model", MODELS)
def test_rot_matrix_is_rx_ry_rz(model):
    """§3.2: the result is R = Rx·Ry·Rz in math terms (checked in double, within the cossin error)."""
    o = F.ops(model)
    rng = random.Random(f"rxryrz:{model}")
    for _ in range(20):
        ang = [rng.uniform(-3.0, 3.0) for _ in range(3)]
        bits = [F.f_from_int(0) if v == 0 else _f32(v) for v in ang]
        m = rot_matrix(*bits, o)
        got = np.array([[F.bits_to_double(m[4 * c + r]) for c in range(3)] for r in range(3)])
        x, y, z = (F.bits_to_double(b) for b in bits)
        Rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
        Ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
        Rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
        assert np.abs(got - Rx @ Ry @ Rz).max() < 2e-3


def _f32(v):
    import struct
    return struct.unpack("<I", struct.pack("<f", v))[0]


def _rz(deg):
    t = math.radians(deg)
    return np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])


def test_keyed_rotation_constant_speed_about_one_axis():
    """§3.6: keys (0,0,0)@0 and (0,0,90°)@4. Both key matrices are exact (quantised π/2 gives
    cossin = (1.0, +0)); halfway (T = 512, frac = 0.5) the pose is Rz(45°)."""
    a = track_anim(frames=8, rot=keyed((0, 0.0, 0.0, 0.0), (4, 0.0, 0.0, 90.0)))
    assert a.tracks[0].keyed_rotation
    p = a.pose(0, 512)
    assert p.rot is None and p.rot_keyed
    assert np.abs(p.rot_matrix - _rz(45)).max() < 1e-12
    assert np.abs(a.pose(0, 1024).rot_matrix - _rz(90)).max() < 1e-12
    assert (a.passed(0, 1024), a.passed(0, 1025)) == (0, 1)


def test_final_hold_creep():
    """§3.6 compile step 4: the last key (frame 4) lies before N = 8, so a final hold of duration
    4·256 − 8·256 (wrap) = 2^32 − 1024 reuses the 90° step: at last = 1792 the pose has crept by
    90°·768/(2^32 − 1024) beyond the key, about the same axis."""
    a = track_anim(frames=8, rot=keyed((0, 0.0, 0.0, 0.0), (4, 0.0, 0.0, 90.0)))
    segs = a.tracks[0].compiled()[1].segments
    assert [s[0] for s in segs] == [1024, 2**32 - 1024]
    assert segs[1][1:] == segs[0][1:]
    m = a.pose(0, 1792).rot_matrix
    creep = math.atan2(m[1][0], m[0][0]) - math.pi / 2
    want = (math.pi / 2) * 768 / (2**32 - 1024)
    assert creep > 0 and abs(creep - want) < 1e-6 * want
    assert a.passed(0, 1792) == 1


def test_rotation_key_back_in_time_never_passed():
    """§2.4/§3.6: keys 0°@0, 90°@4, 0°@0: the step back (−90°) has dur 0 − 1024 (wrap), is never
    passed, and the pose creeps back from 90° by 90°·t/(2^32 − 1024)."""
    a = track_anim(frames=8, rot=keyed((0, 0.0, 0.0, 0.0), (4, 0.0, 0.0, 90.0), (0, 0.0, 0.0, 0.0)))
    segs = a.tracks[0].compiled()[1].segments
    assert [s[0] for s in segs] == [1024, 2**32 - 1024, 2**32 - 2048]
    m = a.pose(0, 1792).rot_matrix
    creep = math.atan2(m[1][0], m[0][0]) - math.pi / 2
    assert a.passed(0, 1792) == 1
    assert creep < 0 and abs(creep + (math.pi / 2) * 768 / (2**32 - 1024)) < 1e-12


def test_rotation_keys_sharing_a_frame():
    """§2.4/§3.6: keys 0°@0, 90°@2, 0°@2, 0°@4: the 90° turn ends at T = 512; at T = 513 the
    zero-length step back is passed too, and the pose is the identity again."""
    a = track_anim(frames=6, rot=keyed((0, 0.0, 0.0, 0.0), (2, 0.0, 0.0, 90.0), (2, 0.0, 0.0, 0.0),
                                       (4, 0.0, 0.0, 0.0)))
    assert np.abs(a.pose(0, 512).rot_matrix - _rz(90)).max() < 1e-12
    assert np.abs(a.pose(0, 513).rot_matrix - np.eye(3)).max() < 1e-12
    assert a.passed(0, 513) == 2


def test_rotation_keys_past_the_end_have_no_final_hold():
    """§3.6: the last key (frame 8) lies at or beyond N = 4: no final hold; at last = 768,
    frac = 0.375 of 90°."""
    a = track_anim(frames=4, rot=keyed((0, 0.0, 0.0, 0.0), (8, 0.0, 0.0, 90.0)))
    assert len(a.tracks[0].compiled()[1].segments) == 1
    assert np.abs(a.pose(0, 768).rot_matrix - _rz(33.75)).max() < 1e-12


def test_m2a_a2m_round_trip():
    """§3.4-3.5: a2m(m2a(R)) = R for turns below π, and the identity has no axis."""
    rng = random.Random("m2a")
    assert m2a(((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0))) == (None, 0.0)
    for _ in range(200):
        u = np.array([rng.gauss(0, 1) for _ in range(3)])
        u /= np.linalg.norm(u)
        ang = rng.uniform(-3.1, 3.1)
        R = a2m(tuple(u), ang)
        axis, angle = m2a(R)
        assert np.abs(np.array(a2m(axis, angle)) - np.array(R)).max() < 1e-9
        assert abs(abs(angle) - abs(ang)) < 1e-9


def test_local_matrix_exact_r_times_s_plus_translation():
    """§4 step 3 with an absent rotation: R ⊗ S gives diag(s, 1) with +0 elsewhere (a −0 product
    plus +0 is +0), then the translation lanes are f_add(+0, p): 1.0 stays, −0 and a zero-exponent
    p become +0."""
    a = track_anim(pos=one(1.0, Bits(NEG0), Bits(0x00000001)), scale=one(-2.0, 3.0, 0.5))
    assert a.local_matrix(0, 5) == (0xC0000000, 0, 0, 0, 0, 0x40400000, 0, 0, 0, 0, 0x3F000000, 0,
                                    0x3F800000, 0, 0, ONE)


def test_local_matrix_exact_single_rotation_hw():
    """§4 with the (0, 0, 90°) hw matrix of test_single_value_90_degrees_hw_bits and scale
    (2, 1, 1): column 0 = (c·2, 1·2, 0, 0) (ft = 2.0: exact), column 1 = (−1, c, 0, 0)."""
    a = track_anim(rot=one(0.0, 0.0, 90.0), scale=one(2.0, 1.0, 1.0), pos=one(0.0, 5.0, 0.0))
    assert a.local_matrix(0, 0) == (0x34800000, 0x40000000, 0, 0, 0xBF800000, 0x34000000, 0, 0,
                                    0, 0, ONE, 0, 0, 0x40A00000, 0, ONE)


def test_local_matrix_double_for_keyed_rotation():
    """§4: the double version, element (r, c) = R[r][c]·s_c, translation p, bottom row 0 0 0 1."""
    a = track_anim(frames=8, rot=keyed((0, 0.0, 0.0, 0.0), (4, 0.0, 0.0, 90.0)),
                   scale=one(2.0, 3.0, 4.0), pos=one(1.0, 2.0, 3.0))
    L = a.local_matrix(0, 512)
    want = np.eye(4)
    want[:3, :3] = _rz(45) @ np.diag([2.0, 3.0, 4.0])
    want[:3, 3] = [1.0, 2.0, 3.0]
    assert np.abs(L - want).max() < 1e-12


def test_mac4_overflow_latch_hw():
    """§3.2 with ee-float.md §3.6/§3.10: VMULA overflows (2^127 × 4.0 -> +Fmax, latched); the
    VMADDA steps then keep ACC (rule 2) whatever they add; the final VMADD ignores the latch and is
    a plain ADD. Under trunc the chain is plain f_add throughout."""
    o = F.ops("hw")
    FMAX = 0x7FFFFFFF
    terms = ((0x7F000000, 0x40800000), (ONE, 0xBF800000), (0, 0), (ONE, 0xFF000000))
    assert o.mac4(terms) == F.hw_add(FMAX, 0xFF000000)
    t = F.ops("trunc")
    want = F.tr_add(F.tr_add(F.tr_add(FMAX, 0xBF800000), 0), 0xFF000000)
    assert t.mac4(terms) == want
    assert o.mac4(terms) != t.mac4(terms)


def test_local_translation_words_for_every_rotation_kind():
    """§4 step 3.2: the translation words are p with a zero-exponent p_k made +0, whatever R is;
    for an exact local matrix they equal its words 12-14."""
    for rot in (None, one(0.0, 0.0, 90.0), keyed((0, 0.0, 0.0, 0.0), (4, 10.0, 20.0, 30.0))):
        a = track_anim(rot=rot, pos=one(-3.5, Bits(NEG0), Bits(0x80000001)))
        assert a.local_translation(0, 300) == (0xC0600000, 0, 0)
        if not a.tracks[0].keyed_rotation:
            assert a.local_matrix(0, 300)[12:15] == (0xC0600000, 0, 0)


@pytest.mark.parametrize("model", MODELS)
def test_cossin_accuracy_within_the_known_errors(model):
    """§3.3: for |a| ≤ π the cosine polynomial is close (a few 1e-6), and the sine from
    √(1 − cos²) is off by up to about 5e-4 (near 0), with the right sign."""
    o = F.ops(model)
    rng = random.Random(f"cossin-acc:{model}")
    worst_s = 0.0
    for _ in range(3000):
        a = _f32(rng.uniform(-math.pi, math.pi))
        s, c = cossin(a, o)
        x = F.bits_to_double(a)
        assert abs(F.bits_to_double(c) - math.cos(x)) < 1e-5, hex(a)
        err = abs(F.bits_to_double(s) - math.sin(x))
        worst_s = max(worst_s, err)
        assert err < 6e-4, hex(a)
    assert worst_s > 1e-5            # the coarse sine near 0 is really there


def test_a_key_held_after_a_turn_is_a_step_without_axis_whose_pose_is_the_running_matrix():
    """§3.4 step 4 and §3.6: a key repeated on a later frame after a turn into it gives a step with
    no axis; holds() names the time the turn ends (frac 1) and the held key, with the key's own
    sceVu0RotMatrix words."""
    a = track_anim(frames=12, rot=keyed((0, 0.0, 0.0, 0.0), (4, 0.0, 30.0, 10.0), (8, 0.0, 30.0, 10.0),
                                        (11, 0.0, 60.0, 10.0)))
    (T, key, words), = a.rotation_holds(0)
    assert (T, key) == (4 * 256, 1)
    rot = a.tracks[0].compiled()[1]
    assert rot.segments[1][1] is None and rot.segments[0][1] is not None
    assert words == rot.key_words[1] and len(words) == 16
    # in the hold the pose does not move, and it is the turn's end
    end, held = a.pose(0, T).rot_matrix, a.pose(0, T + 1).rot_matrix
    assert np.array_equal(end, held) and np.array_equal(held, a.pose(0, 8 * 256).rot_matrix)


@pytest.mark.parametrize("keys", [
    ((0, 0.0, 30.0, 0.0), (4, 0.0, 30.0, 0.0), (8, 0.0, 60.0, 0.0)),     # a hold with no turn before it
    ((0, 0.0, 0.0, 0.0), (4, 0.0, 30.0, 0.0), (4, 0.0, 30.0, 0.0)),      # the repeat shares the frame
    ((0, 0.0, 0.0, 0.0), (4, 0.0, 0.0, 0.0), (8, 0.0, 0.0, 0.0)),        # no turn at all
    ((0, 0.0, 0.0, 0.0), (4, 0.0, 30.0, 0.0), (8, 0.0, 30.5, 0.0)),      # a small turn is no hold
], ids=["no-turn-before", "shared-frame", "still", "small-turn"])
def test_only_a_held_key_after_a_turn_is_a_hold(keys):
    a = track_anim(frames=10, rot=keyed(*keys))
    assert a.rotation_holds(0) == []
