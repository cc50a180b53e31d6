/* mathf.c: float sinf, cosf and atan2f for the keyed-rotation code (animation-semantics.md §3.4,
 * §3.5). These are free internals, compared within a tolerance (checks.md §3); no double and no
 * libgcc. Cody-Waite reduction to [-pi/4, pi/4] and Cephes single-precision polynomials. */
#include "ee.h"

#define M(a, b) FMUL_FREE(a, b)

/* pi/2 split so that k * PIO2_1 is exact for small k (PIO2_1 has 12 significant bits). */
#define PIO2_1 1.5703125f
#define PIO2_2 4.83751296997e-4f
#define PIO2_3 7.54978995489e-8f

static float ksin(float r)
{
    float z = M(r, r);
    float p = f_add(M(z, -1.9515295891e-4f), 8.3321608736e-3f);
    p = f_add(M(p, z), -1.6666654611e-1f);
    return f_add(r, M(M(p, z), r));
}

static float kcos(float r)
{
    float z = M(r, r);
    float p = f_add(M(z, 2.443315711809948e-5f), -1.388731625493765e-3f);
    p = f_add(M(p, z), 4.166664568298827e-2f);
    return f_add(f_sub(1.0f, M(z, 0.5f)), M(M(p, z), z));
}

/* quadrant k = nearest integer of x * 2/pi, and the reduced argument */
static float reduce(float x, int *k)
{
    float t = M(x, 0.636619772f);
    int q = f_to_int(t);
    u32 tb = fb(t);
    float frac = f_sub(t, f_from_int(q));
    if (!(tb & 0x80000000u)) { if (fkey(fb(frac)) >= fkey(fb(0.5f))) q++; }
    else { if (fkey(fb(frac)) <= fkey(fb(-0.5f))) q--; }
    {
        float fq = f_from_int(q);
        float r = f_sub(x, M(fq, PIO2_1));
        r = f_sub(r, M(fq, PIO2_2));
        r = f_sub(r, M(fq, PIO2_3));
        *k = q;
        return r;
    }
}

float sinf(float x)
{
    int k;
    float r = reduce(x, &k);
    switch (k & 3) {
    case 0: return ksin(r);
    case 1: return kcos(r);
    case 2: return f_sub(0.0f, ksin(r));
    default: return f_sub(0.0f, kcos(r));
    }
}

/* sin and cos of one argument with a single reduction */
void sincosf(float x, float *sp, float *cp)
{
    int k;
    float r = reduce(x, &k), s = ksin(r), c = kcos(r);
    switch (k & 3) {
    case 0: *sp = s; *cp = c; break;
    case 1: *sp = c; *cp = f_sub(0.0f, s); break;
    case 2: *sp = f_sub(0.0f, s); *cp = f_sub(0.0f, c); break;
    default: *sp = f_sub(0.0f, c); *cp = s; break;
    }
}

float cosf(float x)
{
    int k;
    float r = reduce(x, &k);
    switch (k & 3) {
    case 0: return kcos(r);
    case 1: return f_sub(0.0f, ksin(r));
    case 2: return f_sub(0.0f, kcos(r));
    default: return ksin(r);
    }
}

/* atan of a non-negative value */
static float katan(float x)
{
    float y = 0.0f, z;
    int flip = 0;
    if (fkey(fb(x)) > fkey(fb(2.414213562373095f))) {   /* tan(3pi/8) */
        y = 1.570796326794896f;
        x = f_sub(0.0f, f_div(1.0f, x));
        flip = 1;
    } else if (fkey(fb(x)) > fkey(fb(0.4142135623730950f))) {   /* tan(pi/8) */
        y = 0.7853981633974483f;
        x = f_div(f_sub(x, 1.0f), f_add(x, 1.0f));
    }
    (void)flip;
    z = M(x, x);
    {
        float p = f_sub(M(z, 8.05374449538e-2f), 1.38776856032e-1f);
        p = f_add(M(p, z), 1.99777106478e-1f);
        p = f_sub(M(p, z), 3.33329491539e-1f);
        return f_add(y, f_add(M(M(p, z), x), x));
    }
}

float atan2f(float y, float x)
{
    u32 yb = fb(y), xb = fb(x);
    float ay = bf(yb & 0x7FFFFFFFu), ax = bf(xb & 0x7FFFFFFFu);
    float a;
    if ((xb & 0x7F800000u) == 0 && (yb & 0x7F800000u) == 0) return 0.0f;
    if ((xb & 0x7F800000u) == 0) a = 1.570796326794896f;
    else if (fkey(fb(ay)) <= fkey(fb(ax))) a = katan(f_div(ay, ax));
    else a = f_sub(1.570796326794896f, katan(f_div(ax, ay)));
    if (xb & 0x80000000u) a = f_sub(3.141592653589793f, a);
    if (yb & 0x80000000u) a = f_sub(0.0f, a);
    return a;
}
