/* double.c: the double-precision atan2 of the keyed-rotation path (animation-semantics.md §3.4:
 * "a double-precision atan2" [GAME]; executable-abi.md §7). The EE has no double-precision FPU,
 * so a double is software arithmetic on 64-bit integers, as in the game.
 * DECISION: the operations are written here (IEEE binary64 bit patterns in u64, round to nearest
 * even) instead of taken from libgcc: the cross compiler's libgcc.a is o32 MIPS32 code (hard-float
 * argument passing, MIPS32r2 instructions), neither callable under -mabi=eabi nor R5900-valid.
 * Only finite values occur: subnormal results flush to +-0 and infinities are not produced for the
 * arguments atan2 sees (floats converted to double). atan2 itself is fdlibm's s_atan.c/e_atan2.c
 * (the same coefficients and argument reduction), on |z| <= 1 after swapping the arguments. */
#include "ee.h"

typedef u64 f64;

#define F64_SIGN  0x8000000000000000ull
#define F64_FRAC  0x000FFFFFFFFFFFFFull
#define F64_IMPL  0x0010000000000000ull

static u32 f64_exp(f64 a) { return (u32)(a >> 52) & 0x7FF; }

/* sig has its leading 1 at bit 62 and 10 bits below the result's last place; exp is the
 * biased exponent minus one (SoftFloat's roundAndPackFloat64 convention). */
static f64 round_pack(u64 sign, s32 exp, u64 sig)
{
    u32 low = (u32)sig & 0x3FF;
    if (exp < 0) return sign;                  /* underflow: flush to zero */
    if (exp >= 0x7FE) return sign | 0x7FEFFFFFFFFFFFFFull;
    sig = (sig + 0x200) >> 10;
    if (low == 0x200) sig &= ~1ull;            /* a tie rounds to even */
    return sign + ((u64)exp << 52) + sig;
}

static u64 shift_right_jam(u64 a, u32 n)
{
    if (n == 0) return a;
    if (n >= 63) return a != 0;
    return (a >> n) | ((a << (64 - n)) != 0);
}

/* magnitude addition or subtraction of two finite doubles, a's sign kept for the larger */
f64 f64_add(f64 a, f64 b)
{
    u32 ea = f64_exp(a), eb = f64_exp(b);
    u64 ma, mb, m, sign;
    s32 e;
    if (ea == 0) return eb ? b : (a & b & F64_SIGN);    /* +-0 + x; -0 + -0 = -0 */
    if (eb == 0) return a;
    if (ea < eb || (ea == eb && (a & F64_FRAC) < (b & F64_FRAC))) {
        f64 t = a; a = b; b = t;
        ea = f64_exp(a); eb = f64_exp(b);
    }
    sign = a & F64_SIGN;
    ma = ((a & F64_FRAC) | F64_IMPL) << 9;     /* leading 1 at bit 61 */
    mb = shift_right_jam(((b & F64_FRAC) | F64_IMPL) << 9, ea - eb);
    if ((a ^ b) & F64_SIGN) {
        m = ma - mb;
        if (m == 0) return 0;                  /* x - x = +0 */
    } else {
        m = ma + mb;
    }
    e = (s32)ea;
    while (!(m & 0x4000000000000000ull)) { m <<= 1; e--; }
    return round_pack(sign, e, m);
}

f64 f64_sub(f64 a, f64 b) { return f64_add(a, b ^ F64_SIGN); }

/* 32 x 32 -> 64 bits with one MULTU (the compiler would call libgcc's __muldi3 otherwise) */
static u64 mul32(u32 a, u32 b)
{
    u32 lo, hi;
    __asm__ ("multu %2, %3\n\tmflo %0\n\tmfhi %1" : "=r"(lo), "=r"(hi) : "r"(a), "r"(b) : "hi", "lo");
    return ((u64)hi << 32) | lo;
}

/* the high 64 bits of a 128-bit product, with the low half jammed into bit 0 (32x32 MULTU) */
static u64 mul_hi_jam(u64 a, u64 b)
{
    u32 a0 = (u32)a, a1 = (u32)(a >> 32), b0 = (u32)b, b1 = (u32)(b >> 32);
    u64 p00 = mul32(a0, b0), p01 = mul32(a0, b1), p10 = mul32(a1, b0), p11 = mul32(a1, b1);
    u64 mid = (p00 >> 32) + (u32)p01 + (u32)p10;
    u64 lo = (mid << 32) | (u32)p00;
    u64 hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return hi | (lo != 0);
}

f64 f64_mul(f64 a, f64 b)
{
    u64 sign = (a ^ b) & F64_SIGN, m;
    u32 ea = f64_exp(a), eb = f64_exp(b);
    s32 e;
    if (ea == 0 || eb == 0) return sign;
    m = mul_hi_jam(((a & F64_FRAC) | F64_IMPL) << 10, ((b & F64_FRAC) | F64_IMPL) << 11);
    e = (s32)ea + (s32)eb - 0x3FF;
    if (!(m & 0x4000000000000000ull)) { m <<= 1; e--; }
    return round_pack(sign, e, m);
}

/* restoring division, one quotient bit per step: 63 bits, the remainder jammed into bit 0 */
f64 f64_div(f64 a, f64 b)
{
    u64 sign = (a ^ b) & F64_SIGN, ma, mb, q = 0;
    u32 ea = f64_exp(a), eb = f64_exp(b), i;
    s32 e;
    if (ea == 0) return sign;
    if (eb == 0) return sign | 0x7FEFFFFFFFFFFFFFull;   /* not reached by atan2 */
    ma = (a & F64_FRAC) | F64_IMPL;
    mb = (b & F64_FRAC) | F64_IMPL;
    e = (s32)ea - (s32)eb + 0x3FE;
    if (ma < mb) { ma <<= 1; e--; }
    for (i = 0; i < 63; i++) {
        q <<= 1;
        if (ma >= mb) { ma -= mb; q |= 1; }
        ma <<= 1;
    }
    return round_pack(sign, e, q | (ma != 0));
}

/* float (EE: a zero exponent is zero) to double, exactly */
f64 f64_from_f32(u32 f)
{
    u64 sign = (u64)(f >> 31) << 63;
    u32 e = (f >> 23) & 0xFF;
    if (e == 0) return sign;
    return sign | ((u64)(e - 127 + 1023) << 52) | ((u64)(f & 0x7FFFFF) << 29);
}

/* double to float, rounded to nearest even (the EE's largest float on overflow) */
u32 f64_to_f32(f64 a)
{
    u32 sign = (u32)(a >> 63) << 31, m, low;
    s32 e = (s32)f64_exp(a) - 1023 + 127;
    u64 frac = a & F64_FRAC;
    if (f64_exp(a) == 0 || e <= 0) return sign;
    m = (u32)(frac >> 29);
    low = (u32)frac & 0x1FFFFFFF;
    if (low > 0x10000000 || (low == 0x10000000 && (m & 1))) {
        if (++m == 0x800000) { m = 0; e++; }
    }
    if (e >= 255) return sign | 0x7FFFFFFF;
    return sign | ((u32)e << 23) | m;
}

/* fdlibm s_atan.c: atan(hi) + atan(lo) break points and the odd polynomial */
static const f64 ATAN_HI[2] = { 0x3FDDAC670561BB4Full, 0x3FE921FB54442D18ull };   /* atan(0.5), atan(1) */
static const f64 ATAN_LO[2] = { 0x3C7A2B7F222F65E2ull, 0x3C81A62633145C07ull };
static const f64 AT[11] = {
    0x3FD555555555550Dull, 0xBFC999999998EBC4ull, 0x3FC24924920083FFull, 0xBFBC71C6FE231671ull,
    0x3FB745CDC54C206Eull, 0xBFB3B0F2AF749A6Dull, 0x3FB10D66A0D03D51ull, 0xBFADDE2D52DEFD9Aull,
    0x3FA97B4B24760DEBull, 0xBFA2B4442C6A6C2Full, 0x3F90AD3AE322DA11ull };
#define D_ONE     0x3FF0000000000000ull
#define D_TWO     0x4000000000000000ull
#define D_7_16    0x3FDC000000000000ull
#define D_11_16   0x3FE6000000000000ull
#define D_2M27    0x3E40000000000000ull
#define D_PI      0x400921FB54442D18ull
#define D_PI_LO   0x3CA1A62633145C07ull
#define D_PIO2    0x3FF921FB54442D18ull
#define D_PIO2_LO 0x3C91A62633145C07ull

/* atan of 0 <= x <= 1 (a positive double compares as its bits) */
static f64 atan01(f64 x)
{
    int id;
    f64 z, w, s1, s2;
    if (x < D_2M27) return x;
    if (x < D_7_16) id = -1;
    else if (x < D_11_16) { id = 0; x = f64_div(f64_sub(f64_add(x, x), D_ONE), f64_add(D_TWO, x)); }
    else { id = 1; x = f64_div(f64_sub(x, D_ONE), f64_add(x, D_ONE)); }
    z = f64_mul(x, x);
    w = f64_mul(z, z);
    s1 = f64_mul(w, AT[10]);                   /* z (aT0 + w (aT2 + w (aT4 + w (aT6 + w (aT8 + w aT10))))) */
    s1 = f64_mul(w, f64_add(AT[8], s1));
    s1 = f64_mul(w, f64_add(AT[6], s1));
    s1 = f64_mul(w, f64_add(AT[4], s1));
    s1 = f64_mul(w, f64_add(AT[2], s1));
    s1 = f64_mul(z, f64_add(AT[0], s1));
    s2 = f64_mul(w, AT[9]);                    /* w (aT1 + w (aT3 + w (aT5 + w (aT7 + w aT9)))) */
    s2 = f64_mul(w, f64_add(AT[7], s2));
    s2 = f64_mul(w, f64_add(AT[5], s2));
    s2 = f64_mul(w, f64_add(AT[3], s2));
    s2 = f64_mul(w, f64_add(AT[1], s2));
    if (id < 0) return f64_sub(x, f64_mul(x, f64_add(s1, s2)));
    return f64_sub(ATAN_HI[id], f64_sub(f64_sub(f64_mul(x, f64_add(s1, s2)), ATAN_LO[id]), x));
}

/* atan2(y, x) in double: the angle of (x, y) in [-pi, pi] */
f64 atan2_f64(f64 y, f64 x) __asm__("atan2");
f64 atan2_f64(f64 y, f64 x)
{
    f64 ay = y & ~F64_SIGN, ax = x & ~F64_SIGN, a;
    if (f64_exp(ay) == 0) a = (x & F64_SIGN) && f64_exp(ax) ? D_PI : 0;
    else if (f64_exp(ax) == 0) a = D_PIO2;
    else {
        if (ay <= ax) a = atan01(f64_div(ay, ax));
        else a = f64_sub(D_PIO2, f64_sub(atan01(f64_div(ax, ay)), D_PIO2_LO));
        if (x & F64_SIGN) a = f64_sub(D_PI, f64_sub(a, D_PI_LO));
    }
    return a | (y & F64_SIGN);
}
