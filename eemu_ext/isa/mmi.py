"""R5900 multimedia instructions: every MMI0-3 row, PMFHL/PMTHL, the P* shifts, PLZCW, QFSRV.

Semantics follow r5900.md §5.3 and §6 (all [HW]); encodings and assembler operand orders §4.4.
Every lane is computed from the *old* rs and rt (rd may alias either), so each ``sem`` reads its
128-bit operands into locals before writing. HI and LO are ``[HI0, HI1]`` / ``[LO0, LO1]`` (64-bit
halves); the SIMD multiplies view them as four words each (``HIw0 .. HIw3``).

The lane-wise operations are SWAR bit tricks on whole 128-bit Python ints (this table runs in the
morph blend's hot path); ``tests/machine/test_mmi_lanes.py`` checks each against a per-lane model.
Helper names all start with ``mmi_`` so they cannot collide with other modules' namespaces, and no
helper or local in a ``sem`` is spelled like a field token (rs, rt, rd, sa, imm, ...).

Each row's ``c`` is its compiled form, generated beside its ``sem``; it calls the C helpers of
eemu_ext/engines/native/csrc/mmi.h under the same mmi_* names (128-bit values as u128).
"""
from __future__ import annotations

from eemu_ext.isa.row import Row

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
M128 = (1 << 128) - 1


def _rep(value: int, n: int) -> int:
    """``value`` (an n-bit pattern) repeated in every n-bit lane of 128 bits."""
    out = 0
    for i in range(0, 128, n):
        out |= value << i
    return out


# Per lane width n: H = the sign bit of every lane, L = the other bits, LANE = all n bits.
_H = {n: _rep(1 << (n - 1), n) for n in (8, 16, 32, 64)}
_L = {n: _rep((1 << (n - 1)) - 1, n) for n in (8, 16, 32, 64)}
_ONE = {n: (1 << n) - 1 for n in (8, 16, 32, 64)}
# Shift masks: bits that survive a left / right shift by s inside each lane.
_KEEP_L = {n: [_rep((_ONE[n] << s) & _ONE[n], n) for s in range(n)] for n in (16, 32)}
_KEEP_R = {n: [_rep(_ONE[n] >> s, n) for s in range(n)] for n in (16, 32)}
_FILL_R = {n: [_rep(_ONE[n] ^ (_ONE[n] >> s), n) for s in range(n)] for n in (16, 32)}


def _spread(sign_bits: int, n: int) -> int:
    """Lanes whose sign bit is set in ``sign_bits`` become all ones, the others zero."""
    return (sign_bits >> (n - 1)) * _ONE[n]


# --- lane-wise arithmetic (r5900.md §6.1) -------------------------------------------------------

def mmi_add(a: int, b: int, n: int) -> int:
    """a + b in every n-bit lane, wrapping."""
    return ((a & _L[n]) + (b & _L[n])) ^ ((a ^ b) & _H[n])


def mmi_sub(a: int, b: int, n: int) -> int:
    """a - b in every n-bit lane, wrapping."""
    return ((a | _H[n]) - (b & _L[n])) ^ ((a ^ ~b) & _H[n])


def mmi_adds(a: int, b: int, n: int) -> int:
    """Signed saturating add (PADDSB/H/W)."""
    h = _H[n]
    s = ((a & _L[n]) + (b & _L[n])) ^ ((a ^ b) & h)
    m = _spread(~(a ^ b) & (a ^ s) & h, n)
    if not m:
        return s
    sat = _L[n] + ((a & h) >> (n - 1))          # 0x7F..F, or 0x80..0 when a < 0
    return (s & ~m) | (sat & m)


def mmi_subs(a: int, b: int, n: int) -> int:
    """Signed saturating subtract (PSUBSB/H/W)."""
    h = _H[n]
    s = ((a | h) - (b & _L[n])) ^ ((a ^ ~b) & h)
    m = _spread((a ^ b) & (a ^ s) & h, n)
    if not m:
        return s
    sat = _L[n] + ((a & h) >> (n - 1))
    return (s & ~m) | (sat & m)


def mmi_addu(a: int, b: int, n: int) -> int:
    """Unsigned saturating add (PADDUB/H/W): min(a + b, 2^n - 1)."""
    s = mmi_add(a, b, n)
    return s | _spread(((a & b) | ((a | b) & ~s)) & _H[n], n)


def mmi_subu(a: int, b: int, n: int) -> int:
    """Unsigned saturating subtract (PSUBUB/H/W): max(a - b, 0)."""
    s = mmi_sub(a, b, n)
    return s & ~_spread(((~a & b) | (~(a ^ b) & s)) & _H[n], n)


def mmi_cgt(a: int, b: int, n: int) -> int:
    """All ones in lanes where signed a > b (PCGTB/H/W)."""
    h = _H[n]
    x, y = a ^ h, b ^ h                           # biased: signed order becomes unsigned order
    d = mmi_sub(y, x, n)
    return _spread(((~y & x) | (~(y ^ x) & d)) & h, n)   # borrow out of y - x  <=>  y < x


def mmi_ceq(a: int, b: int, n: int) -> int:
    """All ones in lanes where a = b (PCEQB/H/W)."""
    x = a ^ b
    nonzero = (((x & _L[n]) + _L[n]) | x) & _H[n]
    return _spread(nonzero, n) ^ M128


def mmi_max(a: int, b: int, n: int) -> int:
    m = mmi_cgt(a, b, n)
    return (a & m) | (b & ~m)


def mmi_min(a: int, b: int, n: int) -> int:
    m = mmi_cgt(a, b, n)
    return (b & m) | (a & ~m)


def mmi_abs(b: int, n: int) -> int:
    """|b| per signed lane; the most negative value saturates to 0x7F..F (PABSH/PABSW)."""
    neg = (b & _H[n]) >> (n - 1)
    x = (b ^ (neg * _ONE[n])) + neg              # two's complement negation of negative lanes
    return x - ((x & _H[n]) >> (n - 1))          # only 0x80..0 still has its sign bit: -1


def mmi_padsbh(a: int, b: int) -> int:
    """PADSBH: halfword lanes 0-3 a - b, lanes 4-7 a + b (wrapping)."""
    return (mmi_sub(a, b, 16) & M64) | (mmi_add(a, b, 16) & (M64 << 64))


# --- shifts and leading-bit count (§6.2) ----------------------------------------------------------

def mmi_sll(a: int, s: int, n: int) -> int:
    return (a << s) & _KEEP_L[n][s]


def mmi_srl(a: int, s: int, n: int) -> int:
    return (a >> s) & _KEEP_R[n][s]


def mmi_sra(a: int, s: int, n: int) -> int:
    return ((a >> s) & _KEEP_R[n][s]) | (_spread(a & _H[n], n) & _FILL_R[n][s])


def mmi_sx32(x: int) -> int:
    """Low 32 bits of x sign-extended to 64 bits (unsigned)."""
    x &= M32
    return x | 0xFFFFFFFF00000000 if x & 0x80000000 else x


def mmi_psllvw(t_lo: int, t_hi: int, s_lo: int, s_hi: int):
    """PSLLVW: words 0 and 2 of rt shifted by words 0 and 2 of rs, each sign-extended to 64."""
    return mmi_sx32(t_lo << (s_lo & 31)), mmi_sx32(t_hi << (s_hi & 31))


def mmi_psrlvw(t_lo: int, t_hi: int, s_lo: int, s_hi: int):
    return mmi_sx32((t_lo & M32) >> (s_lo & 31)), mmi_sx32((t_hi & M32) >> (s_hi & 31))


def mmi_psravw(t_lo: int, t_hi: int, s_lo: int, s_hi: int):
    a = (t_lo & M32) - ((t_lo & 0x80000000) << 1)
    b = (t_hi & M32) - ((t_hi & 0x80000000) << 1)
    return mmi_sx32(a >> (s_lo & 31)), mmi_sx32(b >> (s_hi & 31))


def _redundant_sign_bits(w: int) -> int:
    if w & 0x80000000:
        w ^= M32
    return 31 - w.bit_length()


def mmi_plzcw(v: int) -> int:
    """PLZCW on the low 64 bits of rs: per word, the count of leading sign copies minus one."""
    return _redundant_sign_bits(v & M32) | _redundant_sign_bits((v >> 32) & M32) << 32


# --- pack, extend and shuffle (§6.3) -------------------------------------------------------------

_W_OF_DW = _rep(M32, 64)                      # low word of each doubleword
_H_OF_W = _rep(0xFFFF, 32)                    # low halfword of each word
_B_OF_H = _rep(0xFF, 16)                      # low byte of each halfword
_H_OF_DW = _rep(0xFFFF, 64)


def mmi_spread16(x: int) -> int:
    """Halfwords 0-3 of a 64-bit x moved to the low halfword of words 0-3."""
    x = (x | (x << 32)) & _W_OF_DW
    return (x | (x << 16)) & _H_OF_W


def mmi_spread8(x: int) -> int:
    """Bytes 0-7 of a 64-bit x moved to the low byte of halfwords 0-7."""
    x = (x | (x << 32)) & _W_OF_DW
    x = (x | (x << 16)) & _H_OF_W
    return (x | (x << 8)) & _B_OF_H


def mmi_compact16(x: int) -> int:
    """The low halfword of each word of a 128-bit x, packed into 64 bits (PPACH's half)."""
    x &= _H_OF_W
    x = (x | (x >> 16)) & _W_OF_DW
    return (x | (x >> 32)) & M64


def mmi_compact8(x: int) -> int:
    """The low byte of each halfword of a 128-bit x, packed into 64 bits (PPACB's half)."""
    x &= _B_OF_H
    x = (x | (x >> 8)) & _H_OF_W
    x = (x | (x >> 16)) & _W_OF_DW
    return (x | (x >> 32)) & M64


_EXEH_KEEP = _rep(0xFFFF0000FFFF0000, 64)
_EXCH_KEEP = _rep(0xFFFF00000000FFFF, 64)
_MID2_H = _rep(0x0000FFFF0000, 64)            # halfword 1 of each doubleword


def mmi_pexeh(v: int) -> int:
    """Halfwords 2,1,0,3 of each doubleword."""
    return (v & _EXEH_KEEP) | ((v & _H_OF_DW) << 32) | ((v >> 32) & _H_OF_DW)


def mmi_prevh(v: int) -> int:
    """Halfwords 3,2,1,0 of each doubleword."""
    x = ((v >> 32) & _W_OF_DW) | ((v & _W_OF_DW) << 32)
    return ((x >> 16) & _H_OF_W) | ((x & _H_OF_W) << 16)


def mmi_pexch(v: int) -> int:
    """Halfwords 0,2,1,3 of each doubleword."""
    return (v & _EXCH_KEEP) | ((v >> 16) & _MID2_H) | ((v & _MID2_H) << 16)


_P5_A, _P5_B, _P5_C, _P5_D = (_rep(m, 32) for m in (0x1F, 0x3E0, 0x7C00, 0x8000))


def mmi_pext5(v: int) -> int:
    """PEXT5: each word's 1-5-5-5 colour widened to 8-8-8-8."""
    return (((v & _P5_A) << 3) | ((v & _P5_B) << 6) | ((v & _P5_C) << 9)
            | ((v & _P5_D) << 16))


def mmi_ppac5(v: int) -> int:
    """PPAC5: each word's 8-8-8-8 colour packed to 1-5-5-5."""
    return (((v >> 3) & _P5_A) | ((v >> 6) & _P5_B) | ((v >> 9) & _P5_C)
            | ((v >> 16) & _P5_D))


# --- HI/LO based multiply and divide (§6.4) -----------------------------------------------------

def _s16(x: int) -> int:
    return ((x & 0xFFFF) ^ 0x8000) - 0x8000


def _s32(x: int) -> int:
    return ((x & M32) ^ 0x80000000) - 0x80000000


def _set_hilo_words(HI, LO, w):
    """Store words in PMULTH's destination order; return rd = (LOw0, HIw0, LOw2, HIw2)."""
    w0, w1, w2, w3, w4, w5, w6, w7 = (x & M32 for x in w)
    LO[0] = w0 | w1 << 32
    HI[0] = w2 | w3 << 32
    LO[1] = w4 | w5 << 32
    HI[1] = w6 | w7 << 32
    return w0 | w2 << 32, w4 | w6 << 32


def _products(a: int, c: int, b: int, e: int):
    """p0..p7 = s16(h(rs, i)) * s16(h(rt, i)); a, c = rs low/high 64 bits, b, e = rt's."""
    return ((((a & 0xFFFF) ^ 0x8000) - 0x8000) * (((b & 0xFFFF) ^ 0x8000) - 0x8000),
            ((((a >> 16) & 0xFFFF) ^ 0x8000) - 0x8000) * ((((b >> 16) & 0xFFFF) ^ 0x8000) - 0x8000),
            ((((a >> 32) & 0xFFFF) ^ 0x8000) - 0x8000) * ((((b >> 32) & 0xFFFF) ^ 0x8000) - 0x8000),
            (((a >> 48) ^ 0x8000) - 0x8000) * (((b >> 48) ^ 0x8000) - 0x8000),
            (((c & 0xFFFF) ^ 0x8000) - 0x8000) * (((e & 0xFFFF) ^ 0x8000) - 0x8000),
            ((((c >> 16) & 0xFFFF) ^ 0x8000) - 0x8000) * ((((e >> 16) & 0xFFFF) ^ 0x8000) - 0x8000),
            ((((c >> 32) & 0xFFFF) ^ 0x8000) - 0x8000) * ((((e >> 32) & 0xFFFF) ^ 0x8000) - 0x8000),
            (((c >> 48) ^ 0x8000) - 0x8000) * (((e >> 48) ^ 0x8000) - 0x8000))


def mmi_pmulth(R, RH, HI, LO, d, s, t):
    p0, p1, p2, p3, p4, p5, p6, p7 = _products(R[s], RH[s], R[t], RH[t])
    w0, w2, w4, w6 = p0 & M32, p2 & M32, p4 & M32, p6 & M32
    LO[0] = w0 | (p1 & M32) << 32
    HI[0] = w2 | (p3 & M32) << 32
    LO[1] = w4 | (p5 & M32) << 32
    HI[1] = w6 | (p7 & M32) << 32
    R[d] = w0 | w2 << 32
    RH[d] = w4 | w6 << 32


def mmi_pmaddh(R, RH, HI, LO, d, s, t):
    """PMADDH (the morph blend's accumulate): each HI/LO word += p_i, wrapping at 32 bits."""
    p0, p1, p2, p3, p4, p5, p6, p7 = _products(R[s], RH[s], R[t], RH[t])
    lo0, hi0, lo1, hi1 = LO[0], HI[0], LO[1], HI[1]
    w0 = (lo0 + p0) & M32
    w2 = (hi0 + p2) & M32
    w4 = (lo1 + p4) & M32
    w6 = (hi1 + p6) & M32
    LO[0] = w0 | ((lo0 >> 32) + p1 & M32) << 32
    HI[0] = w2 | ((hi0 >> 32) + p3 & M32) << 32
    LO[1] = w4 | ((lo1 >> 32) + p5 & M32) << 32
    HI[1] = w6 | ((hi1 >> 32) + p7 & M32) << 32
    R[d] = w0 | w2 << 32
    RH[d] = w4 | w6 << 32


def mmi_pmsubh(R, RH, HI, LO, d, s, t):
    p0, p1, p2, p3, p4, p5, p6, p7 = _products(R[s], RH[s], R[t], RH[t])
    lo0, hi0, lo1, hi1 = LO[0], HI[0], LO[1], HI[1]
    w0 = (lo0 - p0) & M32
    w2 = (hi0 - p2) & M32
    w4 = (lo1 - p4) & M32
    w6 = (hi1 - p6) & M32
    LO[0] = w0 | ((lo0 >> 32) - p1 & M32) << 32
    HI[0] = w2 | ((hi0 >> 32) - p3 & M32) << 32
    LO[1] = w4 | ((lo1 >> 32) - p5 & M32) << 32
    HI[1] = w6 | ((hi1 >> 32) - p7 & M32) << 32
    R[d] = w0 | w2 << 32
    RH[d] = w4 | w6 << 32


def mmi_phmadh(R, RH, HI, LO, d, s, t):
    """Pair j: first word p(2j+1) + p(2j), second word p(2j+1) [HW]."""
    p = _products(R[s], RH[s], R[t], RH[t])
    w = []
    for j in range(4):
        w += [p[2 * j + 1] + p[2 * j], p[2 * j + 1]]
    R[d], RH[d] = _set_hilo_words(HI, LO, w)


def mmi_phmsbh(R, RH, HI, LO, d, s, t):
    """Pair j: first word p(2j+1) - p(2j), second word NOT p(2j+1) [HW]."""
    p = _products(R[s], RH[s], R[t], RH[t])
    w = []
    for j in range(4):
        w += [p[2 * j + 1] - p[2 * j], ~p[2 * j + 1]]
    R[d], RH[d] = _set_hilo_words(HI, LO, w)


def _word_pairs_result(HI, LO, R, RH, d, p0, p1):
    """PMULTW's writes for 64-bit results p0 (lane 0) and p1 (lane 1)."""
    p0 &= M64
    p1 &= M64
    LO[0], HI[0] = mmi_sx32(p0), mmi_sx32(p0 >> 32)
    LO[1], HI[1] = mmi_sx32(p1), mmi_sx32(p1 >> 32)
    R[d], RH[d] = p0, p1


def mmi_pmultw(R, RH, HI, LO, d, s, t):
    _word_pairs_result(HI, LO, R, RH, d, _s32(R[s]) * _s32(R[t]), _s32(RH[s]) * _s32(RH[t]))


def mmi_pmultuw(R, RH, HI, LO, d, s, t):
    _word_pairs_result(HI, LO, R, RH, d, (R[s] & M32) * (R[t] & M32),
                       (RH[s] & M32) * (RH[t] & M32))


def mmi_pmaddw(R, RH, HI, LO, d, s, t):
    acc0 = (HI[0] & M32) << 32 | (LO[0] & M32)
    acc1 = (HI[1] & M32) << 32 | (LO[1] & M32)
    _word_pairs_result(HI, LO, R, RH, d, acc0 + _s32(R[s]) * _s32(R[t]),
                       acc1 + _s32(RH[s]) * _s32(RH[t]))


def mmi_pmsubw(R, RH, HI, LO, d, s, t):
    acc0 = (HI[0] & M32) << 32 | (LO[0] & M32)
    acc1 = (HI[1] & M32) << 32 | (LO[1] & M32)
    _word_pairs_result(HI, LO, R, RH, d, acc0 - _s32(R[s]) * _s32(R[t]),
                       acc1 - _s32(RH[s]) * _s32(RH[t]))


def mmi_pmadduw(R, RH, HI, LO, d, s, t):
    acc0 = (HI[0] & M32) << 32 | (LO[0] & M32)
    acc1 = (HI[1] & M32) << 32 | (LO[1] & M32)
    _word_pairs_result(HI, LO, R, RH, d, acc0 + (R[s] & M32) * (R[t] & M32),
                       acc1 + (RH[s] & M32) * (RH[t] & M32))


def _div_signed(a: int, b: int):
    """DIV's rule (r5900.md §5.1) on signed 32-bit a, b: (quotient, remainder) as 32-bit ints."""
    if b == 0:
        return (1 if a < 0 else -1), a
    if a == -0x80000000 and b == -1:
        return -0x80000000, 0
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - q * b


def mmi_pdivw(HI, LO, s_lo, s_hi, t_lo, t_hi):
    q0, r0 = _div_signed(_s32(s_lo), _s32(t_lo))
    q1, r1 = _div_signed(_s32(s_hi), _s32(t_hi))
    LO[0], HI[0], LO[1], HI[1] = mmi_sx32(q0), mmi_sx32(r0), mmi_sx32(q1), mmi_sx32(r1)


def _divu(a: int, b: int):
    if b == 0:
        return M32, a
    return a // b, a % b


def mmi_pdivuw(HI, LO, s_lo, s_hi, t_lo, t_hi):
    q0, r0 = _divu(s_lo & M32, t_lo & M32)
    q1, r1 = _divu(s_hi & M32, t_hi & M32)
    LO[0], HI[0], LO[1], HI[1] = mmi_sx32(q0), mmi_sx32(r0), mmi_sx32(q1), mmi_sx32(r1)


def mmi_pdivbw(HI, LO, s_lo, s_hi, t_lo):
    """PDIVBW: each word of rs by s16(halfword 0 of rt); quotients to LOw i, remainders HIw i."""
    # DECISION: §6.4 gives PDIVBW's special cases but not the sign of an ordinary remainder; like
    # DIV (§5.1) the quotient truncates toward zero and the remainder takes the dividend's sign.
    d = _s16(t_lo)
    q, r = [], []
    for v in (s_lo & M32, s_lo >> 32, s_hi & M32, s_hi >> 32):
        # DIV's rule covers d = 0 (LO 1 / -1, HI = rs_i) and 0x80000000 / -1 (LO 0x80000000, HI 0)
        qi, ri = _div_signed(_s32(v), d)
        q.append(qi & M32)
        r.append(ri & M32)
    LO[0], LO[1] = q[0] | q[1] << 32, q[2] | q[3] << 32
    HI[0], HI[1] = r[0] | r[1] << 32, r[2] | r[3] << 32


def mmi_pmthl_lw(HI, LO, lo64, hi64):
    """PMTHL.LW: LOw0, HIw0, LOw2, HIw2 from rs words 0-3; the odd words are kept [HW]."""
    LO[0] = (LO[0] & 0xFFFFFFFF00000000) | (lo64 & M32)
    HI[0] = (HI[0] & 0xFFFFFFFF00000000) | (lo64 >> 32)
    LO[1] = (LO[1] & 0xFFFFFFFF00000000) | (hi64 & M32)
    HI[1] = (HI[1] & 0xFFFFFFFF00000000) | (hi64 >> 32)


def _clamp(v: int, lo: int, hi: int) -> int:
    return lo if v < lo else hi if v > hi else v


def mmi_pmfhl(HI, LO, variant: int):
    """PMFHL.{LW, UW, SLW, LH, SH} (sa = 0..4): the value for rd as (low 64, high 64)."""
    lo0, lo1, hi0, hi1 = LO[0], LO[1], HI[0], HI[1]
    if variant == 0:                                          # .LW
        return (lo0 & M32) | (hi0 & M32) << 32, (lo1 & M32) | (hi1 & M32) << 32
    if variant == 1:                                          # .UW
        return (lo0 >> 32) | (hi0 >> 32) << 32, (lo1 >> 32) | (hi1 >> 32) << 32
    if variant == 2:                                          # .SLW
        out = []
        for lo, hi in ((lo0, hi0), (lo1, hi1)):
            v = (hi & M32) << 32 | (lo & M32)
            v -= (v & (1 << 63)) << 1
            out.append(_clamp(v, -0x80000000, 0x7FFFFFFF) & M64)
        return out[0], out[1]
    words = [lo0 & M32, lo0 >> 32, hi0 & M32, hi0 >> 32, lo1 & M32, lo1 >> 32, hi1 & M32, hi1 >> 32]
    if variant == 3:                                          # .LH: low halfword of every word
        h = [x & 0xFFFF for x in words]
    else:                                                     # .SH: every word saturated to s16
        h = [_clamp(_s32(x), -0x8000, 0x7FFF) & 0xFFFF for x in words]
    return (h[0] | h[1] << 16 | h[2] << 32 | h[3] << 48,
            h[4] | h[5] << 16 | h[6] << 32 | h[7] << 48)


# --- SA (§5.3; the SA rows themselves are in integer.py) ------------------------------------------------------------------------------------

def mmi_sa(S) -> int:
    return S.sa


def namespace(_machine) -> dict:
    """The helpers ``sem`` sources of this module call (all named mmi_*)."""
    ns = {k: v for k, v in globals().items() if k.startswith("mmi_") and callable(v)}
    ns["M128"] = M128
    return ns


# --- the rows -------------------------------------------------------------------------------------

OP = 0xFC00003F            # primary opcode + funct
RS, RT, RD, SA = 0x03E00000, 0x001F0000, 0x0000F800, 0x000007C0
MMI = 0x70000000

A = "R[rs] | RH[rs] << 64"
B = "R[rt] | RH[rt] << 64"
PUT = "\nR[rd] = _v & M64\nRH[rd] = _v >> 64"
# The same in C (eemu_ext/engines/native/csrc/mmi.h): 128-bit values are u128.
A_C = "((u128)RH[rs] << 64 | R[rs])"
B_C = "((u128)RH[rt] << 64 | R[rt])"
PUT_C = " R[rd] = (uint64_t)_v; RH[rd] = (uint64_t)(_v >> 64);"

ROWS: list = []


def _c(*stmts):
    """A row's C: its statements in one block, so its locals are its own.
    DECISION: every template is braced, so an engine may paste rows one after another."""
    return "{ " + " ".join(stmts) + " }"


def _v_c(expr):
    """C of ``_v = expr`` (a u128) followed by the write of rd (PUT)."""
    return _c(f"u128 _v = {expr};" + PUT_C)


def _row(mn, funct, sub, operands, sem, zero=0, cls="mmi", writes=("rd",), note="", sub_field=True,
         c="", python_only=""):
    mask = OP | zero | (SA if sub_field else 0)
    match = MMI | funct | ((sub << 6) if sub_field else 0)
    ROWS.append(Row(mn, mask, match, operands, cls, sem, owner="ee", gpr_writes=writes, note=note,
                    c=c, python_only=python_only))


def _lane(mn, funct, sub, fn, n=None):
    call = f"{fn}({A}, {B}, {n})" if n else f"{fn}({A}, {B})"
    call_c = f"{fn}({A_C}, {B_C}, {n})" if n else f"{fn}({A_C}, {B_C})"
    _row(mn, funct, sub, ("rd", "rs", "rt"), f"_v = {call}{PUT}", c=_v_c(call_c))


def _unary(mn, funct, sub, expr):
    """rd, rt: expr uses _t, the 128-bit rt (expr is the same text in Python and C)."""
    _row(mn, funct, sub, ("rd", "rt"), f"_t = {B}\n_v = {expr}{PUT}", zero=RS,
         c=_c(f"u128 _t = {B_C};", f"u128 _v = {expr};" + PUT_C))


MMI0, MMI1, MMI2, MMI3 = 0x08, 0x28, 0x09, 0x29

# MMI0 (§4.4; semantics §6.1, §6.3)
for _mn, _sub, _fn, _n in [
        ("paddw", 0, "mmi_add", 32), ("psubw", 1, "mmi_sub", 32), ("pcgtw", 2, "mmi_cgt", 32),
        ("pmaxw", 3, "mmi_max", 32), ("paddh", 4, "mmi_add", 16), ("psubh", 5, "mmi_sub", 16),
        ("pcgth", 6, "mmi_cgt", 16), ("pmaxh", 7, "mmi_max", 16), ("paddb", 8, "mmi_add", 8),
        ("psubb", 9, "mmi_sub", 8), ("pcgtb", 10, "mmi_cgt", 8),
        ("paddsw", 16, "mmi_adds", 32), ("psubsw", 17, "mmi_subs", 32),
        ("paddsh", 20, "mmi_adds", 16), ("psubsh", 21, "mmi_subs", 16),
        ("paddsb", 24, "mmi_adds", 8), ("psubsb", 25, "mmi_subs", 8)]:
    _lane(_mn, MMI0, _sub, _fn, _n)

_row("pextlw", MMI0, 18, ("rd", "rs", "rt"),
     "_s = R[rs]\n_t = R[rt]\nR[rd] = (_t & M32) | (_s & M32) << 32\nRH[rd] = (_t >> 32) | (_s >> 32) << 32",
     c=_c("uint64_t _s = R[rs], _t = R[rt];", "R[rd] = (_t & M32) | (_s & M32) << 32;",
          "RH[rd] = (_t >> 32) | (_s >> 32) << 32;"))
_row("ppacw", MMI0, 19, ("rd", "rs", "rt"),
     "_v = (R[rt] & M32) | (RH[rt] & M32) << 32 | ((R[rs] & M32) | (RH[rs] & M32) << 32) << 64" + PUT,
     c=_v_c("(u128)((R[rt] & M32) | (RH[rt] & M32) << 32) | (u128)((R[rs] & M32) | (RH[rs] & M32) << 32) << 64"))
_row("pextlh", MMI0, 22, ("rd", "rs", "rt"), "_v = mmi_spread16(R[rt]) | mmi_spread16(R[rs]) << 16" + PUT,
     c=_v_c("mmi_spread16(R[rt]) | mmi_spread16(R[rs]) << 16"))
_row("ppach", MMI0, 23, ("rd", "rs", "rt"),
     f"_v = mmi_compact16({B}) | mmi_compact16({A}) << 64" + PUT,
     c=_v_c(f"mmi_compact16({B_C}) | (u128)mmi_compact16({A_C}) << 64"))
_row("pextlb", MMI0, 26, ("rd", "rs", "rt"), "_v = mmi_spread8(R[rt]) | mmi_spread8(R[rs]) << 8" + PUT,
     c=_v_c("mmi_spread8(R[rt]) | mmi_spread8(R[rs]) << 8"))
_row("ppacb", MMI0, 27, ("rd", "rs", "rt"),
     f"_v = mmi_compact8({B}) | mmi_compact8({A}) << 64" + PUT,
     c=_v_c(f"mmi_compact8({B_C}) | (u128)mmi_compact8({A_C}) << 64"))
_unary("pext5", MMI0, 30, "mmi_pext5(_t)")
_unary("ppac5", MMI0, 31, "mmi_ppac5(_t)")

# MMI1
_unary("pabsw", MMI1, 1, "mmi_abs(_t, 32)")
_lane("pceqw", MMI1, 2, "mmi_ceq", 32)
_lane("pminw", MMI1, 3, "mmi_min", 32)
_lane("padsbh", MMI1, 4, "mmi_padsbh")
_unary("pabsh", MMI1, 5, "mmi_abs(_t, 16)")
_lane("pceqh", MMI1, 6, "mmi_ceq", 16)
_lane("pminh", MMI1, 7, "mmi_min", 16)
_lane("pceqb", MMI1, 10, "mmi_ceq", 8)
for _mn, _sub, _fn, _n in [("padduw", 16, "mmi_addu", 32), ("psubuw", 17, "mmi_subu", 32),
                           ("padduh", 20, "mmi_addu", 16), ("psubuh", 21, "mmi_subu", 16),
                           ("paddub", 24, "mmi_addu", 8), ("psubub", 25, "mmi_subu", 8)]:
    _lane(_mn, MMI1, _sub, _fn, _n)
_row("pextuw", MMI1, 18, ("rd", "rs", "rt"),
     "_s = RH[rs]\n_t = RH[rt]\nR[rd] = (_t & M32) | (_s & M32) << 32\nRH[rd] = (_t >> 32) | (_s >> 32) << 32",
     c=_c("uint64_t _s = RH[rs], _t = RH[rt];", "R[rd] = (_t & M32) | (_s & M32) << 32;",
          "RH[rd] = (_t >> 32) | (_s >> 32) << 32;"))
_row("pextuh", MMI1, 22, ("rd", "rs", "rt"), "_v = mmi_spread16(RH[rt]) | mmi_spread16(RH[rs]) << 16" + PUT,
     c=_v_c("mmi_spread16(RH[rt]) | mmi_spread16(RH[rs]) << 16"))
_row("pextub", MMI1, 26, ("rd", "rs", "rt"), "_v = mmi_spread8(RH[rt]) | mmi_spread8(RH[rs]) << 8" + PUT,
     c=_v_c("mmi_spread8(RH[rt]) | mmi_spread8(RH[rs]) << 8"))
_row("qfsrv", MMI1, 27, ("rd", "rs", "rt"),
     f"_v = (({A}) << 128 | {B}) >> (mmi_sa(S) << 3) & M128" + PUT,
     note="rd := low 128 bits of (rs:rt) >> 8*SA (r5900.md §5.3)",
     c=_v_c(f"mmi_qfsrv({A_C}, {B_C}, (uint64_t)mmi_sa(&S) << 3)"))

# MMI2. The HI/LO helpers take the state arrays under the same names in Python and C.
_HL = "R, RH, HI, LO, rd, rs, rt"


def _hilo(mn, funct, sub, fn, operands=("rd", "rs", "rt")):
    _row(mn, funct, sub, operands, f"{fn}({_HL})", c=f"{fn}({_HL});")


def _pair(mn, funct, sub, fn):
    """rd := fn(rt lo, rt hi, rs lo, rs hi), a (low 64, high 64) pair (u128 in C)."""
    args = "R[rt], RH[rt], R[rs], RH[rs]"
    _row(mn, funct, sub, ("rd", "rt", "rs"), f"R[rd], RH[rd] = {fn}({args})", c=_v_c(f"{fn}({args})"))


_hilo("pmaddw", MMI2, 0, "mmi_pmaddw")
_pair("psllvw", MMI2, 2, "mmi_psllvw")
_pair("psrlvw", MMI2, 3, "mmi_psrlvw")
_hilo("pmsubw", MMI2, 4, "mmi_pmsubw")
_row("pmfhi", MMI2, 8, ("rd",), "R[rd] = HI[0]\nRH[rd] = HI[1]", zero=RS | RT,
     c="R[rd] = HI[0]; RH[rd] = HI[1];")
_row("pmflo", MMI2, 9, ("rd",), "R[rd] = LO[0]\nRH[rd] = LO[1]", zero=RS | RT,
     c="R[rd] = LO[0]; RH[rd] = LO[1];")
_row("pinth", MMI2, 10, ("rd", "rs", "rt"), "_v = mmi_spread16(R[rt]) | mmi_spread16(RH[rs]) << 16" + PUT,
     c=_v_c("mmi_spread16(R[rt]) | mmi_spread16(RH[rs]) << 16"))
_hilo("pmultw", MMI2, 12, "mmi_pmultw")
_row("pdivw", MMI2, 13, ("rs", "rt"), "mmi_pdivw(HI, LO, R[rs], RH[rs], R[rt], RH[rt])",
     zero=RD, writes=(), c="mmi_pdivw(HI, LO, R[rs], RH[rs], R[rt], RH[rt]);")
_row("pcpyld", MMI2, 14, ("rd", "rs", "rt"), "_s = R[rs]\nR[rd] = R[rt]\nRH[rd] = _s",
     c=_c("uint64_t _s = R[rs];", "R[rd] = R[rt];", "RH[rd] = _s;"))
_hilo("pmaddh", MMI2, 16, "mmi_pmaddh")
_hilo("phmadh", MMI2, 17, "mmi_phmadh")
_row("pand", MMI2, 18, ("rd", "rs", "rt"), "_v = R[rs] & R[rt]\nRH[rd] = RH[rs] & RH[rt]\nR[rd] = _v",
     c=_c("uint64_t _v = R[rs] & R[rt];", "RH[rd] = RH[rs] & RH[rt];", "R[rd] = _v;"))
_row("pxor", MMI2, 19, ("rd", "rs", "rt"), "_v = R[rs] ^ R[rt]\nRH[rd] = RH[rs] ^ RH[rt]\nR[rd] = _v",
     c=_c("uint64_t _v = R[rs] ^ R[rt];", "RH[rd] = RH[rs] ^ RH[rt];", "R[rd] = _v;"))
_hilo("pmsubh", MMI2, 20, "mmi_pmsubh")
_hilo("phmsbh", MMI2, 21, "mmi_phmsbh")
_unary("pexeh", MMI2, 26, "mmi_pexeh(_t)")
_unary("prevh", MMI2, 27, "mmi_prevh(_t)")
_hilo("pmulth", MMI2, 28, "mmi_pmulth")
_row("pdivbw", MMI2, 29, ("rs", "rt"), "mmi_pdivbw(HI, LO, R[rs], RH[rs], R[rt])", zero=RD, writes=(),
     c="mmi_pdivbw(HI, LO, R[rs], RH[rs], R[rt]);")
_row("pexew", MMI2, 30, ("rd", "rt"),
     "_a = R[rt]\n_b = RH[rt]\nR[rd] = (_b & M32) | (_a & 0xFFFFFFFF00000000)\n"
     "RH[rd] = (_a & M32) | (_b & 0xFFFFFFFF00000000)", zero=RS,
     c=_c("uint64_t _a = R[rt], _b = RH[rt];", "R[rd] = (_b & M32) | (_a & 0xFFFFFFFF00000000);",
          "RH[rd] = (_a & M32) | (_b & 0xFFFFFFFF00000000);"))
_row("prot3w", MMI2, 31, ("rd", "rt"),
     "_a = R[rt]\n_b = RH[rt]\nR[rd] = (_a >> 32) | (_b & M32) << 32\n"
     "RH[rd] = (_a & M32) | (_b & 0xFFFFFFFF00000000)", zero=RS,
     c=_c("uint64_t _a = R[rt], _b = RH[rt];", "R[rd] = (_a >> 32) | (_b & M32) << 32;",
          "RH[rd] = (_a & M32) | (_b & 0xFFFFFFFF00000000);"))

# MMI3
_hilo("pmadduw", MMI3, 0, "mmi_pmadduw")
_pair("psravw", MMI3, 3, "mmi_psravw")
_row("pmthi", MMI3, 8, ("rs",), "HI[0] = R[rs]\nHI[1] = RH[rs]", zero=RT | RD, writes=(),
     c="HI[0] = R[rs]; HI[1] = RH[rs];")
_row("pmtlo", MMI3, 9, ("rs",), "LO[0] = R[rs]\nLO[1] = RH[rs]", zero=RT | RD, writes=(),
     c="LO[0] = R[rs]; LO[1] = RH[rs];")
_row("pinteh", MMI3, 10, ("rd", "rs", "rt"),
     f"_v = (({B}) & 0x0000FFFF0000FFFF0000FFFF0000FFFF) | (({A}) & 0x0000FFFF0000FFFF0000FFFF0000FFFF) << 16" + PUT,
     c=_v_c(f"({B_C} & MMI_LO16_OF_W) | ({A_C} & MMI_LO16_OF_W) << 16"))
_hilo("pmultuw", MMI3, 12, "mmi_pmultuw")
_row("pdivuw", MMI3, 13, ("rs", "rt"), "mmi_pdivuw(HI, LO, R[rs], RH[rs], R[rt], RH[rt])",
     zero=RD, writes=(), c="mmi_pdivuw(HI, LO, R[rs], RH[rs], R[rt], RH[rt]);")
_row("pcpyud", MMI3, 14, ("rd", "rs", "rt"), "_s = RH[rs]\n_t = RH[rt]\nR[rd] = _s\nRH[rd] = _t",
     c=_c("uint64_t _s = RH[rs], _t = RH[rt];", "R[rd] = _s;", "RH[rd] = _t;"))
_row("por", MMI3, 18, ("rd", "rs", "rt"), "_v = R[rs] | R[rt]\nRH[rd] = RH[rs] | RH[rt]\nR[rd] = _v",
     c=_c("uint64_t _v = R[rs] | R[rt];", "RH[rd] = RH[rs] | RH[rt];", "R[rd] = _v;"))
_row("pnor", MMI3, 19, ("rd", "rs", "rt"),
     "_v = (R[rs] | R[rt]) ^ M64\nRH[rd] = (RH[rs] | RH[rt]) ^ M64\nR[rd] = _v",
     c=_c("uint64_t _v = (R[rs] | R[rt]) ^ M64;", "RH[rd] = (RH[rs] | RH[rt]) ^ M64;", "R[rd] = _v;"))
_unary("pexch", MMI3, 26, "mmi_pexch(_t)")
_row("pcpyh", MMI3, 27, ("rd", "rt"),
     "_a = R[rt]\n_b = RH[rt]\nR[rd] = (_a & 0xFFFF) * 0x0001000100010001\n"
     "RH[rd] = (_b & 0xFFFF) * 0x0001000100010001", zero=RS,
     c=_c("uint64_t _a = R[rt], _b = RH[rt];", "R[rd] = (_a & 0xFFFF) * 0x0001000100010001ULL;",
          "RH[rd] = (_b & 0xFFFF) * 0x0001000100010001ULL;"))
_row("pexcw", MMI3, 30, ("rd", "rt"),
     "_a = R[rt]\n_b = RH[rt]\nR[rd] = (_a & M32) | (_b & M32) << 32\n"
     "RH[rd] = (_a >> 32) | (_b & 0xFFFFFFFF00000000)", zero=RS,
     c=_c("uint64_t _a = R[rt], _b = RH[rt];", "R[rd] = (_a & M32) | (_b & M32) << 32;",
          "RH[rd] = (_a >> 32) | (_b & 0xFFFFFFFF00000000);"))

# PMFHL (funct 0x30, variant in sa) and PMTHL.LW (funct 0x31, sa = 0)
for _sub, _suffix in enumerate(("lw", "uw", "slw", "lh", "sh")):
    _row(f"pmfhl.{_suffix}", 0x30, _sub, ("rd",), f"R[rd], RH[rd] = mmi_pmfhl(HI, LO, {_sub})",
         zero=RS | RT, c=_v_c(f"mmi_pmfhl(HI, LO, {_sub})"))
_row("pmthl.lw", 0x31, 0, ("rs",), "mmi_pmthl_lw(HI, LO, R[rs], RH[rs])", zero=RT | RD, writes=(),
     c="mmi_pmthl_lw(HI, LO, R[rs], RH[rs]);")

# Immediate shifts (funct in the MMI primary map; sa is the shift amount). DECISION: the halfword
# shifts accept sa = 16..31 and use sa AND 15 (§6.2 says so, and rabbitizer/GNU decode them);
# only rs is a must-be-zero field here.
for _mn, _funct, _fn, _n, _amt in [
        ("psllh", 0x34, "mmi_sll", 16, "sa & 15"), ("psrlh", 0x36, "mmi_srl", 16, "sa & 15"),
        ("psrah", 0x37, "mmi_sra", 16, "sa & 15"), ("psllw", 0x3C, "mmi_sll", 32, "sa"),
        ("psrlw", 0x3E, "mmi_srl", 32, "sa"), ("psraw", 0x3F, "mmi_sra", 32, "sa")]:
    _row(_mn, _funct, 0, ("rd", "rt", "sa"), f"_v = {_fn}({B}, {_amt}, {_n}){PUT}",
         zero=RS, sub_field=False, c=_v_c(f"{_fn}({B_C}, {_amt}, {_n})"))

# PLZCW rd, rs (funct 0x04): only the low 64 bits of rd are written (r5900.md §3, §6.2)
_row("plzcw", 0x04, 0, ("rd", "rs"), "R[rd] = mmi_plzcw(R[rs])", zero=RT,
     note="words 2 and 3 of rd are unchanged [HW]", c="R[rd] = mmi_plzcw(R[rs]);")

# DECISION: MFSA, MTSA, MTSAB and MTSAH live in integer.py (with the rest of SPECIAL
# and REGIMM); this module keeps QFSRV, the only MMI reader of SA. Both use the machine's S.sa.

del _mn, _sub, _fn, _n, _suffix, _funct, _amt


# --- data flow (eemu_ext/analysis/dataflow.py) -------------------------------------------------------------
# The helpers above that take the state itself, summarised in the sem language: what they read and
# write (values are not modelled). tests/machine/test_dataflow.py checks each against execution.
_OPERANDS = "_x = R[s] | RH[s] | R[t] | RH[t]\n"
_HILO_IN = "_y = HI[0] | HI[1] | LO[0] | LO[1]\n"
_HILO_OUT = "HI[0] = HI[1] = LO[0] = LO[1] = 0\n"
_RD_OUT = "R[d] = RH[d] = 0\n"
_MUL = ("R, RH, HI, LO, d, s, t", _OPERANDS + _HILO_OUT + _RD_OUT)
_MAC = ("R, RH, HI, LO, d, s, t", _OPERANDS + _HILO_IN + _HILO_OUT + _RD_OUT)
_DIV = ("HI, LO, a, b, c, e", _HILO_OUT)
EFFECTS = {
    "mmi_pmaddh": _MAC, "mmi_pmsubh": _MAC, "mmi_pmaddw": _MAC, "mmi_pmsubw": _MAC, "mmi_pmadduw": _MAC,
    "mmi_phmadh": _MUL, "mmi_phmsbh": _MUL, "mmi_pmulth": _MUL, "mmi_pmultw": _MUL, "mmi_pmultuw": _MUL,
    "mmi_pdivw": _DIV, "mmi_pdivuw": _DIV, "mmi_pdivbw": ("HI, LO, a, b, c", _HILO_OUT),
    "mmi_pmthl_lw": ("HI, LO, a, b", _HILO_IN + _HILO_OUT),
    "mmi_pmfhl": ("HI, LO, variant", _HILO_IN + "return (_y, _y)"),
    "mmi_sa": ("S", "return S.sa"),
}
