"""A minimal ELF32 little-endian MIPS writer for tests: one PT_LOAD data segment plus a .bss tail,
and a symbol table. Enough for pyelftools to read symbols and initialised data."""
import struct

from corpus.tables import TABLE_SYMBOLS, member_to_record_name

BASE = 0x002F0000


def build_elf(symbols_data, bss_symbols=()):
    """symbols_data: list of (name, bytes-or-callable(addr_of) -> bytes); laid out in order.
    bss_symbols: list of (name, size) placed after the data (memsz > filesz)."""
    addrs = {}
    pos = BASE
    sizes = []
    for name, blob in symbols_data:
        addrs[name] = pos
        n = len(blob) if isinstance(blob, (bytes, bytearray)) else blob(None)
        sizes.append(n)
        pos += (n + 15) & ~15
    data_end = pos
    for name, n in bss_symbols:
        addrs[name] = pos
        pos += (n + 15) & ~15
    data = bytearray()
    for (name, blob), n in zip(symbols_data, sizes):
        b = blob if isinstance(blob, (bytes, bytearray)) else blob(addrs)
        data += b + bytes(((n + 15) & ~15) - len(b))
    # sections: null, .data, .bss, .symtab, .strtab, .shstrtab
    shstr = b"\0.data\0.bss\0.symtab\0.strtab\0.shstrtab\0"
    strtab = b"\0"
    syms = [struct.pack("<IIIBBH", 0, 0, 0, 0, 0, 0)]
    for name, a in addrs.items():
        off = len(strtab)
        strtab += name.encode() + b"\0"
        shndx = 1 if a < data_end else 2
        syms.append(struct.pack("<IIIBBH", off, a, 16, 0x11, 0, shndx))   # GLOBAL OBJECT
    symtab = b"".join(syms)
    ehsize, phsize, shsize = 52, 32, 40
    data_off = 0x1000
    symtab_off = data_off + len(data)
    strtab_off = symtab_off + len(symtab)
    shstr_off = strtab_off + len(strtab)
    sh_off = (shstr_off + len(shstr) + 3) & ~3
    eh = b"\x7fELF" + bytes((1, 1, 1, 0)) + bytes(8)
    eh += struct.pack("<HHIIIIIHHHHHH", 2, 8, 1, BASE, ehsize, sh_off, 0, ehsize, phsize, 1, shsize, 6, 5)
    ph = struct.pack("<IIIIIIII", 1, data_off, BASE, BASE, len(data), pos - BASE, 6, 0x1000)
    out = bytearray(eh + ph)
    out += bytes(data_off - len(out)) + data + symtab + strtab + shstr
    out += bytes(sh_off - len(out))

    def sh(name, typ, flags, addr, off, size, link=0, info=0, align=4, entsize=0):
        return struct.pack("<IIIIIIIIII", name, typ, flags, addr, off, size, link, info, align, entsize)
    out += bytes(40)
    out += sh(1, 1, 3, BASE, data_off, len(data))
    out += sh(7, 8, 3, data_end, data_off + len(data), pos - data_end)
    out += sh(12, 2, 0, 0, symtab_off, len(symtab), link=4, info=1, entsize=16)
    out += sh(20, 3, 0, 0, strtab_off, len(strtab), align=1)
    out += sh(28, 3, 0, 0, shstr_off, len(shstr), align=1)
    return bytes(out)


def tables_elf(members, cate_ofs):
    """An ELF carrying the category tables of `members` (dicts: name, category, offset, csize, usize)."""
    items = []
    for k, sym in enumerate(TABLE_SYMBOLS[:19]):
        recs = b""
        for m in members:
            if m["category"] == k:
                recs += struct.pack("<32sIII", member_to_record_name(m["name"]).encode(),
                                    m["offset"] - cate_ofs[k], m["csize"], m["usize"])
        items.append((sym, recs + bytes(44)))
    items.append(("categoryFDTbl", lambda addrs: (struct.pack("<20I", *[addrs[s] for s in TABLE_SYMBOLS])
                                                  if addrs else 80)))
    items.append(("cateCDOfsTbl", struct.pack("<20Q", *(list(cate_ofs) + [0] * 20)[:20])))
    return build_elf(items, bss_symbols=[("directCCSTbl", 44 * 64)])
