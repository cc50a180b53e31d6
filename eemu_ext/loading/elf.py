"""ELF loading for the EE: PT_LOAD segments, symbols, gp (executable-abi.md §1.2, §1.4, §1.5)."""
from __future__ import annotations

import bisect
import os
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from elftools.common.exceptions import ELFError as _PyElfError
from elftools.elf.elffile import ELFFile

from eemu_ext.errors import ElfError
from eemu_ext.loading import layout as _layout
from eemu_ext.loading.layout import Layout
from eemu_ext.loading.overlays import OVERLAY_BASE

EM_MIPS = 8
PF_X = 1


def too_big(path: str, i: int, filesz: int, memsz: int) -> None:
    """A segment larger than EE memory is refused from its header, before its bytes are built."""
    from eemu_ext.memory import RAM_SIZE
    if max(filesz, memsz) > RAM_SIZE:
        raise ElfError(f"{path}: program header {i} (p_filesz 0x{filesz:x}, p_memsz 0x{memsz:x}) is larger "
                       f"than EE memory (0x{RAM_SIZE:x} bytes)")


@dataclass
class Image:
    """A loaded program: entry, gp, symbols (name -> address), the loadable bytes per vaddr."""
    path: str
    entry: int
    gp: int
    symbols: Dict[str, int]
    segments: List[Tuple[int, bytes]] = field(repr=False)
    flags: int = 0
    stripped: bool = False
    code: List[Tuple[int, int]] = field(default_factory=list, repr=False)   # [lo, hi) of loaded code: its functions (_function_code)
    layout: Optional["Layout"] = field(default=None, repr=False)   # sections, overlays, symbol sources (layout.py)
    executable: List[Tuple[int, int]] = field(default_factory=list, repr=False)  # [lo, hi) instructions may come from
    _sorted: List[Tuple[int, str]] = field(default_factory=list, repr=False)
    _funcs: List[Tuple[int, int, str]] = field(default_factory=list, repr=False)

    def symbol(self, name: str) -> int:
        try:
            return self.symbols[name]
        except KeyError:
            foreign = self.layout.not_resident(name) if self.layout is not None else None
            if foreign:
                raise ElfError(f"{self.path}: {foreign}") from None
            if self.stripped:
                raise ElfError(f"{self.path}: no symbol {name!r}: the file has no symbol table "
                               f"(stripped); give an address instead") from None
            raise ElfError(f"{self.path}: no symbol {name!r} in the symbol table") from None

    def symbolize(self, addr: int) -> str:
        """'name+0x1c' for the nearest symbol at or below addr (functions first), else hex."""
        addr &= 0xFFFFFFFF
        for table in (self._funcs, ):
            i = bisect.bisect_right(table, (addr, 0xFFFFFFFF, "\uffff")) - 1
            if i >= 0:
                start, size, name = table[i]
                if addr < start + max(size, 1) or size == 0 and addr - start < 0x10000:
                    off = addr - start
                    return f"{name}+0x{off:x}" if off else name
        i = bisect.bisect_right(self._sorted, (addr, "\uffff")) - 1
        if i >= 0:
            start, name = self._sorted[i]
            if addr - start < 0x10000:
                off = addr - start
                return f"{name}+0x{off:x}" if off else name
        return f"0x{addr:08x}"


def load_image(path, syms=None, overlay=None, prg=None) -> Image:
    """Parse an R5900 ELF into an Image. Any problem -> ElfError naming the path and the problem.
    syms: the symbol sidecar (default: <path>.syms when it exists); overlay: the overlay to make
    resident ('gcmn', ...), read from prg or else DATA/<NAME>.PRG beside the executable."""
    path = os.fspath(path)
    if isinstance(overlay, tuple):          # (name, the .PRG file's path)
        overlay, prg = overlay
    if syms is None:
        from eemu_ext.loading.sidecar import beside
        syms = beside(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise ElfError(f"{path}: cannot read: {e.strerror or e}") from None
    if raw[:4] != b"\x7fELF":
        raise ElfError(f"{path}: not an ELF file (magic {raw[:4]!r})")
    if len(raw) < 52:
        raise ElfError(f"{path}: truncated ELF header ({len(raw)} bytes)")
    if raw[4] != 1:
        raise ElfError(f"{path}: a 64-bit ELF (EI_CLASS {raw[4]}); the EE loads 32-bit ELFs")
    if raw[5] != 1:
        raise ElfError(f"{path}: big-endian ELF (EI_DATA {raw[5]}); the EE is little-endian")
    machine = struct.unpack_from("<H", raw, 18)[0]
    if machine != EM_MIPS:
        raise ElfError(f"{path}: not a MIPS ELF (e_machine {machine})")
    try:
        return _parse(path, raw, syms, overlay, prg)
    except ElfError:
        raise
    except (_PyElfError, struct.error, ValueError, IndexError, KeyError, AssertionError) as e:
        raise ElfError(f"{path}: malformed or truncated ELF: {type(e).__name__}: {e}") from None


def _parse(path: str, raw: bytes, syms=None, overlay=None, prg=None) -> Image:
    import io
    elf = ELFFile(io.BytesIO(raw))
    entry = elf.header.e_entry
    segments = []
    loaded_ranges = []
    loaded_at = []                      # (program header, lo, hi) of each segment with file bytes
    executable = []
    file_bytes = []
    # the overlay window's base: the overlay sections' address (each volume has its own,
    # volumes.md §1), else Infection's
    window = next((s.addr for s in _layout.classify(elf, []) if s.role == "overlay"), OVERLAY_BASE)
    for i, seg in enumerate(elf.iter_segments()):
        if seg["p_type"] != "PT_LOAD":
            continue
        filesz, memsz, vaddr, off = seg["p_filesz"], seg["p_memsz"], seg["p_vaddr"], seg["p_offset"]
        if filesz and vaddr == window:
            # DECISION: a segment with file bytes at the overlay base is refused at load: the
            # overlay segments carry none (§1.2); an overlay's code comes from DATA/<NAME>.PRG.
            raise ElfError(f"{path}: program header {i} at the overlay base 0x{window:08x} has "
                           f"0x{filesz:x} file bytes; the overlay segments carry none (executable-abi.md "
                           f"§1.2: the code is DATA/<NAME>.PRG, made resident with --overlay)")
        if filesz > memsz:
            raise ElfError(f"{path}: program header {i} has p_filesz 0x{filesz:x} > p_memsz 0x{memsz:x} "
                           f"(a segment's file bytes lie inside its memory)")
        if filesz == 0:
            continue                    # overlay windows, heap: nothing to load (§1.2)
        too_big(path, i, filesz, memsz)
        _refuse_overlap(path, i, vaddr, memsz, loaded_at)
        if off + filesz > len(raw):
            raise ElfError(f"{path}: truncated: program header {i} wants file bytes 0x{off:x}-0x{off + filesz:x}"
                           f" but the file has 0x{len(raw):x}")
        data = raw[off:off + filesz] + bytes(max(0, memsz - filesz))
        segments.append((vaddr, data))
        loaded_ranges.append((vaddr, vaddr + max(memsz, filesz)))
        if seg["p_flags"] & PF_X:
            executable.append((vaddr, vaddr + filesz))
        file_bytes.append((vaddr, vaddr + filesz))

    # DECISION: an image that marks no segment executable (a hand-made file) has code in the file
    # bytes of its segments; never in their zero fill.
    executable = executable or file_bytes
    lay = _layout.build(elf, path, loaded_ranges, path, overlay, prg)
    main_ranges = list(loaded_ranges)
    if lay.resident is not None:             # the resident overlay's bytes, loaded whole at its base
        ovl = lay.resident
        segments.append((ovl.base, ovl.image()))
        loaded_ranges.append((ovl.base, ovl.base + ovl.extent))
        executable.append((ovl.base, ovl.base + len(ovl.image())))
    sections = list(elf.iter_sections())
    code = sorted((s["sh_addr"], s["sh_addr"] + s["sh_size"]) for s in sections
                  if s["sh_flags"] & 6 == 6 and s["sh_size"]       # SHF_ALLOC | SHF_EXECINSTR
                  and any(lo <= s["sh_addr"] < hi for lo, hi in loaded_ranges))

    def sec_loaded(shndx) -> bool:
        """False for a section (overlay) whose bytes no loaded segment covers (§1.5)."""
        if not isinstance(shndx, int) or shndx >= len(sections):
            return True                 # SHN_ABS and other specials
        sec = sections[shndx]
        if not sec["sh_flags"] & 2 or sec["sh_size"] == 0:
            return True                 # not SHF_ALLOC, or an empty marker section (heap): keep
        a = sec["sh_addr"]
        return any(lo <= a < hi for lo, hi in loaded_ranges)

    symbols: Dict[str, int] = {}
    kinds: Dict[str, str] = {}
    funcs = []
    allsyms = []
    symtab = elf.get_section_by_name(".symtab")
    stripped = symtab is None
    if symtab is not None:
        for sym in symtab.iter_symbols():
            name = sym.name
            typ = sym["st_info"]["type"]
            shndx = sym["st_shndx"]
            if not name or typ in ("STT_SECTION", "STT_FILE") or shndx == "SHN_UNDEF":
                continue
            if not _layout.keeps(lay, shndx, name) or not sec_loaded(shndx):
                continue                # overlay symbols (§1.5): only the resident overlay's resolve
            value = sym["st_value"] & 0xFFFFFFFF
            if name in symbols and not (typ == "STT_FUNC" and kinds[name] != "STT_FUNC"):
                continue                # FUNC preferred over OBJECT; else the first wins
            symbols[name] = value
            kinds[name] = typ
            sec = lay.section_at(shndx)
            lay.source[name] = _layout.SYMBOL_TABLE
            lay.home[name] = sec.label if sec is not None else "absolute"
            lay.foreign.pop(name, None)
        for name, value in symbols.items():
            allsyms.append((value, name))
            if kinds[name] == "STT_FUNC":
                funcs.append(value)
        sizes = {}
        for sym in symtab.iter_symbols():
            if sym.name in symbols and symbols[sym.name] == (sym["st_value"] & 0xFFFFFFFF):
                sizes[sym.name] = sym["st_size"]
    else:
        sizes = {}
    if syms:
        _layout.merge_sidecar(lay, os.fspath(syms), symbols, kinds, sizes, main_ranges)
        allsyms = [(v, n) for n, v in symbols.items()]
    func_list = sorted((symbols[n], sizes.get(n, 0), n) for n in symbols if kinds[n] == "STT_FUNC")
    _refuse_nested(path, func_list, lay)
    code = _function_code(code, func_list)

    gp = 0
    reginfo = elf.get_section_by_name(".reginfo") or next(
        (sec for sec in sections if sec["sh_type"] == "SHT_MIPS_REGINFO"), None)   # a stripped volume's
    if reginfo is not None:
        data = reginfo.data()
        if len(data) >= 24:
            gp = struct.unpack_from("<I", data, 20)[0]
    if gp == 0:
        gp = symbols.get("_gp", 0)
    img = Image(path=path, entry=entry, gp=gp, symbols=symbols, segments=segments,
                flags=elf.header.e_flags, stripped=stripped and not syms, code=code, layout=lay,
                executable=executable)
    img._sorted = sorted(allsyms)
    img._funcs = func_list
    return img


def _refuse_nested(path, funcs, lay) -> None:
    """Refuse a function that starts inside another's [start, start + size) (funcs sorted by
    address): a call to it would skip the other's prologue. Two names of one address are allowed."""
    outer = None
    for va, size, name in funcs:
        if outer is not None and outer[0] < va < outer[0] + outer[1]:
            o_va, o_size, o_name = outer
            raise ElfError(f"{path}: function {name} at 0x{va:08x} ({lay.origin(name)}) starts inside {o_name} "
                           f"0x{o_va:08x}-0x{o_va + o_size:08x} ({lay.origin(o_name)})")
        if outer is None or va + size > outer[0] + outer[1]:
            outer = (va, size, name)


def _refuse_overlap(path, i, vaddr, memsz, loaded_at) -> None:
    """Refuse program header i when its memory [vaddr, vaddr + memsz) shares an address with a
    loaded segment before it; record it otherwise. DECISION: only segments with file bytes count
    (their zero fill is theirs too); the empty overlay windows share the window by design."""
    lo, hi = vaddr, vaddr + memsz
    for j, a, b in loaded_at:
        if lo < b and a < hi:
            raise ElfError(f"{path}: program headers {j} (0x{a:08x}-0x{b:08x}) and {i} (0x{lo:08x}-0x{hi:08x}) "
                           f"overlap; each loaded segment needs memory of its own (executable-abi.md §1.2)")
    loaded_at.append((i, lo, hi))


def _function_code(sections, funcs):
    """The code ranges a snapshot leaves out: in each executable section, the span from its first
    sized function to the end of its last. DECISION: the retail layout's `main` is one writable,
    executable section that holds the game's data and bss after its text (so does the stand-in's);
    leaving the whole section out of a snapshot would carry one playback's static state (a
    morpher's, a counter's) into the next. The functions' span is the text: the alignment between
    two functions stays with it, so a page of code is left out whole and a patch to it stays. An
    image without sized function symbols keeps its executable sections."""
    out = []
    for lo, hi in sections:
        spans = [(a, a + n) for a, n, _ in funcs if n and lo <= a and a + n <= hi]
        if spans:
            out.append((min(a for a, _ in spans), max(b for _, b in spans)))
        else:
            out.append((lo, hi))
    return sorted(out)
