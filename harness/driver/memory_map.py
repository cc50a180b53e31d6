"""The harness's memory layout: where its own structures live in EE RAM (checks.md §8.1)."""

SYS = 0x01000000          # stand-in ccSys object; SYS + 0x25C -> SCRATCH
SYS_SIZE = 0x260
SYS_SCRATCH_PTR = 0x25C
RB = 0x01000400           # standalone ccRingBufferTh read by ConvLCNum2ALCNum (64 bytes)
RB_SIZE = 64
CHUNK = 0x01000800        # ccAnmChunk (48 bytes)
CHUNK_SIZE = 48
DATAPTR = 0x01000840      # u32 cursor argument of ConvLCNum2ALCNum
NUM = 0x01000844          # u32 count argument
NOTE_FUNC = 0x01000900    # stored as funcNoteProcess and hooked; never holds code
TBL = 0x01001000          # ccAnmIndexCntTbl, 8 bytes per entry
ANM = 0x01003000          # ccAnm (0x110 bytes)
ANM_SIZE = 0x110
STREAM = 0x01003400       # ccStream (0x200 bytes)
STREAM_SIZE = 0x200
IDX = 0x01004000          # ccAnmIndex array, 12 bytes per entry
MORPH_PARAM = 0x01008000  # ccDrawModelParam (0x1A0 bytes)
MORPH_PARAM_SIZE = 0x1A0
SCRATCH = 0x01010000      # the ccSys scratch area, up to 0x0107FFFF
SCRATCH_END = 0x01080000
DATA_BUF = 0x01100000     # the chunk's sub-record bytes, up to 0x011FFFFF
DATA_BUF_END = 0x01200000
HEAP = 0x01200000         # bump-allocator arena
HEAP_END = 0x01F00000     # also the reader's end limit
STACK_TOP = 0x01FFF000
RETURN_SENTINEL = 0xFFFFFFF0
# The harness's own memory: SYS up to the end of RAM (executable-abi.md §1.3: "0x01000000 and above").
# DECISION: the range the harness refuses an executable's segments in is SYS..RAM end; the stand-in
# and the game load at 0x00100000, below it.
HARNESS_LOW = SYS
HARNESS_HIGH = 0x02000000

# Table capacities implied by the layout (TBL..ANM, IDX..MORPH_PARAM).
TBL_MAX_ENTRIES = (ANM - TBL) // 8
IDX_MAX_ENTRIES = (MORPH_PARAM - IDX) // 12   # ccAnmIndex entries (INDEX_SIZE)

# Structure offsets the harness touches (executable-abi.md §5).
ANM_CHUNK = 0x94
ANM_FRAME_NOW = 0x98
ANM_FRAME_SPD = 0x9C
ANM_FRAME_CNT = 0x9E
ANM_NOTE_ROOT = 0xA0
ANM_FUNC_NOTE = 0xA4
ANM_INDEX = 0xAC
ANM_READER = 0xB0
ANM_STREAM = 0xF8
ANM_WORKS = 0x104
READER_PTR = 0x24
READER_END = 0x28
CHUNK_N = 0x10
CHUNK_W = 0x14
CHUNK_OUT = 0x18
CHUNK_FLAG = 0x24
COORD_SIZE = 0x100
COORD_MATRIX = 0x40
COORD_LOCALTP = 0x88
COORD_A1 = 0xA1
COORD_FLAGS = 0xA2
SCRATCH_POS = 0x00
SCRATCH_SCALE = 0x50
SCRATCH_ROT = 0x90
SCRATCH_ALPHA = 0xD0
SCRATCH_BYTES = 0xD4
MORPHER_SIZE = 0x94
MORPHER_COUNT = 0x10
MORPHER_PAIRS = 0x14
MODEL_SIZE = 0x40
# ccAnmIndex (executable-abi.md §5.5), 12 bytes an entry.
INDEX_SIZE = 12
INDEX_SUBST = 0x04        # ptr: the object's instance (ccCoord, ccMorpher, ccModel, ccAnmModifyMat list)
INDEX_KIND = 0x08         # u16: the instance's chunk kind (INDEX_KIND_OBJ for object controllers)
INDEX_LIVE = 0x0A         # u8: 1 for every entry in playback
# Materials (executable-abi.md §5.8): ccMaterial, its run-time chunk, the ccAnmModifyMat list.
MATERIAL_BLOCK = 0x20     # DECISION: each of the five blocks the harness wires, zeroed
MATERIAL_CHUNK = 0x0C     # ccMaterial: ptr to the material's chunk structure
MATERIAL_U = 0x14         # ccMaterial: u16 texture offset u, written by SetAnmCtrlWork
MATERIAL_V = 0x16
MATCHUNK_CROP_U = 0x14    # the material chunk at run time: u16 cropU, cropV
MATCHUNK_CROP_V = 0x16
MODIFYMAT_ARRAY = 0x00    # ccAnmModifyMat: ptr to the array of material pointers
MODIFYMAT_COUNT = 0x04    # u16 count (1 in the harness)
# Morphing (executable-abi.md §5.9): ccModel, ccChunkIndex, ccModelChunk, ccMmat, ccDrawModelParam.
MODEL_INDEX = 0x00        # ccModel: ptr to a ccChunkIndex
MODEL_MMATS = 0x08        # ccModel: ptr to the ccMmat array
MODEL_SCALE = 0x0C        # ccModel: vertexScale bits
MODEL_MMAT_NUM = 0x22     # ccModel: u16 mmatNum (1 in the harness)
CHUNKINDEX_SIZE = 0x40
CHUNKINDEX_CHUNK = 0x2C   # ccChunkIndex: ptr to the ccModelChunk
MODELCHUNK_SIZE = 0x60
MODELCHUNK_SCALE = 0x40   # ccModelChunk: vertexScale bits
MMAT_SIZE = 0x40
MMAT_VERTEX_NUM = 0x04    # ccMmat: vertexNum
MMAT_VERTICES = 0x10      # ccMmat: ptr to vertexData (s16·3 a vertex, then 8 bytes of padding)
VERTEX_PAD = 8
LAYER_SIZE = 0x40         # the zeroed layer block the harness supplies
PARAM_LAYER = 0x15C       # ccDrawModelParam: ptr to the layer
PARAM_BASE_SCALE = 0x16C  # ccDrawModelParam: base vertexScale bits
PARAM_RWFLAG = 0x176      # ccDrawModelParam: u16 rwflag (bit 0: blend in place)
PARAM_VERTEX_NUM = 0x180  # ccDrawModelParam: vertex count
PARAM_VERTICES = 0x184    # ccDrawModelParam: vertexData in, the result out
KIND_OBJECT = 0x0102
KIND_MATERIAL = 0x0202
KIND_DIRECT_LIGHT = 0x0605
INDEX_KIND_OBJ = 0x0100
# The direct light (formats.md §4.7, docs/lights.md): the block the harness gives a light's work,
# and its 15 compared words in the reference's order (Animation.light_words). Beam start, beam
# end, the radii and radius 2's square are the spec's offsets. DECISION: position, rotation and
# colour at +0x110, +0x120, +0x130 (three words each) and intensity at +0x140, right before them
# (the inferred rule "direct light fields").
INDEX_KIND_LIGHT = 0x0600
LIGHT_SIZE = 0x160
LIGHT_WORDS = (0x110, 0x114, 0x118, 0x120, 0x124, 0x128, 0x130, 0x134, 0x138, 0x140,
               0x144, 0x148, 0x14C, 0x150, 0x154)

# Set-up guards: a set-up that cannot fail silently.
# DECISION: the poison is a signalling-NaN-like pattern no float the game computes from finite
# data can produce; every scratch word SetAnmCtrlWork does not write reads back as it.
POISON = 0x7FBADBAD
# DECISION: 8 guard words after the 4W + 64-byte output buffer, checked after every load.
GUARD = 0xFEEDFACE
GUARD_WORDS = 8
OUT_SPARE = 64            # the output buffer holds 4W + 64 bytes (executable-abi.md §5.3)
# DECISION: an instance for an index entry the harness has no other use for (F_Ambient, F_Camera,
# light and note objects): a zeroed block of the largest instance size the spec gives (ccCoord).
INSTANCE_SIZE = COORD_SIZE


def harness_overlap(segments):
    """The first (lo, hi) of a loaded segment ((vaddr, bytes) pairs) that reaches into
    HARNESS_LOW..HARNESS_HIGH, in RAM or a mirror of it, else None."""
    from eemu_ext.memory import RAM_MIRRORS, RAM_SIZE
    for vaddr, data in segments:
        for base in RAM_MIRRORS:
            lo = vaddr - base
            if 0 <= lo < RAM_SIZE and lo < HARNESS_HIGH and lo + len(data) > HARNESS_LOW:
                return vaddr, vaddr + len(data)
    return None
