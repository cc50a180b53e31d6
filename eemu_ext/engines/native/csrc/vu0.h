/* VU0 macro-mode lane helpers in C: the compiled forms of the vu_* helpers of eemu_ext/isa/vu0.py.
 *
 * The VU0 rows' ``c`` templates (eemu_ext/isa/vu0.py) call these exactly as their ``sem`` calls
 * the Python helpers: ``vu_op(&S, f_add, dst, VF[fs], b, dest)`` for ``vu_op(S, f_add, dst,
 * VF[fs], b, dest)``. Lanes are uint32_t[4] (x = 0 ... w = 3, dest bit 8 >> lane); a Python tuple
 * of lanes is a local array in the row's C. Every helper computes lane c from lane c of its
 * operands only, in lane order, so dst may alias an operand (VF[fd] == VF[fs], dst == S.vacc) as
 * in Python.
 *
 * Float operations come from model.h (f_add ... f_vrsqrt, EE_FLAGS), so the including unit must be
 * compiled with -DEE_MODEL_HW=1 or -DEE_MODEL_TRUNC=1 (or define one before including). Under hw
 * the FMAC helpers keep the MAC and status flags of ee-float.md §3.10; under trunc they keep none
 * (the Python's DECISION: "VU0 flags are not kept"); CLIP is kept under both models.
 *
 * VU0_FN is ``static inline`` unless the includer defines it (as eefloat.h's EEF_FN).
 * Include it before block code's ``#define R (st->R)`` ... ``#define S (*st)`` (ee.h's struct
 * needs that order too: the helpers spell the state fields, and mmi.h's parameters R, RH, HI, LO).
 */
#ifndef EE_VU0_H
#define EE_VU0_H
#include "ee.h"
#include "model.h"

#ifndef VU0_FN
#define VU0_FN static inline
#endif

/* DECISION: the FMAC lane loops are unrolled: each lane gets its own copy of the float operation
 * (flatten inlines it), so the branches of the add and multiply are predicted per lane. On the
 * hw model this takes vu_madd and vu_op(f_mul) together to about 0.55x the time of the looped,
 * pointer-calling helpers (same results: the same code per lane, in lane order). */
#define EE_LANES_UNROLLED _Pragma("GCC unroll 4")

#define VU0_MEM 0x11004000U             /* VU0 data memory (vu0.py VU0_MEM) */

typedef uint64_t (*vu_arith_fn)(uint32_t, uint32_t);  /* f_add, f_sub, f_mul: bits | flags */
typedef uint32_t (*vu_sel_fn)(uint32_t, uint32_t);    /* f_max, f_min */
typedef uint32_t (*vu_map_fn)(uint32_t, int);         /* f_itof, f_ftoi */

#if EE_FLAGS
/* One lane's result r (bits | flags) into its MAC bits: Z at 3 - c, S at 7 - c, U at 11 - c,
 * O at 15 - c; underflow gives U and Z, else a zero exponent Z, else overflow O; S is the stored
 * sign (vu0.py _LANE_FLAGS). Returns the stored pattern. */
static inline uint32_t vu_lane_flags(uint64_t r, int c, uint32_t *mac)
{
    uint32_t v = (uint32_t)r;
    if (r > 0xFFFFFFFFULL) {
        if (r & EE_UNF)
            *mac |= (1U << (3 - c)) | (1U << (11 - c));
        else if (!(v & 0x7F800000U))
            *mac |= 1U << (3 - c);
        else if (r & EE_OVF)
            *mac |= 1U << (15 - c);
    } else if (!(v & 0x7F800000U)) {
        *mac |= 1U << (3 - c);
    }
    *mac |= (v >> 31) << (7 - c);           /* S, without a branch on the sign */
    return v;
}

/* MAC := mac; status Z S U O := the OR over lanes, ORed into the sticky bits 6-9 (vu0.py _STATUS). */
static inline void vu_status_of(ee_state *st, uint32_t mac)
{
    st->mac = mac;
    if (mac) {
        uint32_t low = ((mac & 0xFU) ? 1U : 0U) | ((mac & 0xF0U) ? 2U : 0U)
                     | ((mac & 0xF00U) ? 4U : 0U) | ((mac & 0xF000U) ? 8U : 0U);
        st->status = (st->status & 0xFF0U) | low | (low << 6);
    } else {
        st->status &= 0xFF0U;
    }
}
#endif

/* dst.c := f(a.c, b.c) for the lanes in dest (VADD, VSUB, VMUL and their ACC, bc, i, q forms).
 * The body of vu_op, inlined into one copy per f (below), where f is a constant. */
static inline __attribute__((always_inline)) void vu_op_lanes(ee_state *st, vu_arith_fn f, uint32_t *dst,
                                                              const uint32_t *a, const uint32_t *b, int dest)
{
    int c;
#if EE_FLAGS
    uint32_t mac = 0;
    EE_LANES_UNROLLED
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = vu_lane_flags(f(a[c], b[c]), c, &mac);
    vu_status_of(st, mac);
#else
    (void)st;
    EE_LANES_UNROLLED
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = (uint32_t)f(a[c], b[c]);
#endif
}

/* DECISION: vu_op, vu_sel and vu_map are macros that name one function per float operation
 * (vu_op(&S, f_add, ...) calls vu_op_f_add), so the lane loop calls the operation directly, with
 * the operation inlined (flatten), rather than through a function pointer per lane. The rows'
 * C is unchanged; an operation without its copy here is a compile error, never another op. */
#define VU0_LANES_FN static __attribute__((noinline, flatten, unused))
#define VU0_OP(f) VU0_LANES_FN void vu_op_##f(ee_state *st, uint32_t *dst, const uint32_t *a, \
                                               const uint32_t *b, int dest) { vu_op_lanes(st, f, dst, a, b, dest); }
VU0_OP(f_add)
VU0_OP(f_sub)
VU0_OP(f_mul)
#define vu_op(st, f, dst, a, b, dest) vu_op_##f(st, dst, a, b, dest)

/* dst.c := ACC.c + (a.c * b.c XOR neg) (VMADD/VMSUB: neg 0 / 0x80000000). Under hw a lane whose
 * product overflowed, or whose ACC lane is latched overflowed (latch: the old MAC's O bit, for the
 * ACC-writing forms), follows macc's rules (ee-float.md §3.10). */
VU0_FN __attribute__((flatten)) void vu_madd(ee_state *st, uint32_t neg, uint32_t *dst, const uint32_t *a, const uint32_t *b,
                    int dest, int latch)
{
    const uint32_t *acc = st->vacc;
    int c;
#if EE_FLAGS
    uint32_t old = latch ? st->mac : 0, mac = 0;
    EE_LANES_UNROLLED
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c)) {
            uint32_t o = old & (1U << (15 - c));
            uint64_t p = f_mul(a[c], b[c]), r;
            if (p > 0xFFFFFFFFULL || o)
                r = macc(acc[c], p, o, neg);
            else
                r = f_add(acc[c], (uint32_t)p ^ neg);
            dst[c] = vu_lane_flags(r, c, &mac);
        }
    vu_status_of(st, mac);
#else
    (void)latch;
    EE_LANES_UNROLLED
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = (uint32_t)f_add(acc[c], (uint32_t)f_mul(a[c], b[c]) ^ neg);
#endif
}

/* Q := r; under hw status I and D are replaced by the FDIV flags and ORed into IS and DS. */
VU0_FN void vu_fdiv(ee_state *st, uint64_t r)
{
    st->q = (uint32_t)r;
#if EE_FLAGS
    {
        uint32_t s = st->status & ~0x30U;
        if (r & EE_INV)
            s |= 0x410U;
        if (r & EE_DIVZ)
            s |= 0x820U;
        st->status = s;
    }
#endif
}

/* dst.c := f(a.c, b.c) with no flags (VMAX, VMINI); one copy per f, as vu_op. */
static inline __attribute__((always_inline)) void vu_sel_lanes(vu_sel_fn f, uint32_t *dst, const uint32_t *a,
                                                               const uint32_t *b, int dest)
{
    int c;
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = f(a[c], b[c]);
}
#define VU0_SEL(f) VU0_LANES_FN void vu_sel_##f(uint32_t *dst, const uint32_t *a, const uint32_t *b, int dest) \
                   { vu_sel_lanes(f, dst, a, b, dest); }
VU0_SEL(f_max)
VU0_SEL(f_min)
#define vu_sel(f, dst, a, b, dest) vu_sel_##f(dst, a, b, dest)

/* dst.c := f(a.c, n) with no flags (VITOFn, VFTOIn); one copy per f, as vu_op. */
static inline __attribute__((always_inline)) void vu_map_lanes(vu_map_fn f, uint32_t *dst, const uint32_t *a,
                                                               int dest, int n)
{
    int c;
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = f(a[c], n);
}
#define VU0_MAP(f) VU0_LANES_FN void vu_map_##f(uint32_t *dst, const uint32_t *a, int dest, int n) \
                   { vu_map_lanes(f, dst, a, dest, n); }
VU0_MAP(f_itof)
VU0_MAP(f_ftoi)
#define vu_map(f, dst, a, dest, n) vu_map_##f(dst, a, dest, n)

/* dst.c := vals.c for the lanes in dest. */
VU0_FN void vu_set(uint32_t *dst, const uint32_t *vals, int dest)
{
    int c;
    for (c = 0; c < 4; c++)
        if (dest & (8 >> c))
            dst[c] = vals[c];
}

/* VCLIPw.xyz (§3.10): six judgement bits against |w| (0x007FFFFF when E(w) = 0), shifted into
 * CLIP's 24 bits. */
VU0_FN void vu_clip(ee_state *st, const uint32_t *a, uint32_t w)
{
    uint32_t W = (w & 0x7F800000U) ? (w & 0x7FFFFFFFU) : 0x007FFFFFU, bits = 0;
    int c;
    for (c = 0; c < 3; c++) {
        uint32_t v = a[c];
        if (v < 0x80000000U) {
            if (v > W)
                bits |= 1U << (2 * c);
        } else if ((v ^ 0x80000000U) > W) {
            bits |= 2U << (2 * c);
        }
    }
    st->clip = ((st->clip << 6) | bits) & 0xFFFFFFU;
}

/* CFC2's value of VI register / control register n (r5900.md §8.4; vu0.py vu_cfc2). */
VU0_FN uint32_t vu_cfc2(ee_state *st, int n)
{
    if (n < 16)
        return n ? st->VI[n] : 0;
    switch (n) {
    case 16: return st->status;
    case 17: return st->mac;
    case 18: return st->clip;
    case 19: return 0x2E30U;                /* reserved: reads a constant [HW] */
    case 20: return st->r & 0x7FFFFFU;
    case 21: return st->i;
    case 22: return st->q;
    case 24: return st->vi24;
    case 27: return st->cmsar0;
    default: return 0;                      /* 23, 25, 26, 28-31: as vu0.py (DECISION there) */
    }
}

/* CTC2's write of v to n (vu0.py vu_ctc2), for n != 31: a write to vi31 (CMSAR1) starts a VU1
 * micro program, which only the Python engine reports (CTC2 is a Python-only row). */
VU0_FN void vu_ctc2(ee_state *st, int n, uint32_t v)
{
    if (n < 16) {
        if (n)
            st->VI[n] = v & 0xFFFFU;
        return;
    }
    switch (n) {
    case 16: st->status = (st->status & 0x3FU) | (v & 0xFC0U); break;
    case 18: st->clip = v & 0xFFFFFFU; break;
    case 20: st->r = 0x3F800000U | (v & 0x7FFFFFU); break;
    case 21: st->i = v; break;
    case 22: st->q = v; break;
    case 24: st->vi24 = v & 0x0C0CU; break;
    case 27: st->cmsar0 = v & 0xFFFFU; break;
    default: break;                         /* read-only or ignored (vu0.py) */
    }
}

#endif
