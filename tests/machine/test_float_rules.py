"""The stated rules and examples of ee-float.md §1-§4 and r5900.md §7/§8, one test per paragraph.

Pure-function checks use eemu_ext.eefloat; state rules (FCR31, ACC idioms, VU0 flags) run as
instruction words on the Machine.
"""
from __future__ import annotations

import random

import pytest

from eemu_ext.eefloat import HW, TRUNC, M32, OVF, UNF, DIVZ, INV
from tests.machine import floatcheck
from tests.machine.cases_fpu import enc, load_f, li32, machine, run, vu_run

FMAX = 0x7FFFFFFF


def normal(rng, lo=1, hi=254):
    return (rng.getrandbits(1) << 31) | (rng.randint(lo, hi) << 23) | rng.getrandbits(23)


# ---- §1 common ground ------------------------------------------------------------------------

@pytest.mark.parametrize("fm", [HW, TRUNC], ids=["hw", "trunc"])
def test_sub_is_add_of_flipped_sign(fm):
    """§1: f_sub(a, b) = f_add(a, b XOR 0x80000000) in every case, zero signs included."""
    rng = random.Random("sub-is-add")
    pats = [0, 0x80000000, 0x00001337, 0x80001337, 0x3F800000, 0xBF800000, FMAX, 0xFFFFFFFF]
    pairs = [(a, b) for a in pats for b in pats] + [(normal(rng), normal(rng)) for _ in range(2000)]
    for a, b in pairs:
        assert fm.sub(a, b) == fm.add(a, b ^ 0x80000000)


@pytest.mark.parametrize("fm", [HW, TRUNC], ids=["hw", "trunc"])
def test_add_is_commutative(fm):
    """§1: f_add is commutative in both models."""
    rng = random.Random("add-commutes")
    for _ in range(5000):
        a, b = normal(rng, 100, 160), normal(rng, 100, 160)
        assert fm.add(a, b) == fm.add(b, a)


def test_e255_is_an_ordinary_number_and_zero_exponent_is_zero():
    """§1: 0x7F800000 is 2^128 (2^128 + 2^128 saturates); E = 0 is zero whatever its fraction."""
    assert HW.add(0x7F800000, 0x7F800000) == FMAX | OVF
    assert TRUNC.add(0x7F800000, 0x7F800000) == FMAX
    assert HW.mul(0x7F800000, 0x3F000000) == 0x7F000000
    assert HW.mul(0x00001337, 0x7FFFFFFF) == 0 and HW.add(0x00001337, 0x00000001) == 0


# ---- §2 trunc ---------------------------------------------------------------------------------

def test_trunc_rounding_is_truncation_of_the_exact_value():
    """§2.1: for sums of normals far from the range ends, trunc equals truncating the Fraction."""
    rng = random.Random("trunc-exact")
    for _ in range(3000):
        a, b = normal(rng, 60, 190), normal(rng, 60, 190)
        v = floatcheck.value(a) + floatcheck.value(b)
        want, _ = floatcheck.pack_trunc(v) if v else (0, None)
        assert TRUNC.add(a, b) == want


def test_trunc_div_by_zero_even_zero_over_zero():
    """§2.2 f_div: E(b) = 0 gives (S(a) XOR S(b)) | Fmax, even for 0/0."""
    assert TRUNC.div(0, 0) == FMAX and TRUNC.div(0x80000000, 0) == 0xFFFFFFFF
    assert TRUNC.div(0x3F800000, 0x80001337) == 0xFFFFFFFF


def test_trunc_fixed_width_shortcut():
    """§2.2: with exponents more than 60 apart, a unit at exponent (larger - 60) of the smaller
    operand's sign leaves the result unchanged."""
    rng = random.Random("shortcut")
    for _ in range(3000):
        x = normal(rng, 70, 254)
        gap = rng.randint(61, 200)
        ey = ((x >> 23) & 255) - gap
        if ey < 1:
            continue
        y = (rng.getrandbits(1) << 31) | (ey << 23) | rng.getrandbits(23)
        unit = (y & 0x80000000) | ((((x >> 23) & 255) - 60) << 23)
        assert TRUNC.add(x, y) == TRUNC.add(x, unit)


# ---- §4 how the models differ ----------------------------------------------------------------

def test_models_differ_as_section_4_says():
    """§4: opposite-sign add with d >= 25: hw keeps x, trunc gives x - 1 ulp; add underflow: hw
    keeps sign | fraction with U, trunc a signed zero; MADD overflow; VRSQRT by zero."""
    x, y = 0x3F800001, 0xB0000000                     # d = 31
    assert HW.add(x, y) == x and TRUNC.add(x, y) == 0x3F800000
    assert HW.sub(0x00E00000, 0x00800000) == 0x00400000 | UNF
    assert TRUNC.sub(0x00E00000, 0x00800000) == 0
    assert HW.madd(0xFFFFFFFF, FMAX, FMAX) & M32 == FMAX and TRUNC.madd(0xFFFFFFFF, FMAX, FMAX) == 0
    assert HW.vrsqrt(0xBF800000, 0) & M32 == FMAX and TRUNC.vrsqrt(0xBF800000, 0) == 0xFFFFFFFF


# ---- §3 hw --------------------------------------------------------------------------------------

def test_hw_add_exactly_one_zero_operand_returns_the_other_bit_for_bit():
    """§3.1 rules 1-2, 4, 7."""
    assert HW.add(0x80001337, 0x80000000) == 0x80000000
    assert HW.add(0x80001337, 0x00000000) == 0
    assert HW.add(0x00001337, 0x7F800001) == 0x7F800001
    assert HW.add(0x3F800000, 0xB2800000) == 0x3F800000            # d = 25: x unchanged
    assert HW.add(0x3F800000, 0xBF800000) == 0                     # exact cancellation: +0


def test_hw_mul_never_above_truncation_and_power_of_two_multiplier_exact():
    """§3.3: hw MUL is trunc or one ulp below, never above; a power-of-two ft is exact."""
    rng = random.Random("mul-bounds")
    low = 0
    for _ in range(20000):
        a, b = normal(rng, 100, 150), normal(rng, 100, 150)
        h, t = HW.mul(a, b) & M32, TRUNC.mul(a, b)
        assert h in (t, t - 1)
        low += h != t
        p2 = (rng.randint(100, 150) << 23) | (rng.getrandbits(1) << 31)
        assert HW.mul(a, p2) & M32 == TRUNC.mul(a, p2)
    assert 0 < low < 200           # "about 0.09 %" of random normal operands


def test_hw_mul_examples_and_operand_order():
    """§3.3 observed: MUL(1.0, 0x3FFFFFFF) = 0x3FFFFFFE but MUL(0x3FFFFFFF, 1.0) = 0x3FFFFFFF;
    MUL(1.0, Fmax) = 0x7FFFFFFE but MUL(Fmax, 1.0) = Fmax; Fmax x 0 = +0 without a flag."""
    assert HW.mul(0x3F800000, 0x3FFFFFFF) == 0x3FFFFFFE
    assert HW.mul(0x3FFFFFFF, 0x3F800000) == 0x3FFFFFFF
    assert HW.mul(0x3F800000, FMAX) == 0x7FFFFFFE and HW.mul(FMAX, 0x3F800000) == FMAX
    assert HW.mul(FMAX, 0) == 0


def test_hw_div_is_trunc_or_one_ulp_above():
    """§3.4: the SRT result is trunc(exact) or trunc(exact) + 1 ulp; 1/0x3FFFFFFF = 0x3F000001."""
    rng = random.Random("div-bounds")
    for _ in range(5000):
        a, b = normal(rng, 100, 150), normal(rng, 100, 150)
        h, t = HW.div(a, b) & M32, TRUNC.div(a, b)
        assert h in (t, t + 1)
    assert HW.div(0x3F800000, 0x3FFFFFFF) == 0x3F000001
    assert HW.div(0x3F800000, 0) == FMAX | DIVZ and HW.div(0, 0x80000000) == 0xFFFFFFFF | INV


def test_hw_sqrt_and_rsqrt_examples():
    """§3.5 hardware values."""
    assert HW.sqrt(0x40000000) == 0x3FB504F3 and HW.sqrt(0x40400000) == 0x3FDDB3D7
    assert HW.sqrt(FMAX) == 0x5FB504F3 and HW.sqrt(0x7F800000) == 0x5F800000
    assert HW.sqrt(0xBF800000) == 0x3F800000 | INV and HW.sqrt(0x80000000) == INV
    assert HW.rsqrt(0x80000000, 0) & M32 == 0xFFFFFFFF
    assert HW.rsqrt(0x3F800000, 0xBF800000) == 0x3F800000 | INV
    assert HW.rsqrt(FMAX, FMAX) == 0x5FB504F2


def test_hw_sqrt_is_trunc_or_one_ulp_above():
    rng = random.Random("sqrt-bounds")
    for _ in range(3000):
        x = normal(rng)
        h, t = HW.sqrt(x) & M32, TRUNC.sqrt(x)
        assert h in (t, t + 1)


def test_madd_overflow_example():
    """§3.6: with ACC = -Fmax, MADD(Fmax, Fmax) gives +Fmax with O (a plain add would give 0)."""
    assert HW.madd(0xFFFFFFFF, FMAX, FMAX) == FMAX | OVF


def test_acc_idioms_as_instructions():
    """§3.6 idioms: ADDA.S x, -0 copies x into ACC (E = 0 x becomes a zero of x's sign);
    MADD.S fd, -0, +0 copies ACC out."""
    m = machine("hw")
    run(m, load_f(30, 0x80000000) + load_f(31, 0) + load_f(1, 0x80001337) + load_f(2, 0x12345678)
        + [enc("adda.s", fs=1, ft=30), enc("madd.s", fd=3, fs=30, ft=31),
           enc("adda.s", fs=2, ft=30), enc("madd.s", fd=4, fs=30, ft=31)])
    assert m.F[3] == 0x80000000 and m.S.acc == 0x12345678 and m.F[4] == 0x12345678


def test_compare_keys():
    """§3.7: +0, -0 and every E = 0 pattern are equal; E = 255 orders normally; key order is
    trunc's exact order."""
    k = HW.key
    assert k(0) == k(0x80000000) == k(0x00001337) == k(0x807FFFFF)
    assert k(0x7F800000) < k(FMAX) and k(0xFFFFFFFF) < k(0xFF800000) < k(0xBF800000) < k(0)
    rng = random.Random("keys")
    for _ in range(3000):
        a, b = rng.getrandbits(32), rng.getrandbits(32)
        assert (k(a) > k(b)) - (k(a) < k(b)) == floatcheck.cmp_value(a, b)


def test_max_min_raw_order():
    """§3.7: max(+0, -0) = +0, min(+0, -0) = -0, min(0x00000001, 1.0) = 0x00000001."""
    assert HW.fmax(0, 0x80000000) == 0 and HW.fmin(0, 0x80000000) == 0x80000000
    assert HW.fmin(0x00000001, 0x3F800000) == 0x00000001
    assert HW.fmax(0x80000001, 0x80000002) == 0x80000001


def test_conversions():
    """§3.7: CVT.S.W truncates to 24 bits (0x7FFFFFFF -> 0x4EFFFFFF); CVT.W.S saturates above
    E = 157, E = 255 being just large; VFTOI/VITOF scale by 2^n (§3.10)."""
    assert HW.from_int(0x7FFFFFFF) == 0x4EFFFFFF and HW.from_int(0x80000000) == 0xCF000000
    assert HW.to_int(0x4EFFFFFF) == 0x7FFFFF80 and HW.to_int(0xCF000000) == 0x80000000
    assert HW.to_int(0x7F800000) == FMAX and HW.to_int(0xBF7FFFFF) == 0
    assert HW.ftoi(0x3F800000, 4) == 16 and HW.ftoi(0x47800000, 15) == FMAX and HW.ftoi(0x477FFFFF, 15) == 0x7FFFFF80
    assert HW.itof(16, 4) == 0x3F800000 and HW.itof(1, 15) == 0x38000000


def test_fcr31_after_reset_and_trunc_keeps_only_c():
    """§3.9: FCR31 reads 0x01000001 after reset; under trunc a flagging op leaves it so."""
    for model in ("hw", "trunc"):
        m = machine(model)
        run(m, [enc("cfc1", rt=2, fs=31)])
        assert m.R[2] == 0x01000001
    m = machine("trunc")
    run(m, load_f(1, 0x3F800000) + load_f(2, 0) + [enc("div.s", fd=3, fs=1, ft=2),
                                                    enc("c.eq.s", fs=2, ft=2), enc("cfc1", rt=2, fs=31)])
    assert m.R[2] == 0x01800001


# ---- §3.10 VU0 flags ----------------------------------------------------------------------------

def test_vu0_mac_negative_zero_sets_z_and_s_and_sticky_status():
    """§3.10: -0 sets Z and S; lanes outside dest get 0; status ORs into the sticky bits."""
    def setup(m):
        m.VF[1][:] = [0x80000000, 0x3F800000, 0x7F800000, 0x00800000]
        m.VF[2][:] = [0x3F800000, 0x3F800000, 0x7F800000, 0x00800000]
        m.S.status = 0
    m = vu_run("hw", [enc("vmul", dest=0xB, fd=3, fs=1, ft=2)], setup)
    # x: -0 -> Z, S (o = 3); z: overflow -> O (o = 1); w: underflow -> U, Z (o = 0); y outside dest
    assert m.S.mac == (1 << 3) | (1 << 7) | (1 << 13) | (1 << 8) | (1 << 0)
    assert m.S.status == 0b1111 | (0b1111 << 6)
    assert m.VF[3] == [0x80000000, 0, 0x7FFFFFFF, 0]


def test_vu0_madda_latch_is_the_lanes_mac_o_bit():
    """§3.10: for VMADDA the ACC-overflowed flag is the lane's current MAC O bit; VMADD ignores it."""
    def setup(m):
        m.S.vacc[:] = [0x3F800000] * 4
        m.S.mac = 1 << 15                   # O of lane x
        m.VF[1][:] = [0x3F800000] * 4
    m = vu_run("hw", [enc("vmadda", dest=0xF, fs=1, ft=1)], setup)
    assert list(m.S.vacc) == [0x3F800000, 0x40000000, 0x40000000, 0x40000000]
    assert m.S.mac == 1 << 15               # lane x: O again (rule 2: ACC value, O)


def test_ctc2_status_writes_only_sticky_bits():
    """r5900.md §8.4 / ee-float.md §3.10: CTC2 to status writes only bits 6-11."""
    m = machine("hw")
    m.S.status = 0x00F
    run(m, li32(9, 0xFFFFF000 | 0x5A5) + [enc("ctc2.ni", rt=9, rd=16), enc("cfc2.ni", rt=2, rd=16)])
    assert m.R[2] == 0x00F | (0x5A5 & 0xFC0)


def test_vf0_never_changes():
    """r5900.md §2, §8.2: writes to VF0 are discarded, flags still update."""
    def setup(m):
        m.VF[1][:] = [0x7F800000] * 4
    m = vu_run("hw", [enc("vadd", dest=0xF, fd=0, fs=1, ft=1), enc("vmove", dest=0xF, ft=0, fs=1),
                      enc("vrget", dest=0xF, ft=0)], setup)
    assert m.VF[0] == [0, 0, 0, 0x3F800000]
    assert m.S.mac == 0xF000                 # the add overflowed in every lane


def _srt_pow2_agrees(mas):
    from eemu_ext.eefloat import _srt_div
    return [hex(ma) for ma in mas if _srt_div(ma, 0x800000) >> 1 != ma]


def test_pow2_divisor_shortcut_matches_the_srt_divider():
    """hw_div skips the SRT loop for a power-of-two divisor: the divider's Q >> 1 is M(a) then.
    Sampled here (and against floatcheck's SRT); exhaustive over all 2^23 dividends in the slow test."""
    rng = random.Random("pow2-div")
    mas = [0x800000, 0xFFFFFF, 0x800001, 0xFFFFFE] + [rng.randint(0x800000, 0xFFFFFF) for _ in range(3000)]
    assert not _srt_pow2_agrees(mas)
    for ma in mas[:300]:
        assert floatcheck.srt_quotient(ma, 0x800000) >> 1 == ma
    for _ in range(2000):
        a = normal(rng)
        b = (rng.getrandbits(1) << 31) | (rng.randint(1, 254) << 23)
        assert HW.div(a, b) == floatcheck.HW.div(a, b)[0]


@pytest.mark.slow
def test_pow2_divisor_shortcut_exhaustive():
    assert not _srt_pow2_agrees(range(0x800000, 0x1000000))
