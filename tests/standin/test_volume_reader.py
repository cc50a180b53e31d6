"""A reader written from volumes.md §2 (the sidecar) and executable-abi.md §1.2 (section types) alone,
as the users' own loader reads the stripped volumes, reads every stand-in volume's stripped build with
its sidecar: every symbol, overlays included.

The reader below uses nothing of eediff's: it finds the stripped executable's sections by position
among its PROGBITS sections with an address (main, gcmn.prg, demo.prg, desktop.prg, toppage.prg,
heap), and reads the sidecar as the users' reader does (tab-separated; `int(va, 16)`, `int(size)`;
a bare overlay name gets `.prg`; another section's line is skipped; the sixth column is ignored).
"""
import glob
import os
import struct

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(ROOT, "standin")
ORDER = ("main", "gcmn.prg", "demo.prg", "desktop.prg", "toppage.prg", "heap")
SHT_PROGBITS, SHT_SYMTAB = 1, 2


def section_headers(raw):
    """[(name, type, addr, offset, size, link)] of an ELF32 little-endian file."""
    shoff, = struct.unpack_from("<I", raw, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<3H", raw, 0x2E)
    rows = [struct.unpack_from("<10I", raw, shoff + i * shentsize) for i in range(shnum)]
    strings = rows[shstrndx][4]
    out = []
    for r in rows:
        name = raw[strings + r[0]:raw.index(b"\0", strings + r[0])].decode("ascii")
        out.append((name, r[1], r[3], r[4], r[5], r[6]))
    return out


def sections_by_position(raw):
    """{name: (addr, size)}: the PROGBITS sections with a non-zero address, in the retail order."""
    found = [(addr, size) for _, typ, addr, _, size, _ in section_headers(raw) if typ == SHT_PROGBITS and addr]
    return dict(zip(ORDER, found))


def load_symbol_file(path):
    """[(section, va, size, type, name)] as the users' reader takes them."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            section, va, size, kind, name = line.split("\t")[:5]
            section = section if section == "main" else section + ".prg"
            if section not in ORDER[:5]:
                continue
            out.append((section, int(va, 16), int(size), kind, name))
    return out


def symbol_table(raw):
    """[(section, va, size, type, name)] of an unstripped build: its FUNC and OBJECT symbols of main
    and the overlays."""
    secs = section_headers(raw)
    _, _, _, off, size, link = next(s for s in secs if s[1] == SHT_SYMTAB)
    strings = secs[link][3]
    out = []
    for at in range(off, off + size, 16):
        st_name, value, st_size, info, _, shndx = struct.unpack_from("<IIIBBH", raw, at)
        kind = {1: "OBJECT", 2: "FUNC"}.get(info & 15)
        if kind and 0 < shndx < len(secs) and secs[shndx][0] in ORDER[:5]:
            name = raw[strings + st_name:raw.index(b"\0", strings + st_name)].decode("ascii")
            out.append((secs[shndx][0], value, st_size, kind, name))
    return out


def volumes():
    """(stripped build, its unstripped build) of every stand-in volume."""
    pairs = []
    for stripped in sorted(glob.glob(os.path.join(STANDIN, "*-stripped.elf"))
                           + glob.glob(os.path.join(STANDIN, "volumes", "*", "*-stripped.elf"))):
        pairs.append((stripped, stripped.replace("-stripped.elf", ".elf")))
    return pairs


def read_volume(stripped):
    """Every sidecar row of a stripped build, each checked to lie in the section it names."""
    with open(stripped, "rb") as f:
        raw = f.read()
    secs = sections_by_position(raw)
    assert tuple(secs) == ORDER, f"{stripped}: PROGBITS sections with an address: {list(secs)}"
    rows = load_symbol_file(stripped + ".syms")
    for section, va, size, _, name in rows:
        lo, extent = secs[section]
        assert lo <= va and va + size <= lo + extent, f"{name} 0x{va:08x}+{size} outside {section}"
    return rows


def test_there_is_a_stand_in_build_of_every_volume_for_the_reader():
    assert [os.path.relpath(v[0], STANDIN) for v in volumes()] == [
        "standin-stripped.elf", "volumes/mut/standin-stripped.elf", "volumes/out/standin-stripped.elf",
        "volumes/qua/standin-stripped.elf"]


@pytest.mark.parametrize("stripped,unstripped", volumes(), ids=[os.path.relpath(v[0], STANDIN) for v in volumes()])
def test_a_reader_from_the_spec_alone_reads_every_symbol_of_a_stripped_stand_in_volume(stripped, unstripped):
    rows = read_volume(stripped)
    with open(unstripped, "rb") as f:
        want = symbol_table(f.read())
    assert sorted(rows) == sorted(want)
    assert {r[0] for r in rows} == set(ORDER[:5]), "every overlay has symbols"
