/* rot.c: keyed-rotation internals: a step's axis and angle (m2a, EigenVector, EigenVec2Mat) and
 * axis-angle to matrix (a2m), animation-semantics.md §3.4-3.5. Free code (executable-abi.md §8.2),
 * compared within a tolerance; written in float with MADD.S dot products, and the angle from the
 * double-precision atan2 of double.c, as the game's m2a. */
#include "ee.h"

#define M(a, b) FMUL_FREE(a, b)

static void normalize3(float *v)
{
    float l2 = FDOT3(v[0], v[0], v[1], v[1], v[2], v[2]);
    if ((fb(l2) & 0x7F800000u) == 0) { v[0] = v[1] = v[2] = 0.0f; return; }
    {
        float inv = f_div(1.0f, f_sqrt(l2));
        v[0] = M(v[0], inv); v[1] = M(v[1], inv); v[2] = M(v[2], inv);
    }
}

static void cross3(float *o, const float *a, const float *b)
{
    o[0] = f_sub(M(a[1], b[2]), M(a[2], b[1]));
    o[1] = f_sub(M(a[2], b[0]), M(a[0], b[2]));
    o[2] = f_sub(M(a[0], b[1]), M(a[1], b[0]));
}

/* The axis search (§3.4 steps 2-3) on col[c][r] = (m - I)[r][c]. Returns the best cofactor's bits
 * and the winning row; u := normalize(col_{row+1} x col_{row+2}). */
u32 EigenVector(const float col[3][3], float *u, int *row_out)
{
    static const u8 next1[3] = { 1, 2, 0 }, next2[3] = { 2, 0, 1 };
    u32 best = 0xBF800000u;                 /* -1.0: the first cofactor always wins */
    s32 bestkey = fkey(best);
    int row = 0, i, j;
    for (i = 0; i < 3; i++) {
        const float *a = col[next1[i]], *b = col[next2[i]];
        for (j = 0; j < 3; j++) {
            int c1 = next1[j], c2 = next2[j];
            u32 cof = fb(f_sub(M(a[c1], b[c2]), M(a[c2], b[c1]))) & 0x7FFFFFFFu;
            s32 key = (cof & 0x7F800000u) ? (s32)cof : 0;
            if (key > bestkey) { best = cof; bestkey = key; row = i; }
        }
    }
    cross3(u, col[next1[row]], col[next2[row]]);
    normalize3(u);
    *row_out = row;
    return best;
}

/* F with rows u, w, x (§3.4 step 5) */
void EigenVec2Mat(float F[3][3], const float *u, const float *c1)
{
    int k;
    for (k = 0; k < 3; k++) { F[0][k] = u[k]; F[1][k] = c1[k]; }
    normalize3(F[1]);
    cross3(F[2], F[0], F[1]);
    normalize3(F[2]);
}

/* m2a: the axis and angle of a rotation step (16 words, column-major). Returns 0 for "no axis". */
int m2a(const u32 *step, float *axis, float *angle)
{
    float col[3][3], m[3][3], F[3][3], mw[3];
    int r, c, row;
    u32 best;
    for (c = 0; c < 3; c++)
        for (r = 0; r < 3; r++) {
            m[r][c] = bf(step[4 * c + r]);
            col[c][r] = (r == c) ? f_sub(m[r][c], 1.0f) : m[r][c];
        }
    best = EigenVector((const float (*)[3])col, axis, &row);
    if (fkey(best) < fkey(EIGEN_MIN_BITS)) {
        axis[0] = axis[1] = axis[2] = 0.0f;
        *angle = 0.0f;
        return 0;
    }
    EigenVec2Mat(F, axis, col[row == 2 ? 0 : row + 1]);
    /* local = F (m F^T): local[2][1] = x . (m w), local[1][1] = w . (m w) */
    for (r = 0; r < 3; r++) mw[r] = FDOT3(m[r][0], F[1][0], m[r][1], F[1][1], m[r][2], F[1][2]);
    /* the angle from the double-precision atan2, rounded back to float (§3.4 step 7) */
    *angle = bf(f64_to_f32(atan2_f64(f64_from_f32(fb(FDOT3(F[2][0], mw[0], F[2][1], mw[1], F[2][2], mw[2]))),
                                     f64_from_f32(fb(FDOT3(F[1][0], mw[0], F[1][1], mw[1], F[1][2], mw[2]))))));
    return 1;
}

/* a2m: c.I + s.[u]x + t.u.u^T (§3.5) into a 4x4 column-major matrix, with t = 1 - c as the
 * formula stands (its cancellation for small angles is part of the game's float drift). */
void a2m(u32 *out, const float *u, float angle)
{
    float c, s, t;
    s = sinf(angle);
    c = cosf(angle);
    t = f_sub(1.0f, c);
    float x = u[0], y = u[1], z = u[2];
    float tx = M(t, x), ty = M(t, y), tz = M(t, z);
    float txy = M(tx, y), txz = M(tx, z), tyz = M(ty, z);
    float sx = M(s, x), sy = M(s, y), sz = M(s, z);
    out[0] = fb(f_add(c, M(tx, x)));
    out[1] = fb(f_add(txy, sz));
    out[2] = fb(f_sub(txz, sy));
    out[3] = 0;
    out[4] = fb(f_sub(txy, sz));
    out[5] = fb(f_add(c, M(ty, y)));
    out[6] = fb(f_add(tyz, sx));
    out[7] = 0;
    out[8] = fb(f_add(txz, sy));
    out[9] = fb(f_sub(tyz, sx));
    out[10] = fb(f_add(c, M(tz, z)));
    out[11] = 0;
    out[12] = 0; out[13] = 0; out[14] = 0; out[15] = ONE_BITS;
}
