"""`make probe` prints the layout it found: sections, segments, overlays, where each required symbol
came from (symbol table or sidecar), and a finding for anything unexpected: a required symbol outside
`main`, a segment that overlaps the harness's memory."""
import os

import pytest

from eemu_ext.loading.elf import load_image
from harness.driver import objects
from harness.driver.game import REQUIRED
from harness.runners.probing.probe_layout import layout_lines
from tests.machine.test_elf_loader import make_elf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ELF = os.path.join(ROOT, "standin", "standin.elf")
STRIPPED = os.path.join(ROOT, "standin", "standin-stripped.elf")


def test_the_stand_in_shows_the_retail_layout_and_no_finding():
    lines, found = layout_lines(load_image(ELF), ELF)
    text = "\n".join(lines)
    for name in ("main", "gcmn.prg", "demo.prg", "desktop.prg", "toppage.prg", "heap"):
        assert f"  section {name} " in text
    assert "window 0x00400800-0x00400820; none resident" in text
    assert text.count("no bytes: sizes the overlay window") == 4
    assert all(" in main, from the symbol table" in line for line in lines if line.startswith("    ")), text
    assert found == []


def test_the_stripped_build_names_its_sections_by_place_and_its_symbols_by_sidecar():
    lines, found = layout_lines(load_image(STRIPPED), STRIPPED)
    text = "\n".join(lines)
    assert "(unnamed #1: main by place)" in text and "(unnamed #3: gcmn.prg by place)" in text
    assert "from the sidecar standin-stripped.elf.syms" in text
    req = [line for line in lines if line.startswith("    ")]
    assert len(req) == len(REQUIRED) + len(objects.REQUIRED) and all(line.endswith("in main, from the sidecar") for line in req), req
    assert found == []


def test_a_required_symbol_outside_main_and_a_segment_over_the_harness_are_findings(tmp_path):
    """An old-style executable: its program in .text, and a segment reaching into 0x01000000."""
    code = bytes(0x100)
    segs = [(0x00100000, code, 0x100), (0x00FF0000, b"\0" * 16, 0x20000)]
    secs = [(".text", 0x00100000, 0x100, 1, 6), (".data", 0x00FF0000, 0x20000, 1, 3)]
    syms = [(name, 0x00100000 + 8 * i, "FUNC", 1) for i, name in enumerate(REQUIRED)]
    path = tmp_path / "old.elf"
    path.write_bytes(make_elf(segs, secs, syms, gp=0x00108000))
    lines, found = layout_lines(load_image(str(path)), str(path))
    kinds = [k for _, k, _ in found]
    assert kinds.count("symbol outside main") == len(REQUIRED)
    overlap = [t for _, k, t in found if k == "segment overlap"]
    assert overlap == ["PT_LOAD 0x00ff0000-0x01010000 overlaps the harness's memory 0x01000000-0x02000000 "
                       "(the harness's structures): the harness would overwrite it"]
    assert {s for s, _, _ in found} == {"warn"}
    assert "no overlay window" in "\n".join(lines)


def test_the_anm_object_functions_are_named_with_their_source_and_a_missing_one_is_a_finding(tmp_path):
    """The probe lists MakeAnimeIndex, SetAnm, ccAnm::Draw, DeleteAnmIndex, ccAnmCtrlFloat_Set and the
    hooked ccObj::Init/Draw, ccModel::Draw and ccEffObj::DrawNoAnm; an executable without them warns."""
    lines, _ = layout_lines(load_image(ELF), ELF)
    text = "\n".join(lines)
    for short in ("MakeAnimeIndex", "SetAnm", "ccAnm::Draw", "DeleteAnmIndex", "ccAnmCtrlFloat_Set", "ccObj::Init",
                  "ccObj::Draw", "ccModel::Draw", "ccEffObj::DrawNoAnm"):
        assert any(line.startswith(f"    {short} ") and line.endswith("in main, from the symbol table")
                   for line in lines), (short, text)
    code = bytes(0x100)
    syms = [(name, 0x00100000 + 8 * i, "FUNC", 1) for i, name in enumerate(REQUIRED)]
    path = tmp_path / "without.elf"
    path.write_bytes(make_elf([(0x00100000, code, 0x100)], [("main", 0x00100000, 0x100, 1, 6)], syms, gp=0x00108000))
    _, found = layout_lines(load_image(str(path)), str(path))
    missing = [t for _, k, t in found if k == "anm-object symbol missing"]
    assert len(missing) == 1 and objects.MAKE_INDEX in missing[0] and objects.MODEL_DRAW in missing[0]


@pytest.mark.slow
def test_make_probe_prints_the_layout_lines():
    import subprocess
    r = subprocess.run(["make", "-s", "probe", f"IMAGE={STRIPPED}"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"layout of {STRIPPED}:" in r.stdout and "from the sidecar standin-stripped.elf.syms" in r.stdout
