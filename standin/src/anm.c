/* anm.c: ccAnm playback: works (InitAnmCtrlWork, ResetAnmCtrlWork, SetAnmCtrlWork),
 * _AnimateForward, the per-frame record decoders and NoteProcess
 * (animation-semantics.md §4, §6, §7, §8, §10, §11; executable-abi.md §4-5). */
#include "ee.h"

void ccAnmCtrlFVec3_Set(const u32 *ch, u32 T, u32 *out);
void ccAnmCtrlRot_Set(const u32 *ch, u32 T, u32 *out);
u32 deg2rad_fobj(u32 deg);
extern const u32 ccIdentity[16];

static u32 scratch(void) { return U32(ccSys + SYS_SCRATCH); }

static void copy_words(u32 dst, const u32 *src, u32 n)
{
    u32 i;
    for (i = 0; i < n; i++) U32(dst + 4 * i) = src[i];
}

/* 16 words: four LQC2/SQC2 quadword moves through VU0 registers no other code keeps values in
 * when both ends are 16-byte aligned (the harness's blocks are), else a word loop. */
static void copy_matrix(u32 dst, const u32 *src)
{
    if (((dst | (u32)src) & 15) == 0)
        __asm__ volatile ("lqc2 $vf28, 0(%1)\n\tlqc2 $vf29, 16(%1)\n\tlqc2 $vf30, 32(%1)\n\tlqc2 $vf31, 48(%1)\n\t"
                          "sqc2 $vf28, 0(%0)\n\tsqc2 $vf29, 16(%0)\n\tsqc2 $vf30, 32(%0)\n\tsqc2 $vf31, 48(%0)"
                          : : "r"(dst), "r"(src) : "memory");
    else
        copy_words(dst, src, 16);
}

/* ccAnm::InitAnmCtrlWork(ctrl, index): a new work at time 0, pushed on the head of anm +0x104. */
void InitAnmCtrlWork__5ccAnmFP9ccAnmCtrlP10ccAnmIndex(u32 anm, u32 ctrl, u32 index)
{
    u32 work = (u32)__nw__FUi(WORK_SIZE);
    U32(work + WORK_CTRL) = ctrl;
    U32(work + WORK_INDEX) = index;
    U32(work + WORK_TIME) = 0;
    U32(work + WORK_NEXT) = U32(anm + ANM_WORKS);
    U32(anm + ANM_WORKS) = work;
}

/* ccAnm::ResetAnmCtrlWork(work): back to time 0 (§7). */
void ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork(u32 anm, u32 work)
{
    (void)anm;
    U32(work + WORK_TIME) = 0;
}

static void set_object(u32 ctrl, u32 index, u32 T)
{
    u32 pos[4] ALIGN16 = { 0, 0, 0, 0 };
    u32 scale[4] ALIGN16 = { ONE_BITS, ONE_BITS, ONE_BITS, 0 };
    u32 alpha = ONE_BITS;
    u32 R[16] ALIGN16, S[16] ALIGN16, L[16] ALIGN16;
    u32 ch, scr = scratch(), coord;
    if ((ch = U32(ctrl + 0x04)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, pos);
    if ((ch = U32(ctrl + 0x08)) != 0) ccAnmCtrlRot_Set((const u32 *)ch, T, R);
    else sceVu0UnitMatrix(R);
    if ((ch = U32(ctrl + 0x0C)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, scale);
    if ((ch = U32(ctrl + 0x10)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, &alpha);
    /* the scratch area (executable-abi.md §5.6) */
    sceVu0UnitMatrix(S);
    S[0] = scale[0]; S[5] = scale[1]; S[10] = scale[2];
    copy_words(scr + SCR_POS, pos, 3);
    copy_matrix(scr + SCR_SCALE, S);
    copy_matrix(scr + SCR_ROT, R);
    U32(scr + SCR_ALPHA) = alpha;
    /* local = T(p) . (R (x) S), into the instance (§4) */
    coord = index ? U32(index + IDX_SUBST) : 0;
    if (coord) {
        if (U32(ctrl + 0x1C)) sceVu0TransMatrix(L, (const u32 *)(ctrl + 0x20), pos);   /* R (x) S precomputed */
        else local_matrix(L, R, S, pos);
        copy_matrix(coord + COORD_LOCAL, L);
        U32(coord + COORD_LOCALTP) = alpha;
    }
}

/* texture offset: (s16(f_to_int(U x 4096)) - s16(crop)) & 0xFFFF (§6) */
static u32 tex_offset(u32 uv, u32 crop)
{
    s32 i = (s16)f_to_int(FMUL(12, bf(uv), bf(F4096_BITS)));
    return (u32)(i - (s16)crop) & 0xFFFF;
}

static void set_material(u32 ctrl, u32 index, u32 T)
{
    u32 u = 0, v = 0, ch, scr = scratch(), list, i, n;
    if ((ch = U32(ctrl + 0x04)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, &u);
    if ((ch = U32(ctrl + 0x08)) != 0) ccAnmCtrlFVec3_Set((const u32 *)ch, T, &v);
    U32(scr + SCR_U) = u;
    U32(scr + SCR_V) = v;
    list = index ? U32(index + IDX_SUBST) : 0;
    if (!list) return;
    n = U16(list + 4);
    for (i = 0; i < n; i++) {
        u32 mat = U32(U32(list) + 4 * i), mchunk;
        if (!mat) continue;
        mchunk = U32(mat + MAT_CHUNK);
        U16(mat + MAT_U) = tex_offset(u, mchunk ? U16(mchunk + MATCHUNK_CROPU) : 0);
        U16(mat + MAT_V) = tex_offset(v, mchunk ? U16(mchunk + MATCHUNK_CROPV) : 0);
    }
}

/* The direct light (formats.md §4.7): each present channel into its field of the light, the
 * instance in the work's ccAnmIndex; radius 2 also leaves its square. Nothing goes to scratch. */
static const u16 light_field[8] = { LGT_POS, LGT_ROT, LGT_COLOUR, LGT_INTENSITY,
                                    LGT_BEAM_START, LGT_BEAM_END, LGT_RADIUS1, LGT_RADIUS2 };

static void set_light(u32 ctrl, u32 index, u32 T)
{
    u32 v[3], i, ch, light = index ? U32(index + IDX_SUBST) : 0;
    if (!light) return;
    for (i = 0; i < 8; i++) {
        if ((ch = U32(ctrl + 0x04 + 4 * i)) == 0) continue;
        ccAnmCtrlFVec3_Set((const u32 *)ch, T, v);
        copy_words(light + light_field[i], v, i < 3 ? 3 : 1);
    }
    if (U32(ctrl + 0x20))        /* operands equal: the multiply's roles do not matter */
        U32(light + LGT_RADIUS2SQ) = fb(FMUL_FREE(bf(U32(light + LGT_RADIUS2)), bf(U32(light + LGT_RADIUS2))));
}

/* ccAnm::SetAnmCtrlWork(work, dt): advance by dt (u32 wrap), then evaluate (§4, §6, §7). */
void SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki(u32 anm, u32 work, u32 dt)
{
    u32 ctrl = U32(work + WORK_CTRL), index = U32(work + WORK_INDEX);
    u32 T = U32(work + WORK_TIME) + dt;
    (void)anm;
    U32(work + WORK_TIME) = T;
    if (!ctrl) return;
    if (U16(ctrl) == KIND_OBJECT) {
        u32 last = U32(ctrl + 0x18);
        set_object(ctrl, index, T < last ? T : last);
    } else if (U16(ctrl) == KIND_MATERIAL) {
        u32 last = U32(ctrl + 0x0C);
        set_material(ctrl, index, T < last ? T : last);
    } else if (U16(ctrl) == KIND_DIRECT_LIGHT) {
        u32 last = U32(ctrl + 0x24);
        set_light(ctrl, index, T < last ? T : last);
    }
}

/* ccAnmNote::DelAll: frees a note list through operator delete. */
void DelAll__9ccAnmNoteFv(u32 note)
{
    while (note) {
        u32 next = U32(note + NOTE_NEXT);
        __dl__FPv((void *)note);
        note = next;
    }
}

static u32 idx_entry(u32 anm, u32 alc) { return U32(anm + ANM_INDEX) + IDX_SIZE * alc; }

/* ccStream::DecodeF_Note (§10.1): a 24-byte note on the head of the anm's list, or of the
 * stream's own list (+0xB4) when no anm is reading. */
void DecodeF_Note__8ccStreamFP5ccAnmPUii(u32 stream, u32 anm, const u32 *pay, u32 frame)
{
    u32 note = (u32)__nw__FUi(24);
    u32 e = anm ? idx_entry(anm, pay[0]) : 0;
    U32(note + NOTE_EVENT) = pay[1];
    U32(note + NOTE_PARAM) = pay[2];
    U32(note + NOTE_TIME) = frame;
    U32(note + NOTE_COORD) = e ? U32(e + IDX_SUBST) : 0;
    U32(note + NOTE_TAG) = e ? U32(e + IDX_TAG) : 0;
    if (anm) {
        U32(note + NOTE_NEXT) = U32(anm + ANM_NOTEROOT);
        U32(anm + ANM_NOTEROOT) = note;
    } else if (stream) {
        U32(note + NOTE_NEXT) = U32(stream + STREAM_NOTEROOT);
        U32(stream + STREAM_NOTEROOT) = note;
    }
}

/* ccStream::DecodeF_Morpher (§9.1): the record replaces the morpher's pairs. */
void DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi(u32 stream, u32 anm, const u32 *pay, u32 n)
{
    u32 mph = U32(idx_entry(anm, pay[0]) + IDX_SUBST);
    u32 pairs = pay[1] & 0xFFFF, i;
    (void)stream;
    if (!mph) return;
    if (2 + 2 * pairs > n) pairs = (n - 2) / 2;
    if (pairs > MPH_MAX) pairs = MPH_MAX;
    U16(mph + MPH_COUNT) = pairs;
    for (i = 0; i < pairs; i++) {
        U32(mph + MPH_MODEL(i)) = U32(idx_entry(anm, pay[2 + 2 * i]) + IDX_SUBST);
        U32(mph + MPH_WEIGHT(i)) = pay[3 + 2 * i];
    }
}

/* ccCoord::SetMatrix_PosRotZYXScale: local := T(pos) . RotMatrix(PI x deg / 180) . S(scale) (§11). */
void SetMatrix_PosRotZYXScale__7ccCoordFPfN21(u32 coord, const u32 *pos, const u32 *rotdeg, const u32 *scale)
{
    u32 R[16] ALIGN16, L[16] ALIGN16, rad[4] ALIGN16;
    rad[0] = deg2rad_fobj(rotdeg[0]); rad[1] = deg2rad_fobj(rotdeg[1]); rad[2] = deg2rad_fobj(rotdeg[2]); rad[3] = 0;
    sceVu0UnitMatrix(R);
    sceVu0RotMatrix(R, R, rad);
    compose_local(L, R, scale, pos);
    copy_matrix(coord + COORD_LOCAL, L);
}

/* ccStream::DecodeF_Obj (§11). DECISION (unrecorded parts): transparency clamped with EE
 * compares (below 0 -> +0, above 1 -> 1.0; -0 and zero-exponent patterns compare equal to 0 and
 * are kept); "position is zero" = all three words have a zero exponent; +0xA2 bits 2-7 kept;
 * an effect object (index kind 0x0E00) is left alone (its restart is not modelled). */
void DecodeF_Obj__8ccStreamFP5ccAnmPUi(u32 stream, u32 anm, const u32 *pay)
{
    u32 e = idx_entry(anm, pay[0]);
    u32 coord = U32(e + IDX_SUBST);
    u32 alpha = pay[11], a2, zero;
    (void)stream;
    if (!coord || U16(e + IDX_KIND) == 0x0E00) return;
    SetMatrix_PosRotZYXScale__7ccCoordFPfN21(coord, pay + 2, pay + 5, pay + 8);
    if (fkey(alpha) < 0) alpha = 0;
    else if (fkey(alpha) > fkey(ONE_BITS)) alpha = ONE_BITS;
    U32(coord + COORD_LOCALTP) = alpha;
    zero = ((pay[2] | pay[3] | pay[4]) & 0x7F800000u) == 0
        && (pay[2] & 0x7F800000u) == 0 && (pay[3] & 0x7F800000u) == 0 && (pay[4] & 0x7F800000u) == 0;
    a2 = U8(coord + COORD_A2) & ~3u;
    a2 |= pay[12] & 1;
    if (!(zero && (U8(coord + COORD_A1) & 1))) a2 |= 2;
    U8(coord + COORD_A2) = a2;
}

/* ccStream::DecodeFrameChunk(old, new, 0) (§8.3): reads frames old+1 .. new from the anm's reader,
 * stopping after Top new+1 or the end Top. Returns the end Top's value when it was read, else 0.
 * Notes of frame old+1 get time old, later ones their Top's frame (§10.2). DECISION: the reader
 * counts Tops (new - old of them); an end Top is not stepped over, so a further read sees it again. */
u32 DecodeFrameChunk__8ccStreamFP5ccAnmiii(u32 stream, u32 anm, u32 old, u32 nw, u32 flag)
{
    u32 rd = anm + ANM_READER;
    const u32 *p = (const u32 *)U32(rd + RB_READ);
    u32 frame = old, remaining = nw - old, ret = 0;
    (void)flag;
    for (;;) {
        u32 kind = p[0] & 0xFFFF, n = p[1];
        const u32 *pay = p + 2;
        if (p[0] == 0) break;                 /* the zero terminator ConvLCNum2ALCNum appends */
        if (kind == KIND_TOP && n >= 1) {
            if (pay[0] >= 0xFFFFFF00u) { ret = pay[0]; break; }
            p = pay + n;
            frame = pay[0];
            if (--remaining == 0) break;
            continue;
        }
        if (kind == KIND_F_NOTE && n >= 3) DecodeF_Note__8ccStreamFP5ccAnmPUii(stream, anm, pay, frame);
        else if (kind == KIND_F_MORPHER && n >= 2) DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi(stream, anm, pay, n);
        else if (kind == KIND_F_OBJ && n >= 13) DecodeF_Obj__8ccStreamFP5ccAnmPUi(stream, anm, pay);
        p = pay + n;
    }
    U32(rd + RB_READ) = (u32)p;
    return ret;
}

/* ccAnm::_AnimateForward(step) (§8.1). */
u32 _AnimateForward__5ccAnmFUi(u32 anm, u32 step)
{
    u32 chunk = U32(anm + ANM_CHUNK);
    u32 N = U32(chunk + CHUNK_N);
    u32 last = (N - 1) << 8;
    u32 time = (U32(anm + ANM_FRAMENOW) << 8) | U16(anm + ANM_FRAMECNT);
    u32 nw = time + step, eff = step, ended = 0, w;

    DelAll__9ccAnmNoteFv(U32(anm + ANM_NOTEROOT));
    U32(anm + ANM_NOTEROOT) = 0;
    if (nw > last) {
        eff = step - (nw - last);
        nw = last;
        ended = 1;
    }
    if (eff != 0)
        for (w = U32(anm + ANM_WORKS); w; w = U32(w + WORK_NEXT))
            SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki(anm, w, eff);
    if ((nw >> 8) != (time >> 8)) {
        u32 endtop = DecodeFrameChunk__8ccStreamFP5ccAnmiii(U32(anm + ANM_STREAM), anm, time >> 8, nw >> 8, 0);
        ended = 0;
        if ((nw >> 8) >= N - 1) {
            if (!endtop) endtop = U32(chunk + CHUNK_END);
            if (endtop == 0xFFFFFFFEu) {        /* loop: rewind the reader, reset every work */
                OpenData__14ccRingBufferThFPv((void *)(anm + ANM_READER), (void *)U32(chunk + CHUNK_DATA));
                for (w = U32(anm + ANM_WORKS); w; w = U32(w + WORK_NEXT))
                    ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork(anm, w);
                nw = 0;
            } else {
                ended = 1;
            }
        }
    }
    U32(anm + ANM_FRAMENOW) = nw >> 8;
    U16(anm + ANM_FRAMECNT) = nw & 0xFF;
    return ended;
}

/* ccAnm::NoteProcess (§10.4): funcNoteProcess(note) for each note from the head. */
void NoteProcess__5ccAnmFv(u32 anm)
{
    u32 f = U32(anm + ANM_NOTEFUNC), note;
    if (!f) return;
    for (note = U32(anm + ANM_NOTEROOT); note; note = U32(note + NOTE_NEXT))
        ((void (*)(u32))f)(note);
}
