"""The retail executable's layout: which section is `main`, which are overlays, where the window is,
which overlay is resident, and where each symbol came from (executable-abi.md §1.1, §1.2, §1.5).

The retail SLUS_202.67 keeps its program in a section named ``main``, then the overlay sections
(symbols, no bytes) at the overlay base, sized by empty PT_LOAD segments, then ``heap``. The stripped
volumes keep that order but lose the names; their symbols come from a sidecar (``sidecar.py``).
A symbol of an overlay resolves only while that overlay is resident; none is, unless asked for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from eemu_ext.errors import ElfError
from eemu_ext.loading.overlays import OVERLAY_BASE, OVERLAYS, Overlay, find_prg, overlay_name, read_prg
from eemu_ext.loading.sidecar import MAIN, SideSymbol, SidecarError, read_sidecar

SHT_PROGBITS, SHT_NOBITS = 1, 8
SHT_MIPS_REGINFO = 0x70000006
SHF_ALLOC = 2
SYMBOL_TABLE, SIDECAR = "symbol table", "sidecar"


@dataclass
class Section:
    index: int
    name: str            # as the file names it ('' in a stripped volume)
    role: str            # 'main' | 'overlay' | 'heap' | 'reginfo' | 'other'
    label: str           # 'main', 'gcmn.prg', 'heap', or the file's name, or '#<index>'
    addr: int
    size: int
    nobits: bool
    loaded: bool         # allocated, inside a PT_LOAD segment with file bytes
    alloc: bool = True


@dataclass
class Layout:
    sections: List[Section]
    window: Optional[Tuple[int, int]]       # [base, end) of the overlay window, from the empty PT_LOADs
    resident: Optional[Overlay] = None
    sidecar: Optional[str] = None
    source: Dict[str, str] = field(default_factory=dict)     # symbol -> SYMBOL_TABLE | SIDECAR
    home: Dict[str, str] = field(default_factory=dict)       # symbol -> the section label it lives in
    foreign: Dict[str, str] = field(default_factory=dict)    # symbol of a non-resident overlay -> overlay
    loads: List[Tuple[int, int, int]] = field(default_factory=list)   # every PT_LOAD: (vaddr, filesz, memsz)
    lines: Dict[str, int] = field(default_factory=dict)      # symbol from the sidecar -> its line there
    hows: Dict[str, str] = field(default_factory=dict)       # symbol from the sidecar -> its `how`, when given

    def origin(self, name: str) -> str:
        """Where a symbol's address came from: 'FILE.syms:LINE' or 'symbol table'."""
        if self.source.get(name) == SIDECAR and self.sidecar:
            return f"{self.sidecar}:{self.lines.get(name, '?')}"
        return self.source.get(name, "?")

    def overlays(self) -> List[Section]:
        return [s for s in self.sections if s.role == "overlay"]

    def section_at(self, shndx) -> Optional[Section]:
        if isinstance(shndx, int):
            for s in self.sections:
                if s.index == shndx:
                    return s
        return None

    def hole(self) -> Optional[Tuple[int, int, str]]:
        """(lo, hi, why): the part of the window no resident overlay fills, where a data access or a
        fetch is a fault. DECISION: with an overlay resident, the window past its text, data and bss."""
        if self.window is None:
            return None
        lo, hi = self.window
        if self.resident is not None:
            lo = min(hi, lo + self.resident.extent)
            if lo >= hi:
                return None
            return lo, hi, (f"in the overlay window 0x{self.window[0]:08x}-0x{hi:08x} past the resident "
                            f"overlay {self.resident.name} (it ends at 0x{lo:08x})")
        return lo, hi, f"in the overlay window 0x{lo:08x}-0x{hi:08x} with no resident overlay"

    def not_resident(self, name: str) -> Optional[str]:
        """The message for a symbol of an overlay that is not resident, else None."""
        ovl = self.foreign.get(name)
        if ovl is None:
            return None
        now = self.resident.name if self.resident is not None else "none"
        return (f"symbol {name!r} belongs to overlay {ovl}, which is not resident (resident: {now}); "
                f"a symbol of another overlay never resolves")


def classify(elf, loaded: List[Tuple[int, int]]) -> List[Section]:
    """Every section with its role. Named sections go by name; in a stripped volume (no names) by
    position (executable-abi.md §1.2): the PROGBITS sections with a non-zero address, in the order
    main, gcmn.prg, demo.prg, desktop.prg, toppage.prg, heap. DECISION: a NOBITS section with an
    address takes its place in that order too (the stand-in's link makes its overlays NOBITS)."""
    out = []
    named = any(s.name for s in elf.iter_sections())
    order = ((MAIN, MAIN),) + tuple(("overlay", o) for o in OVERLAYS) + (("heap", "heap"),)
    place = 0
    for i, s in enumerate(elf.iter_sections()):
        if i == 0:
            continue
        typ = s["sh_type"]
        typ = {"SHT_PROGBITS": SHT_PROGBITS, "SHT_NOBITS": SHT_NOBITS,
               "SHT_MIPS_REGINFO": SHT_MIPS_REGINFO}.get(typ, typ)
        addr, size = s["sh_addr"], s["sh_size"]
        alloc = bool(s["sh_flags"] & SHF_ALLOC)
        nobits = typ == SHT_NOBITS
        is_loaded = alloc and size > 0 and any(lo <= addr < hi for lo, hi in loaded)
        name = s.name
        if typ == SHT_MIPS_REGINFO:
            role, label = "reginfo", name or ".reginfo"
        elif named:
            ovl = overlay_name(name) if name.lower().endswith(".prg") else None
            role = "main" if name == MAIN else "overlay" if ovl else "heap" if name == "heap" else "other"
            label = ovl or name
        elif typ in (SHT_PROGBITS, SHT_NOBITS) and addr and place < len(order):
            role, label = order[place]
            place += 1
        else:
            role, label = "other", name or f"#{i}"
        out.append(Section(i, name, role, label, addr, size, nobits, is_loaded, alloc))
    return out


def window_of(elf, base: int = OVERLAY_BASE) -> Optional[Tuple[int, int]]:
    """[base, end) of the PT_LOAD segments without file bytes at the overlay base (the window)."""
    ends = [seg["p_vaddr"] + seg["p_memsz"] for seg in elf.iter_segments()
            if seg["p_type"] == "PT_LOAD" and seg["p_filesz"] == 0 and seg["p_memsz"] > 0
            and seg["p_vaddr"] == base]
    return (base, max(ends)) if ends else None


def build(elf, path: str, loaded, image_path: str, overlay: Optional[str] = None,
          prg_path: Optional[str] = None) -> Layout:
    """The layout of `elf`, with `overlay` resident (read from prg_path, else DATA/<NAME>.PRG beside
    the executable) when asked."""
    sections = classify(elf, loaded)
    # DECISION: the window starts at the overlay sections' address (each volume has its own,
    # volumes.md §1); without overlay sections, at Infection's 0x00400800.
    base = next((s.addr for s in sections if s.role == "overlay"), OVERLAY_BASE)
    window = window_of(elf, base)
    if window is None and any(s.role == "overlay" for s in sections):
        ends = [s.addr + s.size for s in sections if s.role == "overlay"]
        window = (base, max(ends))
    lay = Layout(sections, window)
    lay.loads = [(seg["p_vaddr"], seg["p_filesz"], seg["p_memsz"]) for seg in elf.iter_segments()
                 if seg["p_type"] == "PT_LOAD"]
    if overlay:
        name = overlay_name(overlay)
        if name is None:
            raise ElfError(f"--overlay {overlay!r}: not an overlay ({', '.join(o[:-4] for o in OVERLAYS)})")
        lay.resident = read_prg(prg_path or find_prg(image_path, name), name, window[0] if window else OVERLAY_BASE)
        if lay.window is not None and lay.resident.extent > lay.window[1] - lay.window[0]:
            raise ElfError(f"{lay.resident.path}: overlay {name} of 0x{lay.resident.extent:x} bytes does not fit "
                           f"the window 0x{lay.window[0]:08x}-0x{lay.window[1]:08x} of {path}")
    return lay


def keeps(lay: Layout, shndx, name: str) -> bool:
    """Whether a symbol-table symbol in section shndx resolves: `main` and other loaded sections do,
    the resident overlay's do; another overlay's never (recorded as foreign)."""
    sec = lay.section_at(shndx)
    if sec is None:
        return True                      # SHN_ABS and other specials
    if sec.role == "overlay":
        if lay.resident is not None and lay.resident.name == sec.label:
            return True
        lay.foreign.setdefault(name, sec.label)
        return False
    return not sec.alloc or sec.size == 0 or sec.loaded


def merge_sidecar(lay: Layout, path: str, symbols: Dict[str, int], kinds: Dict[str, str],
                  sizes: Dict[str, int], main_ranges: List[Tuple[int, int]]) -> None:
    """Add the sidecar's symbols the symbol table lacks (the table wins), FUNC over OBJECT, each
    checked against the layout: a `main` symbol inside main's bytes, an overlay's inside the window."""
    lay.sidecar = path
    rows: List[SideSymbol] = read_sidecar(path)
    for r in rows:
        where = f"{path}:{r.line}"
        if r.section == MAIN:
            if main_ranges and not any(lo <= r.va < hi for lo, hi in main_ranges):
                raise ElfError(f"{where}: {r.name} at 0x{r.va:08x} lies outside main's loaded bytes ("
                               + ", ".join(f"0x{lo:08x}-0x{hi:08x}" for lo, hi in main_ranges) + ")")
            home = next(((lo, hi) for lo, hi in main_ranges if lo <= r.va < hi), None)
            if home is not None and r.va + r.size > home[1]:
                raise SidecarError(f"{where}: {r.name} of 0x{r.size:x} bytes at 0x{r.va:08x} reaches past main's "
                                   f"loaded bytes (0x{home[0]:08x}-0x{home[1]:08x})")
        elif lay.window is not None and not lay.window[0] <= r.va < lay.window[1]:
            raise ElfError(f"{where}: {r.name} of {r.section} at 0x{r.va:08x} lies outside the overlay window "
                           f"0x{lay.window[0]:08x}-0x{lay.window[1]:08x}")
        elif lay.window is not None and r.va + r.size > lay.window[1]:
            raise SidecarError(f"{where}: {r.name} of 0x{r.size:x} bytes at 0x{r.va:08x} reaches past the overlay "
                               f"window 0x{lay.window[0]:08x}-0x{lay.window[1]:08x}")
        if lay.source.get(r.name) == SYMBOL_TABLE:
            continue
        if r.section != MAIN and (lay.resident is None or lay.resident.name != r.section):
            if r.name not in symbols:
                lay.foreign.setdefault(r.name, r.section)
            continue
        if r.name in symbols and not (r.kind == "FUNC" and kinds[r.name] != "STT_FUNC"):
            continue
        symbols[r.name] = r.va
        kinds[r.name] = "STT_FUNC" if r.kind == "FUNC" else "STT_OBJECT"
        sizes[r.name] = r.size
        lay.source[r.name] = SIDECAR
        lay.home[r.name] = r.section
        lay.lines[r.name] = r.line
        if r.how is not None:
            lay.hows[r.name] = r.how
        lay.foreign.pop(r.name, None)
