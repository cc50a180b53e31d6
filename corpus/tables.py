"""The archive's directory in the executable: categoryFDTbl / cateCDOfsTbl and the 44-byte records
(formats.md §1.3). Read them from an ELF (pyelftools) and check them against the archive; write
them as C source for the stand-in.
"""
from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import List, Sequence

from .errors import CorpusError

CATEGORIES = ("cmn", "gcmn", "demo", "desktop", "toppage", "menu", "effect", "equip", "skill",
              "spc", "pc", "npc", "gimmick", "enemy", "boss", "town", "field", "dungeon", "event")
TABLE_SYMBOLS = tuple(f"{c}CCSTbl" for c in CATEGORIES) + ("directCCSTbl",)
# the disc's figures (formats.md §1.3): records per category and base sector
DISC_RECORDS = (6, 8, 5, 136, 1, 4, 12, 350, 15, 18, 37, 19, 37, 133, 13, 14, 147, 18, 50)
DISC_BASE_SECTORS = (0, 31, 345, 486, 9175, 9431, 9540, 9889, 12356, 12371, 14442, 16458, 17028,
                     17498, 24683, 27160, 33033, 48430, 58576)
RECORD = struct.Struct("<32sIII")
MAX_RECORDS = 100_000


@dataclass
class TableRecord:
    category: int
    name: str            # upper case, e.g. "XASC00.CCS"
    offset: int          # from the category's start
    csize: int
    usize: int

    @property
    def member_name(self) -> str:
        """formats.md §1.1: lower case, ".cmp" for ".CCS"."""
        n = self.name.lower()
        return n[:-4] + ".cmp" if n.endswith(".ccs") else n


def member_to_record_name(member: str) -> str:
    n = member.upper()
    return n[:-4] + ".CCS" if n.endswith(".CMP") else n


class ElfImage:
    """Just enough of an ELF to read initialised data by symbol (pyelftools)."""

    def __init__(self, data: bytes, path="executable", extra_symbols=None):
        """extra_symbols: {name: address} for names the ELF's symbol table lacks (a stripped
        volume's sidecar, read by the caller)."""
        from elftools.common.exceptions import ELFError
        from elftools.elf.elffile import ELFFile
        self.path = path
        try:
            self.elf = ELFFile(io.BytesIO(data))
            self.segments = [(s["p_vaddr"], s["p_offset"], s["p_filesz"], s["p_memsz"])
                             for s in self.elf.iter_segments() if s["p_type"] == "PT_LOAD"]
            self.symbols = {}
            for sec in self.elf.iter_sections():
                if sec["sh_type"] in ("SHT_SYMTAB", "SHT_DYNSYM"):
                    for s in sec.iter_symbols():
                        if s.name and s["st_shndx"] != "SHN_UNDEF":
                            self.symbols.setdefault(s.name, s["st_value"])
            for name, value in (extra_symbols or {}).items():
                self.symbols.setdefault(name, value)
        except (ELFError, struct.error, ValueError, KeyError) as e:
            raise CorpusError(f"cannot read ELF {path}: {e}", member=path, kind="elf") from None
        self.data = data

    def symbol(self, name):
        if name not in self.symbols:
            raise CorpusError(f"symbol {name} not found in {self.path}", member=self.path, kind="elf")
        return self.symbols[name]

    def read(self, addr, n):
        for va, off, fsz, msz in self.segments:
            if va <= addr and addr + n <= va + msz:
                out = bytearray(n)
                lo = addr - va
                have = max(0, min(n, fsz - lo))
                if have:
                    out[:have] = self.data[off + lo:off + lo + have]
                return bytes(out)
        raise CorpusError(f"address 0x{addr:08X} (+{n}) is not in a loaded segment of {self.path}",
                          member=self.path, offset=addr, kind="elf")


def read_tables(image: ElfImage) -> tuple:
    """(records of categories 0-18, cateCDOfsTbl as 20 ints)."""
    fd = struct.unpack("<20I", image.read(image.symbol("categoryFDTbl"), 80))
    ofs = struct.unpack("<20Q", image.read(image.symbol("cateCDOfsTbl"), 160))
    records: List[TableRecord] = []
    for k in range(19):
        addr = fd[k]
        for i in range(MAX_RECORDS):
            raw = image.read(addr + 44 * i, 44)
            if raw.count(0) == 44:
                break
            name, off, cs, us = RECORD.unpack(raw)
            nm = name.split(b"\0", 1)[0].decode("latin-1")
            if not nm:
                raise CorpusError(f"category {k} ({TABLE_SYMBOLS[k]}) record {i} has an empty name",
                                  member=image.path, offset=addr + 44 * i, kind="index table")
            records.append(TableRecord(k, nm, off, cs, us))
        else:
            raise CorpusError(f"category {k} table has no terminating zero record",
                              member=image.path, offset=addr, kind="index table")
    return records, list(ofs)


def write_categories_c(members: Sequence, cate_ofs: Sequence[int], note="") -> str:
    """C source of the tables (executable-abi.md §8.1 item 2). `members`: objects with .category,
    .name (member name), .offset (in DATA.BIN), .csize, .usize, in archive order."""
    out = ["/* Category index tables of the synthetic DATA.BIN (formats.md 1.3). Generated by",
           f"   `python -m corpus synth`{note}. Do not edit. */",
           "",
           "typedef struct { char name[32]; unsigned int offset, csize, usize; } FILELIST;",
           ""]
    for k, sym in enumerate(TABLE_SYMBOLS[:19]):
        rows = [m for m in members if m.category == k]
        n = len(rows) + 1
        out.append(f"FILELIST {sym}[{n}] = {{")
        for m in rows:
            out.append(f'    {{"{member_to_record_name(m.name)}", 0x{m.offset - cate_ofs[k]:X}u, '
                       f"{m.csize}u, {m.usize}u}},")
        out.append("    {\"\", 0u, 0u, 0u}")
        out.append("};")
        out.append("")
    out.append("FILELIST directCCSTbl[64];   /* category 19: filled at run time; .bss */")
    out.append("")
    out.append("FILELIST *categoryFDTbl[20] = {")
    out.append("    " + ", ".join(TABLE_SYMBOLS) + ",")
    out.append("};")
    out.append("")
    out.append("unsigned long long cateCDOfsTbl[20] = {")
    vals = list(cate_ofs) + [0] * (20 - len(cate_ofs))
    out.append("    " + ", ".join(f"0x{v:X}ull" for v in vals[:20]) + ",")
    out.append("};")
    return "\n".join(out) + "\n"
