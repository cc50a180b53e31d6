/* The controller queries (docs/truth.md §3): an object record's channels at a time, from
 * animation-semantics.md §2 (keyed and one-value controllers), §3 (rotations) and §4 (the scratch
 * words), and a direct light's words (docs/lights.md), in the EE "hw" arithmetic of ee_float.c. Keyed rotations are the one part in double:
 * the game's own is float with sinf/cosf, compared within a tolerance (§3.4-§3.6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

#define PI 0x40490FDBu
#define HALF_PI 0x3FC90FDBu
#define DEG180 0x43340000u
#define TO_S16 0x43360B61u
#define FROM_S16 0x38C90FDBu
static const uint32_t SIN[4] = {0x362E9C14u, 0xB94FB21Fu, 0x3C08873Eu, 0xBE2AAAA4u};  /* x^9, x^7, x^5, x^3 */
#define EIGEN_MIN 0x2D2FEBFFu                                   /* about 1.0e-11, compared as a double */
static const uint32_t IDENTITY[16] = {EE_ONE, 0, 0, 0, 0, EE_ONE, 0, 0, 0, 0, EE_ONE, 0, 0, 0, 0, EE_ONE};

static uint32_t word(const unsigned char *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

/* ---- one controller's keys (formats.md §4.4), compiled into segments (§2.2) ------------------ */
static const char *read_ctrl(Ctrl *c, int kind, int width, const unsigned char *b, uint32_t words, uint32_t *at) {
    c->kind = kind;
    if (kind == 0) return NULL;
    if (kind > 2) return "a controller of kind 3-7 (formats.md 4.4)";
    if (kind == 1) {
        if (*at + width > words) return "a one-value controller runs past its record";
        for (int k = 0; k < width; k++) c->base[k] = word(b + 4 * (*at + k));
        *at += width;
        return NULL;
    }
    if (*at + 1 > words) return "a keyed controller runs past its record";
    uint32_t n = word(b + 4 * *at);
    if (n == 0) return "a keyed controller with no key";
    if ((uint64_t)*at + 1 + (uint64_t)n * (1 + width) > words) return "a keyed controller's keys run past its record";
    c->n = n;
    c->keys = b + 4 * (*at + 1);
    *at += 1 + n * (1 + width);
    return NULL;
}

static uint32_t key_frame(const Ctrl *c, int width, uint32_t i) { return word(c->keys + 4 * i * (1 + width)); }
static uint32_t key_value(const Ctrl *c, int width, uint32_t i, int k) {
    return word(c->keys + 4 * (i * (1 + width) + 1 + k));
}

static void compile_float(Ctrl *c, int width, uint32_t frames) {
    c->dur = malloc((c->n + 2) * sizeof *c->dur);
    c->delta = calloc((c->n + 2) * 3, sizeof *c->delta);
    uint32_t t = key_frame(c, width, 0) * 256u, prev[3] = {0};
    for (int k = 0; k < width; k++) c->base[k] = prev[k] = key_value(c, width, 0, k);
    c->segs = 0;
    if (t) c->dur[c->segs++] = t;                                 /* a hold up to the first key */
    for (uint32_t i = 1; i < c->n; i++) {
        uint32_t dur = key_frame(c, width, i) * 256u - t;         /* u32 wrap: a key back in time */
        t += dur;
        for (int k = 0; k < width; k++) {
            c->delta[3 * c->segs + k] = ee_sub(key_value(c, width, i, k), prev[k]);
            prev[k] = ee_add(prev[k], c->delta[3 * c->segs + k]);   /* the running sum, not the key */
        }
        c->dur[c->segs++] = dur;
    }
    c->dur[c->segs++] = frames * 256u - t;                        /* the final hold */
}

/* §2.4: the value at T (a one-value or absent controller: its words, untouched) */
static void evaluate(const Ctrl *c, int width, uint32_t T, uint32_t *out) {
    if (c->kind != 2) { memcpy(out, c->base, width * sizeof *out); return; }
    uint32_t acc[3], t = T;
    size_t i = 0;
    memcpy(acc, c->base, sizeof acc);
    for (; i + 1 < c->segs && c->dur[i] < t; t -= c->dur[i++])
        for (int k = 0; k < width; k++) acc[k] = ee_add(acc[k], c->delta[3 * i + k]);
    uint32_t frac = c->dur[i] ? ee_div(ee_u2f(t), ee_u2f(c->dur[i])) : 0;
    for (int k = 0; k < width; k++) out[k] = ee_add(acc[k], ee_mul(c->delta[3 * i + k], frac));  /* fs = delta */
}

/* ---- rotations in EE arithmetic: cossin, the 4x4 product, sceVu0RotMatrix (§3.2, §3.3) -------- */
static void cossin(uint32_t a, uint32_t *s, uint32_t *c) {
    int neg = (a & EE_SIGN) && ((a >> 23) & 0xFF);
    uint32_t x = neg ? ee_add(HALF_PI, a) : ee_sub(HALF_PI, a), x2 = ee_mul(x, x), p[4];
    for (int k = 0; k < 4; k++) p[k] = ee_mul(ee_mul(SIN[k], x), x2);
    for (int k = 0; k < 3; k++) p[k] = ee_mul(p[k], x2);
    uint32_t r = ee_add(x, p[3]);
    for (int k = 0; k < 2; k++) p[k] = ee_mul(p[k], x2);
    r = ee_add(r, p[2]);
    p[0] = ee_mul(p[0], x2);
    r = ee_add(ee_add(r, p[1]), p[0]);
    uint32_t q = ee_sqrt(ee_sub(EE_ONE, ee_mul(r, r)));
    *c = r;
    *s = neg ? ee_sub(0, q) : ee_add(0, q);
}

static void mul_matrix(const uint32_t L[16], const uint32_t R[16], uint32_t out[16]) {
    uint32_t res[16];
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 4; k++) {
            uint32_t fs[4] = {L[k], L[4 + k], L[8 + k], L[12 + k]};
            res[4 * j + k] = ee_mac4(fs, R + 4 * j);          /* fs: the left element, ft: R_j's lane */
        }
    memcpy(out, res, sizeof res);
}

static void rot_matrix(const uint32_t rad[3], uint32_t M[16]) {
    uint32_t s, c;
    memcpy(M, IDENTITY, sizeof IDENTITY);
    for (int axis = 2; axis >= 0; axis--) {                   /* z, then y, then x: R = Rx.Ry.Rz */
        cossin(rad[axis], &s, &c);
        uint32_t c1 = ee_add(0, c), s1 = ee_add(0, s), n = ee_sub(0, s), L[16];
        memcpy(L, IDENTITY, sizeof L);
        int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;     /* the plane the turn is in */
        L[5 * u] = c1;
        L[5 * v] = c1;
        L[4 * u + v] = axis == 1 ? n : s1;
        L[4 * v + u] = axis == 1 ? s1 : n;
        mul_matrix(L, M, M);
    }
}

/* ---- keyed rotations in double (§3.4-§3.6): m[r][c] is math row r, column c ---------------- */
static void key_matrix(const Ctrl *c, uint32_t i, double m[3][3]) {
    uint32_t rad[3], M[16];
    for (int k = 0; k < 3; k++) {                              /* §3.1: the key on the 1/65536-turn grid */
        int16_t s = (int16_t)ee_to_int(ee_mul(TO_S16, key_value(c, 3, i, k)));
        rad[k] = ee_mul(FROM_S16, ee_from_int((uint32_t)(int32_t)s));
    }
    rot_matrix(rad, M);
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) m[r][col] = ee_double(M[4 * col + r]);
}

static void mat_mul(double A[3][3], double B[3][3], double out[3][3]) {
    double res[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) res[r][c] = A[r][0] * B[0][c] + A[r][1] * B[1][c] + A[r][2] * B[2][c];
    memcpy(out, res, sizeof res);
}

static void cross(const double a[3], const double b[3], double out[3]) {
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, r, sizeof r);
}

static void normalize(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] = n == 0.0 ? 0.0 : v[k] / n;
}

/* §3.4: the axis and angle of a step; seg->axis_ok 0 when there is none */
static void m2a(double m[3][3], Seg *seg) {
    double col[3][3], best = -1.0;
    int row = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) col[c][r] = m[r][c] - (r == c);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int r1 = (i + 1) % 3, r2 = (i + 2) % 3, c1 = (j + 1) % 3, c2 = (j + 2) % 3;
            double cof = fabs(col[r1][c1] * col[r2][c2] - col[r1][c2] * col[r2][c1]);
            if (cof > best) { best = cof; row = i; }
        }
    seg->axis_ok = best >= ee_double(EIGEN_MIN);
    seg->angle = 0.0;
    if (!seg->axis_ok) return;
    double F[3][3], Ft[3][3], local[3][3];
    cross(col[(row + 1) % 3], col[(row + 2) % 3], F[0]);
    normalize(F[0]);
    memcpy(F[1], col[(row + 1) % 3], sizeof F[1]);
    normalize(F[1]);
    cross(F[0], F[1], F[2]);
    normalize(F[2]);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) Ft[r][c] = F[c][r];
    mat_mul(m, Ft, local);
    mat_mul(F, local, local);
    memcpy(seg->axis, F[0], sizeof seg->axis);
    seg->angle = atan2(local[2][1], local[1][1]);
}

/* §3.5: c.I + s.[u]x + t.u.u^T, the identity with no axis */
static void a2m(const Seg *seg, double angle, double m[3][3]) {
    double x = seg->axis[0], y = seg->axis[1], z = seg->axis[2], c = cos(angle), s = sin(angle), t = 1.0 - c;
    double r[3][3] = {{c + t * x * x, t * x * y - s * z, t * x * z + s * y},
                      {t * x * y + s * z, c + t * y * y, t * y * z - s * x},
                      {t * x * z - s * y, t * y * z + s * x, c + t * z * z}};
    if (!seg->axis_ok) memset(r, 0, sizeof r), r[0][0] = r[1][1] = r[2][2] = 1.0;
    memcpy(m, r, sizeof r);
}

static void compile_keyed(Track *tr, uint32_t frames) {
    const Ctrl *c = &tr->rot;
    double prev[3][3], cur[3][3], step[3][3], prev_t[3][3];
    tr->seg = calloc(c->n + 2, sizeof *tr->seg);
    key_matrix(c, 0, prev);
    memcpy(tr->base, prev, sizeof prev);
    uint32_t t = key_frame(c, 3, 0) * 256u;
    if (t) tr->seg[tr->nseg++].dur = t;                       /* a hold, no axis */
    for (uint32_t i = 1; i < c->n; i++) {
        uint32_t t_new = key_frame(c, 3, i) * 256u;
        key_matrix(c, i, cur);
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) prev_t[r][col] = prev[col][r];
        mat_mul(cur, prev_t, step);
        m2a(step, &tr->seg[tr->nseg]);
        tr->seg[tr->nseg++].dur = t_new - t;
        t = t_new;
        memcpy(prev, cur, sizeof cur);
    }
    if (t < frames * 256u) {                                  /* the final hold: the last turn, creeping */
        /* DECISION: with no turn before it (one key, at frame 0) the final hold has no axis:
         * §3.6 step 4 reuses "the last segment's" axis and there is none */
        if (tr->nseg) tr->seg[tr->nseg] = tr->seg[tr->nseg - 1];
        tr->seg[tr->nseg++].dur = t - frames * 256u;
    }
}

/* §3.6: the rotation at T in double, and the segments multiplied in */
static uint32_t keyed_at(const Track *tr, uint32_t T, double W[3][3]) {
    double A[3][3];
    memcpy(W, tr->base, sizeof tr->base);
    if (!tr->nseg) return 0;
    uint32_t t = T, i = 0;
    for (; i + 1 < tr->nseg && tr->seg[i].dur < t; t -= tr->seg[i++].dur) {
        a2m(&tr->seg[i], tr->seg[i].angle, A);
        mat_mul(A, W, W);                                     /* the new turn multiplies on the left */
    }
    uint32_t dur = tr->seg[i].dur;
    double frac = dur ? ee_double(ee_div(ee_u2f(t), ee_u2f(dur))) : 0.0;
    a2m(&tr->seg[i], tr->seg[i].angle * frac, A);
    mat_mul(A, W, W);
    return i;
}

/* ---- a 0x0102 record (formats.md §4.5): object, flags, position, rotation, scale, alpha ------- */
const char *track_read(Track *tr, const unsigned char *b, uint32_t words, uint32_t frames) {
    memset(tr, 0, sizeof *tr);
    if (words < 2) return "an object record shorter than its object and flags";
    uint32_t flags = word(b + 4), at = 2;
    const char *why;
    if ((why = read_ctrl(&tr->pos, flags & 7, 3, b, words, &at)) ||
        (why = read_ctrl(&tr->rot, flags >> 3 & 7, 3, b, words, &at)) ||
        (why = read_ctrl(&tr->scale, flags >> 6 & 7, 3, b, words, &at)) ||
        (why = read_ctrl(&tr->alpha, flags >> 9 & 7, 1, b, words, &at)))
        return why;
    if (tr->scale.kind == 0) tr->scale.base[0] = tr->scale.base[1] = tr->scale.base[2] = EE_ONE;
    if (tr->alpha.kind == 0) tr->alpha.base[0] = EE_ONE;
    if (tr->pos.kind == 2) compile_float(&tr->pos, 3, frames);
    if (tr->scale.kind == 2) compile_float(&tr->scale, 3, frames);
    if (tr->alpha.kind == 2) compile_float(&tr->alpha, 1, frames);
    uint32_t M[16];
    memcpy(M, IDENTITY, sizeof M);                           /* §3.8: absent, the identity */
    if (tr->rot.kind == 1) {                                 /* §3.7: degrees to radians, no grid */
        uint32_t rad[3];
        for (int k = 0; k < 3; k++) rad[k] = ee_div(ee_mul(PI, tr->rot.base[k]), DEG180);
        rot_matrix(rad, M);
    }
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) tr->rot9[3 * c + r] = M[4 * c + r];
    if (tr->rot.kind == 2) compile_keyed(tr, frames);
    return NULL;
}

void track_free(Track *tr) {
    free(tr->pos.dur), free(tr->pos.delta), free(tr->scale.dur), free(tr->scale.delta);
    free(tr->alpha.dur), free(tr->alpha.delta), free(tr->seg);
}

/* the pose at T (clamped to last): pos 3, scale 3, rot 9 (c-major), alpha; the keyed passed */
uint32_t track_pose(const Track *tr, uint32_t T, uint32_t last, uint32_t out[16]) {
    uint32_t passed = 0;
    if (T > last) T = last;
    evaluate(&tr->pos, 3, T, out);
    evaluate(&tr->scale, 3, T, out + 3);
    evaluate(&tr->alpha, 1, T, out + 15);
    memcpy(out + 6, tr->rot9, sizeof tr->rot9);
    if (tr->rot.kind == 2) {
        double W[3][3];
        passed = keyed_at(tr, T, W);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) {
                float f = (float)W[r][c];                    /* the nearest f32 */
                memcpy(&out[6 + 3 * c + r], &f, sizeof f);
            }
    }
    return passed;
}

/* ---- a 0x0605 direct light (docs/lights.md): object, flags, then its channels packed as a 0x0102
 * record's, eight 3-bit fields; each channel a float controller (§2) evaluated at min(T, last) -- */
static const int LIGHT_WIDTH[8] = {3, 3, 3, 1, 1, 1, 1, 1};

const char *light_read(Light *lt, const unsigned char *b, uint32_t words, uint32_t frames) {
    memset(lt, 0, sizeof *lt);
    if (words < 2) return "a direct light record shorter than its object and flags";
    uint32_t flags = word(b + 4), at = 2;
    for (int k = 0; k < 8; k++) {
        const char *why = read_ctrl(&lt->ch[k], flags >> (3 * k) & 7, LIGHT_WIDTH[k], b, words, &at);
        if (why) return why;
        if (lt->ch[k].kind == 2) compile_float(&lt->ch[k], LIGHT_WIDTH[k], frames);
    }
    if (at != words) return "a direct light record has words after its controllers";
    return NULL;
}

/* the light's 15 words at min(T, last): position, rotation (degrees, as evaluated), colour,
 * intensity, beam start, beam end, radius 1, radius 2 and its square f_mul(r2, r2); returns a
 * bit mask of the words its present channels write (an absent channel's are left as they were) */
int light_words(const Light *lt, uint32_t T, uint32_t last, uint32_t out[LIGHT_WORDS]) {
    int present = 0, at = 0;
    if (T > last) T = last;
    for (int k = 0; k < 8; k++) {
        if (lt->ch[k].kind) {
            evaluate(&lt->ch[k], LIGHT_WIDTH[k], T, out + at);
            present |= ((1 << LIGHT_WIDTH[k]) - 1) << at;
        }
        at += LIGHT_WIDTH[k];
    }
    if (lt->ch[7].kind) {
        out[14] = ee_mul(out[13], out[13]);
        present |= 1 << 14;
    }
    return present;
}

void light_free(Light *lt) {
    for (int k = 0; k < 8; k++) free(lt->ch[k].dur), free(lt->ch[k].delta);
}
