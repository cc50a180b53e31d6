"""The reference's own EE float arithmetic on raw u32 patterns: the "trunc" and "hw" models.

Written from ee-float.md §2 (trunc) and §3 (hw) alone; it shares no code with eemu_ext, so a
bug in the machine's float unit cannot cancel itself out in a diff. Every function takes and
returns raw 32-bit patterns (Python ints). Pure integer arithmetic, no Python floats.

`ops(model)` returns a `FloatOps` bundle (f_add, f_sub, f_mul, f_madd, f_div, f_sqrt, f_rsqrt,
f_from_int, f_to_int, f_cmp, u2f) for "hw" or "trunc". For f_mul(a, b), a is fs (the
multiplicand) and b is ft (the Booth-recoded multiplier), README.md §3.4.
"""
from __future__ import annotations

from math import isqrt

M32 = 0xFFFFFFFF
SIGN = 0x80000000
FMAX = 0x7FFFFFFF
HIDDEN = 0x800000
FRAC = 0x7FFFFF

MODELS = ("hw", "trunc")


def s32(x: int) -> int:
    x &= M32
    return x - 0x100000000 if x & SIGN else x


# ---------------------------------------------------------------------------------------------
# Shared by both models (ee-float.md §2.2, §3.7: conversions and compares agree)

def f_from_int(i: int) -> int:
    """cvt.s.w: the signed 32-bit value of the pattern i, truncated to 24 significant bits."""
    i &= M32
    if i == 0:
        return 0
    sign = i & SIGN
    mag = (0x100000000 - i) if sign else i
    n = mag.bit_length()
    m = (mag >> (n - 24)) if n > 24 else (mag << (24 - n))
    return sign | ((n + 126) << 23) | (m & FRAC)


def f_to_int(x: int) -> int:
    """cvt.w.s: truncate toward zero, saturate at E >= 158; returned as a u32 pattern."""
    e = (x >> 23) & 0xFF
    if e == 0:
        return 0
    if e >= 158:
        return 0x80000000 if x & SIGN else 0x7FFFFFFF
    m = (x & FRAC) | HIDDEN
    v = (m << (e - 150)) if e >= 150 else (m >> (150 - e))
    return ((-v) & M32) if x & SIGN else v


def _key(v: int) -> int:
    if not (v >> 23) & 0xFF:
        return 0
    if v & SIGN:
        return s32(v ^ FMAX)
    return v


def f_cmp(a: int, b: int) -> int:
    """-1, 0 or 1 by exact value; every E = 0 pattern equals zero (ee-float.md §2.2, §3.7)."""
    ka, kb = _key(a), _key(b)
    return (ka > kb) - (ka < kb)


# ---------------------------------------------------------------------------------------------
# Model "trunc" (ee-float.md §2)

def _tr_round(sign: int, mag: int, unit_e: int) -> int:
    """§2.1: |v| = mag * 2^(unit_e - 150), mag > 0; truncate to 24 bits."""
    n = mag.bit_length()
    m = (mag >> (n - 24)) if n >= 24 else (mag << (24 - n))
    e = unit_e + n - 24
    if e > 255:
        return sign | FMAX
    if e < 1:
        return sign
    return sign | (e << 23) | (m & FRAC)


def tr_add(a: int, b: int) -> int:
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if ea == 0:
        if eb == 0:
            return a & b & SIGN
        return b
    if eb == 0:
        return a
    if ea >= eb:
        x, y, ex, ey = a, b, ea, eb
    else:
        x, y, ex, ey = b, a, eb, ea
    d = ex - ey
    mx = (x & FRAC) | HIDDEN
    if d > 60:
        # ee-float.md §2.2 fixed-width shortcut: y becomes one unit of its own sign far below x.
        s = (mx << 61)
        s = -s if x & SIGN else s
        s += -1 if y & SIGN else 1
        unit = ex - 61
    else:
        my = (y & FRAC) | HIDDEN
        s = -(mx << d) if x & SIGN else (mx << d)
        s += -my if y & SIGN else my
        unit = ey
    if s == 0:
        return 0
    if s < 0:
        return _tr_round(SIGN, -s, unit)
    return _tr_round(0, s, unit)


def tr_sub(a: int, b: int) -> int:
    return tr_add(a, b ^ SIGN)


def tr_mul(a: int, b: int) -> int:
    sign = (a ^ b) & SIGN
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if ea == 0 or eb == 0:
        return sign
    p = ((a & FRAC) | HIDDEN) * ((b & FRAC) | HIDDEN)
    if p >> 47:
        m = p >> 24
        e = ea + eb - 126
    else:
        m = p >> 23
        e = ea + eb - 127
    if e > 255:
        return sign | FMAX
    if e < 1:
        return sign
    return sign | (e << 23) | (m & FRAC)


def tr_madd(c: int, a: int, b: int) -> int:
    """§2.2: the plain f_add of the (saturated) product."""
    return tr_add(c, tr_mul(a, b))


def tr_msub(c: int, a: int, b: int) -> int:
    return tr_sub(c, tr_mul(a, b))


def tr_div(a: int, b: int) -> int:
    sign = (a ^ b) & SIGN
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if eb == 0:
        return sign | FMAX
    if ea == 0:
        return sign
    q = (((a & FRAC) | HIDDEN) << 60) // ((b & FRAC) | HIDDEN)
    # value = q * 2^(ea - eb - 60) = q * 2^(unit - 150) with unit = ea - eb + 90
    return _tr_round(sign, q, ea - eb + 90)


def _tr_sqrt_parts(x: int):
    e = (x >> 23) & 0xFF
    t = 60 if (e - 150 - 60) % 2 == 0 else 61
    return ((x & FRAC) | HIDDEN) << t, (e - 150 - t) // 2


def tr_sqrt(a: int) -> int:
    if not (a >> 23) & 0xFF:
        return 0
    mag, half = _tr_sqrt_parts(a)
    return _tr_round(0, isqrt(mag), half + 150)


def tr_rsqrt(a: int, b: int) -> int:
    sa = a & SIGN
    if not (b >> 23) & 0xFF:
        return sa | FMAX
    ea = (a >> 23) & 0xFF
    if ea == 0:
        return sa                      # [INF] in the spec: a zero with the sign of a
    bmag, bhalf = _tr_sqrt_parts(b)
    num = ((a & FRAC) | HIDDEN) << 60
    r = isqrt((num * num) // bmag)
    # value = r * 2^(ea - 150 - 60 - bhalf)
    return _tr_round(sa, r, ea - 60 - bhalf)


# ---------------------------------------------------------------------------------------------
# Model "hw" (ee-float.md §3)

def _hw_add_o(a: int, b: int):
    """§3.1 ADD; returns (bits, overflowed)."""
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if ea == 0:
        if eb == 0:
            return (SIGN if a & b & SIGN else 0), False
        return b, False
    if eb == 0:
        return a, False
    if ea >= eb:
        x, y, ex, ey = a, b, ea, eb
    else:
        x, y, ex, ey = b, a, eb, ea
    d = ex - ey
    if d >= 25:
        return x, False
    mx = (x & FRAC) | HIDDEN
    my = (y & FRAC) | HIDDEN
    if d > 1:
        my &= ~((1 << (d - 1)) - 1)
    s = -(mx << d) if x & SIGN else (mx << d)
    s += -my if y & SIGN else my
    if s == 0:
        return 0, False
    sign = 0
    if s < 0:
        sign = SIGN
        s = -s
    n = s.bit_length()
    m = (s >> (n - 24)) if n >= 24 else (s << (24 - n))
    e = ey + n - 24
    if e > 255:
        return sign | FMAX, True
    if e < 1:
        return sign | (m & FRAC), False   # §3.1 step 9 underflow [INF]: fraction kept, E = 0
    return sign | (e << 23) | (m & FRAC), False


def hw_add(a: int, b: int) -> int:
    return _hw_add_o(a, b)[0]


def hw_sub(a: int, b: int) -> int:
    return _hw_add_o(a, b ^ SIGN)[0]


def _csa(x: int, y: int, z: int):
    return x ^ y ^ z, (((x & y) | (x & z) | (y & z)) << 1) & M32


def booth(A: int, B: int) -> int:
    """§3.3 Booth product of the significands A (fs) and B (ft): A*B, or A*B - 2^15."""
    P = A * B
    pp = [0] * 8
    nn = [0] * 8
    b2 = (B << 1) & 0x1FFFF            # bit 0 is B_(-1) = 0
    for k in range(8):
        w = (b2 >> (2 * k)) & 7
        if w == 0 or w == 7:
            continue
        sh = 2 * k
        if w == 1 or w == 2:
            pp[k] = (A << sh) & M32
        elif w == 3:
            pp[k] = (A << (sh + 1)) & M32
        elif w == 4:
            pp[k] = ((A << (sh + 1)) & M32) ^ ((M32 << sh) & M32)
            nn[k] = 1 << sh
        else:                           # 5 or 6
            pp[k] = ((A << sh) & M32) ^ ((M32 << sh) & M32)
            nn[k] = 1 << sh
    s0, c0 = _csa(pp[1], pp[2], pp[3])
    s1, c1 = _csa(pp[4] & 0xFFFFF800, pp[5] & 0xFFFFF000, pp[6])
    c1 = c1 | nn[6] | (pp[5] & 0x800)
    q7 = (pp[7] | (((pp[5] & 0x400) + nn[5]) & M32)) & M32
    s2, c2 = _csa(pp[0], s0, c0)
    s3, c3 = _csa(q7, s1, c1)
    s4, c4 = _csa(c2, s3, c3)
    s5, c5 = _csa(s2, s4, c4)
    c5 = (c5 + nn[7]) & M32
    L = ((s5 & 0xFFFF8000) + (c5 & 0xFFFF8000)) & M32
    if (L ^ P) & 0x8000:
        return P - 0x8000
    return P


def _hw_mul_o(a: int, b: int):
    """§3.3 MUL(fs=a, ft=b); returns (bits, overflowed)."""
    sign = (a ^ b) & SIGN
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if ea == 0 or eb == 0:
        return sign, False
    A = (a & FRAC) | HIDDEN
    B = (b & FRAC) | HIDDEN
    P = A * B
    # Booth() is P or P - 2^15; the lost 2^15 can only change floor(P / 2^23) (and so the
    # result, normalised or not) when P mod 2^23 < 2^15. Otherwise skip the array.
    m = (booth(A, B) if (P & 0x7FFFFF) < 0x8000 else P) >> 23
    e = ea + eb - 127
    if m >> 24:
        m >>= 1
        e += 1
    if e > 255:
        return sign | FMAX, True
    if e < 1:
        return sign, False
    return sign | (e << 23) | (m & FRAC), False


def hw_mul(a: int, b: int) -> int:
    return _hw_mul_o(a, b)[0]


def hw_madd_acc(acc: int, acc_over: bool, a: int, b: int, sub: bool = False):
    """§3.6 MADD/MSUB family with the overflow resolution; returns (bits, overflowed).

    acc_over is the "ACC overflowed" latch (for VU0: the lane's MAC O bit after the previous
    ACC write). For MADD/MSUB writing fd on VU0 the spec says to pass acc_over=False.
    """
    p, p_over = _hw_mul_o(a, b)
    to_plus = (not (p & SIGN)) if not sub else bool(p & SIGN)
    if p_over:
        return (FMAX if to_plus else SIGN | FMAX), True       # rules 1 and 3
    if acc_over:
        return acc, True                                       # rule 2
    return _hw_add_o(acc, p ^ SIGN if sub else p)              # rule 4


def hw_madd(c: int, a: int, b: int) -> int:
    return hw_madd_acc(c, False, a, b)[0]


def hw_msub(c: int, a: int, b: int) -> int:
    return hw_madd_acc(c, False, a, b, sub=True)[0]


def _sel(s: int, c: int) -> int:
    tau = (((s & 0xFF000000) + c) & M32) | (s & 0x00FFFFFF)
    if tau & SIGN:
        tau -= 0x100000000
    if tau >= 0x800000:
        return 1
    if tau < -0x1000000:
        return -1
    return 0


def _srt_step(S: int, G: int, X: int, q: int):
    """One SRT iteration's remainder update and next digit (§3.4 steps 2.3-2.5)."""
    s2 = S ^ G ^ X
    c2 = (((S & G) | (S & X) | (G & X)) << 1) & M32
    nq = _sel(s2, c2) if q else _sel(S, G)
    return (s2 << 1) & M32, (c2 << 1) & M32, nq


def srt_quotient(ma: int, mb: int) -> int:
    """§3.4 radix-2 SRT divider: 25 digits of 4*ma / 4*mb, no final correction.

    The loop is _srt_step/_sel inlined (this is the hot spot of controller evaluation).
    """
    D = mb << 2
    notD = (~D) & M32
    S = ma << 2
    G = 0
    Q = 0
    q = 1
    for _ in range(25):
        Q = ((Q << 1) + q) & M32
        if q:
            if q == 1:
                X = notD
                G = (G + 1) & M32
            else:
                X = D
            s2 = S ^ G ^ X
            c2 = (((S & G) | (S & X) | (G & X)) << 1) & M32
            tau = (((s2 & 0xFF000000) + c2) & M32) | (s2 & 0x00FFFFFF)
        else:
            s2 = S ^ G
            c2 = ((S & G) << 1) & M32
            tau = (((S & 0xFF000000) + G) & M32) | (S & 0x00FFFFFF)
        # sel(): tau as s32; +1 if tau >= 2^23, -1 if tau < -2^24, else 0
        if tau & 0x80000000:
            q = -1 if tau < 0xFF000000 else 0
        else:
            q = 1 if tau >= 0x800000 else 0
        S = (s2 << 1) & M32
        G = (c2 << 1) & M32
    return Q


def hw_div(a: int, b: int) -> int:
    sign = (a ^ b) & SIGN
    ea = (a >> 23) & 0xFF
    eb = (b >> 23) & 0xFF
    if eb == 0:
        return sign | FMAX
    if ea == 0:
        return sign
    Q = srt_quotient((a & FRAC) | HIDDEN, (b & FRAC) | HIDDEN)
    e = ea - eb + 126
    if Q >> 24:
        Q >>= 1
        e += 1
    if e > 255:
        return sign | FMAX
    if e < 1:
        return sign
    return sign | (e << 23) | (Q & FRAC)


def hw_sqrt(a: int) -> int:
    """§3.5 SQRT: sign ignored, E = 0 gives +0."""
    e = (a >> 23) & 0xFF
    if e == 0:
        return 0
    m = ((a & FRAC) | HIDDEN) << 1
    if not (a >> 23) & 1:
        m <<= 1
    S = m
    G = 0
    Q = 0
    q = 1
    for i in range(25):
        if q == 1:
            X = (~((Q + (1 << (24 - i))) & M32)) & M32
            Q = (Q + (1 << (25 - i))) & M32
            G = (G + 1) & M32
        elif q == -1:
            X = (Q - (1 << (24 - i))) & M32
            Q = (Q - (1 << (25 - i))) & M32
        else:
            X = 0
        S, G, q = _srt_step(S, G, X, q)
    return (((e + 127) >> 1) << 23) | ((Q >> 2) & FRAC)


def hw_rsqrt(a: int, b: int) -> int:
    """§3.5 COP1 RSQRT = DIV(fs, SQRT(|ft|)); the sign is S(fs)."""
    return hw_div(a, hw_sqrt(b & FMAX))


# ---------------------------------------------------------------------------------------------
# The per-model bundle

class FloatOps:
    """The EE float operations of one model, as plain attributes (fast to call in hot loops)."""

    def __init__(self, model: str):
        if model not in MODELS:
            raise ValueError(f"unknown float model {model!r}: expected one of {MODELS}")
        self.model = model
        hw = model == "hw"
        self.f_add = hw_add if hw else tr_add
        self.f_sub = hw_sub if hw else tr_sub
        self.f_mul = hw_mul if hw else tr_mul
        self.f_madd = hw_madd if hw else tr_madd
        self.f_msub = hw_msub if hw else tr_msub
        self.f_div = _memo2(hw_div if hw else tr_div)
        self.f_sqrt = hw_sqrt if hw else tr_sqrt
        self.f_rsqrt = hw_rsqrt if hw else tr_rsqrt
        self.f_from_int = f_from_int
        self.f_to_int = f_to_int
        self.f_cmp = f_cmp
        add = self.f_add

        def u2f(x: int) -> int:
            """animation-semantics.md §2.3: unsigned 32-bit integer to float, as compiled."""
            x &= M32
            if x < 0x80000000:
                return f_from_int(x)
            h = f_from_int((x >> 1) | (x & 1))
            return add(h, h)

        self.u2f = u2f

    def mac4(self, terms):
        """VMULA, VMADDA, VMADDA, VMADD over four (fs, ft) pairs, animation-semantics.md §3.2.

        Under hw the ACC overflow latch of §3.6/§3.10 is followed: the MADDA steps see the
        previous ACC write's overflow, the final MADD (writing fd) behaves as if ACC had not
        overflowed. Under trunc it is the plain chain of f_add(acc, f_mul(...)).
        """
        (a0, b0), (a1, b1), (a2, b2), (a3, b3) = terms
        if self.model == "trunc":
            acc = tr_mul(a0, b0)
            acc = tr_add(acc, tr_mul(a1, b1))
            acc = tr_add(acc, tr_mul(a2, b2))
            return tr_add(acc, tr_mul(a3, b3))
        acc, over = _hw_mul_o(a0, b0)
        acc, over = hw_madd_acc(acc, over, a1, b1)
        acc, over = hw_madd_acc(acc, over, a2, b2)
        # DECISION: VMADD writing fd ignores the latch (ee-float.md §3.10 [INF]).
        return hw_madd_acc(acc, False, a3, b3)[0]


def _memo2(fn, limit=1 << 20):
    """Cache a two-operand operation (the SRT divide is the hot spot of controller evaluation)."""
    cache = {}

    def memo(a, b):
        k = (a << 32) | b
        r = cache.get(k)
        if r is None:
            if len(cache) >= limit:
                cache.clear()
            r = cache[k] = fn(a, b)
        return r

    memo.__name__ = fn.__name__
    memo.__wrapped__ = fn
    return memo


_OPS = {}


def ops(model: str = "hw") -> FloatOps:
    """The shared FloatOps bundle for a model name ("hw" or "trunc")."""
    o = _OPS.get(model)
    if o is None:
        o = _OPS[model] = FloatOps(model)
    return o


def bits_to_double(x: int) -> float:
    """The EE value of a pattern as a Python float: E = 0 is a signed zero, E = 255 is a number."""
    e = (x >> 23) & 0xFF
    if e == 0:
        return -0.0 if x & SIGN else 0.0
    from math import ldexp
    v = ldexp((x & FRAC) | HIDDEN, e - 150)
    return -v if x & SIGN else v


# Raw-bit operations (ee-float.md §3.7): the same in both models except MAX/MIN ties.

def f_abs(a: int) -> int:
    return a & FMAX


def f_neg(a: int) -> int:
    return a ^ SIGN


def _raw_order(a: int, b: int) -> int:
    """MAX.S/MIN.S order: raw patterns as s32, reversed when both are negative."""
    sa, sb = s32(a), s32(b)
    if sa < 0 and sb < 0:
        return (sa < sb) - (sa > sb)
    return (sa > sb) - (sa < sb)


def f_max(a: int, b: int) -> int:
    return a if _raw_order(a, b) >= 0 else b


def f_min(a: int, b: int) -> int:
    return a if _raw_order(a, b) <= 0 else b
