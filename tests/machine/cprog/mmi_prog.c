/* mmi_prog.c: a halfword morph blend done the way ccMorpher::Modify does it (MMI, inline asm).
 *
 * animation-semantics.md §9.2 steps 2 and 3: per target, weight lanes built from
 * x = f_to_int(w * 4096) and the weight's sign bit; then, per vertex component,
 * acc = sum of s16(t - b) * lane (psubh, pmaddh into HI/LO), out = clamp(s16(acc >> 12) + b)
 * (pmflo/pmfhi, pcpyld/pcpyud, psraw 12, ppach, paddsh).
 *
 * DECISION: the float parts of Modify (the rescale of step 1 and the f_to_int(f_mul(w, 4096)) of
 * step 2.1) are left out: the caller passes x and the sign bit, so this program exercises only
 * the integer MMI path and its result does not depend on the float model.
 *
 * Vertices are s16 triples (x, y, z), packed. Two vertices share one 128-bit register as
 * halfwords (x0, y0, z0, 0, x1, y1, z1, 0); the weight register is (lx, ly, lz, 0) twice.
 *
 * Build (tests/machine/test_mmi_prog.py does the same):
 *   mipsel-linux-gnu-gcc -march=r5900 -mabi=eabi -mlong32 -msingle-float -O2 -G0 -mno-abicalls
 *     -fno-pic -ffreestanding -nostdlib -Wl,-Ttext=0x100000 -o mmi_prog.elf mmi_prog.c
 */
typedef unsigned int u32;
typedef short s16;
typedef unsigned long long u64;

#define MAX_TARGETS 16

struct quad { s16 h[8]; } __attribute__((aligned(16)));

static struct quad weights[MAX_TARGETS];
static struct quad target_pair[MAX_TARGETS];
static struct quad base_pair;
static struct quad out_pair;

/* §9.2 step 2: v = x | (sign ? 0xFFFFFFFF << 32 : 0); t = v | v << 16 | v << 32; lanes are the
 * halfwords 0, 1, 2 of t. The fourth lane (the pad halfword) is 0. Both 64-bit halves of the
 * weight register get the same lanes (pcpyld). */
static void weight_lanes(struct quad *q, u32 x, u32 negative)
{
    u64 v = (u64)x | (negative ? 0xFFFFFFFF00000000ULL : 0ULL);
    u64 t = (v | (v << 16) | (v << 32)) & 0x0000FFFFFFFFFFFFULL;
    __asm__ __volatile__(
        "pcpyld $8, %1, %1\n\t"
        "sq     $8, 0(%0)"
        : : "r"(q), "r"(t) : "$8", "memory");
}

/* §9.2 step 3 for one pair of vertices and n targets. */
static void blend_pair(struct quad *o, const struct quad *b, const struct quad *t,
                       const struct quad *w, int n)
{
    __asm__ __volatile__(
        ".set push\n\t"
        ".set noreorder\n\t"
        "lq     $8, 0(%[b])\n\t"
        "pmthi  $0\n\t"
        "pmtlo  $0\n\t"
        "beqz   %[n], 2f\n\t"
        "nop\n"
        "1:\n\t"
        "lq     $9, 0(%[t])\n\t"
        "lq     $10, 0(%[w])\n\t"
        "psubh  $9, $9, $8\n\t"          /* s16(t - b), wrapping */
        "pmaddh $0, $9, $10\n\t"         /* HI/LO words += (t - b) * lane */
        "addiu  %[t], %[t], 16\n\t"
        "addiu  %[n], %[n], -1\n\t"
        "bnez   %[n], 1b\n\t"
        "addiu  %[w], %[w], 16\n"
        "2:\n\t"
        "pmflo  $9\n\t"                  /* words p0 p1 p4 p5 */
        "pmfhi  $10\n\t"                 /* words p2 p3 p6 p7 */
        "pcpyld $11, $10, $9\n\t"        /* p0 p1 p2 p3 */
        "pcpyud $12, $9, $10\n\t"        /* p4 p5 p6 p7 */
        "psraw  $11, $11, 12\n\t"
        "psraw  $12, $12, 12\n\t"
        "ppach  $11, $12, $11\n\t"       /* low halfword of each: s16(acc >> 12) */
        "paddsh $11, $11, $8\n\t"        /* + b, saturating */
        "sq     $11, 0(%[o])\n\t"
        ".set pop"
        : [t] "+r"(t), [w] "+r"(w), [n] "+r"(n)
        : [o] "r"(o), [b] "r"(b)
        : "$8", "$9", "$10", "$11", "$12", "hi", "lo", "memory");
}

static void load_pair(struct quad *q, const s16 *v, int i, int count)
{
    int k;
    for (k = 0; k < 8; k++)
        q->h[k] = 0;
    for (k = 0; k < 3; k++)
        q->h[k] = v[3 * i + k];
    if (i + 1 < count)
        for (k = 0; k < 3; k++)
            q->h[4 + k] = v[3 * i + 3 + k];
}

/* out[3 * nverts] := the blend of base[3 * nverts] with ntargets targets (at most 16);
 * xs[i] = f_to_int(w_i * 4096) as u32, negs[i] = the sign bit of w_i. Returns nverts. */
int morph_blend(s16 *out, const s16 *base, int nverts, const s16 *const *targets,
                const u32 *xs, const u32 *negs, int ntargets)
{
    int i, j, k;
    if (ntargets > MAX_TARGETS)
        return -1;
    for (j = 0; j < ntargets; j++)
        weight_lanes(&weights[j], xs[j], negs[j]);
    for (i = 0; i < nverts; i += 2) {
        load_pair(&base_pair, base, i, nverts);
        for (j = 0; j < ntargets; j++)
            load_pair(&target_pair[j], targets[j], i, nverts);
        blend_pair(&out_pair, &base_pair, target_pair, weights, ntargets);
        for (k = 0; k < 3; k++)
            out[3 * i + k] = out_pair.h[k];
        if (i + 1 < nverts)
            for (k = 0; k < 3; k++)
                out[3 * i + 3 + k] = out_pair.h[4 + k];
    }
    return nverts;
}
