"""retail.py: the build steps that give the stand-in the retail executable's companions.

    python3 retail.py prg NAME ID TEXT.bin OUT.PRG   an overlay file: the 0x40-byte header, then the bytes
    python3 retail.py syms IN.elf OUT.syms           the symbol sidecar of the stripped volumes
    python3 retail.py ld IN.ld OUT.ld [WINDOW GP HEAP] a linker script at a volume's overlay window, gp and
                                                     heap (without them: IN.ld as it is, Infection's)
    python3 retail.py unname IN.elf OUT.elf          a stripped volume's shape: the section names blanked, the
                                                     overlay and heap sections PROGBITS at main's end

Only the standard library: the stand-in builds wherever the cross compiler is.
"""
import struct
import sys

OVERLAY_BASE = 0x00400800
PRG_MAGIC = b"MWo3"
OVERLAYS = ("gcmn.prg", "demo.prg", "desktop.prg", "toppage.prg")
SHT_PROGBITS, SHT_NOBITS = 1, 8


def ld(in_path, out_path, window=None, gp=None, heap=None):
    """standin.ld or prg.ld at another volume's addresses (volumes.md §1): the overlay window moved,
    `_gp` set to the volume's gp, `heap` placed at its address. DECISION: main keeps the stand-in's
    own size (padding it to the retail size would carry megabytes of zeros in every committed build)."""
    with open(in_path) as f:
        text = f.read()
    if window is not None:
        text = text.replace("0x00400800", f"0x{int(window, 16):08X}")
        text = text.replace("_gp = . + 0x7FF0;", f"_gp = 0x{int(gp, 16):08X};")
        text = text.replace("heap (NOLOAD)", f"heap 0x{int(heap, 16):08X} (NOLOAD)")
    with open(out_path, "w") as f:
        f.write(text)


def prg(name, ident, text_path, out_path, base=None):
    """Header: magic, u32 id, base, text size, data size, bss size, ctor start, ctor end, a 32-byte
    name; then the bytes. DECISION: the stand-in's overlays are text alone (data and bss sizes 0) and
    have no static constructors (ctor start = ctor end = 0)."""
    with open(text_path, "rb") as f:
        text = f.read()
    label = name.encode("ascii")
    if len(label) >= 32:
        sys.exit(f"retail.py prg: overlay name {name!r} longer than 31 bytes")
    base = OVERLAY_BASE if base is None else int(base, 16)
    head = PRG_MAGIC + struct.pack("<7I", int(ident), base, len(text), 0, 0, 0, 0) + label.ljust(32, b"\0")
    assert len(head) == 0x40
    with open(out_path, "wb") as f:
        f.write(head + text)


def sections(raw):
    """[(name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link)] of an ELF32 LE file."""
    shoff, = struct.unpack_from("<I", raw, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<3H", raw, 0x2E)
    rows = [struct.unpack_from("<10I", raw, shoff + i * shentsize) for i in range(shnum)]
    names = rows[shstrndx]
    out = []
    for r in rows:
        start = names[4] + r[0]
        name = raw[start:raw.index(b"\0", start)].decode("ascii")
        out.append((name, r[1], r[2], r[3], r[4], r[5], r[6]))
    return out, rows, shoff, shentsize, shstrndx


def syms(elf_path, out_path):
    """One line per FUNC or OBJECT symbol of `main` or an overlay, in the users' format (volumes.md §2):
    section (`main` or the overlay's bare name, `gcmn`), va (8 hex digits with 0x), size (decimal), type,
    name, how; tab-separated, sorted by section order, then va, then name. DECISION: every name is the
    build's own, read from its symbol table, so its `how` is `exact`."""
    with open(elf_path, "rb") as f:
        raw = f.read()
    secs = sections(raw)[0]
    symtab = next(s for s in secs if s[1] == 2)
    strtab = secs[symtab[6]]
    order = ("main",) + OVERLAYS
    lines = []
    for off in range(symtab[4], symtab[4] + symtab[5], 16):
        st_name, value, size, info, _, shndx = struct.unpack_from("<IIIBBH", raw, off)
        kind = {1: "OBJECT", 2: "FUNC"}.get(info & 15)
        if kind is None or not 0 < shndx < len(secs) or secs[shndx][0] not in order:
            continue
        start = strtab[4] + st_name
        name = raw[start:raw.index(b"\0", start)].decode("ascii")
        section = secs[shndx][0]
        bare = section[:-len(".prg")] if section in OVERLAYS else section
        lines.append((order.index(section), value, name, f"{bare}\t0x{value:08x}\t{size}\t{kind}\t{name}\texact\n"))
    with open(out_path, "w") as f:
        f.writelines(line for *_, line in sorted(lines))


def unname(elf_path, out_path):
    """The section header string table zeroed: every section keeps its place but loses its name. The
    overlay and heap sections (NOBITS, from the link's NOLOAD) become PROGBITS with their addresses and
    the file offset of main's end, as are the retail volumes' (executable-abi.md §1.2); so do the
    empty PT_LOAD segments' offsets. Neither holds a byte of its own (sh_size stays, p_filesz is 0)."""
    with open(elf_path, "rb") as f:
        raw = bytearray(f.read())
    secs, _, shoff, shentsize, shstrndx = sections(bytes(raw))
    names = [s[0] for s in secs]
    main = secs[names.index("main")]
    end = main[4] + main[5]
    for i, s in enumerate(secs):
        if s[0] in OVERLAYS + ("heap",):
            if s[1] != SHT_NOBITS or not s[3]:
                sys.exit(f"retail.py unname: section {s[0]} is not NOBITS with an address")
            struct.pack_into("<2I", raw, shoff + i * shentsize + 4, SHT_PROGBITS, s[2])
            struct.pack_into("<I", raw, shoff + i * shentsize + 16, end)
    phoff, = struct.unpack_from("<I", raw, 0x1C)
    phentsize, phnum = struct.unpack_from("<2H", raw, 0x2A)
    for i in range(phnum):
        at = phoff + i * phentsize
        p_type, _, vaddr, _, filesz = struct.unpack_from("<5I", raw, at)
        if p_type == 1 and filesz == 0 and vaddr >= main[3] + main[5]:
            struct.pack_into("<I", raw, at + 4, end)
    _, _, _, _, offset, size, _ = secs[shstrndx]
    raw[offset:offset + size] = bytes(size)
    with open(out_path, "wb") as f:
        f.write(raw)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"prg": prg, "syms": syms, "unname": unname, "ld": ld}[cmd](*args)
