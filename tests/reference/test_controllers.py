"""Float and vector controllers, animation-semantics.md §2 (compile §2.2, evaluate §2.4, §2.5)."""
import pytest

from reference import eefloat as F
from reference.controllers import FloatController

from .helpers import NEG0, ONE, Bits, keyed, one, track_anim

MODELS = ["hw", "trunc"]


def pos_at(a, T):
    return a.pose(0, T).pos


def alpha_at(a, T):
    return a.pose(0, T).alpha


@pytest.mark.parametrize("model", MODELS)
def test_linear_between_keys(model):
    """§2.4: value = acc + delta·(t/dur). Keys 0.0 at frame 0 and 4.0 at frame 4: at T = 256,
    frac = 256/1024 = 0.25 exactly, 4.0 × 0.25 = 1.0 (0x3F800000)."""
    a = track_anim(alpha=keyed((0, 0.0), (4, 4.0)), float_model=model)
    assert alpha_at(a, 256) == 0x3F800000
    assert alpha_at(a, 512) == 0x40000000
    assert alpha_at(a, 0) == 0                      # time 0 is the first key's value (§2.4)
    assert alpha_at(a, 1024) == 0x40800000


@pytest.mark.parametrize("model", MODELS)
def test_hold_before_first_key_and_zero_exponent_becomes_plus_zero(model):
    """§2.2 step 2 and §2.4 first consequence: before the first key the value holds, and the hold
    adds f_mul(0, frac) = +0, turning a zero-exponent key value into +0."""
    a = track_anim(alpha=keyed((2, 5.0), (4, 7.0)), float_model=model)
    assert alpha_at(a, 100) == 0x40A00000           # 5.0
    assert alpha_at(a, 512) == 0x40A00000
    z = track_anim(alpha=keyed((2, Bits(0x00000001)), (4, Bits(0x00000001))), float_model=model)
    assert alpha_at(z, 0) == 0x00000000
    assert alpha_at(z, 300) == 0x00000000
    n = track_anim(alpha=keyed((2, Bits(NEG0)), (4, Bits(NEG0))), float_model=model)
    assert alpha_at(n, 100) == 0x00000000           # -0 + (+0) = +0


@pytest.mark.parametrize("model", MODELS)
def test_holds_last_key_after_it(model):
    """§2.2 step 4: the final hold keeps the last key's value up to last."""
    a = track_anim(frames=10, alpha=keyed((0, 1.0), (2, 3.0)), float_model=model)
    assert alpha_at(a, 512) == 0x40400000
    assert alpha_at(a, 2304) == 0x40400000           # last = 9·256
    assert alpha_at(a, 0xFFFFFFFF) == 0x40400000     # evaluated at min(T, last)


@pytest.mark.parametrize("model", MODELS)
def test_running_sum_reaches_keys_not_key_values(model):
    """§2.2 step 3.2: the next delta is taken from the running sum, not from the key value.

    v0 = 0x3F800001 (1 + 2^-23), v1 = 0x4B800001 (2^24 + 2) at frame 1, and v1 again at frame 2.
    delta1 = v1 - v0 truncates to 2^24 (0x4B800000); the running sum v0 + 2^24 = 2^24 + 1.0000001
    truncates to 2^24 as well, so key 1 is reached as 0x4B800000, and the second segment between
    two equal keys has delta 2.0 and still moves the value: at its end it reaches 0x4B800001."""
    a = track_anim(alpha=keyed((0, Bits(0x3F800001)), (1, Bits(0x4B800001)), (2, Bits(0x4B800001))),
                   float_model=model)
    c = a.tracks[0].compiled()[3]
    assert c.segments[0] == (256, (0x4B800000,))
    assert c.segments[1] == (256, (0x40000000,))
    assert alpha_at(a, 256) == 0x4B800000           # not the key's 0x4B800001
    assert alpha_at(a, 384) == 0x4B800000           # 2^24 + 1.0 truncates to 2^24
    assert alpha_at(a, 512) == 0x4B800001


def test_key_back_in_time_never_passed_and_creeps():
    """§2.4 second consequence: keys 0.0 (frame 0), 0.0 (frame 2), 8.0 (frame 1), 100.0 (frame 3).
    The third key goes back a frame: dur = 256 − 512 wraps to 0xFFFFFF00, never passed; every later
    key is unreachable, and the value creeps by 8.0·t/dur.

    Hand-derived (trunc): at T = 768, t = 256; u2f(0xFFFFFF00) = 2·f_from_int(0x7FFFFF80) =
    2·0x4EFFFFFF = 0x4F7FFFFF; frac = 2^8 / (0xFFFFFF·2^8) truncates to 2^-24 (0x33800000);
    8.0 × 2^-24 = 2^-21 = 0x35000000; 0.0 + that = 0x35000000. At T = last = 7·256 the creep is
    7·2^-21 ≈ 3.3e-6: still nowhere near 8.0, let alone 100.0."""
    a = track_anim(frames=8, alpha=keyed((0, 0.0), (2, 0.0), (1, 8.0), (3, 100.0)), float_model="trunc")
    c = a.tracks[0].compiled()[3]
    assert [d for d, _ in c.segments] == [512, 0xFFFFFF00, 512, (8 * 256 - 768) & 0xFFFFFFFF]
    assert alpha_at(a, 512) == 0
    assert alpha_at(a, 768) == 0x35000000
    v = F.bits_to_double(alpha_at(a, 1792))
    assert 0 < v < 1e-5
    assert c.passed(1792) == 1
    # hw: SRT gives trunc or trunc + 1 ulp for frac; the creep is there and just as tiny
    h = track_anim(frames=8, alpha=keyed((0, 0.0), (2, 0.0), (1, 8.0), (3, 100.0)), float_model="hw")
    assert alpha_at(h, 768) in (0x35000000, 0x35000001, 0x34FFFFFF)


@pytest.mark.parametrize("model", MODELS)
def test_keys_sharing_a_frame_always_passed(model):
    """§2.4 third consequence: keys 0.0@0, 2.0@2, 10.0@2, 12.0@4 give a segment of duration 0,
    passed whenever t > 0. At T = 512 the first segment ends (frac 1.0): 2.0. At T = 513 the zero
    segment is passed: 10.0 + 2.0·(1/512) = 10.00390625 = 0x41201000 (every step exact)."""
    a = track_anim(alpha=keyed((0, 0.0), (2, 2.0), (2, 10.0), (4, 12.0)), float_model=model)
    c = a.tracks[0].compiled()[3]
    assert [d for d, _ in c.segments] == [512, 0, 512, 1024]
    assert alpha_at(a, 512) == 0x40000000
    assert alpha_at(a, 513) == 0x41201000
    assert alpha_at(a, 1024) == 0x41400000           # 12.0


@pytest.mark.parametrize("model", MODELS)
def test_keys_past_the_end_interpolate_to_last(model):
    """§2.4 fourth consequence: a key at frame 8 with N = 4: the segment interpolates normally and
    evaluation stops at last = 768: frac = 768/2048 = 0.375, 8.0 × 0.375 = 3.0."""
    a = track_anim(frames=4, alpha=keyed((0, 0.0), (8, 8.0)), float_model=model)
    assert alpha_at(a, 768) == 0x40400000
    assert alpha_at(a, 5000) == 0x40400000


@pytest.mark.parametrize("model", MODELS)
def test_vector_controller_components(model):
    """§2.2/§2.4 with w = 3: each component has its own delta; +0 stays +0."""
    a = track_anim(pos=keyed((0, 1.0, -2.0, 0.0), (2, 3.0, -6.0, 0.0)), float_model=model)
    assert pos_at(a, 256) == (0x40000000, 0xC0800000, 0)


def test_one_value_controller_raw_words():
    """§2.5: a kind-1 controller yields its raw words unchanged: −0 and zero-exponent patterns too."""
    a = track_anim(pos=one(Bits(NEG0), Bits(0x00000001), Bits(0x7FFFFFFF)), alpha=one(Bits(0x80400000)))
    p = a.pose(0, 300)
    assert p.pos == (NEG0, 0x00000001, 0x7FFFFFFF)
    assert p.alpha == 0x80400000


def test_absent_channel_defaults():
    """formats.md §4.5 / animation-semantics.md §4: position +0, scale 1.0, transparency 1.0."""
    p = track_anim().pose(0, 100)
    assert p.pos == (0, 0, 0)
    assert p.scale == (ONE, ONE, ONE)
    assert p.alpha == ONE


def test_value_depends_only_on_time():
    """§2.4 (checks.md §2.3): the same T gives the same bits, whatever was asked before."""
    a = track_anim(frames=20, pos=keyed((0, 0.1, 0.2, 0.3), (7, 5.5, -1.25, 3.3), (15, -2.0, 4.0, 0.01)))
    want = [a.pose(0, T).pos for T in (3000, 17, 2000, 4000)]
    b = track_anim(frames=20, pos=keyed((0, 0.1, 0.2, 0.3), (7, 5.5, -1.25, 3.3), (15, -2.0, 4.0, 0.01)))
    assert [b.pose(0, T).pos for T in (4000, 2000, 17, 3000)][::-1] == want


def test_walk_matches_literal_loop():
    """The bisection over prefix sums equals the literal §2.4 walk on awkward key lists."""
    import random
    o = F.ops("hw")
    rng = random.Random("reference:walk")
    for case in range(60):
        n = rng.randint(1, 6)
        keys = [(rng.choice([0, 1, 2, 3, 5, 9, 0xFFFFFF]), (rng.getrandbits(32),)) for _ in range(n)]
        c = FloatController(keys, 1, rng.randint(0, 12), o)
        for T in [0, 1, 255, 256, 257, 700, 2303, 2304, rng.getrandbits(32)]:
            acc, t, i = list(c.base), T, 0
            S = len(c.segments)
            while i < S - 1 and c.segments[i][0] < t:
                acc = [o.f_add(acc[0], c.segments[i][1][0])]
                t = (t - c.segments[i][0]) & 0xFFFFFFFF
                i += 1
            dur, delta = c.segments[i]
            frac = o.f_div(o.u2f(t), o.u2f(dur)) if dur else 0
            want = (o.f_add(acc[0], o.f_mul(delta[0], frac)),)
            assert c.evaluate(T) == want, (case, keys, T)
