/* A probe speaking morph_probe's line protocol (docs/spec/fixtures.md §3), written from the spec:
 * nothing of eediff used.
 *
 *   request:  BASE_SCALE N K  x y z (N times)  { SCALE WEIGHT  x y z (N times) } (K times)
 *             (BASE_SCALE, SCALE, WEIGHT: f32 bit patterns in hex; N, K, x, y, z decimal)
 *   answer:   3N decimal integers, the blended x y z per vertex, single spaces
 *
 * The blend is ccMorpher::Modify's (animation-semantics.md §9.2): rescale, weight lanes, the
 * wrapping 32-bit sum, the saturating add, with the EE's float arithmetic: the hardware's MUL and
 * DIV (ee-float.md §3.3, §3.4), its truncating int conversions (§3.7), from the C model's
 * docs/examples/model-c/ee_float.c.
 * A malformed line panics: a message on stderr and exit status 101, as a Rust panic does.
 * Built with -DWRONG, the final add wraps instead of saturating: a deliberately wrong probe.
 *
 *   cc -O2 -I docs/examples/model-c -o morph_probe morph_probe.c docs/examples/model-c/ee_float.c -lm [-DWRONG]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ee_float.h"

static void panic(const char *why) {
    fprintf(stderr, "thread 'main' panicked: %s\n", why);
    exit(101);
}

#define E(x) (((x) >> 23) & 0xFF)
#define S(x) ((x) & 0x80000000u)

/* the EE's MUL, DIV and conversions: docs/examples/model-c/ee_float.c (ee-float.md §3) */
static uint32_t f_mul(uint32_t fs, uint32_t ft) { return ee_mul(fs, ft); }
static uint32_t f_div(uint32_t a, uint32_t b) { return ee_div(a, b); }
static uint32_t f_from_int(int32_t i) { return ee_from_int((uint32_t)i); }
static int32_t f_to_int(uint32_t x) { return (int32_t)ee_to_int(x); }

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
