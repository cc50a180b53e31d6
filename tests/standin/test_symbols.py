"""The stand-in exports the harness ABI: executable-abi.md §4, §6, §7 and §8.1 (symbols, gp, data)."""
import struct

import pytest

from .elfinfo import load

CALLED = (  # executable-abi.md §4
    "ConvLCNum2ALCNum__10ccAnmChunkFP14ccStreamReaderRPUcP16ccAnmIndexCntTblRUiUs",
    "InitAnmCtrlWork__5ccAnmFP9ccAnmCtrlP10ccAnmIndex",
    "ResetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWork",
    "SetAnmCtrlWork__5ccAnmFP13ccAnmCtrlWorki",
    "_AnimateForward__5ccAnmFUi",
    "NoteProcess__5ccAnmFv",
    "Modify__9ccMorpherFP16ccDrawModelParam",
)
STUBS = (  # executable-abi.md §6
    "ccMalloc__FUi", "__nw__FUi", "ccMemalign__FUiUi", "ccFree__FPv", "__dl__FPv",
    "OpenData__14ccRingBufferThFPv", "GetWork__16ccDrawPacketCtrlFi",
)
HELPERS = (  # executable-abi.md §7, under the stand-in's names
    "sceVu0RotMatrix", "sceVu0RotMatrixX", "sceVu0RotMatrixY", "sceVu0RotMatrixZ",
    "_sceVu0ecossin", "sceVu0MulMatrix", "sceVu0TransMatrix", "m2a", "a2m", "EigenVector",
    "EigenVec2Mat", "sinf", "cosf", "atan2", "memcpy", "memset",
    "ccAnmCtrlFloat_Set", "ccAnmCtrlFloat_SetCtrl", "ccAnmCtrlFVec3_Set", "ccAnmCtrlFVec3_SetCtrl",
    "ccAnmCtrlRot_Set", "ccAnmCtrlRot_SetCtrl", "ConvALCNum_FsetMatCtrl__10ccAnmChunkFPUiUiUi",
    "DecodeFrameChunk__8ccStreamFP5ccAnmiii", "DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi",
    "DecodeF_Note__8ccStreamFP5ccAnmPUii", "DecodeF_Obj__8ccStreamFP5ccAnmPUi",
    "DelAll__9ccAnmNoteFv", "SetMatrix_PosRotZYXScale__7ccCoordFPfN21",
)
CATEGORY_TABLES = (  # formats.md §1.3
    "cmnCCSTbl", "gcmnCCSTbl", "demoCCSTbl", "desktopCCSTbl", "toppageCCSTbl", "menuCCSTbl",
    "effectCCSTbl", "equipCCSTbl", "skillCCSTbl", "spcCCSTbl", "pcCCSTbl", "npcCCSTbl",
    "gimmickCCSTbl", "enemyCCSTbl", "bossCCSTbl", "townCCSTbl", "fieldCCSTbl", "dungeonCCSTbl",
    "eventCCSTbl",
)


@pytest.fixture(scope="module")
def img():
    return load()


def test_every_function_is_a_func_symbol_at_a_distinct_address(img):
    """§8.1 item 1: every §4 function and §6 stub target is a FUNC; hooks are keyed by address."""
    names = CALLED + STUBS + HELPERS
    missing = [n for n in names if n not in img.symbols]
    assert not missing, f"{img.path}: missing symbols {missing}"
    wrong = [n for n in names if img.symbols[n].kind != "FUNC"]
    assert not wrong, f"not FUNC: {wrong}"
    addrs = [img.symbols[n].value for n in names]
    assert len(set(addrs)) == len(addrs), "two required functions share an address"
    assert all(img.symbols[n].size >= 8 for n in names), "a function with no body"


def test_data_symbols_are_objects(img):
    """§8.1 item 2: ccSys, funcDefaultNoteProcess, S5432 and the archive index tables are OBJECTs."""
    for n in ("ccSys", "funcDefaultNoteProcess", "S5432", "categoryFDTbl", "cateCDOfsTbl",
              "directCCSTbl") + CATEGORY_TABLES:
        assert n in img.symbols, n
        assert img.symbols[n].kind == "OBJECT", n
    assert img.symbols["ccSys"].size == 4
    assert img.symbols["categoryFDTbl"].size == 4 * 20
    assert img.symbols["cateCDOfsTbl"].size == 8 * 20
    for n in CATEGORY_TABLES:
        assert img.symbols[n].size % 44 == 0 and img.symbols[n].size >= 44, n


def _read(img, addr, n):
    from elftools.elf.elffile import ELFFile
    with open(img.path, "rb") as f:
        elf = ELFFile(f)
        for seg in elf.iter_segments():
            if seg["p_type"] == "PT_LOAD" and seg["p_vaddr"] <= addr < seg["p_vaddr"] + seg["p_filesz"]:
                return seg.data()[addr - seg["p_vaddr"]:addr - seg["p_vaddr"] + n]
    raise AssertionError(f"0x{addr:08x} is not in a loaded segment")


def test_initial_data_is_in_the_image(img):
    """§8.1 item 4 and animation-semantics.md constants: S5432 holds the four SIN words, the
    pointer variables start at 0, and categoryFDTbl points at the 20 tables in order."""
    s = img.symbols
    assert struct.unpack("<4I", _read(img, s["S5432"].value, 16)) == (
        0x362E9C14, 0xB94FB21F, 0x3C08873E, 0xBE2AAAA4)
    assert s["S5432"].value % 16 == 0, "LQC2 needs a 16-byte aligned S5432"
    assert _read(img, s["ccSys"].value, 4) == bytes(4)
    assert _read(img, s["funcDefaultNoteProcess"].value, 4) == bytes(4)
    ptrs = struct.unpack("<20I", _read(img, s["categoryFDTbl"].value, 80))
    assert list(ptrs) == [s[n].value for n in CATEGORY_TABLES + ("directCCSTbl",)]
    for n in CATEGORY_TABLES:   # each table ends with an all-zero 44-byte record
        tbl = _read(img, s[n].value, s[n].size)
        assert tbl[-44:] == bytes(44), n


def test_gp_and_header(img):
    """§1.4, §8.1 item 3: gp in .reginfo (and _gp); an R5900 EABI64 MIPS III executable at 0x00100000,
    everything loaded below 0x01000000 (the harness's memory, checks.md §8.1)."""
    assert img.reginfo_gp == img.symbols["_gp"].value != 0
    assert img.flags & 0xFFFFF000 == 0x20924000
    assert img.text_addr == 0x00100000
    assert all(s.value < 0x01000000 for s in img.symbols.values() if s.kind in ("FUNC", "OBJECT"))


def test_category_tables_index_the_synthetic_archive():
    """§8.1 item 2 / formats.md §1.3: the linked tables describe the seed-1 DATA.BIN, so the
    corpus opened through the stand-in's tables lists the same chunks as the archive scan."""
    import os
    from .elfinfo import ELF_PATH, ROOT
    data = os.path.join(ROOT, "build", "synth", "DATA.BIN")
    if not os.path.exists(data):
        pytest.skip("no build/synth/DATA.BIN (make corpus)")
    corpus = pytest.importorskip("corpus")
    via_tables = corpus.open_corpus(data=data, image=ELF_PATH)
    scanned = corpus.open_corpus(data=data)
    assert via_tables.chunk_ids() == scanned.chunk_ids()
