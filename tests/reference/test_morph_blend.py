"""ccMorpher::Modify's blend, animation-semantics.md §9.2 (and checks.md §5.2's fixed edge cases)."""
import random

import pytest

from reference import eefloat as F
from reference import morph
from reference.morph import weight_lanes

ONE = 0x3F800000
HALF = 0x3F000000


def test_edge_case_1_difference_wraps_in_16_bits():
    """checks.md §5.2 case 1: base (−32000, 32000, 0), target (32000, −32000, 5) at 1.0 (lanes 4096).
    s16(32000 + 32000) = −1536 and s16(−64000) = 1536: −32000 − 1536 saturates to −32768,
    32000 + 1536 saturates to 32767; z = 5."""
    out = morph([(-32000, 32000, 0)], ONE, [([(32000, -32000, 5)], ONE, ONE)])
    assert out == [(-32768, 32767, 5)]


def test_edge_case_2_add_saturates():
    """checks.md §5.2 case 2: base (32767, −32768, 7), targets (−32768, 32767, 7) and (0, 0, 7) at 0.5
    (lanes 2048). x: (1 − 32767)·2048 >> 12 = −16383 -> 16384. y: (−1 − 32768)·2048 >> 12 = −16385
    (arithmetic shift floors) -> −32768 − 16385 saturates to −32768. z: 7."""
    out = morph([(32767, -32768, 7)], ONE,
                [([(-32768, 32767, 7)], ONE, HALF), ([(0, 0, 7)], ONE, HALF)])
    assert out == [(16384, -32768, 7)]


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_weight_lanes(model):
    """§9.2 step 2: lanes from x = f_to_int(w × 4096) and the sign fill."""
    o = F.ops(model)
    assert weight_lanes(ONE, o) == (4096, 4096, 4096)
    assert weight_lanes(HALF, o) == (2048, 2048, 2048)
    assert weight_lanes(0, o) == (0, 0, 0)
    assert weight_lanes(0x80000000, o) == (0, 0, -1)            # −0 changes z
    assert weight_lanes(0xB9000000, o) == (0, 0, -1)            # −1/8192: x = trunc(−0.5) = 0
    assert weight_lanes(0xBF800000, o) == (-4096, -1, -1)       # −1.0: x = 0xFFFFF000
    assert weight_lanes(0x41000000, o) == (-32768, -32768, -32768)   # 8.0: s16(32768)
    assert weight_lanes(0x41800000, o) == (0, 1, 1)             # 16.0: x = 0x10000


def test_negative_zero_weight_moves_only_z():
    """§9.2: a −0 weight has lane_z = −1: z moves by (s16(t − b)·−1) >> 12, x and y stay."""
    out = morph([(10, 20, 0)], ONE, [([(4106, 4116, 4096)], ONE, 0x80000000)])
    assert out == [(10, 20, -1)]                                 # (4096·−1) >> 12 = −1


def test_rescale_truncates_and_wraps():
    """§9.2 step 1: target scale 2.0 vs base 1.0: ratio 2.0, 20000 -> 40000 wraps to −25536;
    −3 -> −6; with weight 1.0 and base 0 the output is the rescaled target."""
    out = morph([(0, 0, 0)], ONE, [([(20000, -3, 7)], 0x40000000, ONE)])
    assert out == [(-25536, -6, 14)]


def test_rescale_ratio_truncates_toward_zero():
    """§9.2 step 1: ratio = 0.5/1.0; 7 -> 3.5 -> 3; −7 -> −3 (truncation toward zero)."""
    out = morph([(0, 0, 0)], ONE, [([(7, -7, 1)], 0x3F000000, ONE)])
    assert out == [(3, -3, 0)]


def test_equal_scales_by_compare_not_bits():
    """§9.2 step 1: the rescale is skipped when f_cmp says the scales are equal (+0 vs −0 here)."""
    out = morph([(0, 0, 0)], 0, [([(5, 6, 7)], 0x80000000, ONE)])
    assert out == [(5, 6, 7)]


def test_target_order_does_not_matter():
    """§9.2 step 3: the integer sum does not depend on the order of the targets."""
    rng = random.Random("morph-order")
    for _ in range(30):
        n = rng.randint(1, 8)
        base = [tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(n)]
        tg = [([tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(n)],
               rng.choice([ONE, 0x40000000, 0x3EBD70A4]), rng.getrandbits(32) & 0xC1FFFFFF)
              for _ in range(rng.randint(1, 4))]
        assert morph(base, ONE, tg) == morph(base, ONE, tg[::-1])


def test_blend_matches_scalar_formula():
    """§9.2 step 3 written out per vertex in plain integers, against the numpy version."""
    rng = random.Random("morph-scalar")
    o = F.ops("hw")

    def s16(x):
        x &= 0xFFFF
        return x - 0x10000 if x & 0x8000 else x

    for _ in range(40):
        n = rng.randint(1, 6)
        base = [tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(n)]
        tg = [([tuple(rng.randint(-32768, 32767) for _ in range(3)) for _ in range(n)], ONE,
               rng.getrandbits(32) & 0xC1FFFFFF) for _ in range(rng.randint(1, 4))]
        want = []
        for i in range(n):
            v = []
            for k in range(3):
                acc = 0
                for pos, _, w in tg:
                    acc += s16(pos[i][k] - base[i][k]) * weight_lanes(w, o)[k]
                acc = ((acc + 2**31) % 2**32) - 2**31
                v.append(max(-32768, min(32767, s16(acc >> 12) + base[i][k])))
            want.append(tuple(v))
        assert morph(base, ONE, tg) == want


def test_short_target_is_an_error():
    """§9.2: a target shorter than the base is not defined; the reference refuses it by name."""
    with pytest.raises(ValueError, match="fewer than the base"):
        morph([(0, 0, 0), (1, 1, 1)], ONE, [([(0, 0, 0)], ONE, ONE)])
