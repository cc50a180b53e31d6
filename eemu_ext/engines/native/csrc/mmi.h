/* R5900 multimedia helpers in C: the compiled forms of the mmi_* helpers of eemu_ext/isa/mmi.py.
 *
 * The MMI rows' ``c`` templates call these under the Python names. 128-bit values are u128 (GPR n
 * is ``(u128)RH[n] << 64 | R[n]``); the Python's SWAR tricks become plain per-lane loops here
 * (r5900.md §6 read lane by lane), which gcc vectorises as it can. Helpers that the Python calls
 * with the state lists (``mmi_pmulth(R, RH, HI, LO, d, s, t)``) take the same names as pointers,
 * since block code spells R, RH, HI and LO as the ee_state arrays. Helpers returning a Python pair
 * (lo64, hi64) return u128 here (lo | hi << 64).
 *
 * MMI_FN is ``static inline`` unless the includer defines it.
 * Include it before block code's ``#define R (st->R)`` ... ``#define S (*st)`` (ee.h's struct
 * needs that order too: the helpers spell the state fields, and mmi.h's parameters R, RH, HI, LO).
 */
#ifndef EE_MMI_H
#define EE_MMI_H
#include "ee.h"

#ifndef MMI_FN
#define MMI_FN static inline
#endif

#define MMI_REP64(x) (((u128)(uint64_t)(x) << 64) | (uint64_t)(x))
#define MMI_LO16_OF_W MMI_REP64(0x0000FFFF0000FFFFULL)   /* low halfword of every word */

static inline uint64_t mmi_mask_(int n) { return n >= 64 ? ~0ULL : (1ULL << n) - 1; }
static inline uint64_t mmi_get_(u128 v, int i, int n) { return (uint64_t)(v >> i) & mmi_mask_(n); }
/* An n-bit lane pattern read as a signed value. */
static inline int64_t mmi_sgn_(uint64_t x, int n) { return (int64_t)(x << (64 - n)) >> (64 - n); }

/* One lane-wise binary operation: out lane := EXPR over x, y (unsigned lanes) and sx, sy (signed),
 * m the lane mask, lo / hi the signed range; the result is masked to the lane. */
#define MMI_LANEWISE(name, EXPR)                                                                \
    MMI_FN u128 name(u128 a, u128 b, int n)                                                     \
    {                                                                                           \
        u128 out = 0;                                                                           \
        uint64_t m = mmi_mask_(n);                                                              \
        int64_t hi = (int64_t)(m >> 1), lo = -hi - 1;                                           \
        int i;                                                                                  \
        for (i = 0; i < 128; i += n) {                                                          \
            uint64_t x = mmi_get_(a, i, n), y = mmi_get_(b, i, n);                              \
            int64_t sx = mmi_sgn_(x, n), sy = mmi_sgn_(y, n);                                   \
            (void)sx; (void)sy; (void)lo; (void)hi;                                             \
            out |= (u128)((uint64_t)(EXPR) & m) << i;                                           \
        }                                                                                       \
        return out;                                                                             \
    }

static inline int64_t mmi_clamp_(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* lane-wise arithmetic (r5900.md §6.1); n = 8, 16 or 32 */
MMI_LANEWISE(mmi_add, x + y)                                   /* wrapping */
MMI_LANEWISE(mmi_sub, x - y)
MMI_LANEWISE(mmi_adds, mmi_clamp_(sx + sy, lo, hi))            /* signed saturating */
MMI_LANEWISE(mmi_subs, mmi_clamp_(sx - sy, lo, hi))
MMI_LANEWISE(mmi_addu, x + y > m ? m : x + y)                  /* unsigned saturating */
MMI_LANEWISE(mmi_subu, x > y ? x - y : 0)
MMI_LANEWISE(mmi_cgt, sx > sy ? m : 0)                         /* all ones where signed a > b */
MMI_LANEWISE(mmi_ceq, x == y ? m : 0)
MMI_LANEWISE(mmi_max, sx > sy ? x : y)
MMI_LANEWISE(mmi_min, sx > sy ? y : x)

/* |b| per signed lane; the most negative value saturates to 0x7F..F (PABSH, PABSW). */
MMI_FN u128 mmi_abs(u128 b, int n)
{
    u128 out = 0;
    uint64_t m = mmi_mask_(n);
    int i;
    for (i = 0; i < 128; i += n) {
        int64_t s = mmi_sgn_(mmi_get_(b, i, n), n);
        int64_t v = s >= 0 ? s : (s == -(int64_t)(m >> 1) - 1 ? (int64_t)(m >> 1) : -s);
        out |= (u128)((uint64_t)v & m) << i;
    }
    return out;
}

/* PADSBH: halfword lanes 0-3 a - b, lanes 4-7 a + b (wrapping). */
MMI_FN u128 mmi_padsbh(u128 a, u128 b)
{
    return (mmi_sub(a, b, 16) & (u128)~0ULL) | (mmi_add(a, b, 16) & ((u128)~0ULL << 64));
}

/* shifts (§6.2): every n-bit lane by s (0 <= s < n) */
MMI_FN u128 mmi_sll(u128 a, int s, int n)
{
    u128 out = 0;
    uint64_t m = mmi_mask_(n);
    int i;
    for (i = 0; i < 128; i += n)
        out |= (u128)((mmi_get_(a, i, n) << s) & m) << i;
    return out;
}

MMI_FN u128 mmi_srl(u128 a, int s, int n)
{
    u128 out = 0;
    int i;
    for (i = 0; i < 128; i += n)
        out |= (u128)(mmi_get_(a, i, n) >> s) << i;
    return out;
}

MMI_FN u128 mmi_sra(u128 a, int s, int n)
{
    u128 out = 0;
    uint64_t m = mmi_mask_(n);
    int i;
    for (i = 0; i < 128; i += n)
        out |= (u128)((uint64_t)(mmi_sgn_(mmi_get_(a, i, n), n) >> s) & m) << i;
    return out;
}

/* The low 32 bits of x sign-extended to 64 bits. */
MMI_FN uint64_t mmi_sx32(uint64_t x) { return (uint64_t)(int64_t)(int32_t)(uint32_t)x; }

/* PSLLVW, PSRLVW, PSRAVW: words 0 and 2 of rt shifted by words 0 and 2 of rs, each result
 * sign-extended to 64 bits; returns (low 64) | (high 64) << 64. */
MMI_FN u128 mmi_psllvw(uint64_t t_lo, uint64_t t_hi, uint64_t s_lo, uint64_t s_hi)
{
    return (u128)mmi_sx32((uint32_t)t_lo << (s_lo & 31))
         | (u128)mmi_sx32((uint32_t)t_hi << (s_hi & 31)) << 64;
}

MMI_FN u128 mmi_psrlvw(uint64_t t_lo, uint64_t t_hi, uint64_t s_lo, uint64_t s_hi)
{
    return (u128)mmi_sx32((uint32_t)t_lo >> (s_lo & 31))
         | (u128)mmi_sx32((uint32_t)t_hi >> (s_hi & 31)) << 64;
}

MMI_FN u128 mmi_psravw(uint64_t t_lo, uint64_t t_hi, uint64_t s_lo, uint64_t s_hi)
{
    return (u128)mmi_sx32((uint64_t)((int64_t)(int32_t)(uint32_t)t_lo >> (s_lo & 31)))
         | (u128)mmi_sx32((uint64_t)((int64_t)(int32_t)(uint32_t)t_hi >> (s_hi & 31))) << 64;
}

/* PLZCW on the low 64 bits: per word, the count of leading sign copies minus one. */
static inline uint64_t mmi_rsb_(uint32_t w)
{
    if (w & 0x80000000U)
        w = ~w;
    return w ? (uint64_t)(__builtin_clz(w) - 1) : 31;
}

MMI_FN uint64_t mmi_plzcw(uint64_t v) { return mmi_rsb_((uint32_t)v) | mmi_rsb_((uint32_t)(v >> 32)) << 32; }

/* pack, extend and shuffle (§6.3) */
/* The w-bit lanes 0 to 64/w - 1 of a 64-bit x, each moved to the low bits of a 2w-bit lane. */
static inline u128 mmi_spread_(uint64_t x, int w)
{
    u128 out = 0;
    int i;
    for (i = 0; i < 64 / w; i++)
        out |= (u128)mmi_get_(x, w * i, w) << (2 * w * i);
    return out;
}

/* The low w bits of each 2w-bit lane of x, packed into 64 bits. */
static inline uint64_t mmi_compact_(u128 x, int w)
{
    uint64_t out = 0;
    int i;
    for (i = 0; i < 64 / w; i++)
        out |= (mmi_get_(x, 2 * w * i, w)) << (w * i);
    return out;
}

/* Halfwords 0-3 of a 64-bit x moved to the low halfword of words 0-3. */
MMI_FN u128 mmi_spread16(uint64_t x) { return mmi_spread_(x, 16); }
/* Bytes 0-7 of a 64-bit x moved to the low byte of halfwords 0-7. */
MMI_FN u128 mmi_spread8(uint64_t x) { return mmi_spread_(x, 8); }
/* The low halfword of each word of x, packed into 64 bits (PPACH's half). */
MMI_FN uint64_t mmi_compact16(u128 x) { return mmi_compact_(x, 16); }
/* The low byte of each halfword of x, packed into 64 bits (PPACB's half). */
MMI_FN uint64_t mmi_compact8(u128 x) { return mmi_compact_(x, 8); }

/* Halfwords of each doubleword in a new order: out halfword k := in halfword sel[k]. */
static inline u128 mmi_halves_(u128 v, int h0, int h1, int h2, int h3)
{
    u128 out = 0;
    int d;
    for (d = 0; d < 128; d += 64)
        out |= (u128)(mmi_get_(v, d + 16 * h0, 16) | mmi_get_(v, d + 16 * h1, 16) << 16
                      | mmi_get_(v, d + 16 * h2, 16) << 32 | mmi_get_(v, d + 16 * h3, 16) << 48) << d;
    return out;
}

MMI_FN u128 mmi_pexeh(u128 v) { return mmi_halves_(v, 2, 1, 0, 3); }   /* halfwords 2,1,0,3 */
MMI_FN u128 mmi_prevh(u128 v) { return mmi_halves_(v, 3, 2, 1, 0); }   /* halfwords 3,2,1,0 */
MMI_FN u128 mmi_pexch(u128 v) { return mmi_halves_(v, 0, 2, 1, 3); }   /* halfwords 0,2,1,3 */

/* PEXT5: each word's 1-5-5-5 colour widened to 8-8-8-8. */
MMI_FN u128 mmi_pext5(u128 v)
{
    u128 out = 0;
    int i;
    for (i = 0; i < 128; i += 32) {
        uint64_t w = mmi_get_(v, i, 32);
        out |= (u128)(((w & 0x1F) << 3) | ((w & 0x3E0) << 6) | ((w & 0x7C00) << 9)
                      | ((w & 0x8000) << 16)) << i;
    }
    return out;
}

/* PPAC5: each word's 8-8-8-8 colour packed to 1-5-5-5. */
MMI_FN u128 mmi_ppac5(u128 v)
{
    u128 out = 0;
    int i;
    for (i = 0; i < 128; i += 32) {
        uint64_t w = mmi_get_(v, i, 32);
        out |= (u128)(((w >> 3) & 0x1F) | ((w >> 6) & 0x3E0) | ((w >> 9) & 0x7C00)
                      | ((w >> 16) & 0x8000)) << i;
    }
    return out;
}

/* QFSRV: the low 128 bits of (hi:lo) >> shift (0 <= shift; 256 or more gives 0). */
MMI_FN u128 mmi_qfsrv(u128 hi, u128 lo, uint64_t shift)
{
    if (shift >= 256)
        return 0;
    if (shift >= 128)
        return hi >> (shift - 128);
    if (shift == 0)
        return lo;
    return (lo >> shift) | (hi << (128 - shift));
}

/* HI/LO based multiply and divide (§6.4) */
/* The eight signed products s16(h(rs, i)) * s16(h(rt, i)). */
static inline void mmi_products_(int32_t p[8], uint64_t a, uint64_t c, uint64_t b, uint64_t e)
{
    int i;
    for (i = 0; i < 4; i++) {
        p[i] = (int32_t)(int16_t)(a >> (16 * i)) * (int32_t)(int16_t)(b >> (16 * i));
        p[4 + i] = (int32_t)(int16_t)(c >> (16 * i)) * (int32_t)(int16_t)(e >> (16 * i));
    }
}

/* Words w0..w7 in PMULTH's destination order: LO0 = w0 w1, HI0 = w2 w3, LO1 = w4 w5, HI1 = w6 w7;
 * rd := (w0, w2, w4, w6). */
static inline void mmi_set_hilo_words_(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d,
                                       const uint32_t w[8])
{
    LO[0] = w[0] | (uint64_t)w[1] << 32;
    HI[0] = w[2] | (uint64_t)w[3] << 32;
    LO[1] = w[4] | (uint64_t)w[5] << 32;
    HI[1] = w[6] | (uint64_t)w[7] << 32;
    R[d] = w[0] | (uint64_t)w[2] << 32;
    RH[d] = w[4] | (uint64_t)w[6] << 32;
}

/* The current HI/LO words in the same order (w0 = LOw0, w1 = LOw1, w2 = HIw0 ...). */
static inline void mmi_hilo_words_(const uint64_t *HI, const uint64_t *LO, uint32_t w[8])
{
    w[0] = (uint32_t)LO[0]; w[1] = (uint32_t)(LO[0] >> 32);
    w[2] = (uint32_t)HI[0]; w[3] = (uint32_t)(HI[0] >> 32);
    w[4] = (uint32_t)LO[1]; w[5] = (uint32_t)(LO[1] >> 32);
    w[6] = (uint32_t)HI[1]; w[7] = (uint32_t)(HI[1] >> 32);
}

MMI_FN void mmi_pmulth(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    int32_t p[8];
    uint32_t w[8];
    int i;
    mmi_products_(p, R[s], RH[s], R[t], RH[t]);
    for (i = 0; i < 8; i++)
        w[i] = (uint32_t)p[i];
    mmi_set_hilo_words_(R, RH, HI, LO, d, w);
}

/* PMADDH / PMSUBH: each HI/LO word +/- p_i, wrapping at 32 bits. */
MMI_FN void mmi_pmaddh(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    int32_t p[8];
    uint32_t w[8];
    int i;
    mmi_products_(p, R[s], RH[s], R[t], RH[t]);
    mmi_hilo_words_(HI, LO, w);
    for (i = 0; i < 8; i++)
        w[i] += (uint32_t)p[i];
    mmi_set_hilo_words_(R, RH, HI, LO, d, w);
}

MMI_FN void mmi_pmsubh(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    int32_t p[8];
    uint32_t w[8];
    int i;
    mmi_products_(p, R[s], RH[s], R[t], RH[t]);
    mmi_hilo_words_(HI, LO, w);
    for (i = 0; i < 8; i++)
        w[i] -= (uint32_t)p[i];
    mmi_set_hilo_words_(R, RH, HI, LO, d, w);
}

/* PHMADH: pair j: first word p(2j+1) + p(2j), second word p(2j+1) [HW]. */
MMI_FN void mmi_phmadh(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    int32_t p[8];
    uint32_t w[8];
    int j;
    mmi_products_(p, R[s], RH[s], R[t], RH[t]);
    for (j = 0; j < 4; j++) {
        w[2 * j] = (uint32_t)p[2 * j + 1] + (uint32_t)p[2 * j];
        w[2 * j + 1] = (uint32_t)p[2 * j + 1];
    }
    mmi_set_hilo_words_(R, RH, HI, LO, d, w);
}

/* PHMSBH: pair j: first word p(2j+1) - p(2j), second word NOT p(2j+1) [HW]. */
MMI_FN void mmi_phmsbh(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    int32_t p[8];
    uint32_t w[8];
    int j;
    mmi_products_(p, R[s], RH[s], R[t], RH[t]);
    for (j = 0; j < 4; j++) {
        w[2 * j] = (uint32_t)p[2 * j + 1] - (uint32_t)p[2 * j];
        w[2 * j + 1] = ~(uint32_t)p[2 * j + 1];
    }
    mmi_set_hilo_words_(R, RH, HI, LO, d, w);
}

/* PMULTW's writes for the 64-bit results p0 (lane 0) and p1 (lane 1). */
static inline void mmi_word_pairs_(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d,
                                   uint64_t p0, uint64_t p1)
{
    LO[0] = mmi_sx32(p0);
    HI[0] = mmi_sx32(p0 >> 32);
    LO[1] = mmi_sx32(p1);
    HI[1] = mmi_sx32(p1 >> 32);
    R[d] = p0;
    RH[d] = p1;
}

#define MMI_S32_(x) ((int64_t)(int32_t)(uint32_t)(x))
#define MMI_U32_(x) ((uint64_t)(uint32_t)(x))
#define MMI_ACC_(k) (((HI[k] & 0xFFFFFFFFULL) << 32) | (LO[k] & 0xFFFFFFFFULL))

MMI_FN void mmi_pmultw(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    uint64_t p0 = (uint64_t)(MMI_S32_(R[s]) * MMI_S32_(R[t]));
    uint64_t p1 = (uint64_t)(MMI_S32_(RH[s]) * MMI_S32_(RH[t]));
    mmi_word_pairs_(R, RH, HI, LO, d, p0, p1);
}

MMI_FN void mmi_pmultuw(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    uint64_t p0 = MMI_U32_(R[s]) * MMI_U32_(R[t]), p1 = MMI_U32_(RH[s]) * MMI_U32_(RH[t]);
    mmi_word_pairs_(R, RH, HI, LO, d, p0, p1);
}

MMI_FN void mmi_pmaddw(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    uint64_t p0 = MMI_ACC_(0) + (uint64_t)(MMI_S32_(R[s]) * MMI_S32_(R[t]));
    uint64_t p1 = MMI_ACC_(1) + (uint64_t)(MMI_S32_(RH[s]) * MMI_S32_(RH[t]));
    mmi_word_pairs_(R, RH, HI, LO, d, p0, p1);
}

MMI_FN void mmi_pmsubw(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    uint64_t p0 = MMI_ACC_(0) - (uint64_t)(MMI_S32_(R[s]) * MMI_S32_(R[t]));
    uint64_t p1 = MMI_ACC_(1) - (uint64_t)(MMI_S32_(RH[s]) * MMI_S32_(RH[t]));
    mmi_word_pairs_(R, RH, HI, LO, d, p0, p1);
}

MMI_FN void mmi_pmadduw(uint64_t *R, uint64_t *RH, uint64_t *HI, uint64_t *LO, int d, int s, int t)
{
    uint64_t p0 = MMI_ACC_(0) + MMI_U32_(R[s]) * MMI_U32_(R[t]);
    uint64_t p1 = MMI_ACC_(1) + MMI_U32_(RH[s]) * MMI_U32_(RH[t]);
    mmi_word_pairs_(R, RH, HI, LO, d, p0, p1);
}

/* DIV's rule (r5900.md §5.1) on signed 32-bit a, b: quotient toward zero, remainder with the
 * dividend's sign; by zero the quotient is 1 (a < 0) or -1 and the remainder a. Computed in 64
 * bits, so 0x80000000 / -1 gives 0x80000000 and 0 as 32-bit patterns. */
static inline void mmi_div_signed_(int64_t a, int64_t b, int64_t *q, int64_t *r)
{
    if (b == 0) {
        *q = a < 0 ? 1 : -1;
        *r = a;
    } else {
        *q = a / b;
        *r = a % b;
    }
}

MMI_FN void mmi_pdivw(uint64_t *HI, uint64_t *LO, uint64_t s_lo, uint64_t s_hi, uint64_t t_lo,
                      uint64_t t_hi)
{
    int64_t q0, r0, q1, r1;
    mmi_div_signed_(MMI_S32_(s_lo), MMI_S32_(t_lo), &q0, &r0);
    mmi_div_signed_(MMI_S32_(s_hi), MMI_S32_(t_hi), &q1, &r1);
    LO[0] = mmi_sx32((uint64_t)q0);
    HI[0] = mmi_sx32((uint64_t)r0);
    LO[1] = mmi_sx32((uint64_t)q1);
    HI[1] = mmi_sx32((uint64_t)r1);
}

MMI_FN void mmi_pdivuw(uint64_t *HI, uint64_t *LO, uint64_t s_lo, uint64_t s_hi, uint64_t t_lo,
                       uint64_t t_hi)
{
    uint32_t a0 = (uint32_t)s_lo, b0 = (uint32_t)t_lo, a1 = (uint32_t)s_hi, b1 = (uint32_t)t_hi;
    LO[0] = mmi_sx32(b0 ? a0 / b0 : 0xFFFFFFFFU);
    HI[0] = mmi_sx32(b0 ? a0 % b0 : a0);
    LO[1] = mmi_sx32(b1 ? a1 / b1 : 0xFFFFFFFFU);
    HI[1] = mmi_sx32(b1 ? a1 % b1 : a1);
}

/* PDIVBW: each word of rs by s16(halfword 0 of rt); quotients to LOw i, remainders to HIw i
 * (mmi.py's DECISION: DIV's rule, remainder with the dividend's sign). */
MMI_FN void mmi_pdivbw(uint64_t *HI, uint64_t *LO, uint64_t s_lo, uint64_t s_hi, uint64_t t_lo)
{
    int64_t d = (int16_t)(uint16_t)t_lo, q, r;
    uint64_t w[4] = {s_lo, s_lo >> 32, s_hi, s_hi >> 32}, qs[4], rs_[4];
    int i;
    for (i = 0; i < 4; i++) {
        mmi_div_signed_(MMI_S32_(w[i]), d, &q, &r);
        qs[i] = (uint32_t)q;
        rs_[i] = (uint32_t)r;
    }
    LO[0] = qs[0] | qs[1] << 32;
    LO[1] = qs[2] | qs[3] << 32;
    HI[0] = rs_[0] | rs_[1] << 32;
    HI[1] = rs_[2] | rs_[3] << 32;
}

/* PMTHL.LW: LOw0, HIw0, LOw2, HIw2 from rs words 0-3; the odd words are kept [HW]. */
MMI_FN void mmi_pmthl_lw(uint64_t *HI, uint64_t *LO, uint64_t lo64, uint64_t hi64)
{
    LO[0] = (LO[0] & 0xFFFFFFFF00000000ULL) | (lo64 & 0xFFFFFFFFULL);
    HI[0] = (HI[0] & 0xFFFFFFFF00000000ULL) | (lo64 >> 32);
    LO[1] = (LO[1] & 0xFFFFFFFF00000000ULL) | (hi64 & 0xFFFFFFFFULL);
    HI[1] = (HI[1] & 0xFFFFFFFF00000000ULL) | (hi64 >> 32);
}

/* PMFHL.{LW, UW, SLW, LH, SH} (variant = sa = 0..4): the value for rd. */
MMI_FN u128 mmi_pmfhl(const uint64_t *HI, const uint64_t *LO, int variant)
{
    uint64_t lo0 = LO[0], lo1 = LO[1], hi0 = HI[0], hi1 = HI[1], out[2];
    uint32_t w[8];
    uint64_t h[8];
    int i;
    switch (variant) {
    case 0:                                                     /* .LW */
        out[0] = (lo0 & 0xFFFFFFFFULL) | (hi0 & 0xFFFFFFFFULL) << 32;
        out[1] = (lo1 & 0xFFFFFFFFULL) | (hi1 & 0xFFFFFFFFULL) << 32;
        break;
    case 1:                                                     /* .UW */
        out[0] = (lo0 >> 32) | (hi0 >> 32) << 32;
        out[1] = (lo1 >> 32) | (hi1 >> 32) << 32;
        break;
    case 2:                                                     /* .SLW */
        out[0] = (uint64_t)mmi_clamp_((int64_t)((hi0 & 0xFFFFFFFFULL) << 32 | (lo0 & 0xFFFFFFFFULL)),
                                      -0x80000000LL, 0x7FFFFFFFLL);
        out[1] = (uint64_t)mmi_clamp_((int64_t)((hi1 & 0xFFFFFFFFULL) << 32 | (lo1 & 0xFFFFFFFFULL)),
                                      -0x80000000LL, 0x7FFFFFFFLL);
        break;
    default:                                                    /* .LH, .SH */
        w[0] = (uint32_t)lo0; w[1] = (uint32_t)(lo0 >> 32);
        w[2] = (uint32_t)hi0; w[3] = (uint32_t)(hi0 >> 32);
        w[4] = (uint32_t)lo1; w[5] = (uint32_t)(lo1 >> 32);
        w[6] = (uint32_t)hi1; w[7] = (uint32_t)(hi1 >> 32);
        for (i = 0; i < 8; i++)
            h[i] = variant == 3 ? (w[i] & 0xFFFFU)
                                : ((uint64_t)mmi_clamp_(MMI_S32_(w[i]), -0x8000, 0x7FFF) & 0xFFFFU);
        out[0] = h[0] | h[1] << 16 | h[2] << 32 | h[3] << 48;
        out[1] = h[4] | h[5] << 16 | h[6] << 32 | h[7] << 48;
        break;
    }
    return (u128)out[0] | (u128)out[1] << 64;
}

/* SA as QFSRV reads it. */
MMI_FN uint32_t mmi_sa(const ee_state *st) { return st->sa; }

#endif
