/* ee.h: types, EE float primitives with fixed operand roles, and the structure offsets
 * of executable-abi.md §5. Every float multiply goes through FMUL, which emits one mul.s with
 * fs = the first argument and ft = the second (animation-semantics.md §1) and records the
 * site in the non-loaded section .eediff.mulsites (address, site number, operand texts), so
 * tests/standin can check the roles on the disassembly. */
#ifndef STANDIN_EE_H
#define STANDIN_EE_H

typedef unsigned int u32;
typedef int s32;
typedef unsigned short u16;
typedef short s16;
typedef unsigned char u8;
typedef unsigned long long u64;

#define U32(a) (*(volatile u32 *)(a))
#define U16(a) (*(volatile u16 *)(a))
#define U8(a) (*(volatile u8 *)(a))

/* Raw-bit float constants (animation-semantics.md, constants table). */
#define ONE_BITS       0x3F800000u
#define PI_BITS        0x40490FDBu
#define HALF_PI_BITS   0x3FC90FDBu
#define DEG180_BITS    0x43340000u
#define TO_S16_BITS    0x43360B61u
#define FROM_S16_BITS  0x38C90FDBu
#define EIGEN_MIN_BITS 0x2D2FEBFFu
#define F4096_BITS     0x45800000u

static inline float bf(u32 b) { union { u32 u; float f; } x; x.u = b; return x.f; }
static inline u32 fb(float f) { union { u32 u; float f; } x; x.f = f; return x.u; }

/* Multiply-site numbers: the rows of animation-semantics.md §1 (15 = the free keyed-rotation code). */
#define SITE_STR(x) #x
#define FMUL(site, fs, ft) ({ float _r, _a = (fs), _b = (ft); \
    __asm__ ("1: mul.s %0, %1, %2\n" \
             "\t.pushsection .eediff.mulsites,\"\",@progbits\n" \
             "\t.word 1b, " SITE_STR(site) "\n\t.asciz \"" #fs "|" #ft "\"\n\t.balign 4\n" \
             "\t.popsection" : "=f"(_r) : "f"(_a), "f"(_b)); _r; })

/* Free-code products (§1 row 15): recorded as site 15 without operand texts. */
#define FMUL_FREE(fs, ft) ({ float _r, _a = (fs), _b = (ft); \
    __asm__ ("1: mul.s %0, %1, %2\n" \
             "\t.pushsection .eediff.mulsites,\"\",@progbits\n" \
             "\t.word 1b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.popsection" : "=f"(_r) : "f"(_a), "f"(_b)); _r; })

/* Free-code dot products with the FPU accumulator: a0*b0 + a1*b1 + a2*b2 via MULA/MADDA/MADD.
 * Only used in the keyed-rotation internals (§1 row 15), which are compared within a tolerance.
 * MIX(mula.s, madda.s, madd.s): the EE FPU's accumulator forms, outside the list of what the users'
 * machine is known to interpret; kept because the keyed-rotation internals are free code compared
 * only within a tolerance, and their dot products are recorded multiply sites like every other. */
#define FDOT3(a0, b0, a1, b1, a2, b2) ({ float _r; \
    __asm__ ("1: mula.s %1, %2\n2: madda.s %3, %4\n3: madd.s %0, %5, %6\n" \
             "\t.pushsection .eediff.mulsites,\"\",@progbits\n" \
             "\t.word 1b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.word 2b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.word 3b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.popsection" : "=f"(_r) : "f"(a0), "f"(b0), "f"(a1), "f"(b1), "f"(a2), "f"(b2)); _r; })
#define FDOT2(a0, b0, a1, b1) ({ float _r; \
    __asm__ ("1: mula.s %1, %2\n2: madd.s %0, %3, %4\n" \
             "\t.pushsection .eediff.mulsites,\"\",@progbits\n" \
             "\t.word 1b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.word 2b, 15\n\t.asciz \"free|free\"\n\t.balign 4\n" \
             "\t.popsection" : "=f"(_r) : "f"(a0), "f"(b0), "f"(a1), "f"(b1)); _r; })

/* f_add / f_sub / f_div: the compiler emits add.s/sub.s/div.s in operand order; written as asm
 * anyway so nothing is folded at compile time with host IEEE rounding. */
static inline float f_add(float a, float b) { float r; __asm__ ("add.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b)); return r; }
static inline float f_sub(float a, float b) { float r; __asm__ ("sub.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b)); return r; }
static inline float f_div(float a, float b) { float r; __asm__ ("div.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b)); return r; }
/* SQRT.S takes its operand in the ft field (r5900.md §4.6): encoded by hand. */
static inline float f_sqrt(float a)
{   /* gas puts the source in fs; the EE reads ft: sqrt.s $f0, ft = $f1 encoded by hand */
    register float in __asm__("$f1") = a;
    register float out __asm__("$f0");
    __asm__ (".word 0x46010004" : "=f"(out) : "f"(in));
    return out;
}
static inline float f_from_int(s32 i) { float r; __asm__ ("mtc1 %1, %0\n\tcvt.s.w %0, %0" : "=&f"(r) : "r"(i)); return r; }
/* gas spells the EE CVT.W.S (funct 0x24) "trunc.w.s" for -march=r5900 */
static inline s32 f_to_int(float x) { float t; s32 r; __asm__ ("trunc.w.s %1, %2\n\tmfc1 %0, %1" : "=r"(r), "=&f"(t) : "f"(x)); return r; }

/* u2f: the compiled unsigned conversion (animation-semantics.md §2.3). */
static inline float u2f(u32 x)
{
    if ((s32)x >= 0) return f_from_int((s32)x);
    {
        float h = f_from_int((s32)((x >> 1) | (x & 1)));
        return f_add(h, h);
    }
}

/* EE compare keys (ee-float.md §3.7): all E = 0 patterns are 0; negative values reversed. */
static inline s32 fkey(u32 v)
{
    if ((v & 0x7F800000u) == 0) return 0;
    if (v & 0x80000000u) return (s32)(v ^ 0x7FFFFFFFu);
    return (s32)v;
}

/* ---- structure offsets (executable-abi.md §5) ---- */
#define ANM_CHUNK      0x94
#define ANM_FRAMENOW   0x98
#define ANM_FRAMESPD   0x9C
#define ANM_FRAMECNT   0x9E
#define ANM_NOTEROOT   0xA0
#define ANM_NOTEFUNC   0xA4
#define ANM_INDEX      0xAC
#define ANM_READER     0xB0
#define RB_READ        0x24
#define RB_END         0x28
#define ANM_STREAM     0xF8
#define ANM_WORKS      0x104

#define STREAM_NOTEROOT 0xB4

#define CHUNK_N        0x10
#define CHUNK_W        0x14
#define CHUNK_DATA     0x18
#define CHUNK_END      0x2C   /* DECISION: the end Top's value, kept here by ConvLCNum2ALCNum (+0x20 is
                                 * MakeAnimeIndex's count, anim-objects.md §2.3) */

#define IDX_SIZE       12
#define IDX_TAG        0
#define IDX_SUBST      4
#define IDX_KIND       8

#define SYS_SCRATCH    0x25C
#define SCR_POS        0x00
#define SCR_SCALE      0x50
#define SCR_ROT        0x90
#define SCR_ALPHA      0xD0
#define SCR_U          0x00
#define SCR_V          0x04

#define COORD_LOCAL    0x40
#define COORD_LOCALTP  0x88
#define COORD_A1       0xA1
#define COORD_A2       0xA2

#define MAT_CHUNK      0x0C
#define MAT_U          0x14
#define MAT_V          0x16
#define MATCHUNK_CROPU 0x14
#define MATCHUNK_CROPV 0x16

#define MPH_COUNT      0x10
#define MPH_MODEL(i)   (0x14 + 8 * (i))
#define MPH_WEIGHT(i)  (0x18 + 8 * (i))
#define MPH_MAX        16     /* DECISION: a 0x94-byte ccMorpher holds 16 pairs; more are dropped */
#define MDL_MMAT       0x08
#define MDL_SCALE      0x0C
#define MMAT_SIZE      0x40   /* DECISION: ccMmat array stride (the checks only use mmat 0) */
#define MMAT_VNUM      0x04
#define MMAT_VDATA     0x10
#define PRM_BASESCALE  0x16C
#define PRM_MMAT       0x174
#define PRM_RWFLAG     0x176
#define PRM_VCOUNT     0x180
#define PRM_VDATA      0x184

#define NOTE_NEXT      0x00
#define NOTE_EVENT     0x04
#define NOTE_PARAM     0x08
#define NOTE_TIME      0x0C
#define NOTE_COORD     0x10
#define NOTE_TAG       0x14

/* ccAnmCtrlWork: +0 link (fixed by the ABI), the rest is ours (DECISION: 16 bytes from __nw__FUi:
 * the compiled controller, the ccAnmIndex, and the u32 time in ticks). */
#define WORK_NEXT      0x00
#define WORK_CTRL      0x04
#define WORK_INDEX     0x08
#define WORK_TIME      0x0C
#define WORK_SIZE      16

/* ---- the stubs (executable-abi.md §6) and the helpers shared between files ---- */
void *ccMalloc__FUi(u32 n);
void *__nw__FUi(u32 n);
void *ccMemalign__FUiUi(u32 n, u32 align);
int ccFree__FPv(void *p);
int __dl__FPv(void *p);
int OpenData__14ccRingBufferThFPv(void *rb, void *data);
void *GetWork__16ccDrawPacketCtrlFi(void *ctrl, int n);

void *memcpy(void *d, const void *s, u32 n);
void *memset(void *d, int c, u32 n);

extern u32 ccSys;
extern u32 funcDefaultNoteProcess;
extern const u32 S5432[4];

/* VU0 matrix helpers (vu0.c); matrices are 16 u32, column-major, 16-byte aligned. */
void sceVu0UnitMatrix(u32 *m);
void sceVu0MulMatrix(u32 *out, const u32 *left, const u32 *right);
void sceVu0TransMatrix(u32 *out, const u32 *in, const u32 *tv);
void sceVu0RotMatrixX(u32 *out, const u32 *in, u32 rx);
void sceVu0RotMatrixY(u32 *out, const u32 *in, u32 ry);
void sceVu0RotMatrixZ(u32 *out, const u32 *in, u32 rz);
void sceVu0RotMatrix(u32 *out, const u32 *in, const u32 *rot);
void _sceVu0ecossin(u32 a, u32 *sc);
void sceVu0CopyMatrix(u32 *out, const u32 *in);

/* float maths for the free keyed-rotation code (mathf.c) */
float sinf(float x);
float cosf(float x);

/* software double (double.c): IEEE binary64 bit patterns in 64-bit integer registers */
u64 f64_from_f32(u32 f);
u32 f64_to_f32(u64 a);
u64 f64_add(u64 a, u64 b);
u64 f64_sub(u64 a, u64 b);
u64 f64_mul(u64 a, u64 b);
u64 f64_div(u64 a, u64 b);
u64 atan2_f64(u64 y, u64 x) __asm__("atan2");

/* axis-angle (rot.c) */
int m2a(const u32 *step, float *axis, float *angle);
void a2m(u32 *out, const float *axis, float angle);

void SetMatrix_PosRotZYXScale__7ccCoordFPfN21(u32 coord, const u32 *pos, const u32 *rotdeg, const u32 *scale);
void compose_local(u32 *local, const u32 *rot, const u32 *scale, const u32 *pos);
void local_matrix(u32 *local, const u32 *rot, const u32 *S, const u32 *tv);

#define ALIGN16 __attribute__((aligned(16)))

/* Sub-record kinds of an Anime chunk (formats.md §4). */
#define KIND_TOP       0xFF01
#define KIND_OBJECT    0x0102
#define KIND_MATERIAL  0x0202
#define KIND_F_MORPHER 0x1901
#define KIND_F_NOTE    0x0108
#define KIND_F_OBJ     0x0101
#define KIND_DIRECT_LIGHT 0x0605

/* The direct light's fields (formats.md §4.7): beam start, beam end, radius 1, radius 2 and its
 * square are the spec's. DECISION: position, rotation (degrees, as evaluated), colour and
 * intensity sit right before them, one quadword each, lane 3 left alone (an inferred rule,
 * "direct light fields"). An absent channel leaves its field as it was. */
#define LGT_POS        0x110
#define LGT_ROT        0x120
#define LGT_COLOUR     0x130
#define LGT_INTENSITY  0x140
#define LGT_BEAM_START 0x144
#define LGT_BEAM_END   0x148
#define LGT_RADIUS1    0x14C
#define LGT_RADIUS2    0x150
#define LGT_RADIUS2SQ  0x154

#endif
