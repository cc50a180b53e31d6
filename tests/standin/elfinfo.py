"""elfinfo: read the stand-in ELF (symbols, .text words, the multiply-site records) with pyelftools."""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Tuple

from elftools.elf.elffile import ELFFile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDIN = os.path.join(ROOT, "standin")
ELF_PATH = os.path.join(STANDIN, "standin.elf")


@dataclass(frozen=True)
class Sym:
    name: str
    value: int
    size: int
    kind: str      # "FUNC" / "OBJECT" / ...
    section: str


@dataclass(frozen=True)
class MulSite:
    address: int
    site: int
    roles: Tuple[str, str]   # (fs text, ft text) as written at the call site


@dataclass
class Image:
    path: str
    flags: int
    entry: int
    symbols: Dict[str, Sym]
    text_addr: int
    text: bytes
    sites: List[MulSite]
    reginfo_gp: int

    def words(self):
        """(address, word) for every instruction word of .text."""
        for i in range(0, len(self.text) - 3, 4):
            yield self.text_addr + i, struct.unpack_from("<I", self.text, i)[0]

    def function_at(self, addr):
        best = None
        for s in self.symbols.values():
            if s.kind == "FUNC" and s.value <= addr < s.value + max(s.size, 4):
                best = s
        return best


def _sites(data: bytes, where: str) -> List[MulSite]:
    out, i = [], 0
    while i < len(data):
        addr, site = struct.unpack_from("<II", data, i)
        j = data.index(b"\0", i + 8)
        text = data[i + 8:j].decode()
        fs, _, ft = text.partition("|")
        out.append(MulSite(addr, site, (fs, ft)))
        i = (j + 1 + 3) & ~3
    return out


@lru_cache(maxsize=4)
def load(path: str = ELF_PATH) -> Image:
    with open(path, "rb") as f:
        elf = ELFFile(f)
        syms = {}
        for sec in elf.iter_sections():
            if sec.name != ".symtab":
                continue
            for s in sec.iter_symbols():
                if not s.name or s["st_info"]["type"] in ("STT_SECTION", "STT_FILE"):
                    continue
                shndx = s["st_shndx"]
                secname = elf.get_section(shndx).name if isinstance(shndx, int) else str(shndx)
                syms[s.name] = Sym(s.name, s["st_value"], s["st_size"], s["st_info"]["type"][4:], secname)
        # the retail layout: code, read-only data and data share the section `main`; its code is
        # what lies below _etext
        main = elf.get_section_by_name("main")
        code = main.data()[:syms["_etext"].value - main["sh_addr"]]
        ms = elf.get_section_by_name(".eediff.mulsites")
        ri = elf.get_section_by_name(".reginfo")
        return Image(path, elf.header["e_flags"], elf.header["e_entry"], syms, main["sh_addr"],
                     code, _sites(ms.data(), path) if ms else [],
                     struct.unpack_from("<I", ri.data(), 20)[0] if ri else 0)
