"""The probe's structure-offset lines: each offset of the volume's table (executable-abi.md §5, per
volume by volumes.md §7.4) confirmed against the code that reads or writes the field.

A field is confirmed when one of the game functions known to access it (executable-abi.md §4, §6, §7)
holds a load, a store or an address formation (``addiu``) with that immediate off a base register
other than sp and gp, as the machine's instruction table decodes it (eemu_ext.analysis.disasm.accesses). A
field whose functions are all there and none uses the offset is a mismatch: the volume's code has
moved the field, or the table is wrong. A field no listed function is known to touch, or whose
functions the executable does not name, is not checkable and said so.

DECISION: presence, not proof. An immediate that happens to equal the offset in another structure of
the same function confirms it too; the check catches a field that moved away from every function
known to use it, which is what volumes.md §3.1 reports for OUT and QUA (a ccChar field read at +180
instead of +172), not a field that moved onto another one's offset.
"""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

from harness.driver import objects
from harness.driver.game import CONV, FORWARD, INIT_WORK, MODIFY, NOTE_PROCESS, SET_WORK
from harness.driver.stubs import OPEN_DATA

DECODE_FRAME = "DecodeFrameChunk__8ccStreamFP5ccAnmiii"
DECODE_OBJ = "DecodeF_Obj__8ccStreamFP5ccAnmPUi"
DECODE_MORPHER = "DecodeF_Morpher__8ccStreamFP5ccAnmPUiUi"
DECODE_NOTE = "DecodeF_Note__8ccStreamFP5ccAnmPUii"
SET_MATRIX = "SetMatrix_PosRotZYXScale__7ccCoordFPfN21"
SET_ANM, MAKE_INDEX = objects.SET_ANM, objects.MAKE_INDEX
NOT_BASES = (28, 29)          # gp (globals) and sp (the stack frame) address no structure field


class Field(NamedTuple):
    functions: Tuple[str, ...]     # the game functions known to access it (any one suffices)
    via: Optional[str] = None      # the offset is seen as this field's + via's (an embedded structure)


# The offsets of the volume's table (harness/volume.py) and the functions known to access each field
# (executable-abi.md §4-§7, animation-semantics.md). A name with no functions is not checkable.
# DECISION: frameSpd (+0x9C) is not checkable: the spec names no function that reads it (the probe
# reports whether _AnimateForward's argument is the step or a frameSpd reading); the embedded
# reader (+0xB0) is seen through its read pointer at +0xB0 + 0x24, which DecodeFrameChunk follows.
# DECISION: the chain the harness wires for Modify (ccModel +0x22 mmatNum, ccChunkIndex +0x2C,
# ccModelChunk +0x40, the layer at param +0x15C) is not checkable: the spec does not record which
# function follows it (Modify or a helper it calls), and the stand-in's Modify follows none of it.
FIELDS: Dict[str, Field] = {
    "ANM_CHUNK": Field((SET_ANM, FORWARD)),
    "ANM_FRAME_NOW": Field((FORWARD,)),
    "ANM_FRAME_SPD": Field(()),
    "ANM_FRAME_CNT": Field((FORWARD,)),
    "ANM_NOTE_ROOT": Field((NOTE_PROCESS, DECODE_NOTE)),
    "ANM_FUNC_NOTE": Field((NOTE_PROCESS,)),
    "ANM_INDEX": Field((SET_ANM, DECODE_OBJ, DECODE_MORPHER, DECODE_NOTE)),
    "ANM_READER": Field((DECODE_FRAME,), via="READER_PTR"),
    "ANM_STREAM": Field((SET_ANM, FORWARD)),
    "ANM_WORKS": Field((INIT_WORK, FORWARD)),
    "READER_PTR": Field((OPEN_DATA,)),
    "READER_END": Field((OPEN_DATA,)),
    "CHUNK_N": Field((CONV, MAKE_INDEX, SET_ANM)),
    "CHUNK_W": Field((CONV, MAKE_INDEX)),
    "CHUNK_OUT": Field((CONV, MAKE_INDEX, FORWARD)),
    "CHUNK_FLAG": Field((CONV, SET_ANM)),
    "COORD_MATRIX": Field((SET_WORK, SET_MATRIX)),
    "COORD_LOCALTP": Field((SET_WORK, DECODE_OBJ)),
    "COORD_A1": Field((DECODE_OBJ,)),
    "COORD_FLAGS": Field((DECODE_OBJ,)),
    "SCRATCH_POS": Field((SET_WORK,)),
    "SCRATCH_SCALE": Field((SET_WORK,)),
    "SCRATCH_ROT": Field((SET_WORK,)),
    "SCRATCH_ALPHA": Field((SET_WORK,)),
    "SYS_SCRATCH_PTR": Field((SET_WORK,)),
    "INDEX_SUBST": Field((DECODE_FRAME, DECODE_OBJ, INIT_WORK)),
    "INDEX_KIND": Field((DECODE_FRAME, DECODE_OBJ, INIT_WORK)),
    "INDEX_LIVE": Field((SET_ANM,)),
    "MATERIAL_CHUNK": Field((SET_WORK,)),
    "MATERIAL_U": Field((SET_WORK,)),
    "MATERIAL_V": Field((SET_WORK,)),
    "MATCHUNK_CROP_U": Field((SET_WORK,)),
    "MATCHUNK_CROP_V": Field((SET_WORK,)),
    "MODIFYMAT_ARRAY": Field((SET_WORK,)),
    "MODIFYMAT_COUNT": Field((SET_WORK,)),
    "MORPHER_COUNT": Field((MODIFY, DECODE_MORPHER)),
    "MORPHER_PAIRS": Field((MODIFY, DECODE_MORPHER)),
    "MODEL_INDEX": Field((MODIFY,)),
    "MODEL_MMATS": Field((MODIFY,)),
    "MODEL_SCALE": Field((MODIFY,)),
    "MODEL_MMAT_NUM": Field(()),
    "CHUNKINDEX_CHUNK": Field(()),
    "MODELCHUNK_SCALE": Field(()),
    "MMAT_VERTEX_NUM": Field((MODIFY,)),
    "MMAT_VERTICES": Field((MODIFY,)),
    "PARAM_LAYER": Field(()),
    "PARAM_BASE_SCALE": Field((MODIFY,)),
    "PARAM_RWFLAG": Field((MODIFY,)),
    "PARAM_VERTEX_NUM": Field((MODIFY,)),
    "PARAM_VERTICES": Field((MODIFY,)),
}


class Verdict(NamedTuple):
    confirmed: List[str]
    unchecked: List[Tuple[str, str]]            # (field, why)
    mismatches: List[Tuple[str, int, str]]      # (field, offset, the functions that never use it)


def check_offsets(img, offsets: Dict[str, int]) -> Verdict:
    """Each offset of `offsets` against the code of the functions known to access it in `img`."""
    from eemu_ext.analysis.disasm import _loaded, accesses, function_extent
    from eemu_ext.errors import ElfError
    try:
        mem = _loaded(img)
    except ElfError as exc:
        return Verdict([], [(n, str(exc)) for n in offsets], [])
    used: Dict[str, set] = {}

    def offsets_of(fn):
        if fn not in used:
            start = img.symbols[fn]
            used[fn] = {a.offset for a in accesses(mem, start, function_extent(img, start)) if a.base not in NOT_BASES}
        return used[fn]

    confirmed, unchecked, mismatches = [], [], []
    for name, off in offsets.items():
        f = FIELDS.get(name)
        if f is None or not f.functions:
            unchecked.append((name, "no function known to access it"))
            continue
        there = [fn for fn in f.functions if fn in img.symbols]
        if not there:
            unchecked.append((name, "none of its functions named"))
            continue
        want = off + (offsets[f.via] if f.via else 0)
        if any(want in offsets_of(fn) for fn in there):
            confirmed.append(name)
        else:
            mismatches.append((name, want, ", ".join(short(fn) for fn in there)))
    return Verdict(confirmed, unchecked, mismatches)


def short(fn: str) -> str:
    from harness.driver.game import SHORT
    return SHORT.get(fn) or objects.SHORT.get(fn) or fn.split("__")[0]


def offset_lines(img, volume) -> Tuple[List[str], List[Tuple[str, str, str]]]:
    """(the probe's line, [(severity, kind, text)]): one line per volume, an error per mismatch."""
    v = check_offsets(img, volume.offsets)
    m = len(volume.offsets)
    line = (f"  structure offsets: {len(v.confirmed)} of {m} confirmed from the code, {len(v.unchecked)} not "
            f"checkable ({', '.join(n for n, _ in v.unchecked) or 'none'})"
            + (f", {len(v.mismatches)} mismatched" if v.mismatches else ""))
    findings = [("error", "structure offset",
                 f"{name} +0x{off:X} ({volume.key.upper()}'s table): no load, store or address of that offset "
                 f"off a base register in {fns}, which access the field; the volume's code moved it or the "
                 f"table is wrong") for name, off, fns in v.mismatches]
    return [line], findings
