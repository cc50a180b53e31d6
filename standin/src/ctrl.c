/* ctrl.c: controllers: compile (animation-semantics.md §2.2, §3.1, §3.6, §3.7) and evaluate
 * (§2.4, §2.5, §3.6). A compiled channel is a ccMalloc block:
 *   one value      [1, w, value[w]]
 *   keyed float    [2, w, S, base[w], S x (dur, delta[w])]
 *   keyed rotation [3, S, 0, 0, base[16], S x segment[24]]
 *                  segment: dur, axis[3], angle, has_axis, 0, 0, W[16] (the rotation before it)
 *   one rotation   [4, 0, 0, 0, matrix[16]]                                                    */
#include "ee.h"

#define CH_ONE    1
#define CH_KEYED  2
#define CH_ROTKEY 3
#define CH_ROTONE 4
#define SEG_WORDS 24

/* Keyed float or vector controller (§2.2). keys: n, then n x (frame, w words). */
u32 *ccAnmCtrlFVec3_SetCtrl(const u32 *keys, u32 w, u32 n, u32 frames)
{
    u32 *ch = (u32 *)ccMalloc__FUi(4 * (3 + w + (n + 1) * (1 + w)));
    u32 *seg = ch + 3 + w;
    u32 prev[3];
    u32 t, S = 0, i, k;
    ch[0] = CH_KEYED;
    ch[1] = w;
    for (k = 0; k < w; k++) ch[3 + k] = prev[k] = keys[1 + k];
    t = keys[0] << 8;
    if (t != 0) {
        seg[0] = t;
        for (k = 0; k < w; k++) seg[1 + k] = 0;
        seg += 1 + w; S++;
    }
    for (i = 1; i < n; i++) {
        const u32 *key = keys + i * (1 + w);
        u32 dur = (key[0] << 8) - t;
        t += dur;
        seg[0] = dur;
        for (k = 0; k < w; k++) {
            float d = f_sub(bf(key[1 + k]), bf(prev[k]));
            prev[k] = fb(f_add(bf(prev[k]), d));
            seg[1 + k] = fb(d);
        }
        seg += 1 + w; S++;
    }
    seg[0] = (frames << 8) - t;
    for (k = 0; k < w; k++) seg[1 + k] = 0;
    S++;
    ch[2] = S;
    return ch;
}

u32 *ccAnmCtrlFloat_SetCtrl(const u32 *keys, u32 n, u32 frames)
{
    return ccAnmCtrlFVec3_SetCtrl(keys, 1, n, frames);
}

/* Evaluate a float or vector channel at T into out[w] (§2.4, §2.5). */
void ccAnmCtrlFVec3_Set(const u32 *ch, u32 T, u32 *out)
{
    if (ch[0] == CH_ONE) {
        u32 k;
        for (k = 0; k < ch[1]; k++) out[k] = ch[2 + k];
        return;
    } else {
        u32 w = ch[1], S = ch[2], i = 0, k, t = T;
        const u32 *seg = ch + 3 + w;
        float acc[3], frac;
        for (k = 0; k < w; k++) acc[k] = bf(ch[3 + k]);
        while (i + 1 < S && seg[0] < t) {
            for (k = 0; k < w; k++) acc[k] = f_add(acc[k], bf(seg[1 + k]));
            t -= seg[0];
            seg += 1 + w;
            i++;
        }
        frac = seg[0] ? f_div(u2f(t), u2f(seg[0])) : bf(0);
        for (k = 0; k < w; k++) {
            float delta = bf(seg[1 + k]);
            out[k] = fb(f_add(acc[k], FMUL(1, delta, frac)));
        }
    }
}

void ccAnmCtrlFloat_Set(const u32 *ch, u32 T, u32 *out) { ccAnmCtrlFVec3_Set(ch, T, out); }

/* Key quantisation (§3.1): degrees -> s16 steps -> radians. */
static u32 quantise(u32 deg)
{
    float q = FMUL(2, bf(TO_S16_BITS), bf(deg));
    s32 s = (s16)f_to_int(q);
    return fb(FMUL(3, bf(FROM_S16_BITS), f_from_int(s)));
}

/* Single-value radians (§3.7): PI x deg, then / DEG180. */
u32 deg2rad(u32 deg)
{
    return fb(f_div(FMUL(10, bf(PI_BITS), bf(deg)), bf(DEG180_BITS)));
}

/* F_Obj radians (§11): the same formula, multiply site 11 */
u32 deg2rad_fobj(u32 deg)
{
    return fb(f_div(FMUL(11, bf(PI_BITS), bf(deg)), bf(DEG180_BITS)));
}

static void key_matrix(u32 *m, const u32 *deg)
{
    u32 rad[4] ALIGN16;
    rad[0] = quantise(deg[0]); rad[1] = quantise(deg[1]); rad[2] = quantise(deg[2]); rad[3] = 0;
    sceVu0UnitMatrix(m);
    sceVu0RotMatrix(m, m, rad);
}

static void mul_abt(u32 *o, const u32 *A, const u32 *B)
{   /* o = A . B^T (math 3x3 of two column-major 4x4), w row/column of the identity */
    int r, c;
    for (c = 0; c < 3; c++)
        for (r = 0; r < 3; r++)
            o[4 * c + r] = fb(FDOT3(bf(A[r]), bf(B[c]), bf(A[4 + r]), bf(B[4 + c]), bf(A[8 + r]), bf(B[8 + c])));
    o[3] = o[7] = o[11] = o[12] = o[13] = o[14] = 0;
    o[15] = ONE_BITS;
}

/* Keyed rotation (§3.6): the game's running matrix. W starts at the first key's matrix; each
 * segment keeps the W it starts from (seg + 8), and after a step with an axis W := A(axis, angle) (x) W,
 * in EE float with the VU0 product, so the float drift of every key passed accumulates as the
 * game's does (seeds/worklog-32: 3e-6 at the first key, 1.3e-5 after about 70). The product is
 * formed once at compile time; evaluation multiplies only the current segment's partial turn in,
 * so it is a pure function of T (checks.md §2.3) and gives the bits a walk from the first key would. */
u32 *ccAnmCtrlRot_SetCtrl(const u32 *keys, u32 n, u32 frames)
{
    u32 *ch = (u32 *)ccMalloc__FUi(4 * (20 + (n + 1) * SEG_WORDS));
    u32 *seg = ch + 20;
    u32 prev[16] ALIGN16, cur[16] ALIGN16, W[16] ALIGN16, step[16] ALIGN16;
    u32 t, S = 0, i;
    u32 last_axis[3] = { 0, 0, 0 }, last_angle = 0, last_has = 0;
    ch[0] = CH_ROTKEY; ch[2] = ch[3] = 0;
    key_matrix(prev, keys + 1);
    sceVu0CopyMatrix(ch + 4, prev);
    sceVu0CopyMatrix(W, prev);
    t = keys[0] << 8;
    if (t != 0) {
        memset(seg, 0, 4 * SEG_WORDS);
        seg[0] = t;
        sceVu0CopyMatrix(seg + 8, W);
        seg += SEG_WORDS; S++;
    }
    for (i = 1; i < n; i++) {
        const u32 *key = keys + 4 * i;
        float ax[3], ang;
        u32 tn = key[0] << 8;
        int has;
        key_matrix(cur, key + 1);
        mul_abt(step, cur, prev);
        has = m2a(step, ax, &ang);
        memset(seg, 0, 4 * SEG_WORDS);
        seg[0] = tn - t;
        last_axis[0] = seg[1] = fb(ax[0]);
        last_axis[1] = seg[2] = fb(ax[1]);
        last_axis[2] = seg[3] = fb(ax[2]);
        last_angle = seg[4] = fb(ang);
        last_has = seg[5] = has;
        sceVu0CopyMatrix(seg + 8, W);
        if (has) {                               /* the passed step multiplies in on the left */
            u32 A[16] ALIGN16;
            a2m(A, ax, ang);
            sceVu0MulMatrix(W, A, W);
        }
        sceVu0CopyMatrix(prev, cur);
        seg += SEG_WORDS; S++;
        t = tn;
    }
    if (t < (frames << 8)) {      /* final hold: negated span, the last segment's turn */
        memset(seg, 0, 4 * SEG_WORDS);
        seg[0] = t - (frames << 8);
        seg[1] = last_axis[0]; seg[2] = last_axis[1]; seg[3] = last_axis[2];
        seg[4] = last_angle; seg[5] = last_has;
        sceVu0CopyMatrix(seg + 8, W);
        S++;
    }
    ch[1] = S;
    return ch;
}

u32 *ccAnmCtrlRot_SetCtrlOne(const u32 *deg)
{
    u32 *ch = (u32 *)ccMalloc__FUi(4 * 20);
    u32 rad[4] ALIGN16;
    ch[0] = CH_ROTONE; ch[1] = ch[2] = ch[3] = 0;
    rad[0] = deg2rad(deg[0]); rad[1] = deg2rad(deg[1]); rad[2] = deg2rad(deg[2]); rad[3] = 0;
    sceVu0UnitMatrix(ch + 4);
    sceVu0RotMatrix(ch + 4, ch + 4, rad);
    return ch;
}

/* Evaluate a rotation channel at T into out[16] (aligned). */
void ccAnmCtrlRot_Set(const u32 *ch, u32 T, u32 *out)
{
    if (ch[0] == CH_ROTONE || ch[1] == 0) {
        sceVu0CopyMatrix(out, ch + 4);
        return;
    } else {
        u32 S = ch[1], i = 0, t = T;
        const u32 *seg = ch + 20;
        while (i + 1 < S && seg[0] < t) {
            t -= seg[0];
            seg += SEG_WORDS;
            i++;
        }
        if (!seg[5]) {
            sceVu0CopyMatrix(out, seg + 8);
        } else {
            u32 A[16] ALIGN16;
            float ax[3], frac;
            ax[0] = bf(seg[1]); ax[1] = bf(seg[2]); ax[2] = bf(seg[3]);
            frac = seg[0] ? f_div(u2f(t), u2f(seg[0])) : bf(0);
            a2m(A, ax, FMUL_FREE(bf(seg[4]), frac));
            sceVu0MulMatrix(out, A, seg + 8);
        }
    }
}

/* Compile one controller of a record (formats.md §4.4), reading no further than end. rot selects
 * the rotation compilers.
 * Returns the channel (0 when absent) and advances *pp past its bytes. */
u32 *compile_channel(const u32 **pp, const u32 *end, u32 kind, u32 w, int rot, u32 frames)
{
    const u32 *p = *pp;
    u32 *ch = 0;
    if (p >= end) return 0;                      /* DECISION: a truncated record's missing channels are absent */
    if (kind == 1) {
        if ((u32)(end - p) < w) { *pp = end; return 0; }
        if (rot) ch = ccAnmCtrlRot_SetCtrlOne(p);
        else {
            u32 k;
            ch = (u32 *)ccMalloc__FUi(4 * (2 + w));
            ch[0] = CH_ONE; ch[1] = w;
            for (k = 0; k < w; k++) ch[2 + k] = p[k];
        }
        p += w;
    } else if (kind == 2) {
        u32 n = p[0];
        if (n > (u32)(end - p - 1) / (1 + w)) n = (u32)(end - p - 1) / (1 + w);   /* keys inside the record only */
        if (n == 0) {            /* DECISION: a keyed controller without keys is absent */
            p += 1;
        } else {
            ch = rot ? ccAnmCtrlRot_SetCtrl(p + 1, n, frames) : ccAnmCtrlFVec3_SetCtrl(p + 1, w, n, frames);
            p += 1 + n * (1 + w);
        }
    }
    *pp = p;
    return ch;
}
