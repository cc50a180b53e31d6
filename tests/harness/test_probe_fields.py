"""The probe checks each volume's structure offsets against the code (volumes.md §7.4): every offset of
executable-abi.md §5 the harness touches must be used, as an immediate off a base register, by a game
function known to access that field; one the code never uses there is a NOT READY line naming the
offset, the function and the volume."""
import os
import shutil
import struct
import subprocess
import sys

import pytest
from elftools.elf.elffile import ELFFile

from eemu_ext.loading.elf import load_image
from harness.driver.game import FORWARD, INIT_WORK
from harness.runners.probing.probe_fields import FIELDS, check_offsets
from harness.volume import VOLUMES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDINS = {"inf": "standin", "mut": "standin/volumes/mut", "out": "standin/volumes/out", "qua": "standin/volumes/qua"}
UNCHECKABLE = ["ANM_FRAME_SPD", "CHUNKINDEX_CHUNK", "MODELCHUNK_SCALE", "MODEL_MMAT_NUM", "PARAM_LAYER"]


def stripped(key):
    path = os.path.join(ROOT, STANDINS[key], "standin-stripped.elf")
    return path, load_image(path, syms=path + ".syms")


def test_every_offset_of_the_volume_table_has_its_functions_or_says_it_is_not_checkable():
    assert set(FIELDS) == set(VOLUMES[0].offsets)
    assert sorted(n for n, f in FIELDS.items() if not f.functions) == UNCHECKABLE


@pytest.mark.parametrize("key", sorted(STANDINS))
def test_each_stand_in_volumes_code_confirms_its_offsets(key):
    _, img = stripped(key)
    v = check_offsets(img, next(x for x in VOLUMES if x.key == key).offsets)
    assert v.mismatches == []
    assert len(v.confirmed) == 45 and [n for n, _ in v.unchecked] == UNCHECKABLE


def test_a_table_that_moves_a_field_the_code_does_not_is_a_mismatch_naming_offset_and_functions():
    _, img = stripped("out")
    moved = dict(VOLUMES[2].offsets, ANM_FRAME_NOW=0x9A, ANM_READER=0xB4)
    v = check_offsets(img, moved)
    assert v.mismatches == [("ANM_FRAME_NOW", 0x9A, "_AnimateForward"), ("ANM_READER", 0xB4 + 0x24, "DecodeFrameChunk")]


def code_moves_anm_works(tmp_path):
    """OUT's stand-in with ccAnm's work list moved from +0x104 to +0x108 in the code of both functions
    known to use it (every load and store of 0x104 off a base register rewritten), its sidecar beside."""
    from eemu_ext.analysis.disasm import _loaded, accesses, function_extent
    src, img = stripped("out")
    mem = _loaded(img)
    data = bytearray(open(src, "rb").read())
    with open(src, "rb") as f:
        lo, file_at = next((s["p_vaddr"], s["p_offset"]) for s in ELFFile(f).iter_segments()
                           if s["p_type"] == "PT_LOAD" and s["p_filesz"])
    patched = 0
    for fn in (INIT_WORK, FORWARD):
        start = img.symbols[fn]
        for a in accesses(mem, start, function_extent(img, start)):
            if a.offset == 0x104 and a.kind != "address" and a.base not in (28, 29):
                at = file_at + a.pc - lo
                word, = struct.unpack_from("<I", data, at)
                struct.pack_into("<I", data, at, (word & ~0xFFFF) | 0x108)
                patched += 1
    assert patched >= 2
    exe = tmp_path / "standin-stripped.elf"
    exe.write_bytes(bytes(data))
    shutil.copy(src + ".syms", str(exe) + ".syms")
    return str(exe)


def test_a_volume_whose_code_moves_a_field_is_not_ready_naming_offset_function_and_volume(tmp_path):
    exe = code_moves_anm_works(tmp_path)
    v = check_offsets(load_image(exe, syms=exe + ".syms"), VOLUMES[2].offsets)
    assert v.mismatches == [("ANM_WORKS", 0x104, "InitAnmCtrlWork, _AnimateForward")]
    r = subprocess.run([sys.executable, "-m", "harness", "probe", "--image", exe], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-2000:]
    assert "  structure offsets: 44 of 50 confirmed from the code, 5 not checkable (ANM_FRAME_SPD, " in r.stdout
    assert ("ERROR structure offset: ANM_WORKS +0x104 (OUT's table): no load, store or address of that offset off a "
            "base register in InitAnmCtrlWork, _AnimateForward") in r.stdout, r.stdout[-3000:]
    assert "verdict: NOT READY" in r.stdout


def test_the_probe_prints_the_structure_offsets_line_of_its_volume():
    path, _ = stripped("qua")
    r = subprocess.run([sys.executable, "-m", "harness", "probe", "--image", path], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    lines = r.stdout.splitlines()
    at = next(i for i, s in enumerate(lines) if s.startswith("  volume QUA (Quarantine, SLUS_205.64)"))
    assert lines[at + 2] == ("  structure offsets: 45 of 50 confirmed from the code, 5 not checkable "
                             f"({', '.join(UNCHECKABLE)})")

