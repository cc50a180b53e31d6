/* The reference's EE float arithmetic on raw u32 patterns, models "hw" and "trunc".
 *
 * Written from ee-float.md §2 (trunc) and §3 (hw), the same rules reference/eefloat.py follows;
 * shares no code with eemu_ext. Every operation takes and returns raw 32-bit patterns.
 * f_mul(a, b): a is fs (the multiplicand), b is ft (the Booth-recoded multiplier).
 */
#ifndef REF_EEFLOAT_H
#define REF_EEFLOAT_H

#include <stdint.h>

typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;
typedef unsigned __int128 u128;
typedef __int128 s128;

#define SIGN 0x80000000u
#define FMAX 0x7FFFFFFFu
#define HIDDEN 0x800000u
#define FRAC 0x7FFFFFu

enum { MODEL_HW = 0, MODEL_TRUNC = 1 };

static inline int ex(u32 x) { return (int)((x >> 23) & 0xFF); }
static inline u32 sig(u32 x) { return (x & FRAC) | HIDDEN; }

static inline int bitlen64(u64 v) { return v ? 64 - __builtin_clzll(v) : 0; }
static inline int bitlen128(u128 v) {
    u64 hi = (u64)(v >> 64);
    return hi ? 128 - __builtin_clzll(hi) : bitlen64((u64)v);
}

/* ------------------------------------------------------------------ shared (§2.2, §3.7) */

static inline u32 f_from_int(u32 i) {
    if (i == 0) return 0;
    u32 sign = i & SIGN;
    u32 mag = sign ? (u32)(0u - i) : i;
    int n = bitlen64(mag);
    u32 m = n > 24 ? mag >> (n - 24) : mag << (24 - n);
    return sign | ((u32)(n + 126) << 23) | (m & FRAC);
}

static inline u32 f_to_int(u32 x) {
    int e = ex(x);
    if (e == 0) return 0;
    if (e >= 158) return (x & SIGN) ? 0x80000000u : 0x7FFFFFFFu;
    u32 m = sig(x);
    /* a shift by 32 or more is undefined in C: those magnitudes truncate to 0 */
    u32 v = e >= 150 ? m << (e - 150) : (150 - e < 32 ? m >> (150 - e) : 0);
    return (x & SIGN) ? (u32)(0u - v) : v;
}

static inline s32 cmp_key(u32 v) {
    if (!ex(v)) return 0;
    return (v & SIGN) ? (s32)(v ^ FMAX) : (s32)v;
}

static inline int f_cmp(u32 a, u32 b) {
    s32 ka = cmp_key(a), kb = cmp_key(b);
    return (ka > kb) - (ka < kb);
}

/* ------------------------------------------------------------------ model "trunc" (§2) */

/* §2.1: |v| = mag * 2^(unit_e - 150), mag > 0; truncate to 24 bits. */
static inline u32 tr_round(u32 sign, u128 mag, int unit_e) {
    int n = bitlen128(mag);
    u32 m = (u32)(n >= 24 ? mag >> (n - 24) : mag << (24 - n));
    int e = unit_e + n - 24;
    if (e > 255) return sign | FMAX;
    if (e < 1) return sign;
    return sign | ((u32)e << 23) | (m & FRAC);
}

static inline u32 tr_add(u32 a, u32 b) {
    int ea = ex(a), eb = ex(b);
    if (ea == 0) return eb == 0 ? (a & b & SIGN) : b;
    if (eb == 0) return a;
    u32 x = a, y = b;
    int exx = ea, ey = eb;
    if (ea < eb) { x = b; y = a; exx = eb; ey = ea; }
    int d = exx - ey;
    s128 s;
    int unit;
    s128 mx = (s128)sig(x);
    if (d > 60) {
        /* §2.2 fixed-width shortcut: y becomes one unit of its own sign far below x. */
        s = mx << 61;
        if (x & SIGN) s = -s;
        s += (y & SIGN) ? -1 : 1;
        unit = exx - 61;
    } else {
        s128 my = (s128)sig(y);
        s = mx << d;
        if (x & SIGN) s = -s;
        s += (y & SIGN) ? -my : my;
        unit = ey;
    }
    if (s == 0) return 0;
    if (s < 0) return tr_round(SIGN, (u128)(-s), unit);
    return tr_round(0, (u128)s, unit);
}

static inline u32 tr_sub(u32 a, u32 b) { return tr_add(a, b ^ SIGN); }

static inline u32 tr_mul(u32 a, u32 b) {
    u32 sign = (a ^ b) & SIGN;
    int ea = ex(a), eb = ex(b);
    if (ea == 0 || eb == 0) return sign;
    u64 p = (u64)sig(a) * sig(b);
    u32 m;
    int e;
    if (p >> 47) { m = (u32)(p >> 24); e = ea + eb - 126; }
    else { m = (u32)(p >> 23); e = ea + eb - 127; }
    if (e > 255) return sign | FMAX;
    if (e < 1) return sign;
    return sign | ((u32)e << 23) | (m & FRAC);
}

static inline u32 tr_div(u32 a, u32 b) {
    u32 sign = (a ^ b) & SIGN;
    int ea = ex(a), eb = ex(b);
    if (eb == 0) return sign | FMAX;
    if (ea == 0) return sign;
    u128 q = ((u128)sig(a) << 60) / sig(b);
    /* value = q * 2^(ea - eb - 60) = q * 2^(unit - 150), unit = ea - eb + 90 */
    return tr_round(sign, q, ea - eb + 90);
}

static inline u128 isqrt128(u128 v) {
    /* floor(sqrt(v)) by the digit-by-digit method, exact for every 128-bit v. */
    u128 r = 0, bit = (u128)1 << 126;
    while (bit > v) bit >>= 2;
    while (bit) {
        if (v >= r + bit) { v -= r + bit; r = (r >> 1) + bit; }
        else r >>= 1;
        bit >>= 2;
    }
    return r;
}

/* t in {60, 61} with E - 150 - t even, and the halved exponent (E - 150 - t) / 2. */
static inline int tr_sqrt_t(u32 x) { return (ex(x) & 1) ? 61 : 60; }
static inline int tr_sqrt_half(u32 x) { return (ex(x) - 150 - tr_sqrt_t(x)) / 2; }

static inline u32 tr_sqrt(u32 a) {
    if (!ex(a)) return 0;
    u128 mag = (u128)sig(a) << tr_sqrt_t(a);
    return tr_round(0, isqrt128(mag), tr_sqrt_half(a) + 150);
}

static inline u32 tr_rsqrt(u32 a, u32 b) {
    u32 sa = a & SIGN;
    if (!ex(b)) return sa | FMAX;
    if (!ex(a)) return sa;                  /* [INF]: a zero with the sign of a */
    /* floor((M(a)·2^60)^2 / (M(b)·2^t)) = floor(M(a)^2·2^(120-t) / M(b)): 2^(120-t) divides
     * the numerator exactly, so the divisor's power of two comes off first (fits 128 bits). */
    u128 a2 = (u128)((u64)sig(a) * sig(a)) << (120 - tr_sqrt_t(b));
    u128 r = isqrt128(a2 / sig(b));
    return tr_round(sa, r, ex(a) - 60 - tr_sqrt_half(b));
}

/* ------------------------------------------------------------------ model "hw" (§3) */

/* §3.1 ADD; *over receives the overflow outcome. */
static inline u32 hw_add_o(u32 a, u32 b, int *over) {
    *over = 0;
    int ea = ex(a), eb = ex(b);
    if (ea == 0) {
        if (eb == 0) return (a & b & SIGN) ? SIGN : 0;
        return b;
    }
    if (eb == 0) return a;
    u32 x = a, y = b;
    int exx = ea, ey = eb;
    if (ea < eb) { x = b; y = a; exx = eb; ey = ea; }
    int d = exx - ey;
    if (d >= 25) return x;
    s64 mx = sig(x), my = sig(y);
    if (d > 1) my &= ~((((s64)1) << (d - 1)) - 1);
    s64 s = (x & SIGN) ? -(mx << d) : (mx << d);
    s += (y & SIGN) ? -my : my;
    if (s == 0) return 0;
    u32 sign = 0;
    if (s < 0) { sign = SIGN; s = -s; }
    int n = bitlen64((u64)s);
    u32 m = (u32)(n >= 24 ? (u64)s >> (n - 24) : (u64)s << (24 - n));
    int e = ey + n - 24;
    if (e > 255) { *over = 1; return sign | FMAX; }
    if (e < 1) return sign | (m & FRAC);   /* §3.1 step 9 underflow [INF]: fraction kept, E = 0 */
    return sign | ((u32)e << 23) | (m & FRAC);
}

static inline u32 hw_add(u32 a, u32 b) { int o; return hw_add_o(a, b, &o); }
static inline u32 hw_sub(u32 a, u32 b) { int o; return hw_add_o(a, b ^ SIGN, &o); }

/* §3.2 */
#define CSA(x, y, z, s, c) do { u32 x_ = (x), y_ = (y), z_ = (z); \
    (s) = x_ ^ y_ ^ z_; (c) = ((x_ & y_) | (x_ & z_) | (y_ & z_)) << 1; } while (0)

/* §3.3 Booth product of the significands A (fs) and B (ft): A*B, or A*B - 2^15. */
static inline u64 booth(u32 A, u32 B) {
    u64 P = (u64)A * B;
    u32 pp[8] = {0}, nn[8] = {0};
    u32 b2 = (B << 1) & 0x1FFFF;           /* bit 0 is B_(-1) = 0 */
    for (int k = 0; k < 8; k++) {
        u32 w = (b2 >> (2 * k)) & 7;
        int sh = 2 * k;
        u32 K = 0xFFFFFFFFu << sh;
        switch (w) {
        case 1: case 2: pp[k] = A << sh; break;
        case 3: pp[k] = A << (sh + 1); break;
        case 4: pp[k] = (A << (sh + 1)) ^ K; nn[k] = 1u << sh; break;
        case 5: case 6: pp[k] = (A << sh) ^ K; nn[k] = 1u << sh; break;
        default: break;                      /* 0 or 7 */
        }
    }
    u32 s0, c0, s1, c1, s2, c2, s3, c3, s4, c4, s5, c5;
    CSA(pp[1], pp[2], pp[3], s0, c0);
    CSA(pp[4] & 0xFFFFF800u, pp[5] & 0xFFFFF000u, pp[6], s1, c1);
    c1 = c1 | nn[6] | (pp[5] & 0x800);
    u32 q7 = pp[7] | ((pp[5] & 0x400) + nn[5]);
    CSA(pp[0], s0, c0, s2, c2);
    CSA(q7, s1, c1, s3, c3);
    CSA(c2, s3, c3, s4, c4);
    CSA(s2, s4, c4, s5, c5);
    c5 = c5 + nn[7];
    u32 L = (s5 & 0xFFFF8000u) + (c5 & 0xFFFF8000u);
    if ((L ^ (u32)P) & 0x8000) return P - 0x8000;
    return P;
}

/* §3.3 MUL(fs = a, ft = b). */
static inline u32 hw_mul_o(u32 a, u32 b, int *over) {
    *over = 0;
    u32 sign = (a ^ b) & SIGN;
    int ea = ex(a), eb = ex(b);
    if (ea == 0 || eb == 0) return sign;
    u32 A = sig(a), B = sig(b);
    u64 P = (u64)A * B;
    /* Booth() is P or P - 2^15: it can change floor(P / 2^23) only when P mod 2^23 < 2^15. */
    u64 m = ((P & 0x7FFFFF) < 0x8000 ? booth(A, B) : P) >> 23;
    int e = ea + eb - 127;
    if (m >> 24) { m >>= 1; e += 1; }
    if (e > 255) { *over = 1; return sign | FMAX; }
    if (e < 1) return sign;
    return sign | ((u32)e << 23) | ((u32)m & FRAC);
}

static inline u32 hw_mul(u32 a, u32 b) { int o; return hw_mul_o(a, b, &o); }

/* §3.6 MADD/MSUB with the overflow resolution; acc_over is the "ACC overflowed" latch. */
static inline u32 hw_madd_acc(u32 acc, int acc_over, u32 a, u32 b, int sub, int *over) {
    int p_over;
    u32 p = hw_mul_o(a, b, &p_over);
    int to_plus = sub ? (p & SIGN) != 0 : (p & SIGN) == 0;
    if (p_over) { *over = 1; return to_plus ? FMAX : (SIGN | FMAX); }   /* rules 1 and 3 */
    if (acc_over) { *over = 1; return acc; }                             /* rule 2 */
    return hw_add_o(acc, sub ? p ^ SIGN : p, over);                      /* rule 4 */
}

static inline u32 hw_madd(u32 c, u32 a, u32 b) { int o; return hw_madd_acc(c, 0, a, b, 0, &o); }
static inline u32 hw_msub(u32 c, u32 a, u32 b) { int o; return hw_madd_acc(c, 0, a, b, 1, &o); }

/* §3.4 digit selector */
static inline int srt_sel(u32 s, u32 c) {
    s32 tau = (s32)(((s & 0xFF000000u) + c) | (s & 0x00FFFFFFu));
    if (tau >= 0x800000) return 1;
    if (tau < -0x1000000) return -1;
    return 0;
}

/* §3.4 steps 2.3-2.5: one remainder update and the next digit. */
static inline int srt_step(u32 *S, u32 *G, u32 X, int q) {
    u32 s2, c2;
    CSA(*S, *G, X, s2, c2);
    int nq = q ? srt_sel(s2, c2) : srt_sel(*S, *G);
    *S = s2 << 1;
    *G = c2 << 1;
    return nq;
}

/* §3.4 radix-2 SRT divider: 25 digits, no final correction. */
static inline u32 srt_quotient(u32 ma, u32 mb) {
    u32 D = mb << 2, S = ma << 2, G = 0, Q = 0;
    int q = 1;
    for (int i = 0; i < 25; i++) {
        Q = (Q << 1) + (u32)q;
        u32 X = 0;
        if (q == 1) { X = ~D; G += 1; }
        else if (q == -1) X = D;
        q = srt_step(&S, &G, X, q);
    }
    return Q;
}

static inline u32 hw_div(u32 a, u32 b) {
    u32 sign = (a ^ b) & SIGN;
    int ea = ex(a), eb = ex(b);
    if (eb == 0) return sign | FMAX;
    if (ea == 0) return sign;
    u32 Q = srt_quotient(sig(a), sig(b));
    int e = ea - eb + 126;
    if (Q >> 24) { Q >>= 1; e += 1; }
    if (e > 255) return sign | FMAX;
    if (e < 1) return sign;
    return sign | ((u32)e << 23) | (Q & FRAC);
}

/* §3.5 SQRT: the sign is ignored, E = 0 gives +0. */
static inline u32 hw_sqrt(u32 a) {
    int e = ex(a);
    if (e == 0) return 0;
    u32 m = sig(a) << 1;
    if (!((a >> 23) & 1)) m <<= 1;
    u32 S = m, G = 0, Q = 0;
    int q = 1;
    for (int i = 0; i < 25; i++) {
        u32 adj = Q + (u32)q * (1u << (24 - i));
        Q = Q + (u32)q * (1u << (25 - i));
        u32 X = 0;
        if (q == 1) { X = ~adj; G += 1; }
        else if (q == -1) X = adj;
        q = srt_step(&S, &G, X, q);
    }
    return ((u32)((e + 127) >> 1) << 23) | ((Q >> 2) & FRAC);
}

static inline u32 hw_rsqrt(u32 a, u32 b) { return hw_div(a, hw_sqrt(b & FMAX)); }

/* ------------------------------------------------------------------ per-model dispatch */

static inline u32 f_add(int model, u32 a, u32 b) { return model == MODEL_HW ? hw_add(a, b) : tr_add(a, b); }
static inline u32 f_sub(int model, u32 a, u32 b) { return model == MODEL_HW ? hw_sub(a, b) : tr_sub(a, b); }
static inline u32 f_mul(int model, u32 a, u32 b) { return model == MODEL_HW ? hw_mul(a, b) : tr_mul(a, b); }
static inline u32 f_div(int model, u32 a, u32 b) { return model == MODEL_HW ? hw_div(a, b) : tr_div(a, b); }
static inline u32 f_sqrt(int model, u32 a) { return model == MODEL_HW ? hw_sqrt(a) : tr_sqrt(a); }
static inline u32 f_rsqrt(int model, u32 a, u32 b) { return model == MODEL_HW ? hw_rsqrt(a, b) : tr_rsqrt(a, b); }
static inline u32 f_madd(int model, u32 c, u32 a, u32 b) {
    return model == MODEL_HW ? hw_madd(c, a, b) : tr_add(c, tr_mul(a, b));
}
static inline u32 f_msub(int model, u32 c, u32 a, u32 b) {
    return model == MODEL_HW ? hw_msub(c, a, b) : tr_sub(c, tr_mul(a, b));
}

/* animation-semantics.md §2.3: unsigned 32-bit integer to float, as compiled. */
static inline u32 u2f(int model, u32 x) {
    if (x < 0x80000000u) return f_from_int(x);
    u32 h = f_from_int((x >> 1) | (x & 1));
    return f_add(model, h, h);
}

/* VMULA, VMADDA, VMADDA, VMADD over four (fs, ft) pairs (animation-semantics.md §3.2). Under hw
 * the MADDA steps see the previous ACC write's overflow; the final MADD writing fd ignores the
 * latch (ee-float.md §3.10 [INF]). Under trunc the plain chain of f_add(acc, f_mul(...)). */
static inline u32 mac4(int model, const u32 *fs, const u32 *ft) {
    if (model != MODEL_HW) {
        u32 acc = tr_mul(fs[0], ft[0]);
        acc = tr_add(acc, tr_mul(fs[1], ft[1]));
        acc = tr_add(acc, tr_mul(fs[2], ft[2]));
        return tr_add(acc, tr_mul(fs[3], ft[3]));
    }
    int over, o2;
    u32 acc = hw_mul_o(fs[0], ft[0], &over);
    acc = hw_madd_acc(acc, over, fs[1], ft[1], 0, &over);
    acc = hw_madd_acc(acc, over, fs[2], ft[2], 0, &over);
    return hw_madd_acc(acc, 0, fs[3], ft[3], 0, &o2);
}

#endif
