/* The reference's compiled kernels: its EE float operations over arrays, and the batched
 * evaluation of controllers, keyed rotations and local matrices (animation-semantics.md §2-§4).
 *
 * Each kernel mirrors a routine of reference/*.py step for step; tests/reference checks them bit
 * for bit against the Python model. Double arithmetic is kept in the Python model's order, and the
 * build disables contraction (-ffp-contract=off), so keyed rotations agree to the bit as well.
 */
#include <math.h>
#include <stdint.h>
#include "eefloat.h"

#define ONE 0x3F800000u

/* ------------------------------------------------------------------ float operations over arrays */

enum {
    OP_ADD, OP_SUB, OP_MUL, OP_MADD, OP_MSUB, OP_DIV, OP_SQRT, OP_RSQRT,
    OP_FROM_INT, OP_TO_INT, OP_CMP, OP_U2F, OP_MAC4, OP_COUNT
};

/* out[i] = op(a[i], b[i]) (c[i] is the accumulator of MADD/MSUB; OP_MAC4 reads four fs words from
 * a and four ft words from b per entry). Returns 0, or -1 for an unknown op or model. */
int ref_ops(int model, int op, int64_t n, const u32 *a, const u32 *b, const u32 *c, u32 *out) {
    if (model != MODEL_HW && model != MODEL_TRUNC) return -1;
    for (int64_t i = 0; i < n; i++) {
        switch (op) {
        case OP_ADD: out[i] = f_add(model, a[i], b[i]); break;
        case OP_SUB: out[i] = f_sub(model, a[i], b[i]); break;
        case OP_MUL: out[i] = f_mul(model, a[i], b[i]); break;
        case OP_MADD: out[i] = f_madd(model, c[i], a[i], b[i]); break;
        case OP_MSUB: out[i] = f_msub(model, c[i], a[i], b[i]); break;
        case OP_DIV: out[i] = f_div(model, a[i], b[i]); break;
        case OP_SQRT: out[i] = f_sqrt(model, a[i]); break;
        case OP_RSQRT: out[i] = f_rsqrt(model, a[i], b[i]); break;
        case OP_FROM_INT: out[i] = f_from_int(a[i]); break;
        case OP_TO_INT: out[i] = f_to_int(a[i]); break;
        case OP_CMP: out[i] = (u32)f_cmp(a[i], b[i]); break;
        case OP_U2F: out[i] = u2f(model, a[i]); break;
        case OP_MAC4: out[i] = mac4(model, a + 4 * i, b + 4 * i); break;
        default: return -1;
        }
    }
    return 0;
}

/* The ACC-writing forms (ee-float.md §3.6): MADDA, MSUBA with the "ACC overflowed" latch
 * latch_in[i], MULA, ADDA, SUBA; acc_out[i] and over_out[i] are the new ACC and its latch.
 * Under trunc they are the plain f_add/f_sub/f_mul chains and the latch stays 0. */
enum { ACC_MADDA, ACC_MSUBA, ACC_MULA, ACC_ADDA, ACC_SUBA };

int ref_acc_ops(int model, int op, int64_t n, const u32 *acc, const uint8_t *latch_in, const u32 *a,
                const u32 *b, u32 *acc_out, uint8_t *over_out) {
    if (model != MODEL_HW && model != MODEL_TRUNC) return -1;
    for (int64_t i = 0; i < n; i++) {
        int over = 0;
        u32 r;
        if (model == MODEL_HW) {
            switch (op) {
            case ACC_MADDA: r = hw_madd_acc(acc[i], latch_in[i], a[i], b[i], 0, &over); break;
            case ACC_MSUBA: r = hw_madd_acc(acc[i], latch_in[i], a[i], b[i], 1, &over); break;
            case ACC_MULA: r = hw_mul_o(a[i], b[i], &over); break;
            case ACC_ADDA: r = hw_add_o(a[i], b[i], &over); break;
            case ACC_SUBA: r = hw_add_o(a[i], b[i] ^ SIGN, &over); break;
            default: return -1;
            }
        } else {
            switch (op) {
            case ACC_MADDA: r = tr_add(acc[i], tr_mul(a[i], b[i])); break;
            case ACC_MSUBA: r = tr_sub(acc[i], tr_mul(a[i], b[i])); break;
            case ACC_MULA: r = tr_mul(a[i], b[i]); break;
            case ACC_ADDA: r = tr_add(a[i], b[i]); break;
            case ACC_SUBA: r = tr_sub(a[i], b[i]); break;
            default: return -1;
            }
        }
        acc_out[i] = r;
        over_out[i] = (uint8_t)over;
    }
    return 0;
}

/* ------------------------------------------------------------------ controllers (§2.4) */

/* A compiled float/vector controller (reference/controllers.py FloatController): nseg segments
 * (dur_i, delta_i), the prefix sums cum (nseg - 1 of them) and the accumulator acc_i after i
 * passed segments. nseg = 0 is a constant controller whose raw words are acc[0 .. width). */
typedef struct {
    int64_t nseg;
    int64_t width;
    const u64 *cum;
    const u32 *dur;
    const u32 *acc;
    const u32 *delta;
} ref_ctrl;

/* bisect_left: the first i in [0, n) with cum[i] >= T, or n. */
static inline int64_t passed_segments(const u64 *cum, int64_t n, u64 T) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) >> 1;
        if (cum[mid] < T) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* §2.4 frac = f_div(u2f(t), u2f(dur)), +0 for a zero duration; *seg receives the segment. */
static inline u32 segment_frac(int model, const u64 *cum, const u32 *dur, int64_t nseg, u32 T,
                               int64_t *seg) {
    int64_t i = passed_segments(cum, nseg - 1, T);
    u64 t = (u64)T - (i ? cum[i - 1] : 0);
    *seg = i;
    u32 d = dur[i];
    return d ? f_div(model, u2f(model, (u32)t), u2f(model, d)) : 0;
}

static inline void ctrl_eval(int model, const ref_ctrl *c, u32 T, u32 *out) {
    int64_t w = c->width;
    if (c->nseg == 0) {
        for (int64_t k = 0; k < w; k++) out[k] = c->acc[k];
        return;
    }
    int64_t i;
    u32 frac = segment_frac(model, c->cum, c->dur, c->nseg, T, &i);
    const u32 *acc = c->acc + i * w, *delta = c->delta + i * w;
    for (int64_t k = 0; k < w; k++)
        out[k] = f_add(model, acc[k], f_mul(model, delta[k], frac));    /* fs = delta */
}

/* The channels ch[0 .. nch) at every time: row j of out holds their words side by side. */
void ref_channels(int model, const ref_ctrl *ch, int64_t nch, const u32 *times, int64_t n, u32 *out) {
    int64_t stride = 0;
    for (int64_t c = 0; c < nch; c++) stride += ch[c].width;
    for (int64_t j = 0; j < n; j++) {
        u32 *row = out + j * stride;
        for (int64_t c = 0; c < nch; c++) {
            ctrl_eval(model, &ch[c], times[j], row);
            row += ch[c].width;
        }
    }
}

/* controllers.py FloatController.__init__ (§2.2) for n >= 1 keys (frame_i, w words val[w*i ..]) of
 * an animation of `frames` frames: the segments (dur, delta w each), at most n + 1; the prefix
 * sums cum of all but the last; the accumulator acc (w each) after 0 .. s - 1 passed segments.
 * Returns the number of segments s. */
int64_t ref_ctrl_compile(int model, int64_t n, const int64_t *frame, const u32 *val, int64_t w,
                         int64_t frames, u32 *dur, u32 *delta, u64 *cum, u32 *acc) {
    int64_t ns = 0;
    u32 t = (u32)((u64)frame[0] * 256), prev[4];
    if (t != 0) {                           /* §2.2 step 2: hold to the first key */
        dur[ns] = t;
        for (int64_t k = 0; k < w; k++) delta[k] = 0;
        ns++;
    }
    for (int64_t k = 0; k < w; k++) prev[k] = val[k];
    for (int64_t i = 1; i < n; i++) {
        u32 d = (u32)((u64)frame[i] * 256) - t;   /* u32 wrap: a key back in time */
        t += d;
        for (int64_t k = 0; k < w; k++) {
            delta[ns * w + k] = f_sub(model, val[i * w + k], prev[k]);
            prev[k] = f_add(model, prev[k], delta[ns * w + k]);
        }
        dur[ns++] = d;
    }
    dur[ns] = (u32)((u64)frames * 256) - t;   /* §2.2 step 4: the final hold */
    for (int64_t k = 0; k < w; k++) delta[ns * w + k] = 0;
    ns++;
    u64 c = 0;
    for (int64_t k = 0; k < w; k++) acc[k] = val[k];
    for (int64_t q = 0; q + 1 < ns; q++) {
        c += dur[q];
        cum[q] = c;
        for (int64_t k = 0; k < w; k++) acc[(q + 1) * w + k] = f_add(model, acc[q * w + k], delta[q * w + k]);
    }
    return ns;
}

/* ------------------------------------------------------------------ local matrices (§4 step 3) */

/* L := R ⊗ S (S = diag(s, 1)), then col3 lane k := f_add(col3[k], p_k): reference local_exact. */
static inline void local_exact(int model, const u32 *R, const u32 *s, const u32 *p, u32 *out) {
    u32 S[16] = {s[0], 0, 0, 0, 0, s[1], 0, 0, 0, 0, s[2], 0, 0, 0, 0, ONE};
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++) {
            u32 fs[4] = {R[k], R[4 + k], R[8 + k], R[12 + k]};
            out[4 * j + k] = mac4(model, fs, S + 4 * j);
        }
    for (int k = 0; k < 3; k++) out[12 + k] = f_add(model, out[12 + k], p[k]);
}

/* local_exact for n entries: R16 advances by r_stride words (0: one matrix for all), scale and
 * pos by 3 words each. */
void ref_local_exact(int model, const u32 *R16, int64_t r_stride, const u32 *scale, const u32 *pos,
                     int64_t n, u32 *out) {
    for (int64_t j = 0; j < n; j++)
        local_exact(model, R16 + j * r_stride, scale + 3 * j, pos + 3 * j, out + 16 * j);
}

/* A track's local matrix at every time: pos = ch[0], scale = ch[1] (3 words each), R16 constant. */
void ref_track_local(int model, const ref_ctrl *ch, const u32 *R16, const u32 *times, int64_t n,
                     u32 *out) {
    for (int64_t j = 0; j < n; j++) {
        u32 p[3], s[3];
        ctrl_eval(model, &ch[0], times[j], p);
        ctrl_eval(model, &ch[1], times[j], s);
        local_exact(model, R16, s, p, out + 16 * j);
    }
}

/* ------------------------------------------------------------------ keyed rotations (§3.6) */

/* A kind-2 rotation (reference/rotation.py KeyedRotation): nseg segments (dur_i, axis_i, angle_i),
 * prefix sums cum (nseg - 1), W_i the double 3x3 after i passed steps (W_0 = base). nseg = 0: base. */
typedef struct {
    int64_t nseg;
    const u64 *cum;
    const u32 *dur;
    const double *axis;       /* 3 per segment */
    const uint8_t *has_axis;  /* 0: no axis, the step is the identity */
    const double *angle;
    const double *W;          /* 9 per segment, rows */
    const double *base;       /* 9 */
} ref_keyed;

static inline double bits_to_double(u32 x) {
    int e = ex(x);
    if (e == 0) return (x & SIGN) ? -0.0 : 0.0;
    double v = ldexp((double)sig(x), e - 150);
    return (x & SIGN) ? -v : v;
}

/* a2m (§3.5): c·I + s·[u]× + t·u·uᵀ, in the Python model's operation order. */
static inline void a2m(const double *u, double angle, double *m) {
    double x = u[0], y = u[1], z = u[2];
    double c = cos(angle), s = sin(angle);
    double t = 1.0 - c;
    m[0] = c + t * x * x;     m[1] = t * x * y - s * z; m[2] = t * x * z + s * y;
    m[3] = t * x * y + s * z; m[4] = c + t * y * y;     m[5] = t * y * z - s * x;
    m[6] = t * x * z - s * y; m[7] = t * y * z + s * x; m[8] = c + t * z * z;
}

static inline void mat3_mul(const double *A, const double *B, double *out) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            out[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

/* The double 3x3 (rows) at every time into out (9 per entry) and passed(T) into passed. */
void ref_keyed_eval(int model, const ref_keyed *k, const u32 *times, int64_t n, double *out,
                    int64_t *passed) {
    static const double I3[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    for (int64_t j = 0; j < n; j++) {
        double *o = out + 9 * j;
        if (k->nseg == 0) {
            for (int q = 0; q < 9; q++) o[q] = k->base[q];
            passed[j] = 0;
            continue;
        }
        int64_t i;
        u32 fb = segment_frac(model, k->cum, k->dur, k->nseg, times[j], &i);
        passed[j] = i;
        double step[9];
        if (k->has_axis[i]) a2m(k->axis + 3 * i, k->angle[i] * bits_to_double(fb), step);
        mat3_mul(k->has_axis[i] ? step : I3, k->W + 9 * i, o);
    }
}

/* ------------------------------------------------------------------ many tracks at once */

/* One object record for ref_tracks: its pos, scale and alpha channels (3 + 3 + 1 words), and its
 * rotation, either a constant 16-word R16 (keyed = NULL) or a keyed rotation (R16 = NULL). */
typedef struct {
    const ref_ctrl *ch;
    const u32 *R16;
    const ref_keyed *keyed;
} ref_track;

/* Every track at every time, the times shared (a playback's pose times): entry (j, t) of chan
 * (n x ntr x 7 words) is track t's pos, scale and alpha at times[j], as ref_channels gives them;
 * of local (n x ntr x 16 words) its local matrix as ref_track_local gives it, for a constant
 * rotation; of rot (n x ntr x 9 doubles) and passed (n x ntr) its keyed rotation as ref_keyed_eval
 * gives it. Entries of the other rotation kind are left as they are. */
void ref_tracks(int model, const ref_track *tr, int64_t ntr, const u32 *times, int64_t n, u32 *chan,
                u32 *local, double *rot, int64_t *passed) {
    for (int64_t j = 0; j < n; j++) {
        for (int64_t t = 0; t < ntr; t++) {
            const ref_track *k = &tr[t];
            int64_t e = j * ntr + t;
            u32 *c = chan + 7 * e;
            ctrl_eval(model, &k->ch[0], times[j], c);
            ctrl_eval(model, &k->ch[1], times[j], c + 3);
            ctrl_eval(model, &k->ch[2], times[j], c + 6);
            if (k->R16)
                local_exact(model, k->R16, c + 3, c, local + 16 * e);
            else
                ref_keyed_eval(model, k->keyed, times + j, 1, rot + 9 * e, passed + e);
        }
    }
}

/* ------------------------------------------------------------------ sceVu0RotMatrix (§3.2, §3.3) */

static const u32 SIN5432[4] = {0x362E9C14u, 0xB94FB21Fu, 0x3C08873Eu, 0xBE2AAAA4u};
#define HALF_PI 0x3FC90FDBu

/* mul_matrix L ⊗ R: out_j[k] = chain over i of L_i[k] (fs) × R_j[i] (ft). out may not alias. */
static inline void mul_matrix(int model, const u32 *L, const u32 *R, u32 *out) {
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++) {
            u32 fs[4] = {L[k], L[4 + k], L[8 + k], L[12 + k]};
            out[4 * j + k] = mac4(model, fs, R + 4 * j);
        }
}

/* sceVu0MulMatrix(P[r], L[r]) for n rows of 16 column-major words: out[r] = P[r] ⊗ L[r]. */
int ref_mul_matrices(int model, int64_t n, const u32 *P, const u32 *L, u32 *out) {
    if (model != MODEL_HW && model != MODEL_TRUNC) return -1;
    for (int64_t r = 0; r < n; r++)
        mul_matrix(model, P + 16 * r, L + 16 * r, out + 16 * r);
    return 0;
}

/* ccAnm::Draw's world matrices down the parent chains (objects.world_series), n rows each, in one
 * call. out holds nobj + 1 blocks of n rows of 16 words: block 0 is the anm's (filled by the
 * caller), block 1 + o object o's. parent[o] is the block of o's parent, listed before o (0: the
 * anm), or -1 for an object hung on nothing, whose world is its local. local[o] is the address of
 * o's local words, stride[o] 16 (a row per step) or 0 (one row for every step). Every row is
 * composed on its own: out[1 + o][r] = out[parent[o]][r] ⊗ local[o][r], as ref_mul_matrices. */
int ref_world_series(int model, int64_t n, int64_t nobj, const int64_t *parent, const uint64_t *local,
                     const int64_t *stride, u32 *out) {
    if (model != MODEL_HW && model != MODEL_TRUNC) return -1;
    for (int64_t o = 0; o < nobj; o++) {
        const u32 *L = (const u32 *)(uintptr_t)local[o];
        u32 *W = out + 16 * n * (o + 1);
        int64_t p = parent[o], s = stride[o];
        if (p < 0) {
            for (int64_t r = 0; r < n; r++)
                for (int w = 0; w < 16; w++)
                    W[16 * r + w] = L[s * r + w];
        } else {
            if (p > o) return -2;                       /* a parent after its child */
            const u32 *P = out + 16 * n * p;
            for (int64_t r = 0; r < n; r++)
                mul_matrix(model, P + 16 * r, L + s * r, W + 16 * r);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the world check's chain bounds */

#if defined(__x86_64__) && defined(__GNUC__)
#define FMA_TARGET __attribute__((target("fma")))
int ref_has_fma(void) { __builtin_cpu_init(); return __builtin_cpu_supports("fma"); }
#else
#define FMA_TARGET
int ref_has_fma(void) { return 0; }
#endif

/* |w| widened to double; *bad set when w is no finite float (exponent 255) */
static inline double word_abs(u32 w, int *bad) {
    union { u32 u; float f; } x = { w & 0x7FFFFFFFu };
    *bad |= (w & 0x7F800000u) == 0x7F800000u;
    return (double)x.f;
}

/* out = A B (row-major 4x4 doubles): each element A[i][0] B[0][j], then the other products added
 * by fused multiply-adds in k order, as numpy's matmul of float64 stacks on a host with FMA. */
FMA_TARGET static inline void mat4_fma(const double *A, const double *B, double *out) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = A[4 * i] * B[j];
            s = __builtin_fma(A[4 * i + 1], B[4 + j], s);
            s = __builtin_fma(A[4 * i + 2], B[8 + j], s);
            s = __builtin_fma(A[4 * i + 3], B[12 + j], s);
            out[4 * i + j] = s;
        }
}

/* harness/checks/world.py chain_bounds for finite words, k objects of n rows, parents first:
 * parent[o] is -1 (a root: W = |L|, ΔW = ΔL), -2 (the anm: P = |anm|, ΔP = 0) or an earlier
 * object; local[o] the address of its (n, 16) column-major local words (0: the identity), world[o]
 * of its reference world words (0: |P|·|L| itself), delta[o] its keyed rotation's δ (< 0: not
 * keyed). W and dW receive (k, n, 4, 4) row-major |world| and ΔW. |ΔW| = |ΔP|·|L| + |P|·|ΔL| +
 * 8·2^-24·|P|·|L|, each sum and product rounded as numpy forms it there. Requires the host's FMA.
 * Returns 0, or 1 (W and dW then unfinished) at the first word that is no finite float or the
 * first ΔW that is not finite. */
FMA_TARGET int ref_chain_bounds(int64_t n, int64_t k, const int64_t *parent, const uint64_t *local,
                                 const uint64_t *world, const double *delta, const u32 *anm, double *W,
                                 double *dW) {
    double A[16], L[16], dL[16], PL[16], dPL[16], PdL[16];
    static const double ZERO[16];
    int bad = 0;
    for (int i = 0; i < 16; i++) A[i] = word_abs(anm[4 * (i % 4) + i / 4], &bad);
    for (int64_t o = 0; o < k; o++) {
        const u32 *lw = (const u32 *)(uintptr_t)local[o], *ww = (const u32 *)(uintptr_t)world[o];
        for (int64_t t = 0; t < n; t++) {
            double *Wo = W + 16 * (n * o + t), *dWo = dW + 16 * (n * o + t);
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    L[4 * r + c] = lw ? word_abs(lw[16 * t + 4 * c + r], &bad) : (r == c ? 1.0 : 0.0);
            for (int i = 0; i < 16; i++) dL[i] = 0.0;
            if (delta[o] >= 0)
                for (int c = 0; c < 3; c++) {
                    double s = L[c] * L[c];
                    s += L[4 + c] * L[4 + c];
                    s += L[8 + c] * L[8 + c];
                    double d = delta[o] * sqrt(s);
                    for (int r = 0; r < 3; r++) dL[4 * r + c] = d;
                }
            if (parent[o] == -1) {
                for (int i = 0; i < 16; i++) { Wo[i] = L[i]; dWo[i] = dL[i]; }
                continue;
            }
            const double *P = parent[o] == -2 ? A : W + 16 * (n * parent[o] + t);
            const double *dP = parent[o] == -2 ? ZERO : dW + 16 * (n * parent[o] + t);
            mat4_fma(P, L, PL);
            mat4_fma(dP, L, dPL);
            mat4_fma(P, dL, PdL);
            for (int i = 0; i < 16; i++) {
                double rounding = 0x1p-21 * PL[i];
                dWo[i] = (dPL[i] + PdL[i]) + rounding;
                bad |= !isfinite(dWo[i]);
            }
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 4; c++)
                    Wo[4 * r + c] = ww ? word_abs(ww[16 * t + 4 * c + r], &bad) : PL[4 * r + c];
            if (bad) return 1;
        }
    }
    return bad;
}

/* _sceVu0ecossin (§3.3) with the game's defects: *s = sin bits, *c = cos bits. */
static inline void cossin(int model, u32 a, u32 *s, u32 *c) {
    int neg = (a & SIGN) && ex(a) != 0;
    u32 x = neg ? f_add(model, HALF_PI, a) : f_sub(model, HALF_PI, a);
    u32 x2 = f_mul(model, x, x);
    u32 p[4];
    for (int k = 0; k < 4; k++) p[k] = f_mul(model, f_mul(model, SIN5432[k], x), x2);
    for (int k = 0; k < 3; k++) p[k] = f_mul(model, p[k], x2);
    u32 r = f_add(model, x, p[3]);
    for (int k = 0; k < 2; k++) p[k] = f_mul(model, p[k], x2);
    r = f_add(model, r, p[2]);
    p[0] = f_mul(model, p[0], x2);
    r = f_add(model, r, p[1]);
    r = f_add(model, r, p[0]);
    *c = r;
    u32 q = f_sqrt(model, f_sub(model, ONE, f_mul(model, r, r)));
    *s = neg ? f_sub(model, 0, q) : f_add(model, 0, q);
}

/* sceVu0RotMatrix: Lx ⊗ (Ly ⊗ (Lz ⊗ I)) from radian bits rad[3j .. 3j+2], 16 words per entry. */
void ref_rot_matrix(int model, const u32 *rad, int64_t n, u32 *out) {
    for (int64_t j = 0; j < n; j++) {
        u32 M[16] = {ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE}, T[16];
        u32 s, c, c1, s1, ng;
        cossin(model, rad[3 * j + 2], &s, &c);
        c1 = f_add(model, 0, c); s1 = f_add(model, 0, s); ng = f_sub(model, 0, s);
        { u32 Lz[16] = {c1, s1, 0, 0, ng, c1, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE}; mul_matrix(model, Lz, M, T); }
        cossin(model, rad[3 * j + 1], &s, &c);
        c1 = f_add(model, 0, c); s1 = f_add(model, 0, s); ng = f_sub(model, 0, s);
        { u32 Ly[16] = {c1, 0, ng, 0, 0, ONE, 0, 0, s1, 0, c1, 0, 0, 0, 0, ONE}; mul_matrix(model, Ly, T, M); }
        cossin(model, rad[3 * j], &s, &c);
        c1 = f_add(model, 0, c); s1 = f_add(model, 0, s); ng = f_sub(model, 0, s);
        { u32 Lx[16] = {ONE, 0, 0, 0, 0, c1, s1, 0, 0, ng, c1, 0, 0, 0, 0, ONE}; mul_matrix(model, Lx, M, out + 16 * j); }
    }
}

/* ------------------------------------------------------------------ keyed rotation set-up (§3.1, §3.4-§3.6) */

#define TO_S16 0x43360B61u
#define FROM_S16 0x38C90FDBu
#define EIGEN_MIN 0x2D2FEBFFu

/* §3.1 (rotation.py quantise): degrees bits -> radians bits on the 1/65536-turn grid. */
static inline u32 quantise(int model, u32 d) {
    u32 i = f_to_int(f_mul(model, TO_S16, d));
    int32_t s = (int16_t)(i & 0xFFFF);
    return f_mul(model, FROM_S16, f_from_int((u32)s));
}

static inline void normalize3(const double *v, double *out) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n == 0.0) { out[0] = out[1] = out[2] = 0.0; return; }   /* §3.4: a zero vector stays zero */
    out[0] = v[0] / n; out[1] = v[1] / n; out[2] = v[2] / n;
}

static inline void cross3(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void mat3_t(const double *A, double *out) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) out[3 * r + c] = A[3 * c + r];
}

/* §3.4 (rotation.py m2a): the axis u and angle of the step m (rows); 0 when it has no axis. */
static int m2a(const double *m, double *u, double *angle) {
    double col[3][3];                       /* col[c][r] = m[r][c] - δ(r, c) */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) col[c][r] = m[3 * r + c] - (r == c ? 1.0 : 0.0);
    double best = -1.0;
    int row = 0;
    for (int i = 0; i < 3; i++) {
        int r1 = (i + 1) % 3, r2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int c1 = (j + 1) % 3, c2 = (j + 2) % 3;
            double cof = fabs(col[r1][c1] * col[r2][c2] - col[r1][c2] * col[r2][c1]);
            if (cof > best) { best = cof; row = i; }
        }
    }
    *angle = 0.0;
    if (best < bits_to_double(EIGEN_MIN)) return 0;
    const double *ca = col[(row + 1) % 3], *cb = col[(row + 2) % 3];
    double t[3], F[9], Ft[9], mF[9], local[9];
    cross3(ca, cb, t);
    normalize3(t, F);                       /* F's rows: u, w, x */
    normalize3(ca, F + 3);
    cross3(F, F + 3, t);
    normalize3(t, F + 6);
    mat3_t(F, Ft);
    mat3_mul(m, Ft, mF);
    mat3_mul(F, mF, local);
    u[0] = F[0]; u[1] = F[1]; u[2] = F[2];
    *angle = atan2(local[7], local[4]);
    return 1;
}

/* rotation.py KeyedRotation.__init__ for n >= 1 keys (frame_i, degrees bits deg[3i .. 3i+2]) of an
 * animation of `frames` frames: each key's sceVu0RotMatrix (words, 16 each) and its double 3x3
 * (mats, 9 each, rows); the segments (dur, has_axis, axis 3 each, angle), at most n + 1; the
 * prefix sums cum of all but the last; the running matrices W (9 each, one per segment, W_0 the
 * first key's); and the held keys (hold_seg, hold_key). Returns the number of segments and
 * stores the number of held keys in *nholds. */
int64_t ref_keyed_compile(int model, int64_t n, const int64_t *frame, const u32 *deg, int64_t frames,
                          u32 *words, double *mats, u32 *dur, uint8_t *has, double *axis, double *angle,
                          u64 *cum, double *W, int64_t *hold_seg, int64_t *hold_key, int64_t *nholds) {
    static const double I3[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    for (int64_t i = 0; i < n; i++) {
        u32 rad[3];
        for (int k = 0; k < 3; k++) rad[k] = quantise(model, deg[3 * i + k]);
        ref_rot_matrix(model, rad, 1, words + 16 * i);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) mats[9 * i + 3 * r + c] = bits_to_double(words[16 * i + 4 * c + r]);
    }
    int64_t ns = 0, nh = 0;
    u32 t = (u32)((u64)frame[0] * 256);
    if (t != 0) { dur[ns] = t; has[ns] = 0; axis[3 * ns] = axis[3 * ns + 1] = axis[3 * ns + 2] = 0.0; angle[ns] = 0.0; ns++; }
    for (int64_t i = 1; i < n; i++) {
        u32 t_new = (u32)((u64)frame[i] * 256);
        double step[9], prevt[9];
        mat3_t(mats + 9 * (i - 1), prevt);
        mat3_mul(mats + 9 * i, prevt, step);
        double u[3], g;
        int ok = m2a(step, u, &g);
        if (i >= 2 && !ok && deg[3 * i] == deg[3 * i - 3] && deg[3 * i + 1] == deg[3 * i - 2]
            && deg[3 * i + 2] == deg[3 * i - 1] && frame[i - 2] < frame[i - 1] && frame[i - 1] < frame[i]
            && has[ns - 1]) {
            hold_seg[nh] = ns; hold_key[nh] = i - 1; nh++;
        }
        dur[ns] = t_new - t; has[ns] = (uint8_t)ok; angle[ns] = g;
        for (int k = 0; k < 3; k++) axis[3 * ns + k] = ok ? u[k] : 0.0;
        ns++;
        t = t_new;
    }
    u32 end = (u32)((u64)frames * 256);
    if (t < end) {   /* §3.6 step 4: the final hold reuses the last segment's axis and angle */
        if (ns) { has[ns] = has[ns - 1]; angle[ns] = angle[ns - 1];
                  for (int k = 0; k < 3; k++) axis[3 * ns + k] = axis[3 * (ns - 1) + k]; }
        else { has[ns] = 0; angle[ns] = 0.0; axis[0] = axis[1] = axis[2] = 0.0; }
        dur[ns] = t - end;
        ns++;
    }
    u64 c = 0;
    for (int q = 0; q < 9; q++) W[q] = mats[q];
    for (int64_t k = 0; k + 1 < ns; k++) {
        c += dur[k];
        cum[k] = c;
        double step[9];
        if (has[k]) a2m(axis + 3 * k, angle[k], step);
        mat3_mul(has[k] ? step : I3, W + 9 * k, W + 9 * (k + 1));
    }
    *nholds = nh;
    return ns;
}
