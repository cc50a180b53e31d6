"""The retail executable's layout (executable-abi.md §1.1, §1.2, §1.5), on the stand-in built in it:
the program in `main`, the overlays gcmn/demo/desktop/toppage.prg with symbols but no bytes at
0x00400800, their bytes in DATA/<NAME>.PRG, `heap`; the stripped build with its `.syms` sidecar.
A symbol of a non-resident overlay never resolves; the window no resident overlay fills faults;
a malformed sidecar line is an error naming file:line."""
import os
import shutil
import struct

import pytest

from eemu_ext import ElfError, Machine, MemoryFault
from eemu_ext.loading.elf import load_image
from eemu_ext.loading.overlays import OVERLAY_BASE, OverlayError, read_prg
from eemu_ext.loading.sidecar import SidecarError, read_sidecar

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ELF = os.path.join(ROOT, "standin", "standin.elf")
STRIPPED = os.path.join(ROOT, "standin", "standin-stripped.elf")


def _main_end(path):
    """The end of main's loaded bytes: the first PT_LOAD's address plus its file bytes."""
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        seg = next(s for s in ELFFile(f).iter_segments() if s["p_type"] == "PT_LOAD")
        return seg["p_vaddr"] + seg["p_filesz"]


MAIN_END = _main_end(STRIPPED)
GCMN, DEMO = "AnimCtrl__8ccPlayerFv", "DemoMain__Fv"


@pytest.fixture(autouse=True)
def python_engine(monkeypatch):
    """The Python engine (no translation per image) unless a test names its engine."""
    monkeypatch.setenv("EEMU_ENGINE", "python")


@pytest.fixture(params=["unstripped", "stripped"])
def image(request):
    return ELF if request.param == "unstripped" else STRIPPED


def test_the_layout_is_the_retail_one():
    lay = load_image(ELF).layout
    roles = [(s.label, s.role) for s in lay.sections if s.role != "other"]
    assert roles == [("main", "main"), (".reginfo", "reginfo"), ("gcmn.prg", "overlay"), ("demo.prg", "overlay"),
                     ("desktop.prg", "overlay"), ("toppage.prg", "overlay"), ("heap", "heap")]
    ovl = lay.overlays()
    assert all(s.nobits and s.addr == OVERLAY_BASE and s.size > 0 for s in ovl)
    assert lay.window == (OVERLAY_BASE, OVERLAY_BASE + max(s.size for s in ovl))
    heap = next(s for s in lay.sections if s.role == "heap")
    assert heap.addr == lay.window[1] and heap.size == 0


def test_the_stripped_build_has_the_same_layout_by_place_and_the_same_symbols_by_sidecar():
    a, b = load_image(ELF), load_image(STRIPPED)
    assert all(s.name == "" for s in b.layout.sections)
    assert [(s.label, s.role, s.addr, s.size) for s in a.layout.sections if s.role != "other"] == \
           [(s.label, s.role, s.addr, s.size) for s in b.layout.sections if s.role != "other"]
    assert b.layout.sidecar == STRIPPED + ".syms" and b.gp == a.gp and b.segments == a.segments
    # the sidecar lists FUNC and OBJECT symbols; the linker's NOTYPE markers stay in the table alone
    only_a = {n for n in a.symbols if n not in b.symbols}
    assert only_a == {"_gp", "_end", "_heap", "_etext"}
    assert {n: a.symbols[n] for n in b.symbols} == b.symbols
    assert {b.layout.source[n] for n in b.symbols} == {"sidecar"}
    assert {a.layout.source[n] for n in a.symbols} == {"symbol table"}


def test_two_overlays_define_different_symbols_at_the_same_address():
    rows = read_sidecar(STRIPPED + ".syms")
    at_base = {(r.section, r.name) for r in rows if r.va == OVERLAY_BASE}
    assert ("gcmn.prg", GCMN) in at_base and ("demo.prg", DEMO) in at_base


def test_no_overlay_symbol_resolves_without_a_resident_overlay(image):
    img = load_image(image)
    for name in (GCMN, DEMO):
        assert name not in img.symbols
        with pytest.raises(ElfError, match=rf"{name}'? belongs to overlay .*not resident \(resident: none\)"):
            img.symbol(name)


def test_a_foreign_overlays_symbol_never_resolves(image):
    """gcmn resident: its symbols resolve; demo's, at the very same address, never do."""
    m = Machine()
    img = m.load_elf(image, overlay="gcmn")
    assert img.symbol(GCMN) == OVERLAY_BASE
    assert m.call(img.symbol(GCMN)) == 0x6E6D6367          # "gcmn": gcmn's bytes are resident
    with pytest.raises(ElfError, match=rf"{DEMO}'? belongs to overlay demo.prg, which is not resident "
                                       rf"\(resident: gcmn.prg\)"):
        m.symbol(DEMO)
    m2 = Machine()
    img2 = m2.load_elf(image, overlay="DEMO.PRG")
    assert m2.call(img2.symbol(DEMO)) == 0x6F6D6564      # "demo", at the same address
    with pytest.raises(ElfError, match="not resident"):
        img2.symbol(GCMN)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_data_access_in_the_empty_window_is_a_fault_that_says_so(engine, monkeypatch):
    monkeypatch.setenv("EEMU_ENGINE", engine)
    m = Machine()
    img = m.load_elf(ELF)
    memcpy = img.symbol("memcpy")
    with pytest.raises(MemoryFault, match=r"load at 0x00400800 \(in the overlay window 0x00400800-0x004008\w\w "
                                          r"with no resident overlay\) at pc .* \(memcpy"):
        m.call(memcpy, 0x01000000, OVERLAY_BASE, 16)
    with pytest.raises(MemoryFault, match=r"store at 0x00400810 \(in the overlay window .* with no resident overlay\)"):
        m.call(memcpy, OVERLAY_BASE + 0x10, 0x01000000, 16)
    assert m.call(memcpy, 0x01000000, img.layout.window[1], 16) == 0x01000000   # the heap beyond: plain RAM


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_fetch_in_the_empty_window_is_a_fault_that_says_so(engine, monkeypatch):
    monkeypatch.setenv("EEMU_ENGINE", engine)
    m = Machine()
    m.load_elf(ELF)
    with pytest.raises(MemoryFault, match=r"instruction fetch at 0x00400800, .*in the overlay window "
                                          r"0x00400800-0x004008\w\w with no resident overlay"):
        m.call(OVERLAY_BASE)


def test_a_resident_overlay_leaves_the_rest_of_the_window_faulting():
    m = Machine()
    img = m.load_elf(ELF, overlay="demo")
    end = OVERLAY_BASE + img.layout.resident.extent
    assert end < img.layout.window[1]
    with pytest.raises(MemoryFault, match=r"past the resident overlay demo.prg"):
        m.call(img.symbol("memcpy"), 0x01000000, end, 16)


def test_the_prg_files_are_the_overlays_bytes():
    for name, size in (("gcmn.prg", 0x20), ("demo.prg", 0x10)):
        o = read_prg(os.path.join(ROOT, "standin", "DATA", name.upper()), name)
        assert (o.base, o.text, o.data, o.bss, o.label) == (OVERLAY_BASE, size, 0, 0, name)
        assert len(o.body) == size


def test_a_malformed_prg_names_file_and_offset(tmp_path):
    bad = tmp_path / "GCMN.PRG"
    raw = bytearray(open(os.path.join(ROOT, "standin", "DATA", "GCMN.PRG"), "rb").read())
    raw[0:4] = b"XXXX"
    bad.write_bytes(bytes(raw))
    with pytest.raises(OverlayError, match=r"GCMN.PRG: offset 0x0: not an overlay file"):
        read_prg(str(bad), "gcmn.prg")
    raw[0:4] = b"MWo3"
    bad.write_bytes(bytes(raw[:-4]))
    with pytest.raises(OverlayError, match=r"GCMN.PRG: offset 0xC: text 0x20 \+ data 0x0 bytes, but the file holds 0x1c"):
        read_prg(str(bad), "gcmn.prg")


def test_a_missing_overlay_file_names_what_was_looked_for(tmp_path):
    shutil.copy(ELF, tmp_path / "standin.elf")
    with pytest.raises(OverlayError, match=r"overlay gcmn.prg: no DATA/GCMN.PRG beside the executable"):
        load_image(str(tmp_path / "standin.elf"), overlay="gcmn")
    with pytest.raises(ElfError, match=r"--overlay 'nosuch': not an overlay"):
        load_image(ELF, overlay="nosuch")


LINES = [
    ("main\t0x00100000\t8\tFUNC", r":3: 4 tab-separated fields, expected 5 or 6"),
    ("main 0x00100000 8 FUNC _start", r":3: 1 tab-separated fields, expected 5 or 6"),
    ("text\t0x00100000\t8\tFUNC\t_start", r":3: section 'text' is neither main nor an overlay"),
    ("gcmn.prg\t0x00400800\t8\tFUNC\tGc__Fv", r":3: section 'gcmn.prg' is neither main nor an overlay's bare name"),
    ("main\t0x0010zz00\t8\tFUNC\t_start", r":3: va '0x0010zz00' is not a hexadecimal number"),
    ("main\t0x00100000\t-8\tFUNC\t_start", r":3: size '-8' is not a decimal number of bytes"),
    ("main\t0x00100000\t0x8\tFUNC\t_start", r":3: size '0x8' is not a decimal number of bytes"),
    ("main\t0x00100000\t8\tFUNC\t_start\tguess", r":3: how 'guess' is not a carrying pass"),
    ("main\t0x00100000\t8\tFUNC\t_start\texact\tmore", r":3: 7 tab-separated fields, expected 5 or 6"),
    ("main\t0x00100000\t8\tNOTYPE\t_start", r":3: type 'NOTYPE' is neither FUNC nor OBJECT"),
    ("main\t0x00100000\t8\tFUNC\tbad name", r":3: name 'bad name' is not a symbol name"),
    ("main\t0x00f00000\t8\tFUNC\t_far", r":3: _far at 0x00f00000 lies outside main's loaded bytes"),
    ("demo\t0x00100000\t8\tFUNC\tDemoFar__Fv", r":3: DemoFar__Fv of demo.prg at 0x00100000 lies outside the overlay window"),
]


@pytest.mark.parametrize("line,message", LINES, ids=[m.split(": ", 1)[1][:24] for _, m in LINES])
def test_a_malformed_sidecar_line_is_an_error_naming_file_and_line(tmp_path, line, message):
    syms = tmp_path / "standin-stripped.elf.syms"
    good = open(STRIPPED + ".syms").read().splitlines()
    syms.write_text("\n".join(good[:2] + [line] + good[2:]) + "\n")
    with pytest.raises(SidecarError if "lies outside" not in message else ElfError,
                       match=f"^{str(syms)}{message}"):
        load_image(STRIPPED, syms=str(syms))


def test_the_sidecar_beside_the_image_is_found_and_a_blank_or_comment_line_is_no_error(tmp_path):
    shutil.copy(STRIPPED, tmp_path / "vol2.elf")
    with pytest.raises(ElfError, match="no symbol 'memcpy'.*stripped"):
        load_image(str(tmp_path / "vol2.elf")).symbol("memcpy")
    text = open(STRIPPED + ".syms").read()
    (tmp_path / "vol2.elf.syms").write_text("# volume 2\n\n" + text.replace("\n", "\r\n"))
    img = load_image(str(tmp_path / "vol2.elf"))
    assert img.symbol("memcpy") == load_image(ELF).symbol("memcpy")
    assert img.layout.sidecar == str(tmp_path / "vol2.elf.syms")


def sidecar_with(tmp_path, *lines, at=2):
    """The stand-in's sidecar with `lines` inserted before line at+1."""
    syms = tmp_path / "standin-stripped.elf.syms"
    good = open(STRIPPED + ".syms").read().splitlines()
    syms.write_text("\n".join(good[:at] + list(lines) + good[at:]) + "\n")
    return str(syms)


def test_a_symbol_listed_twice_is_refused_naming_file_both_lines_and_the_symbol(tmp_path):
    syms = sidecar_with(tmp_path, "main\t0x00100014\t8\tFUNC\t_start")
    with pytest.raises(SidecarError, match=rf"^{syms}:3: _start is listed twice in main, at lines 1 and 3"):
        load_image(STRIPPED, syms=syms)


def test_a_name_in_two_overlays_is_no_duplicate():
    rows = read_sidecar(STRIPPED + ".syms")
    assert any(r.section != "main" for r in rows)
    load_image(STRIPPED, overlay="demo")


@pytest.mark.parametrize("line,message", [
    ("main\t0x00100000\t4294967295\tFUNC\tbig", r":3: big of 0xffffffff bytes at 0x00100000 reaches past main's "
                                                 rf"loaded bytes \(0x00100000-0x{MAIN_END:08x}\)"),
    (f"main\t0x{MAIN_END - 8:08x}\t16\tOBJECT\ttail", rf":3: tail of 0x10 bytes at 0x{MAIN_END - 8:08x} reaches past main's"),
    ("gcmn\t0x00400810\t32\tFUNC\tlong", r":3: long of 0x20 bytes at 0x00400810 reaches past the overlay window "
                                           r"0x00400800-0x00400820"),
])
def test_a_symbol_larger_than_its_section_is_refused(tmp_path, line, message):
    syms = sidecar_with(tmp_path, line)
    with pytest.raises(SidecarError, match=f"^{syms}{message}"):
        load_image(STRIPPED, syms=syms)


def test_a_function_that_starts_inside_another_is_refused_naming_both(tmp_path):
    syms = sidecar_with(tmp_path, "main\t0x00100018\t8\tFUNC\tinner")
    with pytest.raises(ElfError, match=rf"^{STRIPPED}: function inner at 0x00100018 \({syms}:3\) starts inside "
                                       rf"copy_matrix 0x00100010-0x00100074 \({syms}:2\)"):
        load_image(STRIPPED, syms=syms)


def test_a_function_of_the_symbol_table_that_starts_inside_another_is_refused(tmp_path):
    from tests.machine.test_elf_loader import make_elf
    code = struct.pack("<4I", 0x03E00008, 0, 0x03E00008, 0)
    path = tmp_path / "nested.elf"
    path.write_bytes(make_elf([(0x00100000, code, 0x10)], [("main", 0x00100000, 0x10, 1, 6)],
                              [("outer", 0x00100000, "FUNC", 1, 0x10), ("inner", 0x00100008, "FUNC", 1, 8)]))
    with pytest.raises(ElfError, match=r"nested.elf: function inner at 0x00100008 \(symbol table\) starts inside "
                                       r"outer 0x00100000-0x00100010 \(symbol table\)"):
        load_image(str(path))


def test_a_sidecar_larger_than_the_limit_is_refused_unread(tmp_path, monkeypatch):
    from eemu_ext.loading import sidecar
    syms = sidecar_with(tmp_path)
    monkeypatch.setattr(sidecar, "MAX_BYTES", 1000)
    with pytest.raises(SidecarError, match=rf"^{syms}: \d+ bytes, larger than a symbol sidecar may be \(1000 bytes\)"):
        load_image(STRIPPED, syms=syms)


def test_an_overlong_line_is_refused_even_as_a_comment(tmp_path):
    syms = sidecar_with(tmp_path, "#" + "x" * 5000)
    with pytest.raises(SidecarError, match=rf"^{syms}:3: line of 5001 characters \(at most 4096\)"):
        load_image(STRIPPED, syms=syms)
