"""EE float arithmetic on raw u32 patterns: the "trunc" and "hw" models of ee-float.md.

Every operation takes and returns raw 32-bit patterns (never Python floats). Results that carry
flags return ``bits | flags`` where the flag bits sit above bit 31 (``OVF``, ``UNF``, ``DIVZ``,
``INV``, ``PUNF``); ``r & M32`` is the pattern and ``r >> 32`` is zero when no flag is raised.
The trunc model never raises a flag (ee-float.md §2.2: "Flags are not modelled under trunc").

``model("hw")`` / ``model("trunc")`` returns a ``FloatModel`` whose attributes are plain functions
(fast to call from compiled instruction code): add, sub, mul, div, sqrt, rsqrt, madd, msub,
from_int, to_int, itof, ftoi, vdiv, vsqrt, vrsqrt, key, fmax, fmin, fabs, fneg.

Integer arithmetic only. The hw multiplier (§3.3) runs the Booth array only when its lost carry
could change the result; the SRT divider and square root (§3.4, §3.5) run their 25 digit steps
unless the divisor is a power of two (exact) or the significands were seen recently (a bounded
memo of the pure digit loops' results; nothing that could go stale).
"""
from __future__ import annotations

from math import isqrt

M32 = 0xFFFFFFFF
SIGN = 0x80000000
FMAX = 0x7FFFFFFF
ONE = 0x3F800000

# Flag bits returned above the 32-bit pattern.
OVF = 1 << 32    # overflow (O)
UNF = 1 << 33    # underflow (U)
DIVZ = 1 << 34   # division by zero (D)
INV = 1 << 35    # invalid (I)
PUNF = 1 << 36   # the product stage of a multiply-add underflowed (sets SU, §3.9)

# FCR31 bits (ee-float.md §3.9).
FCR_SU, FCR_SO, FCR_SD, FCR_SI = 1 << 3, 1 << 4, 1 << 5, 1 << 6
FCR_U, FCR_O, FCR_D, FCR_I = 1 << 14, 1 << 15, 1 << 16, 1 << 17
FCR_C = 1 << 23
FCR_FIXED = 0x01000001        # bits 0 and 24 always read 1
FCR_WRITABLE = 0x0083C078
FCR0_VALUE = 0x00002E30


def bits_e(x: int) -> int:
    """E(x), the biased exponent field."""
    return (x >> 23) & 0xFF


# ----------------------------------------------------------------------------------------------
# hw model (ee-float.md §3)
# ----------------------------------------------------------------------------------------------

def hw_add(a: int, b: int) -> int:
    """ADD with one guard bit (§3.1). Returns bits | OVF/UNF."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if not ea:
        if not eb:
            return a & b & 0x80000000
        return b
    if not eb:
        return a
    if ea >= eb:
        x = a
        y = b
        ex = ea
        d = ea - eb
    else:
        x = b
        y = a
        ex = eb
        d = eb - ea
    if d >= 25:
        return x
    mx = (x & 0x7FFFFF) | 0x800000
    my = (y & 0x7FFFFF) | 0x800000
    if not (x ^ y) & 0x80000000:
        # Same signs: the sum has 25 or 26 bits in units of half an ulp of x (or of an ulp, d = 0);
        # the exponent cannot drop, so only overflow is possible.
        if d:
            s = (mx << 1) + (my >> (d - 1))
            if s >= 0x2000000:
                ex += 1
                s >>= 2
            else:
                s >>= 1
        else:
            ex += 1
            s = (mx + my) >> 1
        if ex > 255:
            return (x & 0x80000000) | 0x7FFFFFFF | 0x100000000
        return (x & 0x80000000) | (ex << 23) | (s & 0x7FFFFF)
    sx = x & 0x80000000
    if d:
        # y truncated to a multiple of half an ulp of x; work in units of that half ulp.
        s = (mx << 1) - (my >> (d - 1))
        base = ex - 1
    else:
        s = mx - my
        base = ex
        if s <= 0:
            if not s:
                return 0
            s = -s
            sx ^= 0x80000000
    n = s.bit_length()
    e = base + n - 24
    if n >= 24:
        m = s >> (n - 24)
    else:
        m = s << (24 - n)
    if e > 255:
        return sx | 0x7FFFFFFF | 0x100000000
    if e < 1:
        # DECISION (spec [INF]): underflow keeps sign | fraction with E = 0, as §3.1 step 9 says.
        return sx | (m & 0x7FFFFF) | 0x200000000
    return sx | (e << 23) | (m & 0x7FFFFF)


def hw_sub(a: int, b: int) -> int:
    """SUB(a, b) = ADD(a, b XOR 0x80000000) (§3.1)."""
    return hw_add(a, b ^ SIGN)


def booth_carry_lost(A: int, B: int) -> bool:
    """§3.3 steps 2-11: True when the Booth array's truncated low sum loses the carry into bit 15.

    A is the multiplicand significand (fs), B the Booth-recoded multiplier significand (ft). Every
    step (XOR, AND, OR, left shifts, additions) makes bit i depend only on bits <= i, so the words
    are kept to 16 bits: only bit 15 of L is compared with bit 15 of P.
    """
    A &= 0xFFFF
    A2 = A << 1
    B2 = B << 1                       # B_(-1) = 0
    pps = []
    ns = 0
    for k in (0, 2, 4, 6, 8, 10, 12, 14):
        w = (B2 >> k) & 7
        if w == 0 or w == 7:
            pps.append(0)
        elif w < 3:
            pps.append(A << k)
        elif w == 3:
            pps.append(A2 << k)
        elif w == 4:
            pps.append(((A2 << k) ^ (0xFFFF << k)) & 0xFFFF)
            ns |= 1 << k
        else:
            pps.append(((A << k) ^ (0xFFFF << k)) & 0xFFFF)
            ns |= 1 << k
    p0, p1, p2, p3, p4, p5, p6, p7 = pps
    n5 = ns & 0x400                   # N_k = 2^(2k) for negated windows
    n6 = ns & 0x1000
    n7 = ns & 0x4000
    # (S0, C0) := CSA(PP1, PP2, PP3)
    s0 = p1 ^ p2 ^ p3
    c0 = ((p1 & p2) | (p1 & p3) | (p2 & p3)) << 1
    # (S1, C1) := CSA(PP4 & 0xFFFFF800, PP5 & 0xFFFFF000, PP6); C1 |= N6 | (PP5 & 0x800)
    x = p4 & 0xF800
    y = p5 & 0xF000
    s1 = x ^ y ^ p6
    c1 = (((x & y) | (x & p6) | (y & p6)) << 1) | n6 | (p5 & 0x800)
    # Q7 := PP7 | ((PP5 & 0x400) + N5)
    q7 = p7 | ((p5 & 0x400) + n5)
    # (S2, C2) := CSA(PP0, S0, C0); (S3, C3) := CSA(Q7, S1, C1); (S4, C4) := CSA(C2, S3, C3)
    s2 = p0 ^ s0 ^ c0
    c2 = ((p0 & s0) | (p0 & c0) | (s0 & c0)) << 1
    s3 = q7 ^ s1 ^ c1
    c3 = ((q7 & s1) | (q7 & c1) | (s1 & c1)) << 1
    s4 = c2 ^ s3 ^ c3
    c4 = ((c2 & s3) | (c2 & c3) | (s3 & c3)) << 1
    # (S5, C5) := CSA(S2, S4, C4); C5 += N7
    s5 = s2 ^ s4 ^ c4
    c5 = (((s2 & s4) | (s2 & c4) | (s4 & c4)) << 1) + n7
    low = (s5 & 0xFFFF8000) + (c5 & 0xFFFF8000)
    return ((low ^ (A * B)) >> 15) & 1 == 1


def hw_mul(a: int, b: int) -> int:
    """MUL(fs=a, ft=b) with the Booth multiplier (§3.3). Not commutative. Returns bits | OVF/UNF."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    s = (a ^ b) & 0x80000000
    if not ea or not eb:
        return s
    A = (a & 0x7FFFFF) | 0x800000
    B = (b & 0x7FFFFF) | 0x800000
    P = A * B
    # Booth(A, B) is P or P - 2^15; the difference can only reach m = P >> 23 (or >> 24) when
    # P's low 23 bits are below 2^15, and it is never taken when B's low 16 bits are zero.
    if (P & 0x7FFFFF) < 0x8000 and (B & 0xFFFF) and booth_carry_lost(A, B):
        P -= 0x8000
    m = P >> 23
    e = ea + eb - 127
    if m >= 0x1000000:
        m >>= 1
        e += 1
    if e > 255:
        return s | 0x17FFFFFFF          # Fmax | OVF
    if e < 1:
        return s | 0x200000000          # UNF
    return s | (e << 23) | (m & 0x7FFFFF)


def _srt_div(ma: int, mb: int) -> int:
    """§3.4 steps 1-2: the radix-2 SRT divider with carry-save remainder, 25 digits, no correction.

    Per step: (S', G') = CSA(S, G, X); the digit comes from sel on the top byte of S' + G' (or of
    S + G when the digit was 0); then S, G := 2S', 2G' (mod 2^32). Here the carry word's shift and
    the doubling are folded into one shift by 2; G + 1 never carries out (its low bits are 0).
    """
    D = mb << 2
    nD = 0xFFFFFFFF ^ D
    S = ma << 2
    G = 0
    Q = 0
    q = 1
    for _ in range(25):
        Q = Q + Q + q
        if q == 1:
            G += 1
            s2 = S ^ G ^ nD
            c2 = ((S & G) | (S & nD) | (G & nD)) << 1
            t = (((s2 & 0xFF000000) + c2) & 0xFFFFFFFF) | (s2 & 0xFFFFFF)
        elif q:
            s2 = S ^ G ^ D
            c2 = ((S & G) | (S & D) | (G & D)) << 1
            t = (((s2 & 0xFF000000) + c2) & 0xFFFFFFFF) | (s2 & 0xFFFFFF)
        else:
            s2 = S ^ G
            c2 = (S & G) << 1
            t = (((S & 0xFF000000) + G) & 0xFFFFFFFF) | (S & 0xFFFFFF)
        # sel: +1 if s32(t) >= 2^23, -1 if s32(t) < -2^24, else 0.
        if t < 0x800000:
            q = 0
        elif t < 0x80000000:
            q = 1
        elif t < 0xFF000000:
            q = -1
        else:
            q = 0
        S = (s2 << 1) & 0xFFFFFFFF
        G = (c2 << 1) & 0xFFFFFFFF
    return Q & 0xFFFFFFFF


def _srt_sqrt(m: int) -> int:
    """§3.5 steps 3-4: the SRT square root recurrence (same remainder step as _srt_div); returns Q."""
    S = m
    G = 0
    Q = 0
    q = 1
    for i in range(25):
        if q == 1:
            X = 0xFFFFFFFF ^ ((Q + (1 << (24 - i))) & 0xFFFFFFFF)
            Q = (Q + (2 << (24 - i))) & 0xFFFFFFFF
            G += 1
        elif q:
            X = (Q - (1 << (24 - i))) & 0xFFFFFFFF
            Q = (Q - (2 << (24 - i))) & 0xFFFFFFFF
        if q:
            s2 = S ^ G ^ X
            c2 = ((S & G) | (S & X) | (G & X)) << 1
            t = (((s2 & 0xFF000000) + c2) & 0xFFFFFFFF) | (s2 & 0xFFFFFF)
        else:
            s2 = S ^ G
            c2 = (S & G) << 1
            t = (((S & 0xFF000000) + G) & 0xFFFFFFFF) | (S & 0xFFFFFF)
        if t < 0x800000:
            q = 0
        elif t < 0x80000000:
            q = 1
        elif t < 0xFF000000:
            q = -1
        else:
            q = 0
        S = (s2 << 1) & 0xFFFFFFFF
        G = (c2 << 1) & 0xFFFFFFFF
    return Q


# The SRT digit loops cost ~10 us; game code divides by few distinct divisors and often the
# same dividends (a playback divides ~8000 times over ~1800 significand pairs). Their results are
# pure functions of the significands, so a bounded memo of Q (it cannot go stale) pays.
_SRT_MEMO: dict = {}
_SRT_MEMO_MAX = 1 << 16


def _remember(k: int, q: int) -> None:
    if len(_SRT_MEMO) >= _SRT_MEMO_MAX:
        _SRT_MEMO.clear()
    _SRT_MEMO[k] = q


def hw_div(a: int, b: int) -> int:
    """DIV(a, b) with the SRT divider (§3.4). Returns bits | DIVZ/INV; never OVF or UNF."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    s = (a ^ b) & SIGN
    if not eb:
        return s | FMAX | (DIVZ if ea else INV)
    if not ea:
        return s
    if not b & 0x7FFFFF:
        # A power-of-two divisor (M(b) = 2^23): the SRT quotient is exact, Q >> 1 = M(a), for
        # every one of the 2^23 dividends (checked exhaustively, tests/machine/test_float_rules.py).
        e = ea - eb + 127
        if e > 255:
            return s | FMAX
        if e < 1:
            return s
        return s | (e << 23) | (a & 0x7FFFFF)
    k = ((a & 0x7FFFFF) << 23) | (b & 0x7FFFFF)
    Q = _SRT_MEMO.get(k)
    if Q is None:
        Q = _srt_div((a & 0x7FFFFF) | 0x800000, (b & 0x7FFFFF) | 0x800000)
        _remember(k, Q)
    e = ea - eb + 126
    if Q >= 0x1000000:
        Q >>= 1
        e += 1
    if e > 255:
        return s | FMAX
    if e < 1:
        return s
    return s | (e << 23) | (Q & 0x7FFFFF)


def hw_sqrt(x: int) -> int:
    """SQRT(x) = sqrt|x| with the SRT recurrence (§3.5); a negative x (also -0) raises INV."""
    fl = INV if x & SIGN else 0
    e = (x >> 23) & 0xFF
    if not e:
        return fl
    m = ((x & 0x7FFFFF) | 0x800000) << 1
    if not x & 0x800000:
        m <<= 1
    k = -m                              # sqrt keys are negative, div keys are not
    Q = _SRT_MEMO.get(k)
    if Q is None:
        Q = _srt_sqrt(m)
        _remember(k, Q)
    return (((e + 127) >> 1) << 23) | ((Q >> 2) & 0x7FFFFF) | fl


def hw_rsqrt(a: int, b: int) -> int:
    """COP1 RSQRT(fs=a, ft=b) = DIV(a, SQRT(|b|)), sign S(a), flags of §3.9."""
    fl = INV if b & SIGN else 0
    ea = (a >> 23) & 0xFF
    if not (b >> 23) & 0xFF:
        return (a & SIGN) | FMAX | fl | (DIVZ if ea else INV)
    if not ea:
        return (a & SIGN) | fl
    return hw_div(a, hw_sqrt(b & FMAX) & M32) | fl


def hw_vrsqrt(a: int, b: int) -> int:
    """VU0 VRSQRT (§3.10): by a zero ft the result is +Fmax whatever the signs."""
    fl = INV if b & SIGN else 0
    if not (b >> 23) & 0xFF:
        return FMAX | fl | (DIVZ if (a >> 23) & 0xFF else INV)
    return hw_rsqrt(a, b)


def macc(acc: int, p: int, acc_ovf, neg: int) -> int:
    """§3.6: ACC +/- p with the overflow resolution rules; p carries its MUL flags."""
    pf = p >> 32
    p &= M32
    if pf & 1 or acc_ovf:
        if pf & 1:
            # rules 1 and 3: the saturated product decides the sign
            to_plus = (not p & SIGN) if not neg else bool(p & SIGN)
            r = (FMAX if to_plus else SIGN | FMAX) | OVF
        else:
            r = acc | OVF                 # rule 2: ACC's value
    else:
        r = hw_add(acc, p ^ neg)
    if pf & 2:
        r |= PUNF
    return r


def hw_madd(acc: int, a: int, b: int, acc_ovf=False) -> int:
    """MADD: ACC + MUL(a, b), with §3.6's overflow rules. Returns bits | OVF/UNF/PUNF."""
    p = hw_mul(a, b)
    if p > 0xFFFFFFFF or acc_ovf:
        return macc(acc, p, acc_ovf, 0)
    return hw_add(acc, p)


def hw_msub(acc: int, a: int, b: int, acc_ovf=False) -> int:
    """MSUB: ACC - MUL(a, b), with §3.6's overflow rules."""
    p = hw_mul(a, b)
    if p > 0xFFFFFFFF or acc_ovf:
        return macc(acc, p, acc_ovf, 0x80000000)
    return hw_add(acc, p ^ 0x80000000)


# ----------------------------------------------------------------------------------------------
# Operations shared by both models (§3.7, §3.10; §2.2 gives trunc the same results)
# ----------------------------------------------------------------------------------------------

def from_int(i: int) -> int:
    """CVT.S.W: the signed 32-bit integer's magnitude truncated to 24 significant bits."""
    i &= M32
    if i & SIGN:
        s = SIGN
        v = (-i) & M32 or SIGN
    else:
        s = 0
        v = i
    if not v:
        return 0
    if v == SIGN:
        return s | (158 << 23)
    n = v.bit_length()
    m = v >> (n - 24) if n > 24 else v << (24 - n)
    return s | ((n + 126) << 23) | (m & 0x7FFFFF)


def ftoi(x: int, n: int = 0) -> int:
    """trunc(x * 2^n) as a u32, saturating when E(x) + n >= 158; E = 0 gives 0 (CVT.W.S, VFTOIn)."""
    e = ((x >> 23) & 0xFF)
    if not e:
        return 0
    e += n
    if e < 127:
        return 0
    if e > 157:
        return SIGN if x & SIGN else FMAX
    m = (x & 0x7FFFFF) | 0x800000
    v = m << (e - 150) if e >= 150 else m >> (150 - e)
    return (-v) & M32 if x & SIGN else v


def to_int(x: int) -> int:
    """CVT.W.S (f_to_int): truncate toward zero, saturate above E = 157."""
    return ftoi(x, 0)


def itof(i: int, n: int = 0) -> int:
    """VITOFn: f_from_int, then an exact division by 2^n (n = 0, 4, 12, 15)."""
    r = from_int(i)
    if r and n:
        r -= n << 23                  # E >= 127 for any nonzero integer: never underflows
    return r


def key(v: int) -> int:
    """The compare key of §3.7: all E = 0 patterns are 0, negatives order by magnitude reversed."""
    if not v & 0x7F800000:
        return 0
    return v if v < SIGN else (v ^ FMAX) - 0x100000000


def raw_key(v: int) -> int:
    """MAX/MIN order (§3.7): raw patterns as signed integers, reversed when negative, no folding."""
    return v if v < SIGN else (v ^ FMAX) - 0x100000000


# DECISION: trunc's max/min tie between different patterns of equal value (+0/-0, E = 0 patterns)
# is "not recorded" (ee-float.md §2.2); both models use the raw-bit order of §3.7, which refines
# trunc's exact comparison (it never orders two values against their exact order).
def fmax(a: int, b: int) -> int:
    """MAX.S / VMAX: the larger by raw_key."""
    ka = a if a < SIGN else (a ^ FMAX) - 0x100000000
    kb = b if b < SIGN else (b ^ FMAX) - 0x100000000
    return a if ka >= kb else b


def fmin(a: int, b: int) -> int:
    """MIN.S / VMINI: the smaller by raw_key."""
    ka = a if a < SIGN else (a ^ FMAX) - 0x100000000
    kb = b if b < SIGN else (b ^ FMAX) - 0x100000000
    return a if ka <= kb else b


def fabs(a: int) -> int:
    return a & FMAX


def fneg(a: int) -> int:
    return a ^ SIGN


# ----------------------------------------------------------------------------------------------
# trunc model (ee-float.md §2)
# ----------------------------------------------------------------------------------------------

def _tr_round(sign: int, s: int, base: int) -> int:
    """§2.1 for |v| = s * 2^(base - 150) with s > 0: truncate to 24 bits, saturate or flush."""
    n = s.bit_length()
    e = base + n - 24
    if e > 255:
        return sign | FMAX
    if e < 1:
        return sign
    m = s >> (n - 24) if n >= 24 else s << (24 - n)
    return sign | (e << 23) | (m & 0x7FFFFF)


def tr_add(a: int, b: int) -> int:
    """f_add under trunc: the exact sum truncated (§2.2)."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if not ea:
        if not eb:
            return a & b & SIGN
        return b
    if not eb:
        return a
    if ea >= eb:
        x, y, ex, d = a, b, ea, ea - eb
    else:
        x, y, ex, d = b, a, eb, eb - ea
    mx = (x & 0x7FFFFF) | 0x800000
    my = (y & 0x7FFFFF) | 0x800000
    if d > 26:
        # Fixed-width shortcut (§2.2): any positive y below half an ulp of x's lower binade
        # truncates the same; use one unit at exponent E(x) - 26.
        my = 1
        d = 26
    sx = x & SIGN
    if (x ^ y) & SIGN:
        s = (mx << d) - my
        if s <= 0:
            if not s:
                return 0
            s = -s
            sx ^= SIGN
    else:
        s = (mx << d) + my
    return _tr_round(sx, s, ex - d)


def tr_sub(a: int, b: int) -> int:
    return tr_add(a, b ^ SIGN)


def tr_mul(a: int, b: int) -> int:
    """f_mul under trunc: the exact 48-bit product truncated; commutative."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    s = (a ^ b) & SIGN
    if not ea or not eb:
        return s
    m = (((a & 0x7FFFFF) | 0x800000) * ((b & 0x7FFFFF) | 0x800000)) >> 23
    e = ea + eb - 127
    if m >= 0x1000000:
        m >>= 1
        e += 1
    if e > 255:
        return s | FMAX
    if e < 1:
        return s
    return s | (e << 23) | (m & 0x7FFFFF)


def tr_div(a: int, b: int) -> int:
    """f_div under trunc: floor(M(a) 2^60 / M(b)) truncated; x/0 (also 0/0) is +-Fmax."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    s = (a ^ b) & SIGN
    if not eb:
        return s | FMAX
    if not ea:
        return s
    q = (((a & 0x7FFFFF) | 0x800000) << 60) // ((b & 0x7FFFFF) | 0x800000)
    return _tr_round(s, q, ea - eb + 90)


def _tr_sqrt_parts(x: int):
    """(t, half) for f_sqrt: t in {60, 61} with E - 150 - t even, half = (E - 150 - t) / 2."""
    e = (x >> 23) & 0xFF
    t = 60 if (e - 150) % 2 == 0 else 61
    return t, (e - 150 - t) // 2


def tr_sqrt(x: int) -> int:
    """f_sqrt under trunc: floor(sqrt(M 2^t)) truncated; sign ignored, result +."""
    if not (x >> 23) & 0xFF:
        return 0
    t, half = _tr_sqrt_parts(x)
    r = isqrt(((x & 0x7FFFFF) | 0x800000) << t)
    return _tr_round(0, r, 150 + half)


def tr_rsqrt(a: int, b: int) -> int:
    """f_rsqrt under trunc: a / sqrt|b| rounded once, sign S(a)."""
    s = a & SIGN
    if not (b >> 23) & 0xFF:
        return s | FMAX
    ea = (a >> 23) & 0xFF
    if not ea:
        return s
    t, half = _tr_sqrt_parts(b)
    ma = ((a & 0x7FFFFF) | 0x800000) << 60
    r = isqrt((ma * ma) // (((b & 0x7FFFFF) | 0x800000) << t))
    return _tr_round(s, r, ea - 60 - half)


def tr_madd(acc: int, a: int, b: int, _acc_ovf=False) -> int:
    """f_madd under trunc: f_add(c, f_mul(a, b)), saturated values added plainly."""
    return tr_add(acc, tr_mul(a, b))


def tr_msub(acc: int, a: int, b: int, _acc_ovf=False) -> int:
    return tr_add(acc, tr_mul(a, b) ^ SIGN)


def tr_itof(i: int, n: int = 0) -> int:
    """VITOFn under trunc: f_from_int then f_div by f_from_int(2^n) when n > 0 (§2.2)."""
    r = from_int(i)
    if n:
        r = tr_div(r, from_int(1 << n))
    return r


def tr_ftoi(x: int, n: int = 0) -> int:
    """VFTOIn under trunc: f_to_int(f_mul(x, 2^n))."""
    if n:
        x = tr_mul(x, from_int(1 << n))
    return ftoi(x, 0)


# ----------------------------------------------------------------------------------------------
# Flag bookkeeping (hw only)
# ----------------------------------------------------------------------------------------------

def fcr_arith(fcr: int, r: int) -> int:
    """FCR31 after ADD, SUB, MUL, ADDA, SUBA, MULA, MADD, MSUB (§3.9) given a flagged result r."""
    if r & OVF:
        fcr |= FCR_O | FCR_SO
    elif r & UNF:
        fcr = (fcr & ~FCR_O) | FCR_U | FCR_SU
    else:
        fcr &= ~(FCR_O | FCR_U)
    if r & PUNF:
        fcr |= FCR_SU
    return fcr


def fcr_acc(fcr: int, r: int) -> int:
    """FCR31 after MADDA, MSUBA (§3.9): an underflow sets SU only, leaving U untouched."""
    if r & OVF:
        fcr |= FCR_O | FCR_SO
    else:
        fcr &= ~FCR_O
        if r & UNF:
            fcr |= FCR_SU
    if r & PUNF:                      # "in addition": also when the overflow rules of §3.6 apply
        fcr |= FCR_SU
    return fcr


def fcr_div(fcr: int, r: int) -> int:
    """FCR31 after DIV: D/SD or I/SI by a zero divisor; O, U, and D/I otherwise unchanged.

    DECISION: the spec leaves open whether a normal DIV clears D or I; we leave them unchanged.
    """
    if r & DIVZ:
        fcr |= FCR_D | FCR_SD
    if r & INV:
        fcr |= FCR_I | FCR_SI
    return fcr


def fcr_sqrt(fcr: int, r: int) -> int:
    """FCR31 after SQRT and RSQRT: D and I cleared first, then set by the result's flags."""
    fcr &= ~(FCR_D | FCR_I)
    if r & DIVZ:
        fcr |= FCR_D | FCR_SD
    if r & INV:
        fcr |= FCR_I | FCR_SI
    return fcr


def fcr_noflags(fcr: int, _r: int) -> int:
    """trunc: FCR31 holds only C, so arithmetic leaves it alone."""
    return fcr


# ----------------------------------------------------------------------------------------------
# Model objects
# ----------------------------------------------------------------------------------------------

class FloatModel:
    """One EE float model: a bundle of functions on raw patterns (see the module docstring)."""

    def __init__(self, name: str, **ops):
        self.name = name
        self.flags = name == "hw"
        for k, v in ops.items():
            setattr(self, k, v)

    def __repr__(self):
        return f"<FloatModel {self.name}>"


_COMMON = dict(from_int=from_int, to_int=to_int, key=key, fmax=fmax, fmin=fmin,
               fabs=fabs, fneg=fneg)

HW = FloatModel("hw", add=hw_add, sub=hw_sub, mul=hw_mul, div=hw_div, sqrt=hw_sqrt,
                rsqrt=hw_rsqrt, madd=hw_madd, msub=hw_msub, itof=itof, ftoi=ftoi,
                vdiv=hw_div, vsqrt=hw_sqrt, vrsqrt=hw_vrsqrt,
                fcr_arith=fcr_arith, fcr_acc=fcr_acc, fcr_div=fcr_div, fcr_sqrt=fcr_sqrt,
                **_COMMON)

TRUNC = FloatModel("trunc", add=tr_add, sub=tr_sub, mul=tr_mul, div=tr_div, sqrt=tr_sqrt,
                   rsqrt=tr_rsqrt, madd=tr_madd, msub=tr_msub, itof=tr_itof, ftoi=tr_ftoi,
                   vdiv=tr_div, vsqrt=tr_sqrt, vrsqrt=tr_rsqrt,
                   fcr_arith=fcr_noflags, fcr_acc=fcr_noflags, fcr_div=fcr_noflags,
                   fcr_sqrt=fcr_noflags, **_COMMON)

MODELS = {"hw": HW, "trunc": TRUNC}


def model(name: str) -> FloatModel:
    """The float model called ``name`` ("hw" or "trunc")."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown EE float model {name!r}: expected 'hw' or 'trunc'") from None
