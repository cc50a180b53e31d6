/* The float runtime as a shared library: every function of eefloat.h with external linkage (for
 * ctypes), and eef_batch, which evaluates one operation over arrays of operands in one call so a
 * test can compare millions of results without a ctypes call per operand.
 */
#define EEF_FN
#include "eefloat.h"
#include <stddef.h>
#include <string.h>

/* The operations eef_batch knows, with their argument kind:
 *   X1 f(x)                 XN f(x, n)             X2 f(a, b)
 *   X4 f(acc, a, b, latch)  XM macc(acc, p, latch, neg)
 *   XF f(fcr, r)            XR tr_round(sign, s, base)
 * Arguments come in as uint64_t arrays a, b, c, d (unused ones may be NULL); results are stored
 * as uint64_t (signed results, key and raw_key, as their two's-complement 64-bit pattern). */
#define EEF_OPS(X)                                                                              \
    X(bits_e, X1) X(hw_add, X2) X(hw_sub, X2) X(booth_carry_lost, X2) X(hw_mul, X2)             \
    X(srt_div, X2) X(srt_sqrt, X1) X(hw_div, X2) X(hw_sqrt, X1) X(hw_rsqrt, X2)                 \
    X(hw_vrsqrt, X2) X(macc, XM) X(hw_madd, X4) X(hw_msub, X4) X(from_int, X1) X(ftoi, XN)      \
    X(to_int, X1) X(itof, XN) X(key, X1) X(raw_key, X1) X(ee_fmax, X2) X(ee_fmin, X2)           \
    X(ee_fabs, X1) X(ee_fneg, X1) X(tr_round, XR) X(tr_add, X2) X(tr_sub, X2) X(tr_mul, X2)     \
    X(tr_div, X2) X(tr_sqrt, X1) X(tr_rsqrt, X2) X(tr_madd, X4) X(tr_msub, X4) X(tr_itof, XN)   \
    X(tr_ftoi, XN) X(fcr_arith, XF) X(fcr_acc, XF) X(fcr_div, XF) X(fcr_sqrt, XF)               \
    X(fcr_noflags, XF)

#define EEF_ENUM(name, kind) EEF_OP_##name,
enum { EEF_OPS(EEF_ENUM) EEF_OP_COUNT };

#define EEF_NAME(name, kind) #name,
static const char *const eef_names[] = { EEF_OPS(EEF_NAME) };

#define EEF_KIND(name, kind) #kind,
static const char *const eef_kinds[] = { EEF_OPS(EEF_KIND) };

int eef_op_count(void) { return EEF_OP_COUNT; }
const char *eef_op_name(int op) { return op >= 0 && op < EEF_OP_COUNT ? eef_names[op] : 0; }
const char *eef_op_kind(int op) { return op >= 0 && op < EEF_OP_COUNT ? eef_kinds[op] : 0; }

#define CALL_X1(name) (uint64_t)name((uint32_t)a[k])
#define CALL_XN(name) (uint64_t)name((uint32_t)a[k], (int)b[k])
#define CALL_X2(name) (uint64_t)name((uint32_t)a[k], (uint32_t)b[k])
#define CALL_X4(name) (uint64_t)name((uint32_t)a[k], (uint32_t)b[k], (uint32_t)c[k], d[k])
#define CALL_XM(name) (uint64_t)name((uint32_t)a[k], b[k], c[k], (uint32_t)d[k])
#define CALL_XF(name) (uint64_t)name((uint32_t)a[k], b[k])
#define CALL_XR(name) (uint64_t)name((uint32_t)a[k], b[k], (int)(int64_t)c[k])

#define EEF_CASE(name, kind)                                                                    \
    case EEF_OP_##name:                                                                         \
        for (k = 0; k < n; k++) out[k] = CALL_##kind(name);                                    \
        return 0;

/* out[k] = op(a[k], b[k], ...) for k < n; returns 0, or -1 for an unknown op. */
int eef_batch(int op, size_t n, const uint64_t *a, const uint64_t *b, const uint64_t *c,
              const uint64_t *d, uint64_t *out)
{
    size_t k;
    switch (op) {
        EEF_OPS(EEF_CASE)
    }
    return -1;
}

/* tr_sqrt_parts packed for ctypes: (t << 32) | (uint32_t)half. */
uint64_t eef_tr_sqrt_parts(uint32_t x)
{
    int t, half;
    tr_sqrt_parts(x, &t, &half);
    return ((uint64_t)(uint32_t)t << 32) | (uint32_t)half;
}

/* Time per operation: op over the n operand sets, `rounds` times; returns an XOR of the results
 * (so the work cannot be optimised away). The caller times the call. */
uint64_t eef_spin(int op, size_t n, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                  const uint64_t *d, uint64_t *out, int rounds)
{
    uint64_t x = 0;
    size_t k;
    int i;
    for (i = 0; i < rounds; i++) {
        eef_batch(op, n, a, b, c, d, out);
        for (k = 0; k < n; k++) x ^= out[k];
    }
    return x;
}
