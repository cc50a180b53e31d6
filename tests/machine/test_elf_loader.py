"""ELF loading (executable-abi.md §1.2, §1.4, §1.5): segments, zero fill, overlays, symbols, gp,
stripped files, and a clear ElfError naming the path and the problem for every bad file."""
import os
import struct

import pytest

from eemu_ext import ElfError, Machine
from eemu_ext.elf import load_image

HERE = os.path.dirname(__file__)
INT_PROG = os.path.join(HERE, "cprog", "int_prog.elf")

STT = {"NOTYPE": 0, "OBJECT": 1, "FUNC": 2, "SECTION": 3, "FILE": 4}


def make_elf(segments, sections=(), symbols=(), gp=None, entry=0x00100000, flags=0x20924001):
    """A minimal ELF32 LE MIPS executable.

    segments: (vaddr, data, memsz); sections: (name, addr, size, sh_type, flags) -- added after the
    null section, their indices start at 1; symbols: (name, value, type, shndx);
    gp: a .reginfo section with ri_gp_value = gp."""
    shstr = b"\0"
    strtab = b"\0"
    secs = list(sections)
    body = b""
    base = 52 + 32 * len(segments)
    phdrs = b""
    for vaddr, data, memsz in segments:
        off = base + len(body) if data else 0
        phdrs += struct.pack("<8I", 1, off, vaddr, vaddr, len(data), memsz, 7, 16)
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
        for name, value, typ, shndx in symbols:
            no = len(strtab)
            strtab += name.encode() + b"\0"
            syms += struct.pack("<IIIBBH", no, value, 0, (1 << 4) | STT[typ], 0, shndx)
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
