/* A probe speaking morph_probe's line protocol (docs/spec/fixtures.md §3), written from the spec:
 * nothing of eediff used.
 *
 *   request:  BASE_SCALE N K  x y z (N times)  { SCALE WEIGHT  x y z (N times) } (K times)
 *             (BASE_SCALE, SCALE, WEIGHT: f32 bit patterns in hex; N, K, x, y, z decimal)
 *   answer:   3N decimal integers, the blended x y z per vertex, single spaces
 *
 * The blend is ccMorpher::Modify's (animation-semantics.md §9.2): rescale, weight lanes, the
 * wrapping 32-bit sum, the saturating add, with the EE's float arithmetic: the hardware's MUL and
 * DIV (ee-float.md §3.3, §3.4), its truncating int conversions (§2.2, §3.7).
 * A malformed line panics: a message on stderr and exit status 101, as a Rust panic does.
 * Built with -DWRONG, the final add wraps instead of saturating: a deliberately wrong probe.
 *
 *   cc -O2 -o morph_probe morph_probe.c [-DWRONG]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void panic(const char *why) {
    fprintf(stderr, "thread 'main' panicked: %s\n", why);
    exit(101);
}

#define E(x) (((x) >> 23) & 0xFF)
#define S(x) ((x) & 0x80000000u)
#define FMAX 0x7FFFFFFFu

/* ee-float.md §2.1: |v| = mant * 2^exp2, truncated toward zero to 24 bits, as a pattern */
static uint32_t round_trunc(uint32_t sign, unsigned __int128 mant, int exp2) {
    if (mant == 0) return sign;
    while (mant >= ((unsigned __int128)1 << 24)) { mant >>= 1; exp2++; }
    while (mant < ((unsigned __int128)1 << 23)) { mant <<= 1; exp2--; }
    int e = exp2 + 150;
    if (e > 255) return sign | FMAX;
    if (e < 1) return sign;
    return sign | ((uint32_t)e << 23) | ((uint32_t)mant & 0x7FFFFF);
}

static uint64_t M(uint32_t x) { return (x & 0x7FFFFF) | 0x800000; }

/* ee-float.md §3.2 */
static void csa(uint32_t x, uint32_t y, uint32_t z, uint32_t *s, uint32_t *c) {
    *s = x ^ y ^ z;
    *c = ((x & y) | (x & z) | (y & z)) << 1;
}

/* ee-float.md §3.3: the Booth product of significands A (fs) and B (ft) */
static uint64_t booth(uint32_t A, uint32_t B) {
    uint64_t P = (uint64_t)A * B;
    uint32_t PP[8], N[8];
    for (int k = 0; k < 8; k++) {
        unsigned bm1 = k ? (B >> (2 * k - 1)) & 1 : 0;
        unsigned w = 4 * ((B >> (2 * k + 1)) & 1) + 2 * ((B >> (2 * k)) & 1) + bm1;
        uint32_t K = 0xFFFFFFFFu << (2 * k);
        PP[k] = 0; N[k] = 0;
        if (w == 1 || w == 2) PP[k] = A << (2 * k);
        else if (w == 3) PP[k] = A << (2 * k + 1);
        else if (w == 4) { PP[k] = (A << (2 * k + 1)) ^ K; N[k] = 1u << (2 * k); }
        else if (w == 5 || w == 6) { PP[k] = (A << (2 * k)) ^ K; N[k] = 1u << (2 * k); }
    }
    uint32_t S0, C0, S1, C1, S2, C2, S3, C3, S4, C4, S5, C5;
    csa(PP[1], PP[2], PP[3], &S0, &C0);
    csa(PP[4] & 0xFFFFF800u, PP[5] & 0xFFFFF000u, PP[6], &S1, &C1);
    C1 |= N[6] | (PP[5] & 0x800);
    uint32_t Q7 = PP[7] | ((PP[5] & 0x400) + N[5]);
    csa(PP[0], S0, C0, &S2, &C2);
    csa(Q7, S1, C1, &S3, &C3);
    csa(C2, S3, C3, &S4, &C4);
    csa(S2, S4, C4, &S5, &C5);
    C5 += N[7];
    uint32_t L = (S5 & 0xFFFF8000u) + (C5 & 0xFFFF8000u);
    return ((L >> 15) & 1) != ((P >> 15) & 1) ? P - (1u << 15) : P;
}

static uint32_t f_mul(uint32_t fs, uint32_t ft) {   /* ee-float.md §3.3 MUL */
    uint32_t s = S(fs) ^ S(ft);
    if (!E(fs) || !E(ft)) return s;
    int e = (int)E(fs) + (int)E(ft) - 127;
    uint64_t m = booth((uint32_t)M(fs), (uint32_t)M(ft)) >> 23;
    if (m >= (1u << 24)) { m >>= 1; e++; }
    if (e > 255) return s | FMAX;
    if (e < 1) return s;
    return s | ((uint32_t)e << 23) | ((uint32_t)m & 0x7FFFFF);
}

static int sel(uint32_t s, uint32_t c) {
    int32_t t = (int32_t)((((s & 0xFF000000u) + c)) | (s & 0x00FFFFFFu));
    return t >= (1 << 23) ? 1 : (t < -(1 << 24) ? -1 : 0);
}

static uint32_t f_div(uint32_t a, uint32_t b) {      /* ee-float.md §3.4 DIV */
    uint32_t s = S(a) ^ S(b);
    if (!E(b)) return s | FMAX;
    if (!E(a)) return s;
    uint32_t D = 4 * (uint32_t)M(b), Sg = 4 * (uint32_t)M(a), G = 0, Q = 0;
    int q = 1;
    for (int i = 0; i < 25; i++) {
        Q = 2 * Q + (uint32_t)q;
        uint32_t X = 0, S2, G2;
        if (q == 1) { X = ~D; G += 1; }
        else if (q == -1) X = D;
        csa(Sg, G, X, &S2, &G2);
        int next = q ? sel(S2, G2) : sel(Sg, G);
        Sg = 2 * S2; G = 2 * G2; q = next;
    }
    int e = (int)E(a) - (int)E(b) + 126;
    if (Q >= (1u << 24)) { Q >>= 1; e++; }
    if (e > 255) return s | FMAX;
    if (e < 1) return s;
    return s | ((uint32_t)e << 23) | (Q & 0x7FFFFF);
}

static uint32_t f_from_int(int32_t i) {
    uint32_t s = i < 0 ? 0x80000000u : 0;
    uint64_t mag = i < 0 ? (uint64_t)(-(int64_t)i) : (uint64_t)i;
    return round_trunc(s, mag, 0);
}

static int32_t f_to_int(uint32_t x) {
    if (!E(x)) return 0;
    int sh = (int)E(x) - 150;
    int64_t v;
    if (sh >= 8) v = 1LL << 40;                       /* beyond 2^31: saturates below */
    else v = sh >= 0 ? (int64_t)(M(x) << sh) : (sh > -32 ? (int64_t)(M(x) >> -sh) : 0);
    if (S(x)) v = -v;
    if (v > 0x7FFFFFFFLL) return 0x7FFFFFFF;
    if (v < -0x80000000LL) return (int32_t)0x80000000u;
    return (int32_t)v;
}

static int same_value(uint32_t a, uint32_t b) { return (!E(a) && !E(b)) || a == b; }

static int16_t s16(int64_t x) { return (int16_t)(uint16_t)(x & 0xFFFF); }

/* the next whitespace-separated word of the line, or panic */
static char *word(char **p, const char *what) {
    char *w = strtok_r(NULL, " \t\r\n", p);
    if (!w) { char m[96]; snprintf(m, sizeof m, "short request: no %s", what); panic(m); }
    return w;
}

static long dec(char **p, const char *what) {
    char *w = word(p, what), *end;
    long v = strtol(w, &end, 10);
    if (*end) panic("not a decimal number");
    return v;
}

static uint32_t hex(char **p, const char *what) {
    char *w = word(p, what), *end;
    unsigned long v = strtoul(w, &end, 16);
    if (*end) panic("not a hex word");
    return (uint32_t)v;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        char *save = NULL;
        char *first = strtok_r(line, " \t\r\n", &save);
        if (!first) panic("empty request");
        char *end;
        uint32_t base_scale = (uint32_t)strtoul(first, &end, 16);
        if (*end) panic("not a hex word");
        long n = dec(&save, "N"), k = dec(&save, "K");
        if (n < 0 || k < 0) panic("negative count");
        int16_t *base = malloc(3 * (size_t)n * sizeof *base + 1);
        int32_t *acc = calloc(3 * (size_t)n + 1, sizeof *acc);
        for (long i = 0; i < 3 * n; i++) base[i] = (int16_t)dec(&save, "base position");
        for (long t = 0; t < k; t++) {
            uint32_t scale = hex(&save, "SCALE"), w = hex(&save, "WEIGHT");
            int rescale = !same_value(scale, base_scale);
            uint32_t ratio = rescale ? f_div(scale, base_scale) : 0;
            /* §9.2 step 2: the weight lanes */
            uint64_t x = (uint32_t)f_to_int(f_mul(w, 0x45800000u));
            uint64_t v = x | (S(w) ? 0xFFFFFFFF00000000ull : 0);
            uint64_t tt = v | (v << 16) | (v << 32);
            int32_t lane[3] = {s16(tt), s16(tt >> 16), s16(tt >> 32)};
            for (long i = 0; i < 3 * n; i++) {
                int16_t c = (int16_t)dec(&save, "target position");
                if (rescale) c = s16(f_to_int(f_mul(ratio, f_from_int(c))));
                int32_t d = s16((int32_t)c - base[i]);
                acc[i] = (int32_t)((uint32_t)acc[i] + (uint32_t)(d * lane[i % 3]));
            }
        }
        for (long i = 0; i < 3 * n; i++) {
            int32_t sum = (int32_t)s16(acc[i] >> 12) + base[i];
#ifdef WRONG
            sum = s16(sum);
#else
            if (sum > 32767) sum = 32767;
            if (sum < -32768) sum = -32768;
#endif
            printf(i ? " %d" : "%d", sum);
        }
        printf("\n");
        fflush(stdout);
        free(base);
        free(acc);
    }
    free(line);
    return 0;
}
