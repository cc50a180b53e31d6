/* EE float arithmetic on raw u32 patterns: the "trunc" and "hw" models of ee-float.md, in C.
 *
 * A line-for-line port of eemu_ext/eefloat.py (the reference; tests/machine/test_native_float.py
 * checks the two bit for bit). Every operation takes raw 32-bit patterns and returns a uint64_t
 * carrying ``bits | flags`` exactly as the Python does: the pattern in bits 0-31, EE_OVF (1 << 32),
 * EE_UNF (1 << 33), EE_DIVZ (1 << 34), EE_INV (1 << 35) and EE_PUNF (1 << 36) above it. The trunc
 * model never raises a flag.
 *
 * Names are the Python names, except:
 *   - fabs, fmax, fmin are ee_fabs, ee_fmax, ee_fmin (the plain names are C library functions);
 *   - the private helpers _srt_div, _srt_sqrt, _tr_round, _tr_sqrt_parts are srt_div, srt_sqrt,
 *     tr_round, tr_sqrt_parts (file-scope names starting with '_' are reserved in C);
 *   - the constants carry an EE_ prefix (EE_OVF, EE_FCR_C ...; ee.h already owns M32).
 * DECISION: those renames keep the header includable next to <math.h> and ee.h.
 *
 * Every function is ``EEF_FN``: ``static inline`` by default, so block code that includes this
 * header gets its own inlinable copies; eefloat.c defines EEF_FN empty before including it, which
 * gives the same functions external linkage (the ctypes entry points of eemu_ext/engines/native/cfloat.py).
 * Python booleans in arguments (acc_ovf) are any nonzero value here.
 *
 * No local here is named R, RH, HI, LO, F, VF, VI or S, so a block may define those as macros
 * for its state either before or after including this header.
 */
#ifndef EEFLOAT_H
#define EEFLOAT_H
#include <stdint.h>

#ifndef EEF_FN
#define EEF_FN static inline
#endif

#define EE_F_M32   0xFFFFFFFFULL
#define EE_F_SIGN  0x80000000U
#define EE_F_FMAX  0x7FFFFFFFU
#define EE_F_ONE   0x3F800000U

/* Flag bits returned above the 32-bit pattern. */
#define EE_OVF   (1ULL << 32)
#define EE_UNF   (1ULL << 33)
#define EE_DIVZ  (1ULL << 34)
#define EE_INV   (1ULL << 35)
#define EE_PUNF  (1ULL << 36)

/* FCR31 bits (ee-float.md §3.9). */
#define EE_FCR_SU (1U << 3)
#define EE_FCR_SO (1U << 4)
#define EE_FCR_SD (1U << 5)
#define EE_FCR_SI (1U << 6)
#define EE_FCR_U  (1U << 14)
#define EE_FCR_O  (1U << 15)
#define EE_FCR_D  (1U << 16)
#define EE_FCR_I  (1U << 17)
#define EE_FCR_C  (1U << 23)
#define EE_FCR_FIXED    0x01000001U
#define EE_FCR_WRITABLE 0x0083C078U
#define EE_FCR0_VALUE   0x00002E30U

/* Python's int.bit_length() for a nonzero 64-bit value. */
static inline int eef_bitlen64(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

EEF_FN uint32_t bits_e(uint32_t x) { return (x >> 23) & 0xFF; }

/* ------------------------------------------------------------------------------------------
 * hw model (ee-float.md §3)
 * ------------------------------------------------------------------------------------------ */

/* ADD with one guard bit (§3.1). Returns bits | OVF/UNF.
 * DECISION: one path for both signs and every alignment, without the branches on the signs and
 * on d = 0 that a VU0 lane mispredicts half the time: s = 2 Mx +/- (2 My >> d), which is what
 * the spec's two paths compute (same signs: (Mx << 1) + (My >> (d - 1)), or Mx + My at d = 0,
 * one bit finer; opposite signs: Mx - My at d = 0, negated, one bit finer), normalised to 24 bits
 * from base E(x) - 1. Same signs can neither cancel nor underflow, so the bits and flags are the
 * two paths' exactly (the port of eefloat.py is checked against it by test_native_float.py). */
EEF_FN uint64_t hw_add(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    uint32_t x, y, sx;
    int ex, d, n, e, swap;
    int64_t s, t, neg, sg;
    uint64_t m;
    if (!ea) {
        if (!eb)
            return a & b & 0x80000000U;
        return b;
    }
    if (!eb)
        return a;
    swap = eb > ea;
    x = swap ? b : a;
    y = swap ? a : b;
    ex = (int)(swap ? eb : ea);
    d = swap ? (int)(eb - ea) : (int)(ea - eb);
    if (d >= 25)
        return x;
    t = (int64_t)((((uint64_t)(y & 0x7FFFFF) | 0x800000) << 1) >> d);
    neg = -(int64_t)((x ^ y) >> 31);                       /* 0, or -1 for opposite signs */
    s = ((int64_t)((x & 0x7FFFFF) | 0x800000) << 1) + ((t ^ neg) - neg);
    sg = s >> 63;                                           /* -1 only for opposite signs, d = 0 */
    s = (s ^ sg) - sg;
    if (!s)
        return 0;
    sx = (x & 0x80000000U) ^ ((uint32_t)sg & 0x80000000U);
    n = 64 - __builtin_clzll((uint64_t)s);
    e = ex - 1 + n - 24;
    m = ((uint64_t)s << (64 - n)) >> 40;                    /* the top 24 bits of s */
    if (e > 255)
        return (uint64_t)(sx | 0x7FFFFFFFU) | EE_OVF;
    if (e < 1)
        /* DECISION (spec [INF], as eefloat.py): underflow keeps sign | fraction with E = 0. */
        return (uint64_t)(sx | ((uint32_t)m & 0x7FFFFF)) | EE_UNF;
    return sx | ((uint32_t)e << 23) | ((uint32_t)m & 0x7FFFFF);
}

/* SUB(a, b) = ADD(a, b XOR 0x80000000) (§3.1). */
EEF_FN uint64_t hw_sub(uint32_t a, uint32_t b) { return hw_add(a, b ^ 0x80000000U); }

/* §3.3 steps 2-11: 1 when the Booth array's truncated low sum loses the carry into bit 15.
 * A is the multiplicand significand (fs), B the recoded multiplier significand (ft). Only bit 15
 * of the words is ever compared, and every step makes bit i depend on bits <= i only, so 64-bit
 * words (mod 2^64) give the same bit as Python's unbounded integers. */
EEF_FN int booth_carry_lost(uint32_t A_, uint32_t B_)
{
    uint64_t A = A_ & 0xFFFF, B = B_;
    uint64_t B2 = B << 1;
    uint64_t pp[8], ns = 0;
    int i;
    /* DECISION: the window's partial product is selected without branches (the windows are data
     * and mispredict; a product by 1.0 or 0.5 comes here for every lane): the multiple of A per
     * window w is the nibble w of 0x01122110 (0: 0 and 7; A: 1, 2, 5, 6; 2A: 3, 4), negated
     * (complemented in 16 bits, N_k in ns) for w = 4, 5, 6 (bits of 0x70). The same words as
     * eefloat.py's if-chain: w = 0, 7 give 0; 1, 2 A << k; 3 2A << k; 4 and 5, 6 the complements. */
    _Pragma("GCC unroll 8")
    for (i = 0; i < 8; i++) {
        int k = 2 * i;
        unsigned w = (unsigned)((B2 >> k) & 7);
        uint64_t mag = (A * ((0x01122110U >> (4 * w)) & 3)) << k;
        uint64_t neg = 0 - (uint64_t)((0x70U >> w) & 1);        /* all ones for w = 4, 5, 6 */
        pp[i] = (mag ^ (neg & (0xFFFFULL << k))) & ((neg & 0xFFFF) | ~neg);
        ns |= (neg & 1) << k;
    }
    {
        uint64_t p0 = pp[0], p1 = pp[1], p2 = pp[2], p3 = pp[3], p4 = pp[4], p5 = pp[5],
                 p6 = pp[6], p7 = pp[7];
        uint64_t n5 = ns & 0x400, n6 = ns & 0x1000, n7 = ns & 0x4000;
        uint64_t s0 = p1 ^ p2 ^ p3;
        uint64_t c0 = ((p1 & p2) | (p1 & p3) | (p2 & p3)) << 1;
        uint64_t x = p4 & 0xF800, y = p5 & 0xF000;
        uint64_t s1 = x ^ y ^ p6;
        uint64_t c1 = (((x & y) | (x & p6) | (y & p6)) << 1) | n6 | (p5 & 0x800);
        uint64_t q7 = p7 | ((p5 & 0x400) + n5);
        uint64_t s2 = p0 ^ s0 ^ c0;
        uint64_t c2 = ((p0 & s0) | (p0 & c0) | (s0 & c0)) << 1;
        uint64_t s3 = q7 ^ s1 ^ c1;
        uint64_t c3 = ((q7 & s1) | (q7 & c1) | (s1 & c1)) << 1;
        uint64_t s4 = c2 ^ s3 ^ c3;
        uint64_t c4 = ((c2 & s3) | (c2 & c3) | (s3 & c3)) << 1;
        uint64_t s5 = s2 ^ s4 ^ c4;
        uint64_t c5 = (((s2 & s4) | (s2 & c4) | (s4 & c4)) << 1) + n7;
        uint64_t low = (s5 & 0xFFFF8000ULL) + (c5 & 0xFFFF8000ULL);
        return (int)(((low ^ (A * B)) >> 15) & 1);
    }
}

/* MUL(fs=a, ft=b) with the Booth multiplier (§3.3). Not commutative. Returns bits | OVF/UNF. */
EEF_FN uint64_t hw_mul(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    uint32_t s = (a ^ b) & 0x80000000U;
    uint64_t A, B, P, m;
    int e;
    if (!ea || !eb)
        return s;
    A = (a & 0x7FFFFF) | 0x800000;
    B = (b & 0x7FFFFF) | 0x800000;
    P = A * B;
    if ((P & 0x7FFFFF) < 0x8000 && (B & 0xFFFF) && booth_carry_lost((uint32_t)A, (uint32_t)B))
        P -= 0x8000;
    m = P >> 23;
    e = (int)ea + (int)eb - 127 + (int)(m >> 24);          /* m < 2^25: a carry out shifts once */
    m >>= m >> 24;
    if (e > 255)
        return (uint64_t)s | 0x17FFFFFFFULL;          /* Fmax | OVF */
    if (e < 1)
        return (uint64_t)s | EE_UNF;
    return s | ((uint32_t)e << 23) | ((uint32_t)m & 0x7FFFFF);
}

/* The SRT remainder step's digit selection: +1 if s32(t) >= 2^23, -1 if s32(t) < -2^24, else 0
 * (§3.4 sel), written without branches (the digits are data-dependent and unpredictable). */
static inline int eef_srt_sel(uint64_t t)
{
    return (int)(t >= 0x800000 && t < 0x80000000ULL) - (int)(t >= 0x80000000ULL && t < 0xFF000000ULL);
}

/* One remainder step, shared by the divider and the square root (eefloat.py writes it out in
 * each loop): (S', G') = CSA(S, G, X) where X is the digit's addend (0 for digit 0, in which
 * case the CSA is the plain half-adder of the Python's q == 0 branch); the top-byte sum t is
 * taken from S' + G', or from S + G when the digit was 0. Returns the next digit. */
static inline int eef_srt_step(uint64_t *Sw, uint64_t *G, uint64_t X, int q)
{
    uint64_t s = *Sw, g = *G;
    uint64_t s2 = s ^ g ^ X;
    uint64_t c2 = ((s & g) | (s & X) | (g & X)) << 1;
    uint64_t t1 = (((s2 & 0xFF000000ULL) + c2) & 0xFFFFFFFFULL) | (s2 & 0xFFFFFF);
    uint64_t t0 = (((s & 0xFF000000ULL) + g) & 0xFFFFFFFFULL) | (s & 0xFFFFFF);
    *Sw = (s2 << 1) & 0xFFFFFFFFULL;
    *G = (c2 << 1) & 0xFFFFFFFFULL;
    return eef_srt_sel(q ? t1 : t0);
}

/* §3.4 steps 1-2: the radix-2 SRT divider with carry-save remainder, 25 digits, no correction. */
EEF_FN uint32_t srt_div(uint32_t ma, uint32_t mb)
{
    uint64_t D = (uint64_t)mb << 2;
    uint64_t nD = 0xFFFFFFFFULL ^ D;
    uint64_t Sw = (uint64_t)ma << 2, G = 0;
    int64_t Q = 0;
    int q = 1, i;
    for (i = 0; i < 25; i++) {
        Q = Q + Q + q;
        G += (q == 1);                        /* the +1 of the two's-complement -D */
        q = eef_srt_step(&Sw, &G, q == 1 ? nD : (q ? D : 0), q);
    }
    return (uint32_t)((uint64_t)Q & 0xFFFFFFFFULL);
}

/* §3.5 steps 3-4: the SRT square root recurrence (same remainder step as srt_div); returns Q. */
EEF_FN uint32_t srt_sqrt(uint32_t m)
{
    uint64_t Sw = m, G = 0, Q = 0, X = 0;
    int q = 1, i;
    for (i = 0; i < 25; i++) {
        if (q == 1) {
            X = 0xFFFFFFFFULL ^ ((Q + (1ULL << (24 - i))) & 0xFFFFFFFFULL);
            Q = (Q + (2ULL << (24 - i))) & 0xFFFFFFFFULL;
            G += 1;
        } else if (q) {
            X = (Q - (1ULL << (24 - i))) & 0xFFFFFFFFULL;
            Q = (Q - (2ULL << (24 - i))) & 0xFFFFFFFFULL;
        } else {
            X = 0;
        }
        q = eef_srt_step(&Sw, &G, X, q);
    }
    return (uint32_t)Q;
}

/* DIV(a, b) with the SRT divider (§3.4). Returns bits | DIVZ/INV; never OVF or UNF.
 * (eefloat.py memoises the digit loop; it is a pure function, so C just runs it.) */
EEF_FN uint64_t hw_div(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    uint32_t s = (a ^ b) & 0x80000000U, Q;
    int e;
    if (!eb)
        return (uint64_t)(s | 0x7FFFFFFFU) | (ea ? EE_DIVZ : EE_INV);
    if (!ea)
        return s;
    if (!(b & 0x7FFFFF)) {
        /* A power-of-two divisor: the SRT quotient is exact (eefloat.py, test_float_rules.py). */
        e = (int)ea - (int)eb + 127;
        if (e > 255) return s | 0x7FFFFFFFU;
        if (e < 1) return s;
        return s | ((uint32_t)e << 23) | (a & 0x7FFFFF);
    }
    Q = srt_div((a & 0x7FFFFF) | 0x800000, (b & 0x7FFFFF) | 0x800000);
    e = (int)ea - (int)eb + 126;
    if (Q >= 0x1000000) { Q >>= 1; e += 1; }
    if (e > 255) return s | 0x7FFFFFFFU;
    if (e < 1) return s;
    return s | ((uint32_t)e << 23) | (Q & 0x7FFFFF);
}

/* SQRT(x) = sqrt|x| with the SRT recurrence (§3.5); a negative x (also -0) raises INV. */
EEF_FN uint64_t hw_sqrt(uint32_t x)
{
    uint64_t fl = (x & 0x80000000U) ? EE_INV : 0;
    uint32_t e = (x >> 23) & 0xFF, m, Q;
    if (!e)
        return fl;
    m = ((x & 0x7FFFFF) | 0x800000) << 1;
    if (!(x & 0x800000))
        m <<= 1;
    Q = srt_sqrt(m);
    return (uint64_t)((((e + 127) >> 1) << 23) | ((Q >> 2) & 0x7FFFFF)) | fl;
}

/* COP1 RSQRT(fs=a, ft=b) = DIV(a, SQRT(|b|)), sign S(a), flags of §3.9. */
EEF_FN uint64_t hw_rsqrt(uint32_t a, uint32_t b)
{
    uint64_t fl = (b & 0x80000000U) ? EE_INV : 0;
    uint32_t ea = (a >> 23) & 0xFF;
    if (!((b >> 23) & 0xFF))
        return (uint64_t)((a & 0x80000000U) | 0x7FFFFFFFU) | fl | (ea ? EE_DIVZ : EE_INV);
    if (!ea)
        return (uint64_t)(a & 0x80000000U) | fl;
    return hw_div(a, (uint32_t)hw_sqrt(b & 0x7FFFFFFFU)) | fl;
}

/* VU0 VRSQRT (§3.10): by a zero ft the result is +Fmax whatever the signs. */
EEF_FN uint64_t hw_vrsqrt(uint32_t a, uint32_t b)
{
    uint64_t fl = (b & 0x80000000U) ? EE_INV : 0;
    if (!((b >> 23) & 0xFF))
        return 0x7FFFFFFFULL | fl | (((a >> 23) & 0xFF) ? EE_DIVZ : EE_INV);
    return hw_rsqrt(a, b);
}

/* §3.6: ACC +/- p with the overflow resolution rules; p carries its MUL flags. */
EEF_FN uint64_t macc(uint32_t acc, uint64_t p, uint64_t acc_ovf, uint32_t neg)
{
    uint64_t pf = p >> 32, r;
    uint32_t pb = (uint32_t)p;
    if ((pf & 1) || acc_ovf) {
        if (pf & 1) {
            /* rules 1 and 3: the saturated product decides the sign */
            int to_plus = !neg ? !(pb & 0x80000000U) : !!(pb & 0x80000000U);
            r = (uint64_t)(to_plus ? 0x7FFFFFFFU : 0xFFFFFFFFU) | EE_OVF;
        } else {
            r = (uint64_t)acc | EE_OVF;                 /* rule 2: ACC's value */
        }
    } else {
        r = hw_add(acc, pb ^ neg);
    }
    if (pf & 2)
        r |= EE_PUNF;
    return r;
}

/* MADD: ACC + MUL(a, b), with §3.6's overflow rules. Returns bits | OVF/UNF/PUNF. */
EEF_FN uint64_t hw_madd(uint32_t acc, uint32_t a, uint32_t b, uint64_t acc_ovf)
{
    uint64_t p = hw_mul(a, b);
    if (p > 0xFFFFFFFFULL || acc_ovf)
        return macc(acc, p, acc_ovf, 0);
    return hw_add(acc, (uint32_t)p);
}

/* MSUB: ACC - MUL(a, b), with §3.6's overflow rules. */
EEF_FN uint64_t hw_msub(uint32_t acc, uint32_t a, uint32_t b, uint64_t acc_ovf)
{
    uint64_t p = hw_mul(a, b);
    if (p > 0xFFFFFFFFULL || acc_ovf)
        return macc(acc, p, acc_ovf, 0x80000000U);
    return hw_add(acc, (uint32_t)p ^ 0x80000000U);
}

/* ------------------------------------------------------------------------------------------
 * Operations shared by both models (§3.7, §3.10)
 * ------------------------------------------------------------------------------------------ */

/* CVT.S.W: the signed 32-bit integer's magnitude truncated to 24 significant bits. */
EEF_FN uint32_t from_int(uint32_t i)
{
    uint32_t s, v, m;
    int n;
    if (i & 0x80000000U) {
        s = 0x80000000U;
        v = (uint32_t)(0U - i);
        if (!v) v = 0x80000000U;
    } else {
        s = 0;
        v = i;
    }
    if (!v)
        return 0;
    if (v == 0x80000000U)
        return s | (158U << 23);
    n = 32 - __builtin_clz(v);
    m = n > 24 ? v >> (n - 24) : v << (24 - n);
    return s | ((uint32_t)(n + 126) << 23) | (m & 0x7FFFFF);
}

/* trunc(x * 2^n) as a u32, saturating when E(x) + n >= 158; E = 0 gives 0 (CVT.W.S, VFTOIn). */
EEF_FN uint32_t ftoi(uint32_t x, int n)
{
    int e = (int)((x >> 23) & 0xFF);
    uint32_t m, v;
    if (!e)
        return 0;
    e += n;
    if (e < 127)
        return 0;
    if (e > 157)
        return (x & 0x80000000U) ? 0x80000000U : 0x7FFFFFFFU;
    m = (x & 0x7FFFFF) | 0x800000;
    v = e >= 150 ? m << (e - 150) : m >> (150 - e);
    return (x & 0x80000000U) ? (uint32_t)(0U - v) : v;
}

/* CVT.W.S (f_to_int): truncate toward zero, saturate above E = 157. */
EEF_FN uint32_t to_int(uint32_t x) { return ftoi(x, 0); }

/* VITOFn: f_from_int, then an exact division by 2^n (n = 0, 4, 12, 15). */
EEF_FN uint32_t itof(uint32_t i, int n)
{
    uint32_t r = from_int(i);
    if (r && n)
        r -= (uint32_t)n << 23;
    return r;
}

/* The compare key of §3.7: all E = 0 patterns are 0, negatives order by magnitude reversed. */
EEF_FN int64_t key(uint32_t v)
{
    if (!(v & 0x7F800000U))
        return 0;
    return v < 0x80000000U ? (int64_t)v : (int64_t)(v ^ 0x7FFFFFFFU) - 0x100000000LL;
}

/* MAX/MIN order (§3.7): raw patterns as signed integers, reversed when negative, no folding. */
EEF_FN int64_t raw_key(uint32_t v)
{
    return v < 0x80000000U ? (int64_t)v : (int64_t)(v ^ 0x7FFFFFFFU) - 0x100000000LL;
}

/* MAX.S / VMAX: the larger by raw_key (eefloat.py's DECISION on trunc ties applies). */
EEF_FN uint32_t ee_fmax(uint32_t a, uint32_t b) { return raw_key(a) >= raw_key(b) ? a : b; }

/* MIN.S / VMINI: the smaller by raw_key. */
EEF_FN uint32_t ee_fmin(uint32_t a, uint32_t b) { return raw_key(a) <= raw_key(b) ? a : b; }

EEF_FN uint32_t ee_fabs(uint32_t a) { return a & 0x7FFFFFFFU; }

EEF_FN uint32_t ee_fneg(uint32_t a) { return a ^ 0x80000000U; }

/* ------------------------------------------------------------------------------------------
 * trunc model (ee-float.md §2)
 * ------------------------------------------------------------------------------------------ */

/* §2.1 for |v| = s * 2^(base - 150) with s > 0: truncate to 24 bits, saturate or flush. */
EEF_FN uint32_t tr_round(uint32_t sign, uint64_t s, int base)
{
    int n = eef_bitlen64(s);
    int e = base + n - 24;
    uint64_t m;
    if (e > 255)
        return sign | 0x7FFFFFFFU;
    if (e < 1)
        return sign;
    m = n >= 24 ? s >> (n - 24) : s << (24 - n);
    return sign | ((uint32_t)e << 23) | ((uint32_t)m & 0x7FFFFF);
}

/* f_add under trunc: the exact sum truncated (§2.2). */
EEF_FN uint64_t tr_add(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF, x, y, sx;
    int ex, d;
    int64_t mx, my, s;
    if (!ea) {
        if (!eb)
            return a & b & 0x80000000U;
        return b;
    }
    if (!eb)
        return a;
    if (ea >= eb) { x = a; y = b; ex = (int)ea; d = (int)(ea - eb); }
    else          { x = b; y = a; ex = (int)eb; d = (int)(eb - ea); }
    mx = (x & 0x7FFFFF) | 0x800000;
    my = (y & 0x7FFFFF) | 0x800000;
    if (d > 26) {
        /* Fixed-width shortcut (§2.2): one unit at exponent E(x) - 26. */
        my = 1;
        d = 26;
    }
    sx = x & 0x80000000U;
    if ((x ^ y) & 0x80000000U) {
        s = (mx << d) - my;
        if (s <= 0) {
            if (!s)
                return 0;
            s = -s;
            sx ^= 0x80000000U;
        }
    } else {
        s = (mx << d) + my;
    }
    return tr_round(sx, (uint64_t)s, ex - d);
}

EEF_FN uint64_t tr_sub(uint32_t a, uint32_t b) { return tr_add(a, b ^ 0x80000000U); }

/* f_mul under trunc: the exact 48-bit product truncated; commutative. */
EEF_FN uint64_t tr_mul(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    uint32_t s = (a ^ b) & 0x80000000U;
    uint64_t m;
    int e;
    if (!ea || !eb)
        return s;
    m = ((uint64_t)((a & 0x7FFFFF) | 0x800000) * ((b & 0x7FFFFF) | 0x800000)) >> 23;
    e = (int)ea + (int)eb - 127;
    if (m >= 0x1000000) { m >>= 1; e += 1; }
    if (e > 255) return s | 0x7FFFFFFFU;
    if (e < 1) return s;
    return s | ((uint32_t)e << 23) | ((uint32_t)m & 0x7FFFFF);
}

/* f_div under trunc: floor(M(a) 2^60 / M(b)) truncated; x/0 (also 0/0) is +-Fmax. */
EEF_FN uint64_t tr_div(uint32_t a, uint32_t b)
{
    uint32_t ea = (a >> 23) & 0xFF, eb = (b >> 23) & 0xFF;
    uint32_t s = (a ^ b) & 0x80000000U;
    unsigned __int128 num;
    uint64_t q;
    if (!eb)
        return s | 0x7FFFFFFFU;
    if (!ea)
        return s;
    num = (unsigned __int128)((a & 0x7FFFFF) | 0x800000) << 60;
    q = (uint64_t)(num / ((b & 0x7FFFFF) | 0x800000));
    return tr_round(s, q, (int)ea - (int)eb + 90);
}

/* (t, half) for f_sqrt: t in {60, 61} with E - 150 - t even, half = (E - 150 - t) / 2. */
EEF_FN void tr_sqrt_parts(uint32_t x, int *t, int *half)
{
    int e = (int)((x >> 23) & 0xFF);
    *t = ((e - 150) & 1) == 0 ? 60 : 61;
    *half = (e - 150 - *t) / 2;            /* exact: the difference is even */
}

/* floor(sqrt(v)) of a 128-bit integer below 2^126: a guess, then exact integer correction (the
 * result is exact whatever the guess; the guess only decides how many steps it takes). */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline uint64_t eef_isqrt128(unsigned __int128 v)
{
    /* the SSE2 instruction, not libm's sqrt (no errno path, no library to link) */
    double d = (double)(uint64_t)(v >> 64) * 18446744073709551616.0 + (double)(uint64_t)v;
    uint64_t r = (uint64_t)_mm_cvtsd_f64(_mm_sqrt_sd(_mm_set_sd(d), _mm_set_sd(d)));
    while ((unsigned __int128)r * r > v)
        r--;
    while ((unsigned __int128)(r + 1) * (r + 1) <= v)
        r++;
    return r;
}
#else
static inline uint64_t eef_isqrt128(unsigned __int128 v)
{
    unsigned __int128 bit = (unsigned __int128)1 << 126, res = 0;
    while (bit > v)
        bit >>= 2;
    while (bit) {
        if (v >= res + bit) { v -= res + bit; res = (res >> 1) + bit; }
        else res >>= 1;
        bit >>= 2;
    }
    return (uint64_t)res;
}
#endif

/* f_sqrt under trunc: floor(sqrt(M 2^t)) truncated; sign ignored, result +. */
EEF_FN uint64_t tr_sqrt(uint32_t x)
{
    int t, half;
    uint64_t r;
    if (!((x >> 23) & 0xFF))
        return 0;
    tr_sqrt_parts(x, &t, &half);
    r = eef_isqrt128((unsigned __int128)((x & 0x7FFFFF) | 0x800000) << t);
    return tr_round(0, r, 150 + half);
}

/* f_rsqrt under trunc: a / sqrt|b| rounded once, sign S(a).
 * Python's isqrt((ma * ma) // (M(b) << t)) with ma = M(a) << 60 equals
 * isqrt((M(a)^2 << (120 - t)) // M(b)): the common factor 2^t divides out exactly, and the
 * numerator then fits 128 bits. */
EEF_FN uint64_t tr_rsqrt(uint32_t a, uint32_t b)
{
    uint32_t s = a & 0x80000000U, ea;
    int t, half;
    uint64_t ma, r;
    unsigned __int128 num;
    if (!((b >> 23) & 0xFF))
        return s | 0x7FFFFFFFU;
    ea = (a >> 23) & 0xFF;
    if (!ea)
        return s;
    tr_sqrt_parts(b, &t, &half);
    ma = (a & 0x7FFFFF) | 0x800000;
    num = (unsigned __int128)(ma * ma) << (120 - t);
    r = eef_isqrt128(num / ((b & 0x7FFFFF) | 0x800000));
    return tr_round(s, r, (int)ea - 60 - half);
}

/* f_madd under trunc: f_add(c, f_mul(a, b)), saturated values added plainly. */
EEF_FN uint64_t tr_madd(uint32_t acc, uint32_t a, uint32_t b, uint64_t acc_ovf)
{
    (void)acc_ovf;
    return tr_add(acc, (uint32_t)tr_mul(a, b));
}

EEF_FN uint64_t tr_msub(uint32_t acc, uint32_t a, uint32_t b, uint64_t acc_ovf)
{
    (void)acc_ovf;
    return tr_add(acc, (uint32_t)tr_mul(a, b) ^ 0x80000000U);
}

/* VITOFn under trunc: f_from_int then f_div by f_from_int(2^n) when n > 0 (§2.2). */
EEF_FN uint32_t tr_itof(uint32_t i, int n)
{
    uint32_t r = from_int(i);
    if (n)
        r = (uint32_t)tr_div(r, from_int(1U << n));
    return r;
}

/* VFTOIn under trunc: f_to_int(f_mul(x, 2^n)). */
EEF_FN uint32_t tr_ftoi(uint32_t x, int n)
{
    if (n)
        x = (uint32_t)tr_mul(x, from_int(1U << n));
    return ftoi(x, 0);
}

/* ------------------------------------------------------------------------------------------
 * Flag bookkeeping (hw only)
 * ------------------------------------------------------------------------------------------ */

/* FCR31 after ADD, SUB, MUL, ADDA, SUBA, MULA, MADD, MSUB (§3.9) given a flagged result r. */
EEF_FN uint32_t fcr_arith(uint32_t fcr, uint64_t r)
{
    if (r & EE_OVF)
        fcr |= EE_FCR_O | EE_FCR_SO;
    else if (r & EE_UNF)
        fcr = (fcr & ~EE_FCR_O) | EE_FCR_U | EE_FCR_SU;
    else
        fcr &= ~(EE_FCR_O | EE_FCR_U);
    if (r & EE_PUNF)
        fcr |= EE_FCR_SU;
    return fcr;
}

/* FCR31 after MADDA, MSUBA (§3.9): an underflow sets SU only, leaving U untouched. */
EEF_FN uint32_t fcr_acc(uint32_t fcr, uint64_t r)
{
    if (r & EE_OVF)
        fcr |= EE_FCR_O | EE_FCR_SO;
    else {
        fcr &= ~EE_FCR_O;
        if (r & EE_UNF)
            fcr |= EE_FCR_SU;
    }
    if (r & EE_PUNF)
        fcr |= EE_FCR_SU;
    return fcr;
}

/* FCR31 after DIV: D/SD or I/SI by a zero divisor; O, U, and D/I otherwise unchanged. */
EEF_FN uint32_t fcr_div(uint32_t fcr, uint64_t r)
{
    if (r & EE_DIVZ)
        fcr |= EE_FCR_D | EE_FCR_SD;
    if (r & EE_INV)
        fcr |= EE_FCR_I | EE_FCR_SI;
    return fcr;
}

/* FCR31 after SQRT and RSQRT: D and I cleared first, then set by the result's flags. */
EEF_FN uint32_t fcr_sqrt(uint32_t fcr, uint64_t r)
{
    fcr &= ~(EE_FCR_D | EE_FCR_I);
    if (r & EE_DIVZ)
        fcr |= EE_FCR_D | EE_FCR_SD;
    if (r & EE_INV)
        fcr |= EE_FCR_I | EE_FCR_SI;
    return fcr;
}

/* trunc: FCR31 holds only C, so arithmetic leaves it alone. */
EEF_FN uint32_t fcr_noflags(uint32_t fcr, uint64_t r)
{
    (void)r;
    return fcr;
}

#endif
