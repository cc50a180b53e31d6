/* mathf.c: float sinf and cosf for the keyed-rotation code (animation-semantics.md §3.4, §3.5:
 * "float sinf/cosf"). These are free internals, compared within a tolerance (checks.md §3); the
 * double-precision atan2 is in double.c. Cody-Waite reduction to [-pi/4, pi/4] and Cephes single-precision polynomials. */
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
