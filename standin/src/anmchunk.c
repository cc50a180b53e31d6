/* anmchunk.c: ccAnmChunk::ConvLCNum2ALCNum (animation-semantics.md §2.1, executable-abi.md §4):
 * compiles the controller records, fills the ccAnmIndexCntTbl, and writes the playback frame data. */
#include "ee.h"

u32 *compile_channel(const u32 **pp, const u32 *end, u32 kind, u32 w, int rot, u32 frames);
extern const u32 ccIdentity[16];

/* The compiled 0x0102 controller: u16 kind, then channel pointers. */
#define CTRL_OBJ_POS   0x04
#define CTRL_OBJ_ROT   0x08
#define CTRL_OBJ_SCALE 0x0C
#define CTRL_OBJ_ALPHA 0x10
#define CTRL_OBJ_OBJ   0x14
#define CTRL_OBJ_LAST  0x18
#define CTRL_OBJ_HASRS 0x1C
#define CTRL_OBJ_RS    0x20   /* 16 words: R (x) S when neither rotation nor scale is keyed */
#define CTRL_OBJ_SIZE  0x60
/* The compiled 0x0202 controller */
#define CTRL_MAT_U     0x04
#define CTRL_MAT_V     0x08
#define CTRL_MAT_LAST  0x0C
#define CTRL_MAT_SIZE  0x10
/* The compiled 0x0605 direct light: u16 kind, the eight channels in flag-field order, last */
#define CTRL_LGT_CHAN  0x04
#define CTRL_LGT_LAST  0x24
#define CTRL_LGT_SIZE  0x28

#define HASH_SIZE 1024   /* object -> first table position, open addressing (a lookup cache only) */
typedef struct { u32 tbl, count; u32 key[HASH_SIZE]; u16 pos[HASH_SIZE]; } Table;

static u32 *hash_slot(Table *t, u32 lc)
{
    u32 h = (lc * 0x9E3779B1u) >> 22, i;
    for (i = 0; i < HASH_SIZE; i++, h = (h + 1) & (HASH_SIZE - 1))
        if (t->key[h] == lc || t->key[h] == 0) return &t->key[h];
    return 0;                                  /* full: callers fall back to the linear search */
}

/* DECISION: controllers are evaluated at min(T, last), last = max(0, (N - 1) * 256), the time the
 * reference poses (animation-semantics.md §2.4 "evaluation stops at last", §8.2); a work's own
 * time still advances unclamped. */
static u32 last_time(u32 frames) { return frames ? (frames - 1) << 8 : 0; }

static u32 table_add(Table *t, u32 object, u32 ctrl)
{
    u32 e = t->tbl + 8 * t->count, lc = 4 * object + 1;
    u32 *slot = hash_slot(t, lc);
    U32(e) = lc;
    U32(e + 4) = ctrl;
    if (slot && *slot == 0 && t->count < 0x10000) { *slot = lc; t->pos[slot - t->key] = t->count; }
    return t->count++;
}

/* DECISION: a non-0x0102 use of an object shares the first entry that names it (0x0102 entries
 * included), so an object named by several records has one instance. */
static u32 table_find(Table *t, u32 object)
{
    u32 i, lc = 4 * object + 1;
    u32 *slot = hash_slot(t, lc);
    if (slot && *slot == lc) return t->pos[slot - t->key];
    if (!slot || t->count >= 0x10000)
        for (i = 0; i < t->count; i++)
            if (U32(t->tbl + 8 * i) == lc) return i;
    return table_add(t, object, 0);
}

/* ccAnmChunk::ConvALCNum_FsetMatCtrl: the material record (formats.md §4.6) */
u32 ConvALCNum_FsetMatCtrl__10ccAnmChunkFPUiUiUi(u32 chunk, const u32 *pay, u32 n, u32 frames)
{
    const u32 *p = pay + 2, *end = pay + n;
    u32 flags = pay[1];
    u32 ctrl = (u32)ccMalloc__FUi(CTRL_MAT_SIZE);
    (void)chunk;
    U16(ctrl) = KIND_MATERIAL;
    U32(ctrl + CTRL_MAT_U) = (u32)compile_channel(&p, end, flags & 7, 1, 0, frames);
    U32(ctrl + CTRL_MAT_V) = (u32)compile_channel(&p, end, (flags >> 3) & 7, 1, 0, frames);
    U32(ctrl + CTRL_MAT_LAST) = last_time(frames);
    return ctrl;
}

/* The direct light (formats.md §4.7): eight 3-bit fields from bit 0, widths 3, 3, 3, then 1.
 * DECISION: the payload is u32 object, u32 flags, then the present channels packed in field
 * order, as the 0x0102 record (the spec's [INF]). */
static u32 compile_light(const u32 *pay, u32 n, u32 frames)
{
    const u32 *p = pay + 2, *end = pay + n;
    u32 flags = pay[1], i;
    u32 ctrl = (u32)ccMalloc__FUi(CTRL_LGT_SIZE);
    U16(ctrl) = KIND_DIRECT_LIGHT;
    for (i = 0; i < 8; i++)
        U32(ctrl + CTRL_LGT_CHAN + 4 * i) = (u32)compile_channel(&p, end, (flags >> (3 * i)) & 7, i < 3 ? 3 : 1, 0, frames);
    U32(ctrl + CTRL_LGT_LAST) = last_time(frames);
    return ctrl;
}

static u32 compile_object(const u32 *pay, u32 n, u32 frames)
{
    const u32 *p = pay + 2, *end = pay + n;
    u32 flags = pay[1];
    u32 ctrl = (u32)ccMalloc__FUi(CTRL_OBJ_SIZE);
    U16(ctrl) = KIND_OBJECT;
    U32(ctrl + CTRL_OBJ_OBJ) = pay[0];
    U32(ctrl + CTRL_OBJ_POS) = (u32)compile_channel(&p, end, flags & 7, 3, 0, frames);
    U32(ctrl + CTRL_OBJ_ROT) = (u32)compile_channel(&p, end, (flags >> 3) & 7, 3, 1, frames);
    U32(ctrl + CTRL_OBJ_SCALE) = (u32)compile_channel(&p, end, (flags >> 6) & 7, 3, 0, frames);
    U32(ctrl + CTRL_OBJ_ALPHA) = (u32)compile_channel(&p, end, (flags >> 9) & 7, 1, 0, frames);
    U32(ctrl + CTRL_OBJ_LAST) = last_time(frames);
    /* R (x) S is a constant when neither channel is keyed: compute it once, with the very VU0
     * sequence SetAnmCtrlWork would run (§4 step 3.1), so every step only adds the translation. */
    {
        const u32 *rot = (const u32 *)U32(ctrl + CTRL_OBJ_ROT), *sc = (const u32 *)U32(ctrl + CTRL_OBJ_SCALE);
        if ((!rot || rot[0] == 4) && (!sc || sc[0] == 1)) {
            u32 S[16] ALIGN16;
            sceVu0UnitMatrix(S);
            if (sc) { S[0] = sc[2]; S[5] = sc[3]; S[10] = sc[4]; }
            sceVu0MulMatrix((u32 *)(ctrl + CTRL_OBJ_RS), rot ? rot + 4 : ccIdentity, S);
            U32(ctrl + CTRL_OBJ_HASRS) = 1;
        }
    }
    return ctrl;
}

/* ConvLCNum2ALCNum(chunk, reader, cursor, table, count, 0).
 * DECISION: compiled controllers are ccMalloc blocks; the output buffer at *cursor receives the
 * frame data, and chunk +0x18 is set to its start, so the playback reader opened there reads it.
 * Frame data starts after the first Top whose value is not 0 (Top 1; an end Top is kept). */
void ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs(
    u32 chunk, u32 reader, u32 *cursor, u32 tbl, u32 *count, u32 zero)
{
    const u32 *p = (const u32 *)U32(reader + RB_READ);
    const u32 *end = p + U32(chunk + CHUNK_W);
    u32 frames = U32(chunk + CHUNK_N);
    u32 out = *cursor;
    int copying = 0;
    Table t;
    (void)zero;
    t.tbl = tbl;
    t.count = 0;
    memset(t.key, 0, sizeof t.key);
    for (; t.count < *count; )                /* entries already in the table (normally none) */
        table_add(&t, (U32(tbl + 8 * t.count) - 1) >> 2, U32(tbl + 8 * t.count + 4));
    U32(chunk + CHUNK_DATA) = out;
    U32(chunk + CHUNK_END) = 0xFFFFFFFFu;
    while (p + 2 <= end) {
        u32 kind = p[0] & 0xFFFF, n = p[1];
        const u32 *pay = p + 2;
        int keep = copying;
        if (n > (u32)(end - pay)) break;          /* overrun: stop reading */
        /* DECISION: a record too short for its fixed fields is copied but not interpreted */
        if ((kind == KIND_TOP && n < 1) || ((kind == KIND_OBJECT || kind == KIND_MATERIAL
             || kind == KIND_F_MORPHER || kind == KIND_DIRECT_LIGHT) && n < 2) || (kind == KIND_F_NOTE && n < 3)
            || (kind == KIND_F_OBJ && n < 13))
            kind = 0;
        switch (kind) {
        case KIND_TOP:
            if (pay[0] >= 0xFFFFFF00u) U32(chunk + CHUNK_END) = pay[0];
            if (!copying && pay[0] != 0) {
                copying = 1;
                keep = pay[0] >= 0xFFFFFF00u;     /* Top 1 itself is not kept */
            }
            break;
        case KIND_OBJECT:
            table_add(&t, pay[0], compile_object(pay, n, frames));
            break;
        case KIND_MATERIAL: {
            u32 i = table_find(&t, pay[0]);
            if (U32(tbl + 8 * i + 4) == 0)        /* the first record of a material is used */
                U32(tbl + 8 * i + 4) = ConvALCNum_FsetMatCtrl__10ccAnmChunkFPUiUiUi(chunk, pay, n, frames);
            break;
        }
        case KIND_DIRECT_LIGHT:               /* SetAnmCtrlWork evaluates it into the light (formats.md §4.7) */
            table_add(&t, pay[0], compile_light(pay, n, frames));
            break;
        default:      /* DECISION: the other light records (0x0603, 0x0607, 0x0609) get no entry:
                       * SetAnmCtrlWork does not evaluate them (docs/lights.md) */
            break;
        }
        if (keep) {
            u32 *o = (u32 *)out;
            memcpy(o, p, 8 + 4 * n);
            out += 8 + 4 * n;
            switch (kind) {               /* object references become table positions (LC -> ALC) */
            case KIND_F_MORPHER: {
                u32 i, pairs = pay[1] & 0xFFFF;
                o[2] = table_find(&t, pay[0]);
                for (i = 0; i < pairs && 3 + 2 * i < n; i++) o[4 + 2 * i] = table_find(&t, pay[2 + 2 * i]);
                break;
            }
            case KIND_F_NOTE:
            case KIND_F_OBJ:
                o[2] = table_find(&t, pay[0]);
                break;
            default:
                break;
            }
        } else if (kind == KIND_F_MORPHER) {      /* frame 0's records: their objects still get entries */
            u32 i, pairs = pay[1] & 0xFFFF;
            table_find(&t, pay[0]);
            for (i = 0; i < pairs && 3 + 2 * i < n; i++) table_find(&t, pay[2 + 2 * i]);
        } else if (kind == KIND_F_NOTE || kind == KIND_F_OBJ) {
            table_find(&t, pay[0]);
        }
        p = pay + n;
    }
    U32(out) = 0;                                 /* a zero terminator (the buffer has 64 spare bytes) */
    U32(out + 4) = 0;
    U32(reader + RB_READ) = (u32)p;
    *cursor = out;
    *count = t.count;
}
