/* VU0 macro-mode and COP1 test program for eediff's machine (tests/machine/test_vu0_prog.py).
 *
 * mul_matrix: a 4x4 matrix product exactly as sceVu0MulMatrix (animation-semantics.md §3.2):
 *   out_j = L0*R_j.x + L1*R_j.y + L2*R_j.z + L3*R_j.w with VMULAx, VMADDAy, VMADDAz, VMADDw,
 *   matrices stored as four 16-byte columns (LQC2/SQC2).
 * dot_madd: a float loop accumulating in ACC with MADDA.S, read out with MADD.S; axpy_madd: a
 * loop of MADD.S (c + a*x[i]); horner: plain C float code (MUL.S, ADD.S).
 * Built freestanding (no libc); the machine calls the functions directly. Build command:
 *   mipsel-linux-gnu-gcc -march=r5900 -mabi=eabi -mlong32 -msingle-float -O2 -G0 -mno-abicalls
 *   -fno-pic -ffreestanding -nostdlib -static -no-pie -Wl,-Ttext=0x00100000 -Wl,-e,mul_matrix
 *   -Wl,--build-id=none -o vu0_prog.elf vu0_prog.c
 */
typedef unsigned int u32;

void mul_matrix(float out[4][4], const float l[4][4], const float r[4][4])
{
    __asm__ __volatile__(
        "lqc2      $vf4, 0x00(%1)\n"
        "lqc2      $vf5, 0x10(%1)\n"
        "lqc2      $vf6, 0x20(%1)\n"
        "lqc2      $vf7, 0x30(%1)\n"
        "lqc2      $vf8, 0x00(%2)\n"
        "vmulax.xyzw  $ACC, $vf4, $vf8x\n"
        "vmadday.xyzw $ACC, $vf5, $vf8y\n"
        "vmaddaz.xyzw $ACC, $vf6, $vf8z\n"
        "vmaddw.xyzw  $vf9, $vf7, $vf8w\n"
        "sqc2      $vf9, 0x00(%0)\n"
        "lqc2      $vf8, 0x10(%2)\n"
        "vmulax.xyzw  $ACC, $vf4, $vf8x\n"
        "vmadday.xyzw $ACC, $vf5, $vf8y\n"
        "vmaddaz.xyzw $ACC, $vf6, $vf8z\n"
        "vmaddw.xyzw  $vf9, $vf7, $vf8w\n"
        "sqc2      $vf9, 0x10(%0)\n"
        "lqc2      $vf8, 0x20(%2)\n"
        "vmulax.xyzw  $ACC, $vf4, $vf8x\n"
        "vmadday.xyzw $ACC, $vf5, $vf8y\n"
        "vmaddaz.xyzw $ACC, $vf6, $vf8z\n"
        "vmaddw.xyzw  $vf9, $vf7, $vf8w\n"
        "sqc2      $vf9, 0x20(%0)\n"
        "lqc2      $vf8, 0x30(%2)\n"
        "vmulax.xyzw  $ACC, $vf4, $vf8x\n"
        "vmadday.xyzw $ACC, $vf5, $vf8y\n"
        "vmaddaz.xyzw $ACC, $vf6, $vf8z\n"
        "vmaddw.xyzw  $vf9, $vf7, $vf8w\n"
        "sqc2      $vf9, 0x30(%0)\n"
        : : "r"(out), "r"(l), "r"(r) : "memory");
}

/* s := sum over i of a[i] * b[i], accumulated in the FPU ACC with MADDA.S and read out with
 * MADD.S (ACC + (-0) * (+0)); returns the raw bits of s. */
u32 dot_madd(const float *a, const float *b, int n)
{
    float s;
    float nz = -0.0f, pz = 0.0f;
    int i;
    __asm__ __volatile__("suba.s %0, %0" : : "f"(pz));          /* ACC := +0 - +0 = +0 */
    for (i = 0; i < n; i++)
        __asm__ __volatile__("madda.s %0, %1" : : "f"(a[i]), "f"(b[i]));
    __asm__ __volatile__("madd.s %0, %1, %2" : "=f"(s) : "f"(nz), "f"(pz));
    return *(u32 *)&s;
}

/* A plain C float loop (compiler-chosen COP1 code): Horner evaluation of a polynomial. */
u32 horner(const float *c, int n, float x)
{
    float acc = c[0];
    int i;
    for (i = 1; i < n; i++)
        acc = acc * x + c[i];
    return *(u32 *)&acc;
}

/* out[i] := c + a * x[i] for each i, with MADD.S in the loop: ACC holds c (ADDA.S c, -0), and
 * every MADD.S writes ACC + a*x[i] to a register without changing ACC. */
void axpy_madd(float *out, const float *x, int n, const float *ca)
{
    float nz = -0.0f;
    int i;
    __asm__ __volatile__("adda.s %0, %1" : : "f"(ca[0]), "f"(nz));
    for (i = 0; i < n; i++) {
        float r;
        __asm__ __volatile__("madd.s %0, %1, %2" : "=f"(r) : "f"(ca[1]), "f"(x[i]));
        out[i] = r;
    }
}
