/* vu0.c: the VU0 matrix routines of the animation path (animation-semantics.md §3.2, §3.3, §4).
 * Matrices are 16 u32, column-major (word 4c + r), 16-byte aligned. Every product is a VU0
 * macro instruction with fs = the left factor's element and ft = the broadcast lane. */
#include "ee.h"

/* record a VU0 multiply site: label, site number */
#define VSITE(lbl, site) "\t.pushsection .eediff.mulsites,\"\",@progbits\n\t.word " lbl ", " #site "\n\t.asciz \"vu0|vu0\"\n\t.balign 4\n\t.popsection\n"

const u32 ccIdentity[16] ALIGN16 = {
    ONE_BITS, 0, 0, 0,  0, ONE_BITS, 0, 0,  0, 0, ONE_BITS, 0,  0, 0, 0, ONE_BITS };

void sceVu0UnitMatrix(u32 *m)
{
    __asm__ volatile (
        "lqc2 $vf1, 0(%1)\n\tlqc2 $vf2, 16(%1)\n\tlqc2 $vf3, 32(%1)\n\tlqc2 $vf4, 48(%1)\n\t"
        "sqc2 $vf1, 0(%0)\n\tsqc2 $vf2, 16(%0)\n\tsqc2 $vf3, 32(%0)\n\tsqc2 $vf4, 48(%0)\n"
        : : "r"(m), "r"(ccIdentity) : "memory");
}

void sceVu0CopyMatrix(u32 *out, const u32 *in)
{
    __asm__ volatile (
        "lqc2 $vf1, 0(%1)\n\tlqc2 $vf2, 16(%1)\n\tlqc2 $vf3, 32(%1)\n\tlqc2 $vf4, 48(%1)\n\t"
        "sqc2 $vf1, 0(%0)\n\tsqc2 $vf2, 16(%0)\n\tsqc2 $vf3, 32(%0)\n\tsqc2 $vf4, 48(%0)\n"
        : : "r"(out), "r"(in) : "memory");
}

/* out = left (x) right: out_j[k] = L0[k]*Rj[0] + L1[k]*Rj[1] + L2[k]*Rj[2] + L3[k]*Rj[3],
 * VMULAx, VMADDAy, VMADDAz, VMADDw (§3.2). out may alias either input. */
void sceVu0MulMatrix(u32 *out, const u32 *left, const u32 *right)
{
    __asm__ volatile (
        "lqc2 $vf4, 0(%1)\n\tlqc2 $vf5, 16(%1)\n\tlqc2 $vf6, 32(%1)\n\tlqc2 $vf7, 48(%1)\n\t"
        "lqc2 $vf8, 0(%2)\n\tlqc2 $vf9, 16(%2)\n\tlqc2 $vf10, 32(%2)\n\tlqc2 $vf11, 48(%2)\n"
        "10: vmulax.xyzw $ACC, $vf4, $vf8x\n"
        "11: vmadday.xyzw $ACC, $vf5, $vf8y\n"
        "12: vmaddaz.xyzw $ACC, $vf6, $vf8z\n"
        "13: vmaddw.xyzw $vf12, $vf7, $vf8w\n"
        "20: vmulax.xyzw $ACC, $vf4, $vf9x\n"
        "21: vmadday.xyzw $ACC, $vf5, $vf9y\n"
        "22: vmaddaz.xyzw $ACC, $vf6, $vf9z\n"
        "23: vmaddw.xyzw $vf13, $vf7, $vf9w\n"
        "30: vmulax.xyzw $ACC, $vf4, $vf10x\n"
        "31: vmadday.xyzw $ACC, $vf5, $vf10y\n"
        "32: vmaddaz.xyzw $ACC, $vf6, $vf10z\n"
        "33: vmaddw.xyzw $vf14, $vf7, $vf10w\n"
        "40: vmulax.xyzw $ACC, $vf4, $vf11x\n"
        "41: vmadday.xyzw $ACC, $vf5, $vf11y\n"
        "42: vmaddaz.xyzw $ACC, $vf6, $vf11z\n"
        "43: vmaddw.xyzw $vf15, $vf7, $vf11w\n\t"
        "sqc2 $vf12, 0(%0)\n\tsqc2 $vf13, 16(%0)\n\tsqc2 $vf14, 32(%0)\n\tsqc2 $vf15, 48(%0)\n"
        VSITE("10b", 8) VSITE("11b", 8) VSITE("12b", 8) VSITE("13b", 8)
        VSITE("20b", 8) VSITE("21b", 8) VSITE("22b", 8) VSITE("23b", 8)
        VSITE("30b", 8) VSITE("31b", 8) VSITE("32b", 8) VSITE("33b", 8)
        VSITE("40b", 8) VSITE("41b", 8) VSITE("42b", 8) VSITE("43b", 8)
        : : "r"(out), "r"(left), "r"(right) : "memory");
}

/* out = in with lanes 0-2 of column 3 := f_add(col3[k], tv[k]) (§4 step 3.2). */
void sceVu0TransMatrix(u32 *out, const u32 *in, const u32 *tv)
{
    __asm__ volatile (
        "lqc2 $vf4, 48(%1)\n\tlqc2 $vf5, 0(%2)\n\t"
        "vadd.xyz $vf4, $vf4, $vf5\n\t"
        "lqc2 $vf1, 0(%1)\n\tlqc2 $vf2, 16(%1)\n\tlqc2 $vf3, 32(%1)\n\t"
        "sqc2 $vf1, 0(%0)\n\tsqc2 $vf2, 16(%0)\n\tsqc2 $vf3, 32(%0)\n\tsqc2 $vf4, 48(%0)\n"
        : : "r"(out), "r"(in), "r"(tv) : "memory");
}

/* cossin (§3.3), step by step in VU0: sc[0] := sin bits, sc[1] := cos bits. */
void _sceVu0ecossin(u32 a, u32 *sc)
{
    u32 neg = (a >> 31) & ((a & 0x7F800000u) != 0);
    u32 s, c;
    __asm__ volatile (
        "qmtc2 %2, $vf1\n\t"                       /* vf1.x = a */
        "qmtc2 %3, $vf2\n\t"                       /* vf2.x = HALF_PI */
        "lqc2 $vf5, 0(%4)\n\t"                     /* vf5 = SIN[0..3] (x9, x7, x5, x3) */
        "beq %5, $0, 1f\n\t"
        "nop\n\t"
        "vadd.x $vf3, $vf2, $vf1\n\t"              /* x = HALF_PI + a (negative a) */
        "b 2f\n\t"
        "nop\n"
        "1: vsub.x $vf3, $vf2, $vf1\n"            /* x = HALF_PI - a */
        "2:\n"
        "50: vmul.x $vf4, $vf3, $vf3\n"           /* x2 = x * x */
        "51: vmulx.xyzw $vf6, $vf5, $vf3x\n"      /* p_k = SIN[k] * x */
        "52: vmulx.xyzw $vf6, $vf6, $vf4x\n"      /* p_k = p_k * x2  (x3) */
        "53: vmulx.xyz $vf6, $vf6, $vf4x\n\t"     /* k = 0,1,2: x5 */
        "vaddw.x $vf7, $vf3, $vf6w\n"             /* r = x + p_3 */
        "54: vmulx.xy $vf6, $vf6, $vf4x\n\t"      /* k = 0,1: x7 */
        "vaddz.x $vf7, $vf7, $vf6z\n"             /* r += p_2 */
        "55: vmulx.x $vf6, $vf6, $vf4x\n\t"       /* k = 0: x9 */
        "vaddy.x $vf7, $vf7, $vf6y\n\t"           /* r += p_1 */
        "vaddx.x $vf7, $vf7, $vf6x\n"             /* r += p_0: cos */
        "56: vmul.x $vf8, $vf7, $vf7\n\t"         /* r * r */
        "vsubx.w $vf8, $vf0, $vf8x\n\t"           /* ONE - r*r (vf0.w = 1.0) */
        "vsqrt $Q, $vf8w\n\t"
        "vwaitq\n\t"
        "beq %5, $0, 3f\n\t"
        "nop\n\t"
        "vsubq.x $vf9, $vf0, $Q\n\t"              /* sin = +0 - q */
        "b 4f\n\t"
        "nop\n"
        "3: vaddq.x $vf9, $vf0, $Q\n"             /* sin = +0 + q */
        "4: qmfc2 %0, $vf9\n\t"
        "qmfc2 %1, $vf7\n"
        VSITE("50b", 4) VSITE("51b", 5) VSITE("52b", 6) VSITE("53b", 6)
        VSITE("54b", 6) VSITE("55b", 6) VSITE("56b", 7)
        : "=&r"(s), "=&r"(c)
        : "r"(a), "r"(HALF_PI_BITS), "r"(S5432), "r"(neg)
        : "memory");
    sc[0] = s;
    sc[1] = c;
}

/* The three factors of §3.2. c' = +0 + c, s' = +0 + s, n = +0 - s (bit-significant). */
static void rot_factor(u32 *L, u32 angle, int axis)
{
    u32 sc[2];
    u32 cp, sp, n;
    _sceVu0ecossin(angle, sc);
    cp = fb(f_add(bf(0), bf(sc[1])));
    sp = fb(f_add(bf(0), bf(sc[0])));
    n = fb(f_sub(bf(0), bf(sc[0])));
    sceVu0UnitMatrix(L);
    if (axis == 2) {        /* Lz: [c', s', 0, 0], [n, c', 0, 0] */
        L[0] = cp; L[1] = sp; L[4] = n; L[5] = cp;
    } else if (axis == 1) { /* Ly: [c', 0, n, 0], [0, 1, 0, 0], [s', 0, c', 0] */
        L[0] = cp; L[2] = n; L[8] = sp; L[10] = cp;
    } else {                /* Lx: [0, c', s', 0], [0, n, c', 0] */
        L[5] = cp; L[6] = sp; L[9] = n; L[10] = cp;
    }
}

void sceVu0RotMatrixZ(u32 *out, const u32 *in, u32 rz)
{
    u32 L[16] ALIGN16;
    rot_factor(L, rz, 2);
    sceVu0MulMatrix(out, L, in);
}

void sceVu0RotMatrixY(u32 *out, const u32 *in, u32 ry)
{
    u32 L[16] ALIGN16;
    rot_factor(L, ry, 1);
    sceVu0MulMatrix(out, L, in);
}

void sceVu0RotMatrixX(u32 *out, const u32 *in, u32 rx)
{
    u32 L[16] ALIGN16;
    rot_factor(L, rx, 0);
    sceVu0MulMatrix(out, L, in);
}

/* M := Lx (x) (Ly (x) (Lz (x) in)) (§3.2): R = Rx.Ry.Rz. rot = (x, y, z) radians bits. */
void sceVu0RotMatrix(u32 *out, const u32 *in, const u32 *rot)
{
    sceVu0RotMatrixZ(out, in, rot[2]);
    sceVu0RotMatrixY(out, out, rot[1]);
    sceVu0RotMatrixX(out, out, rot[0]);
}

/* local = T(tv) . (R (x) S) (§4 step 3): all four arguments 16-byte aligned. */
void local_matrix(u32 *local, const u32 *rot, const u32 *S, const u32 *tv)
{
    sceVu0MulMatrix(local, rot, S);
    sceVu0TransMatrix(local, local, tv);
}

/* the same from 3-word scale and position (any alignment) */
void compose_local(u32 *local, const u32 *rot, const u32 *scale, const u32 *pos)
{
    u32 S[16] ALIGN16;
    u32 tv[4] ALIGN16;
    sceVu0UnitMatrix(S);
    S[0] = scale[0]; S[5] = scale[1]; S[10] = scale[2];
    tv[0] = pos[0]; tv[1] = pos[1]; tv[2] = pos[2]; tv[3] = 0;
    local_matrix(local, rot, S, tv);
}
