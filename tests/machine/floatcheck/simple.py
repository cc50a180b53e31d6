"""Simple EE float operations on raw u32 patterns; each returns (bits, flags) with flags a set of
'O', 'U', 'D', 'I' and 'PU' (the product of a multiply-add underflowed)."""
from __future__ import annotations

from fractions import Fraction
from math import floor, isqrt

__all__ = ["value", "sign", "expo", "sig", "pack_trunc", "HW", "TRUNC", "ops", "cmp_value", "raw_order",
           "booth_product", "srt_quotient", "srt_root"]

TWO = Fraction(2)


def sign(x):
    return x >> 31


def expo(x):
    return (x >> 23) & 255


def sig(x):
    return (x & 0x7FFFFF) | 0x800000


def value(x) -> Fraction:
    """The exact value of a pattern: E = 0 is zero, E = 255 an ordinary number (§1)."""
    if expo(x) == 0:
        return Fraction(0)
    v = Fraction(sig(x)) * TWO ** (expo(x) - 150)
    return -v if sign(x) else v


def _split(v: Fraction):
    """|v| = m * 2^(e - 150) with m in [2^23, 2^24), m the truncated integer; returns (m, e)."""
    a = abs(v)
    # a first guess from the bit lengths, then walk to 2^23 <= a / 2^(e-150) < 2^24
    e = 150 + a.numerator.bit_length() - a.denominator.bit_length() - 23
    while a / TWO ** (e - 150) >= 2 ** 24:
        e += 1
    while a / TWO ** (e - 150) < 2 ** 23:
        e -= 1
    return floor(a / TWO ** (e - 150)), e


def pack_trunc(v: Fraction, zero_sign=0):
    """§2.1: truncate toward zero, saturate to Fmax above E = 255, flush to a signed zero below 1."""
    if v == 0:
        return zero_sign << 31, set()
    s = 1 if v < 0 else 0
    m, e = _split(v)
    if e > 255:
        return (s << 31) | 0x7FFFFFFF, {"O"}
    if e < 1:
        return s << 31, {"U"}
    return (s << 31) | (e << 23) | (m - 2 ** 23), set()


# ---------------------------------------------------------------------------------------------
# trunc (ee-float.md §2.2): the exact value, truncated
# ---------------------------------------------------------------------------------------------

def t_add(a, b):
    if expo(a) == 0 and expo(b) == 0:
        return a & b & 0x80000000, set()
    if expo(a) == 0:
        return b, set()
    if expo(b) == 0:
        return a, set()
    r, _ = pack_trunc(value(a) + value(b), 0)
    return r, set()


def t_mul(a, b):
    s = sign(a) ^ sign(b)
    if expo(a) == 0 or expo(b) == 0:
        return s << 31, set()
    r, _ = pack_trunc(value(a) * value(b))
    return r, set()


def t_div(a, b):
    s = sign(a) ^ sign(b)
    if expo(b) == 0:
        return (s << 31) | 0x7FFFFFFF, set()
    if expo(a) == 0:
        return s << 31, set()
    r, _ = pack_trunc(value(a) / value(b), s)
    return r, set()


def _floor_sqrt(v: Fraction) -> Fraction:
    """A rational r with floor-truncation of sqrt(v) to 24 bits equal to that of r (v > 0)."""
    # floor(sqrt(v * 4^k)) / 2^k with v * 4^k >= 2^120, far more bits than 24
    k = max(0, (120 - (v.numerator.bit_length() - v.denominator.bit_length())) // 2 + 1)
    n = floor(v * 4 ** k)
    return Fraction(isqrt(n), 2 ** k)


def t_sqrt(x):
    if expo(x) == 0:
        return 0, set()
    r, _ = pack_trunc(_floor_sqrt(abs(value(x))))
    return r, set()


def t_rsqrt(a, b):
    s = sign(a)
    if expo(b) == 0:
        return (s << 31) | 0x7FFFFFFF, set()
    if expo(a) == 0:
        return s << 31, set()
    # a / sqrt|b| = sign * sqrt(a^2 / |b|), truncated once
    r, _ = pack_trunc(_floor_sqrt(value(a) ** 2 / abs(value(b))))
    return r | (s << 31), set()


def t_madd(acc, a, b, acc_ovf=False):
    p, _ = t_mul(a, b)
    return t_add(acc, p)


def t_msub(acc, a, b, acc_ovf=False):
    p, _ = t_mul(a, b)
    return t_add(acc, p ^ 0x80000000)


# ---------------------------------------------------------------------------------------------
# hw (ee-float.md §3)
# ---------------------------------------------------------------------------------------------

def h_add(a, b):
    """§3.1 from exact values: y cut to a multiple of half an ulp of x, exact sum, top 24 bits."""
    if expo(a) == 0 and expo(b) == 0:
        return (0x80000000 if sign(a) and sign(b) else 0), set()
    if expo(a) == 0:
        return b, set()
    if expo(b) == 0:
        return a, set()
    x, y = (a, b) if expo(a) >= expo(b) else (b, a)
    d = expo(x) - expo(y)
    if d >= 25:
        return x, set()
    vy = value(y)
    if d >= 1:
        half_ulp = TWO ** (expo(x) - 151)
        q = abs(vy) / half_ulp
        vy = (floor(q) * half_ulp) * (1 if vy > 0 else -1)
    total = value(x) + vy
    if total == 0:
        return 0, set()
    s = 1 if total < 0 else 0
    # the sum's top 24 bits, exponent from its bit length in units of 2^(E(y) - 150)
    units = abs(total) / TWO ** (expo(y) - 150)
    assert units.denominator == 1
    units = int(units)
    n = units.bit_length()
    m = units >> (n - 24) if n >= 24 else units << (24 - n)
    e = expo(y) + n - 24
    if e > 255:
        return (s << 31) | 0x7FFFFFFF, {"O"}
    if e < 1:
        return (s << 31) | (m % 2 ** 23), {"U"}
    return (s << 31) | (e << 23) | (m % 2 ** 23), set()


def booth_digits(B):
    """Radix-4 Booth digits of B (bits -1 .. 15): d_k = -2 B(2k+1) + B(2k) + B(2k-1)."""
    bit = lambda j: (B >> j) & 1 if j >= 0 else 0
    return [-2 * bit(2 * k + 1) + bit(2 * k) + bit(2 * k - 1) for k in range(8)]


def booth_product(A, B):
    """§3.3 Booth(A, B): partial products from the digits, the carry-save tree, the bit-15 test."""
    W = 2 ** 32
    pp, nn = [], []
    for k, dgt in enumerate(booth_digits(B)):
        if dgt < 0:
            # one's complement of |d| A 4^k above bit 2k, with the +4^k kept apart as N_k
            pp.append((dgt * A * 4 ** k - 4 ** k) % W)
            nn.append(4 ** k)
        else:
            pp.append(dgt * A * 4 ** k % W)
            nn.append(0)
    # sanity: the 8 windows recode B's low 16 bits as a signed number, so the partial products
    # and corrections sum to A * (B mod 2^16 - 2^16 B_15) modulo 2^32
    assert (sum(pp) + sum(nn)) % W == (A * (B % 2 ** 16 - 2 ** 16 * ((B >> 15) & 1))) % W

    def csa(x, y, z):
        return (x ^ y ^ z) % W, (2 * ((x & y) | (x & z) | (y & z))) % W

    s0, c0 = csa(pp[1], pp[2], pp[3])
    s1, c1 = csa(pp[4] & 0xFFFFF800, pp[5] & 0xFFFFF000, pp[6])
    c1 |= nn[6] | (pp[5] & 0x800)
    q7 = pp[7] | (((pp[5] & 0x400) + nn[5]) % W)
    s2, c2 = csa(pp[0], s0, c0)
    s3, c3 = csa(q7, s1, c1)
    s4, c4 = csa(c2, s3, c3)
    s5, c5 = csa(s2, s4, c4)
    c5 = (c5 + nn[7]) % W
    low = ((s5 & 0xFFFF8000) + (c5 & 0xFFFF8000)) % W
    P = A * B
    return P - 2 ** 15 if ((low >> 15) & 1) != ((P >> 15) & 1) else P


def h_mul(a, b):
    s = sign(a) ^ sign(b)
    if expo(a) == 0 or expo(b) == 0:
        return s << 31, set()
    e = expo(a) + expo(b) - 127
    m = booth_product(sig(a), sig(b)) // 2 ** 23
    if m >= 2 ** 24:
        m //= 2
        e += 1
    if e > 255:
        return (s << 31) | 0x7FFFFFFF, {"O"}
    if e < 1:
        return s << 31, {"U"}
    return (s << 31) | (e << 23) | (m - 2 ** 23), set()


def _s32(x):
    x %= 2 ** 32
    return x - 2 ** 32 if x >= 2 ** 31 else x


def _select(s, c):
    """§3.4 sel(s, c) on the signed estimate tau."""
    tau = _s32((((s & 0xFF000000) + c) % 2 ** 32) | (s & 0x00FFFFFF))
    if tau >= 2 ** 23:
        return 1
    if tau < -(2 ** 24):
        return -1
    return 0


def _step(S, G, X, q):
    """One remainder step shared by the divider and the square root (§3.4 steps 2.3-2.5)."""
    W = 2 ** 32
    s2 = S ^ G ^ X
    c2 = (2 * ((S & G) | (S & X) | (G & X))) % W
    nxt = _select(s2, c2) if q != 0 else _select(S, G)
    return (2 * s2) % W, (2 * c2) % W, nxt


def srt_quotient(ma, mb):
    W = 2 ** 32
    D = 4 * mb
    S, G, Q, q = 4 * ma, 0, 0, 1
    for _ in range(25):
        Q = (2 * Q + q) % W
        if q == 1:
            X = W - 1 - D
            G = (G + 1) % W
        elif q == -1:
            X = D
        else:
            X = 0
        S, G, q = _step(S, G, X, q)
    return Q


def h_div(a, b):
    s = sign(a) ^ sign(b)
    if expo(b) == 0:
        return (s << 31) | 0x7FFFFFFF, ({"D"} if expo(a) else {"I"})
    if expo(a) == 0:
        return s << 31, set()
    Q = srt_quotient(sig(a), sig(b))
    e = expo(a) - expo(b) + 126
    if Q >= 2 ** 24:
        Q //= 2
        e += 1
    if e > 255:
        return (s << 31) | 0x7FFFFFFF, set()
    if e < 1:
        return s << 31, set()
    return (s << 31) | (e << 23) | (Q % 2 ** 23), set()


def srt_root(m):
    W = 2 ** 32
    S, G, Q, q = m, 0, 0, 1
    for i in range(25):
        adj = (Q + q * 2 ** (24 - i)) % W
        Q = (Q + q * 2 ** (25 - i)) % W
        if q == 1:
            X = W - 1 - adj
            G = (G + 1) % W
        elif q == -1:
            X = adj
        else:
            X = 0
        S, G, q = _step(S, G, X, q)
    return Q


def h_sqrt(x):
    fl = {"I"} if sign(x) else set()
    if expo(x) == 0:
        return 0, fl
    m = 2 * sig(x)
    if expo(x) % 2 == 0:
        m *= 2
    Q = srt_root(m)
    return ((expo(x) + 127) // 2 << 23) | ((Q // 4) % 2 ** 23), fl


def h_rsqrt(a, b):
    fl = {"I"} if sign(b) else set()
    if expo(b) == 0:
        return (sign(a) << 31) | 0x7FFFFFFF, fl | ({"D"} if expo(a) else {"I"})
    if expo(a) == 0:
        return sign(a) << 31, fl
    r, _ = h_sqrt(b & 0x7FFFFFFF)
    q, _ = h_div(a, r)
    return q, fl


def h_vrsqrt(a, b):
    if expo(b) == 0:
        fl = ({"D"} | ({"I"} if sign(b) else set())) if expo(a) else {"I"}
        return 0x7FFFFFFF, fl
    return h_rsqrt(a, b)


def _h_macc(acc, a, b, acc_ovf, sub):
    p, pf = h_mul(a, b)
    to_plus = (sign(p) == 0) if not sub else (sign(p) == 1)
    fl = {"PU"} if "U" in pf else set()
    if "O" in pf:
        return (0x7FFFFFFF if to_plus else 0xFFFFFFFF), fl | {"O"}
    if acc_ovf:
        return acc, fl | {"O"}
    r, rf = h_add(acc, p ^ (0x80000000 if sub else 0))
    return r, fl | rf


def h_madd(acc, a, b, acc_ovf=False):
    return _h_macc(acc, a, b, acc_ovf, False)


def h_msub(acc, a, b, acc_ovf=False):
    return _h_macc(acc, a, b, acc_ovf, True)


# ---------------------------------------------------------------------------------------------
# shared: conversions, compares, max/min (§3.7, §3.10)
# ---------------------------------------------------------------------------------------------

def from_int(i):
    v = i - 2 ** 32 if i >= 2 ** 31 else i
    r, _ = pack_trunc(Fraction(v))
    return r, set()


def to_int_scaled(x, n=0):
    if expo(x) == 0:
        return 0, set()
    v = value(x) * 2 ** n
    t = int(v)                       # trunc toward zero
    t = max(-(2 ** 31), min(2 ** 31 - 1, t))
    return t % 2 ** 32, set()


def itof(i, n=0):
    r, _ = from_int(i)
    if expo(r) == 0:
        return r, set()
    r2, _ = pack_trunc(value(r) / 2 ** n)
    return r2, set()


def cmp_value(a, b):
    va, vb = value(a), value(b)
    return (va > vb) - (va < vb)


def raw_order(x):
    """MAX/MIN order: the patterns as signed 32-bit integers, reversed when negative."""
    if x < 2 ** 31:
        return (0, x)
    return (-1, -(x - 2 ** 31))


def fmax(a, b):
    return (a if raw_order(a) >= raw_order(b) else b), set()


def fmin(a, b):
    return (a if raw_order(a) <= raw_order(b) else b), set()


class _Model:
    def __init__(self, **kw):
        self.__dict__.update(kw)


HW = _Model(name="hw", add=h_add, sub=lambda a, b: h_add(a, b ^ 0x80000000), mul=h_mul,
            div=h_div, sqrt=h_sqrt, rsqrt=h_rsqrt, vrsqrt=h_vrsqrt, madd=h_madd, msub=h_msub,
            from_int=from_int, to_int=to_int_scaled, itof=itof, ftoi=to_int_scaled,
            fmax=fmax, fmin=fmin)
TRUNC = _Model(name="trunc", add=t_add, sub=lambda a, b: t_add(a, b ^ 0x80000000), mul=t_mul,
               div=t_div, sqrt=t_sqrt, rsqrt=t_rsqrt, vrsqrt=t_rsqrt, madd=t_madd, msub=t_msub,
               from_int=from_int, to_int=to_int_scaled, itof=itof, ftoi=to_int_scaled,
               fmax=fmax, fmin=fmin)


def ops(model_name):
    return HW if model_name == "hw" else TRUNC
