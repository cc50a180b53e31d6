"""ELF loading (executable-abi.md §1.2, §1.4, §1.5): segments, zero fill, overlays, symbols, gp,
stripped files, and a clear ElfError naming the path and the problem for every bad file."""
import os
import struct

import pytest

from eemu_ext import ElfError, Machine
from eemu_ext.errors import MemoryFault
from eemu_ext.loading.elf import load_image

HERE = os.path.dirname(__file__)
INT_PROG = os.path.join(HERE, "cprog", "int_prog.elf")

STT = {"NOTYPE": 0, "OBJECT": 1, "FUNC": 2, "SECTION": 3, "FILE": 4}


def make_elf(segments, sections=(), symbols=(), gp=None, entry=0x00100000, flags=0x20924001):
    """A minimal ELF32 LE MIPS executable.

    segments: (vaddr, data, memsz[, p_flags]) (p_flags default 7, RWX); sections: (name, addr, size, sh_type, flags) -- added after the
    null section, their indices start at 1; symbols: (name, value, type, shndx[, size]);
    gp: a .reginfo section with ri_gp_value = gp."""
    shstr = b"\0"
    strtab = b"\0"
    secs = list(sections)
    body = b""
    base = 52 + 32 * len(segments)
    phdrs = b""
    for vaddr, data, memsz, *pflags in segments:
        off = base + len(body) if data else 0
        phdrs += struct.pack("<8I", 1, off, vaddr, vaddr, len(data), memsz, (pflags or [7])[0], 16)
        body += data
    sh_entries = [b"\0" * 40]
    for name, addr, size, typ, fl in secs:
        no = len(shstr)
        shstr += name.encode() + b"\0"
        sh_entries.append(struct.pack("<10I", no, typ, fl, addr, 0, size, 0, 0, 4, 0))
    n_user = len(sh_entries)
    extra = []
    if gp is not None:
        data = struct.pack("<6I", 0, 0, 0, 0, 0, gp)
        extra.append((".reginfo", 0x70000006, data, 0, 0, 24))
    if symbols:
        syms = b"\0" * 16
        for name, value, typ, shndx, *size in symbols:
            no = len(strtab)
            strtab += name.encode() + b"\0"
            syms += struct.pack("<IIIBBH", no, value, (size or [0])[0], (1 << 4) | STT[typ], 0, shndx)
        strtab_index = n_user + len(extra) + 1
        extra.append((".symtab", 2, syms, strtab_index, 1, 16))
        extra.append((".strtab", 3, strtab, 0, 0, 0))
    for name, typ, data, link, info, entsize in extra:
        no = len(shstr)
        shstr += name.encode() + b"\0"
        off = base + len(body)
        body += data
        sh_entries.append(struct.pack("<10I", no, typ, 0, 0, off, len(data), link, info, 4, entsize))
    no = len(shstr)
    shstr += b".shstrtab\0"
    sh_entries.append(struct.pack("<10I", no, 3, 0, 0, base + len(body), len(shstr), 0, 0, 1, 0))
    body += shstr
    while (base + len(body)) % 4:
        body += b"\0"
    shoff = base + len(body)
    ident = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
    hdr = ident + struct.pack("<HHIIIIIHHHHHH", 2, 8, 1, entry, 52 if segments else 0, shoff, flags, 52, 32,
                              len(segments), 40, len(sh_entries), len(sh_entries) - 1)
    return hdr + phdrs + body + b"".join(sh_entries)


@pytest.fixture
def elf_file(tmp_path):
    def write(data, name="t.elf"):
        p = tmp_path / name
        p.write_bytes(data)
        return str(p)
    return write


def game_like(gp_in_reginfo=True):
    """The shape of SLUS_202.67 (§1.1): a main segment with .bss, four overlay windows with no file
    bytes, an empty heap segment; symbols in main, in an overlay, duplicates, SECTION/FILE/UNDEF."""
    code = struct.pack("<4I", 0x03E00008, 0x24020007, 0, 0)
    segs = [(0x00100000, code, 0x100), (0x00400800, b"", 0x1000), (0x00400800, b"", 0x800),
            (0x00730600, b"", 0)]
    secs = [("main", 0x00100000, 0x10, 1, 6), (".bss", 0x00100010, 0xF0, 8, 3),
            ("gcmn.prg", 0x00400800, 0x1000, 1, 6), ("heap", 0x00730600, 0, 8, 3)]
    syms = [("ret7", 0x00100000, "FUNC", 1), ("dup", 0x00100008, "OBJECT", 1), ("dup", 0x00100004, "FUNC", 1),
            ("bss_var", 0x00100010, "OBJECT", 2), ("ovl_func", 0x00400900, "FUNC", 3),
            ("_end", 0x00730600, "NOTYPE", 4), ("", 0x00100000, "FUNC", 1), ("main", 0x00100000, "SECTION", 1),
            ("crt0.s", 0, "FILE", 0xFFF1), ("mcUndefined", 0, "FUNC", 0), ("_gp", 0x00108000, "NOTYPE", 0xFFF1)]
    return make_elf(segs, secs, syms, gp=0x00107FF0 if gp_in_reginfo else None)


def test_segments_zero_fill_and_overlays(elf_file):
    """§1.2: filesz>0 segments are copied, memsz beyond filesz is zero, filesz==0 segments load nothing."""
    m = Machine()
    m.write(0x00100010, b"\xAA" * 16)                 # must be zeroed by the .bss fill
    m.write(0x00400800, b"\xBB" * 4)                  # overlay window: untouched
    img = m.load_elf(elf_file(game_like()))
    assert m.read_u32(0x00100000) == 0x03E00008 and m.read(0x00100010, 16) == bytes(16)
    assert m.read(0x00400800, 4) == b"\xBB" * 4
    assert img.entry == 0x00100000 and img.path.endswith("t.elf")
    assert m.call("ret7") == 7


def test_symbol_rules(elf_file):
    """§1.5: drop empty, SECTION, FILE, UNDEF and unloaded-overlay symbols; FUNC beats OBJECT."""
    img = load_image(elf_file(game_like()))
    assert img.symbols["dup"] == 0x00100004
    assert img.symbols["ret7"] == 0x00100000 and img.symbols["bss_var"] == 0x00100010
    assert "ovl_func" not in img.symbols and "main" not in img.symbols and "crt0.s" not in img.symbols
    assert "mcUndefined" not in img.symbols and "" not in img.symbols
    assert img.symbols["_end"] == 0x00730600 and img.symbols["_gp"] == 0x00108000
    assert img.symbolize(0x00100004) == "dup" and img.symbolize(0x00100008) in ("dup+0x4", "bss_var")


def test_gp_from_reginfo_else_gp_symbol(elf_file):
    """§1.4: gp is .reginfo word 5, or the _gp symbol when that is 0 / absent."""
    assert load_image(elf_file(game_like(True), "a.elf")).gp == 0x00107FF0
    assert load_image(elf_file(game_like(False), "b.elf")).gp == 0x00108000
    img = load_image(INT_PROG)
    assert img.gp == img.symbols["_gp"]


def test_stripped_elf_runs_by_address(elf_file):
    path = elf_file(make_elf([(0x00100000, struct.pack("<3I", 0x03E00008, 0x24020009, 0), 12)]))
    m = Machine()
    img = m.load_elf(path)
    assert img.symbols == {} and m.call(0x00100000) == 9
    with pytest.raises(ElfError, match=r"no symbol 'ret'.*no symbol table"):
        m.symbol("ret")
    assert m.symbolize(0x00100004) == "0x00100004"


@pytest.mark.parametrize("mutate,problem", [
    (lambda b: b"MZ" + b[2:], "not an ELF"),
    (lambda b: b[:4] + b"\x02" + b[5:], "64-bit"),
    (lambda b: b[:5] + b"\x02" + b[6:], "big-endian"),
    (lambda b: b[:18] + struct.pack("<H", 62) + b[20:], "not a MIPS"),
    (lambda b: b[:40], "truncated"),
    (lambda b: b[:70], "truncated|malformed"),
])
def test_bad_files_name_path_and_problem(elf_file, mutate, problem):
    good = game_like()
    path = elf_file(mutate(good), "bad.elf")
    with pytest.raises(ElfError, match=problem) as e:
        Machine().load_elf(path)
    assert "bad.elf" in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(ElfError, match="nothere.elf.*cannot read"):
        Machine().load_elf(tmp_path / "nothere.elf")


def test_segment_outside_memory(elf_file):
    path = elf_file(make_elf([(0x05000000, b"\0" * 8, 8)]), "far.elf")
    with pytest.raises(ElfError, match="far.elf.*outside EE memory"):
        Machine().load_elf(path)


def test_disasm_command(capsys):
    from eemu_ext.__main__ import main
    assert main(["disasm", INT_PROG, "gcd"]) == 0
    out = capsys.readouterr().out
    assert "gcd:" in out and "div a0, a1" in out
    assert any(ln.split()[2:3] in (["beq"], ["bne"]) and "gcd+0x" in ln for ln in out.splitlines())
    assert main(["disasm", INT_PROG, "nosuch"]) == 2
    assert "no symbol 'nosuch'" in capsys.readouterr().err


def _limited_python(code, limit=1 << 30):
    """Run `code` in a Python whose address space is capped at `limit` bytes: what it allocates
    beyond that fails there, not on the shared machine."""
    import resource
    import subprocess
    import sys

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    root = os.path.dirname(os.path.dirname(HERE))
    return subprocess.run([sys.executable, "-c", code], cwd=root, preexec_fn=cap,
                          capture_output=True, text=True, timeout=120)


def test_a_segment_larger_than_ee_memory_is_refused_before_it_is_allocated(elf_file):
    """A PT_LOAD p_memsz of 4 GiB is an ElfError naming the header and the size, found from the
    header alone: the loader never builds the 4 GiB of zero fill (it runs here under a 1 GiB cap)."""
    path = elf_file(make_elf([(0x00100000, b"\0" * 8, 0xFFFFFFF0)]), "huge.elf")
    r = _limited_python(f"from eemu_ext.loading.elf import load_image; load_image({path!r})")
    assert "Traceback" in r.stderr and "ElfError" in r.stderr, r.stderr[-2000:]
    last = r.stderr.strip().splitlines()[-1]
    assert "huge.elf" in last and "p_memsz 0xfffffff0" in last and "EE memory" in last, last


def test_disasm_of_an_elf_with_a_4_gib_segment_is_one_line_error(elf_file):
    path = elf_file(make_elf([(0x00100000, b"\0" * 8, 0xFFFFFFF0)]), "huge.elf")
    r = _limited_python(f"import sys; from eemu_ext.__main__ import main; sys.exit(main(['disasm', {path!r}]))")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "huge.elf" in r.stderr and "p_memsz" in r.stderr


def test_disasm_of_a_segment_outside_memory_is_one_line_error(elf_file, capsys):
    from eemu_ext.__main__ import main
    path = elf_file(make_elf([(0x05000000, b"\0" * 8, 8)]), "far.elf")
    assert main(["disasm", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "far.elf" in err and "outside EE memory" in err


JUMP_A0 = (0x00800008, 0)                      # jr a0; nop
RET_5 = (0x03E00008, 0x24020005)               # jr ra; addiu v0, zero, 5


def _words(ws):
    return struct.pack(f"<{len(ws)}I", *ws)


def test_instructions_come_only_from_the_file_bytes_of_executable_segments(elf_file):
    """Code is what the file gives an executable (PF_X) segment: a jump into the zero fill past
    p_filesz (memory the program or the harness writes data to) or into a segment without PF_X
    faults as a fetch outside the executable's code, in both engines, even with valid code there."""
    bss_target, data_target = 0x00100800, 0x00200000
    path = elf_file(make_elf([(0x00100000, _words(JUMP_A0 + (0, 0)), 0x1000, 7),
                              (0x00200000, _words(RET_5 + (0, 0)), 0x100, 6)]), "split.elf")
    for target in (bss_target, data_target):
        m = Machine()
        m.load_elf(path)
        m.write(bss_target, _words(RET_5))       # data that decodes as code
        with pytest.raises(MemoryFault, match="outside the executable's loaded segments") as e:
            m.call(0x00100000, target)
        assert e.value.pc == target
    m = Machine()
    m.load_elf(path)
    m.allow_fetch(bss_target, bss_target + 8)    # declared code runs as before
    m.write(bss_target, _words(RET_5))
    assert m.call(0x00100000, bss_target) == 5


def test_an_image_that_marks_no_segment_executable_runs_its_file_bytes_but_not_its_zero_fill(elf_file):
    path = elf_file(make_elf([(0x00100000, _words(JUMP_A0 + (0, 0)), 0x1000, 6)]), "unmarked.elf")
    m = Machine()
    m.load_elf(path)
    m.write(0x00100800, _words(RET_5))
    with pytest.raises(MemoryFault, match="outside the executable's loaded segments"):
        m.call(0x00100000, 0x00100800)


def test_disasm_takes_the_short_names_coverage_function_takes(capsys):
    """`disasm ELF NoteProcess` resolves the name as `harness coverage --function NoteProcess` does
    (one resolver, eemu_ext.loading.function_names): the symbol, its readable name or the part after '::'."""
    from eemu_ext.__main__ import main
    standin = os.path.join(HERE, "..", "..", "standin", "standin.elf")
    for name in ("NoteProcess__5ccAnmFv", "ccAnm::NoteProcess", "NoteProcess"):
        assert main(["disasm", standin, name, "--count", "1"]) == 0, name
        assert capsys.readouterr().out.splitlines()[1] == "NoteProcess__5ccAnmFv:", name
    assert main(["disasm", standin, "NoProcess"]) == 2
    assert "no symbol 'NoProcess'" in capsys.readouterr().err


def test_a_short_name_two_functions_share_is_refused_naming_both():
    from eemu_ext.loading.function_names import AmbiguousName, resolve
    with pytest.raises(AmbiguousName, match="'Step' names 2 functions: a::Step .Step__1aFv., b::Step"):
        resolve("Step", ["Step__1aFv", "Step__1bFv", "Other__Fv"])


def test_overlapping_loaded_segments_are_refused_at_load_naming_both(elf_file):
    """§1.2: every PT_LOAD with file bytes is copied to its own addresses; two that share an address
    would leave one of them overwritten, so the file is refused (its zero fill counts as its own)."""
    code = struct.pack("<2I", 0x03E00008, 0)
    path = elf_file(make_elf([(0x00100000, code, 0x100), (0x00100080, code, 0x10)]), "overlap.elf")
    with pytest.raises(ElfError, match=r"overlap.elf: program headers 0 \(0x00100000-0x00100100\) and 1 "
                                       r"\(0x00100080-0x00100090\) overlap"):
        Machine().load_elf(path)
    # the overlay windows and the heap carry no bytes: they share the window by design
    load_image(elf_file(game_like(), "game.elf"))


def test_a_segment_with_more_file_bytes_than_memory_is_refused(elf_file):
    path = elf_file(make_elf([(0x00100000, bytes(0x20), 0x10)]), "long.elf")
    with pytest.raises(ElfError, match=r"long.elf: program header 0 has p_filesz 0x20 > p_memsz 0x10"):
        Machine().load_elf(path)


@pytest.mark.parametrize("filesz,memsz", [(0x10, 0x1000), (0x20, 0x10)])
def test_an_overlay_segment_with_file_bytes_is_refused(elf_file, filesz, memsz):
    """§1.2: the overlay segments carry no file bytes; the overlay's code is DATA/<NAME>.PRG."""
    segs = [(0x00100000, struct.pack("<2I", 0x03E00008, 0), 0x10), (0x00400800, bytes(filesz), memsz)]
    path = elf_file(make_elf(segs, [("main", 0x00100000, 0x8, 1, 6), ("gcmn.prg", 0x00400800, memsz, 1, 6)]),
                    "ovlbytes.elf")
    with pytest.raises(ElfError, match=r"ovlbytes.elf: program header 1 at the overlay base 0x00400800 has "
                                       rf"0x{filesz:x} file bytes"):
        Machine().load_elf(path)
