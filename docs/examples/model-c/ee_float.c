/* The EE's "hw" float model, written from docs/spec/ee-float.md §3 (ADD/SUB §3.1, the carry-save
 * adder §3.2, the Booth MUL §3.3, the SRT DIV §3.4, SQRT §3.5, the MADD overflow rules §3.6 and
 * §3.10, the conversions §3.7). No denormals (E = 0 is zero), no infinities or NaNs (E = 255 is
 * a number), overflow clamps to +-Fmax. Flags are not kept: only the ACC overflow latch matters
 * to a value. */
#include <math.h>
#include "ee_float.h"

#define E(a) (((a) >> 23) & 0xFFu)
#define M(a) (((a) & 0x7FFFFFu) | 0x800000u)

static int bit_length(uint64_t v) { int n = 0; while (v) { n++; v >>= 1; } return n; }

static uint32_t add_o(uint32_t a, uint32_t b, int *over) {
    *over = 0;
    if (!E(a) && !E(b)) return a & b & EE_SIGN;               /* -0 only when both are negative */
    if (!E(a)) return b;                                      /* the other operand, bit for bit */
    if (!E(b)) return a;
    uint32_t x = a, y = b;
    if (E(b) > E(a)) { x = b; y = a; }
    int d = (int)E(x) - (int)E(y);
    if (d >= 25) return x;
    uint32_t my = M(y);
    if (d >= 1) my &= ~((1u << (d - 1)) - 1u);                /* keep one guard bit below x's ulp */
    int64_t sx = (int64_t)M(x) << d, sy = my;
    int64_t sum = (x & EE_SIGN ? -sx : sx) + (y & EE_SIGN ? -sy : sy);
    if (sum == 0) return 0;
    uint32_t sign = sum < 0 ? EE_SIGN : 0;
    uint64_t mag = (uint64_t)(sum < 0 ? -sum : sum);
    int n = bit_length(mag);
    uint64_t m = n >= 24 ? mag >> (n - 24) : mag << (24 - n);
    int e = (int)E(y) + n - 24;
    if (e > 255) { *over = 1; return sign | EE_FMAX; }
    if (e < 1) return sign | (uint32_t)(m & 0x7FFFFFu);       /* underflow: the fraction kept, E = 0 */
    return sign | (uint32_t)e << 23 | (uint32_t)(m & 0x7FFFFFu);
}

uint32_t ee_add(uint32_t a, uint32_t b) { int o; return add_o(a, b, &o); }
uint32_t ee_sub(uint32_t a, uint32_t b) { return ee_add(a, b ^ EE_SIGN); }

static void csa(uint32_t x, uint32_t y, uint32_t z, uint32_t *s, uint32_t *c) {
    *s = x ^ y ^ z;
    *c = ((x & y) | (x & z) | (y & z)) << 1;
}

/* A x B with the multiplier array's lost low carry: P, or P - 2^15 */
static uint64_t booth(uint32_t A, uint32_t B) {
    uint64_t P = (uint64_t)A * B;
    uint32_t pp[8], nn[8];
    for (int k = 0; k < 8; k++) {
        uint32_t w = ((B >> (2 * k)) & 3u) << 1 | (k ? (B >> (2 * k - 1)) & 1u : 0u);
        uint32_t K = 0xFFFFFFFFu << (2 * k);
        nn[k] = 0;
        if (w == 0 || w == 7) pp[k] = 0;
        else if (w == 1 || w == 2) pp[k] = A << (2 * k);
        else if (w == 3) pp[k] = A << (2 * k + 1);
        else if (w == 4) { pp[k] = (A << (2 * k + 1)) ^ K; nn[k] = 1u << (2 * k); }
        else { pp[k] = (A << (2 * k)) ^ K; nn[k] = 1u << (2 * k); }
    }
    uint32_t s0, c0, s1, c1, s2, c2, s3, c3, s4, c4, s5, c5;
    csa(pp[1], pp[2], pp[3], &s0, &c0);
    csa(pp[4] & 0xFFFFF800u, pp[5] & 0xFFFFF000u, pp[6], &s1, &c1);
    c1 |= nn[6] | (pp[5] & 0x800u);
    uint32_t q7 = pp[7] | ((pp[5] & 0x400u) + nn[5]);
    csa(pp[0], s0, c0, &s2, &c2);
    csa(q7, s1, c1, &s3, &c3);
    csa(c2, s3, c3, &s4, &c4);
    csa(s2, s4, c4, &s5, &c5);
    c5 += nn[7];
    uint32_t L = (s5 & 0xFFFF8000u) + (c5 & 0xFFFF8000u);
    return ((L >> 15) & 1u) != ((P >> 15) & 1u) ? P - 0x8000u : P;
}

static uint32_t mul_o(uint32_t fs, uint32_t ft, int *over) {
    uint32_t sign = (fs ^ ft) & EE_SIGN;
    *over = 0;
    if (!E(fs) || !E(ft)) return sign;
    int e = (int)E(fs) + (int)E(ft) - 127;
    uint64_t m = booth(M(fs), M(ft)) >> 23;
    if (m >= 1u << 24) { m >>= 1; e++; }
    if (e > 255) { *over = 1; return sign | EE_FMAX; }
    if (e < 1) return sign;
    return sign | (uint32_t)e << 23 | (uint32_t)(m & 0x7FFFFFu);
}

uint32_t ee_mul(uint32_t fs, uint32_t ft) { int o; return mul_o(fs, ft, &o); }

/* §3.6: ACC + fs x ft, the product rounded first; acc_over is the ACC's overflow latch */
static uint32_t madd_o(uint32_t acc, int acc_over, uint32_t fs, uint32_t ft, int *over) {
    int p_over;
    uint32_t p = mul_o(fs, ft, &p_over);
    uint32_t to_plus = !(p & EE_SIGN);
    if (p_over) { *over = 1; return to_plus ? EE_FMAX : EE_SIGN | EE_FMAX; }
    if (acc_over) { *over = 1; return acc; }
    return add_o(acc, p, over);
}

uint32_t ee_mac4(const uint32_t fs[4], const uint32_t ft[4]) {
    int over;
    uint32_t acc = mul_o(fs[0], ft[0], &over);
    acc = madd_o(acc, over, fs[1], ft[1], &over);
    acc = madd_o(acc, over, fs[2], ft[2], &over);
    /* DECISION: VMADD writing fd behaves as if ACC had not overflowed (ee-float.md §3.10 [INF]) */
    return madd_o(acc, 0, fs[3], ft[3], &over);
}

/* the digit selector of the SRT divider and square root (§3.4) */
static int sel(uint32_t s, uint32_t c) {
    int32_t tau = (int32_t)(((s & 0xFF000000u) + c) | (s & 0x00FFFFFFu));
    return tau >= (1 << 23) ? 1 : tau < -(1 << 24) ? -1 : 0;
}

/* one digit step: (S, G) += X in carry-save form, the next digit chosen, both doubled */
static int srt_step(uint32_t *S, uint32_t *G, uint32_t X, int q) {
    uint32_t s, g;
    if (q == 1) *G += 1;
    csa(*S, *G, X, &s, &g);
    int next = q ? sel(s, g) : sel(*S, *G);
    *S = s << 1;
    *G = g << 1;
    return next;
}

uint32_t ee_div(uint32_t a, uint32_t b) {
    uint32_t sign = (a ^ b) & EE_SIGN;
    if (!E(b)) return sign | EE_FMAX;
    if (!E(a)) return sign;
    uint32_t D = 4 * M(b), S = 4 * M(a), G = 0, Q = 0;
    int q = 1;
    for (int k = 0; k < 25; k++) {
        Q = 2 * Q + (uint32_t)q;
        q = srt_step(&S, &G, q == 1 ? ~D : q == -1 ? D : 0, q);
    }
    int e = (int)E(a) - (int)E(b) + 126;
    if (Q >= 1u << 24) { Q >>= 1; e++; }
    if (e > 255) return sign | EE_FMAX;
    if (e < 1) return sign;
    return sign | (uint32_t)e << 23 | (Q & 0x7FFFFFu);
}

uint32_t ee_sqrt(uint32_t x) {
    if (!E(x)) return 0;
    uint32_t m = 2 * M(x);
    if (!((x >> 23) & 1u)) m *= 2;
    uint32_t S = m, G = 0, Q = 0;
    int q = 1;
    for (int i = 0; i <= 24; i++) {
        uint32_t adj = Q + (uint32_t)q * (1u << (24 - i));
        Q += (uint32_t)q * (1u << (25 - i));
        q = srt_step(&S, &G, q == 1 ? ~adj : q == -1 ? adj : 0, q);
    }
    return ((E(x) + 127) >> 1) << 23 | ((Q >> 2) & 0x7FFFFFu);
}

uint32_t ee_from_int(uint32_t i) {
    if (!i) return 0;
    uint32_t sign = i & EE_SIGN, mag = sign ? 0u - i : i;
    int n = bit_length(mag);
    uint32_t m = n > 24 ? mag >> (n - 24) : mag << (24 - n);   /* truncated to 24 significant bits */
    return sign | (uint32_t)(n + 126) << 23 | (m & 0x7FFFFFu);
}

uint32_t ee_to_int(uint32_t x) {
    int e = (int)E(x);
    if (e < 127) return 0;                                    /* |x| < 1, E = 0 included */
    if (e >= 158) return x & EE_SIGN ? 0x80000000u : 0x7FFFFFFFu;
    uint32_t v = e >= 150 ? M(x) << (e - 150) : M(x) >> (150 - e);
    return x & EE_SIGN ? 0u - v : v;
}

uint32_t ee_u2f(uint32_t x) {
    if (x < 0x80000000u) return ee_from_int(x);
    uint32_t h = ee_from_int((x >> 1) | (x & 1u));
    return ee_add(h, h);
}

double ee_double(uint32_t x) {
    double v = E(x) ? ldexp((double)M(x), (int)E(x) - 150) : 0.0;
    return x & EE_SIGN ? -v : v;
}
