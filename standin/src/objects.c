/* objects.c: the anm's objects (anim-objects.md): ccStream::MakeAnimeIndex (§2), ccAnm::SetAnm
 * (§3), ccAnm::Draw with ccObj::Draw, the parent chain (ccCoord::_SetLWMatrix) and the call to
 * ccModel::Draw (§4), ccAnm::DeleteAnmIndex (§5). The layouts the spec leaves open are the
 * DECISIONs of harness/driver/objects.py, restated here where the code relies on them. */
#include "ee.h"

void ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs(
    u32 chunk, u32 reader, u32 *cursor, u32 tbl, u32 *count, u32 zero);

/* chunk kinds (formats.md §2.2) */
#define CK_OBJ       0x0100
#define CK_EXT       0x0A00
#define CK_PARTICLE  0x0D00
#define CK_EFF       0x0E00

/* DECISION: the stream's chunk index: +0x10 -> ccChunkIndex pointers by object, +0x14 count */
#define STREAM_INDEX 0x10
#define STREAM_COUNT 0x14
/* ccAnmChunk: the index list, its count, the parent slots (anim-objects.md §2.3) */
#define CHUNK_LIST    0x1C
#define CHUNK_COUNT   0x20
#define CHUNK_PARENTS 0x28
/* ccChunkIndex: kind, run-time chunk, claim (§3.3 step 2), instance (DECISION) */
#define CI_KIND      0x26
#define CI_CHUNK     0x2C
#define CI_CLAIM     0x30
#define CI_INST      0x34
#define CI_MODEL     0x38   /* DECISION: an Obj's ccModel, linked by the loader */
/* ccObj, a ccCoord (§3.5) */
#define OBJ_SIZE     0x100
#define OBJ_WORLD    0x00
#define OBJ_PARENT   0x80
#define OBJ_TPF      0x84
#define OBJ_FLAGS    0x8C
#define OBJ_KIND     0x8E
#define OBJ_INDEX    0x90
#define OBJ_MODEL    0x94
#define ANM_TP       0x88
#define ANM_CLUMPS   0xA8
#define CLUMP_NEXT   0x00
#define CLUMP_N      0x04
#define CLUMP_NODES  0x08
/* ccModel and ccModelChunk (DECISION) */
#define MDL_MTYPE    0x20
#define MDL_FLAGS    0x24
#define MDL_TABLE    0x28
#define MDL_INDEX    0x00
#define MC_NODES     0x44
#define MC_COUNT     0x48
/* the entry (§3.2) */
#define E_OBJ        0x04
#define E_KIND       0x08
#define E_FLAGS      0x0A
#define ENTRY_SIZE   12

extern const u32 ccIdentity[16];

/* every function here is the game's own symbol, called or hooked by address: none is inlined */
#define GAMEFN __attribute__((noinline))

void Draw__7ccModelFP5ccObjf(u32 model, u32 obj, float alpha);
void DrawNoAnm__8ccEffObjFv(u32 eff);

/* ccGetExternalIndex: an ExtObj's index stands for its target's, followed at most 64 hops. */
GAMEFN u32 ccGetExternalIndex__FP12ccChunkIndex(u32 ci)
{
    u32 hops;
    for (hops = 0; ci && U16(ci + CI_KIND) == CK_EXT && U32(ci + CI_INST) && hops < 64; hops++)
        ci = U32(ci + CI_INST);
    return ci;
}

static u32 chunk_index(u32 stream, u32 object)
{
    if (object >= U32(stream + STREAM_COUNT)) return 0;
    return U32(U32(stream + STREAM_INDEX) + 4 * object);
}

/* ccStream::MakeAnimeIndex(chunk, reader) (§2): the index list and its count through
 * ConvLCNum2ALCNum, then a parent slot per entry: the position of the entry naming the parent
 * of its Obj, ExtObj, Particle or Eff chunk (its own field, not followed), else -1. */
GAMEFN void MakeAnimeIndex__8ccStreamFP10ccAnmChunkP14ccStreamReader(u32 stream, u32 chunk, u32 reader)
{
    u32 cursor = U32(chunk + CHUNK_DATA);
    u32 n = U32(stream + STREAM_COUNT);
    u32 list = (u32)ccMalloc__FUi(8 * (n ? n : 1));
    u32 count, slots, i, j;
    U32(chunk + CHUNK_COUNT) = 0;
    ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs(
        chunk, reader, &cursor, list, (u32 *)(chunk + CHUNK_COUNT), 0);
    U32(chunk + CHUNK_LIST) = list;
    count = U32(chunk + CHUNK_COUNT);
    slots = (u32)ccMalloc__FUi(4 * (count ? count : 1));
    U32(chunk + CHUNK_PARENTS) = slots;
    for (i = 0; i < count; i++) {
        u32 ci = chunk_index(stream, (U32(list + 8 * i) - 1) >> 2);
        u32 kind = ci ? U16(ci + CI_KIND) : 0;
        s32 slot = -1;
        if ((kind == CK_OBJ || kind == CK_EXT || kind == CK_PARTICLE || kind == CK_EFF) && U32(ci + CI_CHUNK)) {
            u32 parent = U32(U32(ci + CI_CHUNK) + 4);
            for (j = 0; j < count; j++)
                if (parent && (U32(list + 8 * j) - 1) >> 2 == parent) { slot = (s32)j; break; }
        }
        U32(slots + 4 * i) = (u32)slot;
    }
}

/* ccObj::Init(index): a ccObj built from its Obj chunk (the harness hooks it; this is what the
 * hook does): identity local matrix, factor and localtp 1.0, kind Obj, the index, the model. */
GAMEFN void Init__5ccObjFP12ccChunkIndex(u32 obj, u32 ci)
{
    memset((void *)obj, 0, OBJ_SIZE);
    sceVu0CopyMatrix((u32 *)(obj + COORD_LOCAL), ccIdentity);
    U32(obj + OBJ_TPF) = ONE_BITS;
    U32(obj + COORD_LOCALTP) = ONE_BITS;
    U16(obj + OBJ_KIND) = CK_OBJ;
    U32(obj + OBJ_INDEX) = ci;
    U32(obj + OBJ_MODEL) = ci ? U32(ci + CI_MODEL) : 0;
}

/* ccAnm::SetAnm(chunk, mode) (§3.3) */
GAMEFN void SetAnm__5ccAnmFP10ccAnmChunkUi(u32 anm, u32 chunk, u32 mode)
{
    u32 stream = U32(anm + ANM_STREAM);
    u32 count = U32(chunk + CHUNK_COUNT), list = U32(chunk + CHUNK_LIST);
    u32 slots = U32(chunk + CHUNK_PARENTS);
    u32 arr = (u32)ccMalloc__FUi(ENTRY_SIZE * (count ? count : 1));
    u32 i, k, clump;
    (void)mode;
    U32(anm + ANM_CHUNK) = chunk;
    U32(anm + ANM_INDEX) = arr;
    /* 1, 2: one entry per index entry; each claims its (external) index, the last one wins */
    for (i = 0; i < count; i++) {
        u32 e = arr + ENTRY_SIZE * i;
        u32 ci = ccGetExternalIndex__FP12ccChunkIndex(chunk_index(stream, (U32(list + 8 * i) - 1) >> 2));
        u32 kind = ci ? U16(ci + CI_KIND) : 0;
        U32(e + IDX_TAG) = 0;
        U32(e + E_OBJ) = (ci && kind != CK_OBJ) ? U32(ci + CI_INST) : 0;
        U16(e + E_KIND) = kind;
        U8(e + E_FLAGS) = (kind == CK_OBJ || kind == CK_EFF) ? 1 : 0;
        if (ci) U32(ci + CI_CLAIM) = e;
    }
    /* an effect goes to the entry that claimed it, as a clump node does (DECISION) */
    for (i = 0; i < count; i++) {
        u32 e = arr + ENTRY_SIZE * i;
        u32 ci = ccGetExternalIndex__FP12ccChunkIndex(chunk_index(stream, (U32(list + 8 * i) - 1) >> 2));
        if (U16(e + E_KIND) == CK_EFF && U32(e + E_OBJ) && U32(ci + CI_CLAIM) == e)
            U8(e + E_FLAGS) = 6;
    }
    /* 3: clump nodes go to the entry that claimed them */
    for (clump = U32(anm + ANM_CLUMPS); clump; clump = U32(clump + CLUMP_NEXT))
        for (k = 0; k < U32(clump + CLUMP_N); k++) {
            u32 node = U32(U32(clump + CLUMP_NODES) + 4 * k);
            u32 ci = U32(node + OBJ_INDEX), e = ci ? U32(ci + CI_CLAIM) : 0;
            if (e) {
                U32(e + E_OBJ) = node;
                U8(e + E_FLAGS) = 6;
            }
        }
    /* 4: an Obj entry left without an object gets a new ccObj */
    for (i = 0; i < count; i++) {
        u32 e = arr + ENTRY_SIZE * i;
        if (U8(e + E_FLAGS) == 1 && U16(e + E_KIND) == CK_OBJ) {
            u32 ci = ccGetExternalIndex__FP12ccChunkIndex(chunk_index(stream, (U32(list + 8 * i) - 1) >> 2));
            u32 obj = (u32)__nw__FUi(OBJ_SIZE);
            Init__5ccObjFP12ccChunkIndex(obj, ci);
            U32(e + E_OBJ) = obj;
            U8(e + E_FLAGS) = 1 | 6;
        }
    }
    /* 5: node tables of the made objects' bone and skin models, from the claims */
    for (i = 0; i < count; i++) {
        u32 e = arr + ENTRY_SIZE * i, model, mc, n, tbl;
        if (U8(e + E_FLAGS) != 7) continue;
        model = U32(U32(e + E_OBJ) + OBJ_MODEL);
        if (!model || (U16(model + MDL_MTYPE) & 6) == 0) continue;
        mc = U32(U32(model + MDL_INDEX) + CI_CHUNK);
        n = U32(mc + MC_COUNT);
        tbl = U32(model + MDL_TABLE);
        if (!tbl) {
            tbl = (u32)ccMalloc__FUi(4 * (n ? n : 1));
            U32(model + MDL_TABLE) = tbl;
        }
        for (k = 0; k < n; k++) {
            u32 nci = U32(U32(mc + MC_NODES) + 4 * k);
            u32 claim = nci ? U32(nci + CI_CLAIM) : 0;
            U32(tbl + 4 * k) = claim ? U32(claim + E_OBJ) : 0;
        }
        U32(model + MDL_FLAGS) |= 0x40;
    }
    /* 6: every hung entry's object under its parent slot's object, or the anm */
    for (i = 0; i < count; i++) {
        u32 e = arr + ENTRY_SIZE * i, parent = anm;
        s32 slot = (s32)U32(slots + 4 * i);
        if (!(U8(e + E_FLAGS) & 2)) continue;
        if (slot >= 0 && (u32)slot < count && U32(arr + ENTRY_SIZE * slot + E_OBJ))
            parent = U32(arr + ENTRY_SIZE * slot + E_OBJ);
        U32(U32(e + E_OBJ) + OBJ_PARENT) = parent;
    }
    /* 7: the claims cleared */
    for (i = 0; i < count; i++) {
        u32 ci = ccGetExternalIndex__FP12ccChunkIndex(chunk_index(stream, (U32(list + 8 * i) - 1) >> 2));
        if (ci) U32(ci + CI_CLAIM) = 0;
    }
}

/* ccCoord::_SetLWMatrix: world := parent.world x local (parent first), or local; bit 0 of +0x8C
 * says the world matrix is valid. */
GAMEFN void _SetLWMatrix__7ccCoordFv(u32 coord)
{
    u32 parent;
    if (U8(coord + OBJ_FLAGS) & 1) return;
    parent = U32(coord + OBJ_PARENT);
    if (parent) {
        _SetLWMatrix__7ccCoordFv(parent);
        sceVu0MulMatrix((u32 *)(coord + OBJ_WORLD), (const u32 *)(parent + OBJ_WORLD), (const u32 *)(coord + COORD_LOCAL));
    } else {
        sceVu0CopyMatrix((u32 *)(coord + OBJ_WORLD), (const u32 *)(coord + COORD_LOCAL));
    }
    U8(coord + OBJ_FLAGS) |= 1;
}

/* ccObj::Draw(tp): the world matrix, then the model drawn with alpha := localtp x tp */
GAMEFN void Draw__5ccObjFf(u32 obj, float tp)
{
    u32 model = U32(obj + OBJ_MODEL);
    _SetLWMatrix__7ccCoordFv(obj);
    if (model)
        Draw__7ccModelFP5ccObjf(model, obj, FMUL(16, bf(U32(obj + COORD_LOCALTP)), tp));
}

/* ccAnm::Draw (§4.2): the entries with flag 0x4, in index order */
GAMEFN void Draw__5ccAnmFv(u32 anm)
{
    u32 n = U32(U32(anm + ANM_CHUNK) + CHUNK_COUNT), arr = U32(anm + ANM_INDEX), i;
    for (i = 0; i < n; i++) {
        u32 e = arr + ENTRY_SIZE * i;
        if ((U8(e + E_FLAGS) & 4) == 0) continue;
        if (U16(e + E_KIND) == CK_OBJ) Draw__5ccObjFf(U32(e + E_OBJ), bf(U32(anm + ANM_TP)));
        else if (U16(e + E_KIND) == CK_EFF) DrawNoAnm__8ccEffObjFv(U32(e + E_OBJ));
    }
}

/* ccAnm::DeleteAnmIndex (§5): the made objects (flags 7) with operator delete, in index order,
 * then the entry array; +0xAC cleared. */
GAMEFN void DeleteAnmIndex__5ccAnmFv(u32 anm)
{
    u32 arr = U32(anm + ANM_INDEX), chunk = U32(anm + ANM_CHUNK), n, i;
    if (!arr) return;
    n = chunk ? U32(chunk + CHUNK_COUNT) : 0;
    for (i = 0; i < n; i++) {
        u32 e = arr + ENTRY_SIZE * i;
        if (U8(e + E_FLAGS) == 7) {
            __dl__FPv((void *)U32(e + E_OBJ));
            U32(e + E_OBJ) = 0;
        }
    }
    ccFree__FPv((void *)arr);
    U32(anm + ANM_INDEX) = 0;
}

/* what the harness hooks: the model's draw and the effect's draw (never run there) */
static volatile u32 draw_calls;
GAMEFN void Draw__7ccModelFP5ccObjf(u32 model, u32 obj, float alpha) { draw_calls += 1; (void)model; (void)obj; (void)alpha; }
GAMEFN void DrawNoAnm__8ccEffObjFv(u32 eff) { draw_calls += 2; (void)eff; }
