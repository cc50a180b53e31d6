/* morpher.c: ccMorpher::Modify (animation-semantics.md §9.2): target rescale (div.s, VU0 mul,
 * vftoi0), weight lanes, and the MMI blend (psubh, pmaddh, psraw, ppach, paddsh). */
#include "ee.h"

typedef struct {
    u32 vdata;          /* +0  target vertex data (mmat[k]) */
    u32 rescale;        /* +4  1 when f_cmp(ts, bs) != 0 */
    u32 pad[2];
    u32 ratio[4];       /* +16 ratio in every lane (fs of the rescale product) */
    u64 lanes_lo;       /* +32 halfword 0 = lane_x, halfword 2 = lane_y */
    u64 lanes_hi;       /* +40 halfword 0 (halfword 4 of the quad) = lane_z */
} Target;

/* the weight lanes (§9.2 step 2): t = v | v<<16 | v<<32, v = x with the sign of w above */
static void weight_lanes(Target *tg, u32 w)
{
    u32 x = (u32)f_to_int(FMUL(14, bf(w), bf(F4096_BITS)));
    u64 v = (u64)x | ((w >> 31) ? 0xFFFFFFFF00000000ull : 0);
    u64 t = v | (v << 16) | (v << 32);
    u64 lx = t & 0xFFFF, ly = (t >> 16) & 0xFFFF, lz = (t >> 32) & 0xFFFF;
    /* the 128-bit lane vector as its two doublewords (blend_vertex loads it whole) */
    tg->lanes_lo = lx | (ly << 32);
    tg->lanes_hi = lz;
}

static void blend_vertex(const u8 *b, u8 *o, const Target *tg, u32 nt, u32 off)
{
    __asm__ volatile (
        ".set push\n\t.set noreorder\n\t"
        "ldl $12, 7(%0)\n\t"
        "ldr $12, 0(%0)\n\t"              /* $12: base halfwords x, y, z, (next) */
        "pmthi $0\n\t"
        "pmtlo $0\n\t"
        "pcpyld $15, $0, $0\n"            /* result words when there is no target: 0 */
        "1: beq %3, $0, 3f\n\t"
        "nop\n\t"
        "lw $13, 0(%2)\n\t"
        "addu $13, $13, %4\n\t"
        "ldl $14, 7($13)\n\t"
        "ldr $14, 0($13)\n\t"             /* $14: target halfwords */
        "lw $13, 4(%2)\n\t"
        "beq $13, $0, 2f\n\t"
        "nop\n\t"
        "pextlh $13, $14, $0\n\t"         /* words c << 16 */
        "psraw $13, $13, 16\n\t"          /* sign-extended components */
        "qmtc2 $13, $vf1\n\t"
        "lqc2 $vf2, 16(%2)\n\t"
        "vitof0.xyz $vf1, $vf1\n"         /* f_from_int(c) */
        "60: vmul.xyz $vf1, $vf2, $vf1\n\t" /* ratio x f_from_int(c) */
        "vftoi0.xyz $vf1, $vf1\n\t"
        "qmfc2 $13, $vf1\n\t"
        "ppach $14, $0, $13\n"            /* s16 of each word */
        "2: psubh $13, $14, $12\n\t"      /* t - b, wrapping */
        "pextlh $13, $0, $13\n\t"         /* differences at halfwords 0, 2, 4, 6 */
        "lqc2 $vf3, 32(%2)\n\t"          /* the lane vector, whole, through VU0 */
        "qmfc2 $24, $vf3\n\t"
        "pmaddh $15, $13, $24\n\t"        /* acc x += dx*lx (LOw0), y (HIw0), z (LOw2) */
        "addiu %2, %2, 48\n\t"
        "b 1b\n\t"
        "addiu %3, %3, -1\n"
        "3: psraw $15, $15, 12\n\t"
        "ppach $15, $0, $15\n\t"          /* s16(acc >> 12) */
        "paddsh $15, $15, $12\n\t"        /* + b, saturating */
        "sh $15, 0(%1)\n\t"
        "dsrl $13, $15, 16\n\t"
        "sh $13, 2(%1)\n\t"
        "dsrl32 $13, $15, 0\n\t"
        "sh $13, 4(%1)\n\t"
        ".set pop\n"
        "\t.pushsection .eediff.mulsites,\"\",@progbits\n\t.word 60b, 13\n\t.asciz \"ratio|f_from_int(c)\"\n\t.balign 4\n\t.popsection\n"
        : "+r"(b), "+r"(o), "+r"(tg), "+r"(nt)
        : "r"(off)
        : "$12", "$13", "$14", "$15", "$24", "hi", "lo", "memory");
}

void Modify__9ccMorpherFP16ccDrawModelParam(u32 mph, u32 param)
{
    Target tg[MPH_MAX] ALIGN16;
    u32 n = U32(param + PRM_VCOUNT);
    u32 base = U32(param + PRM_VDATA);
    u32 bs = U32(param + PRM_BASESCALE);
    u32 k = U16(param + PRM_MMAT);
    u32 nt = U16(mph + MPH_COUNT), used = 0, i, out, off;
    if (nt > MPH_MAX) nt = MPH_MAX;
    for (i = 0; i < nt; i++) {
        u32 model = U32(mph + MPH_MODEL(i)), ts;
        Target *t = &tg[used];
        if (!model) continue;             /* DECISION: a pair without a model is skipped */
        t->vdata = U32(U32(model + MDL_MMAT) + k * MMAT_SIZE + MMAT_VDATA);
        ts = U32(model + MDL_SCALE);
        t->rescale = fkey(ts) != fkey(bs);
        if (t->rescale) {
            u32 r = fb(f_div(bf(ts), bf(bs)));
            t->ratio[0] = t->ratio[1] = t->ratio[2] = t->ratio[3] = r;
        }
        weight_lanes(t, U32(mph + MPH_WEIGHT(i)));
        used++;
    }
    if (U16(param + PRM_RWFLAG) & 1) out = base;
    else {
        /* DECISION: GetWork(this = 0, 6n + 16): room for the 8-byte unaligned loads past the end */
        out = (u32)GetWork__16ccDrawPacketCtrlFi(0, 6 * n + 16);
    }
    for (i = 0, off = 0; i < n; i++, off += 6)
        blend_vertex((const u8 *)(base + off), (u8 *)(out + off), tg, used, off);
    U32(param + PRM_VDATA) = out;
}
