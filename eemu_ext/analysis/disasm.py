"""R5900 disassembly of an ELF through our table: symbols as labels, branch targets as symbol+offset."""
from __future__ import annotations

from typing import Iterator, NamedTuple, Optional

from eemu_ext.isa.decode import default_decoder
from eemu_ext.loading.elf import Image, load_image
from eemu_ext.errors import ElfError
from eemu_ext.loading.function_names import AmbiguousName, resolve
from eemu_ext.memory import AccessFault, Memory


def _target(img: Image, where: Optional[str]) -> int:
    if where is None:
        return img.entry
    try:
        return int(where, 0)
    except ValueError:
        pass
    if where in img.symbols:
        return img.symbol(where)
    try:      # a short name ('NoteProcess'), resolved as `harness coverage --function` resolves it
        return img.symbol(resolve(where, [name for _, _, name in img._funcs]))
    except AmbiguousName as e:
        raise ElfError(f"{img.path}: {e}") from None
    except ValueError:
        return img.symbol(where)      # the ElfError naming what is missing (stripped, another overlay)


def disasm_lines(img: Image, mem: Memory, start: int, count: int) -> Iterator[str]:
    """Lines 'addr: word  text', with '<name>:' labels where a symbol starts."""
    dec = default_decoder()
    by_addr = {}
    for name, a in img.symbols.items():
        by_addr.setdefault(a, name)
    sym = img.symbolize
    for k in range(count):
        pc = (start + 4 * k) & 0xFFFFFFFF
        if pc in by_addr:
            yield f"\n{by_addr[pc]}:"
        try:
            word = mem.fetch(pc)
        except AccessFault:
            yield f"  {pc:08x}: <unmapped>"
            return
        yield f"  {pc:08x}: {word:08x}  {dec.disasm(word, pc, symbolize=sym)}"


class Access(NamedTuple):
    """One base + immediate use of memory in a function's code: a load, a store, or an ``addiu`` that
    forms a field's address (an embedded structure or an array handed on)."""
    pc: int
    kind: str          # 'load' | 'store' | 'address'
    base: int          # the base GPR
    offset: int        # the signed 16-bit immediate


def function_extent(img: Image, start: int) -> int:
    """Bytes of the function at `start`: its symbol's size, else up to the next function's start
    (at most 64 KiB), else 0."""
    for s, size, _name in img._funcs:
        if s == start and size:
            return size
    nxt = [s for s, _size, _name in img._funcs if s > start]
    return min(min(nxt) - start, 0x10000) if nxt else 0


def accesses(mem: Memory, start: int, size: int) -> Iterator[Access]:
    """The base + immediate memory accesses of the code in [start, start + size), as the machine's
    instruction table reads them (the data flow of each row's sem; ``addiu`` by its fields). A word
    the table does not decode, or an unmapped one, is passed over."""
    from eemu_ext.analysis.dataflow import dataflow
    from eemu_ext.isa.row import fields_of
    dec = default_decoder()
    for pc in range(start, start + size, 4):
        try:
            word = mem.fetch(pc)
            flow = dataflow(word, dec)
        except (AccessFault, ValueError):
            continue
        for m in flow.mem:
            if m.base is not None and m.base.kind == "gpr" and m.offset is not None:
                off = m.offset - (1 << 32) if m.offset >= 1 << 31 else m.offset
                yield Access(pc, m.kind, m.base.n, off)
        if dec.rows[dec.decode(word)].mnemonic == "addiu":
            f = fields_of(word, pc)
            yield Access(pc, "address", f["rs"], f["imm"])


def main(argv=None) -> int:
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="python -m eemu_ext disasm", description=__doc__)
    ap.add_argument("elf")
    ap.add_argument("where", nargs="?", help="symbol name or address (without it and --count: the index of "
                                            "the executable's functions)")
    ap.add_argument("--count", "-n", type=int, default=None,
                    help="instructions to print (default: the symbol's size, else 64)")
    a = ap.parse_args(argv)
    if a.where is None and a.count is None:
        return function_index(a.elf)
    try:
        img = load_image(a.elf)
        start = _target(img, a.where)
    except ElfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    count = a.count
    if count is None:
        count = 64
        for s, size, name in img._funcs:
            if s == start and size:
                count = size // 4
    try:
        mem = _loaded(img)
    except ElfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        for line in disasm_lines(img, mem, start, count):
            print(line)
    except BrokenPipeError:
        pass
    return 0


def _loaded(img) -> Memory:
    """A memory holding every segment of ``img``; ElfError names a segment that lies outside EE memory."""
    mem = Memory()
    for vaddr, data in img.segments:
        try:
            mem.write(vaddr, data)
        except AccessFault:
            raise ElfError(f"{img.path}: segment at 0x{vaddr:08x} ({len(data)} bytes) lies outside EE memory")
    return mem


def _shown(name: str) -> str:
    """A symbol name as the terminal may show it: non-printable characters escaped."""
    return name if name.isprintable() else "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256
                                                   else f"\\u{ord(c):04x}" for c in name)


def function_index(path) -> int:
    """`disasm ELF` alone: the entry point, then every function symbol with its address and size,
    by address, and how to disassemble one."""
    import sys
    try:
        img = load_image(path)
        _loaded(img)
    except ElfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    funcs = sorted((s, size, name) for s, size, name in img._funcs if size)
    print(f"{_shown(str(path))}: entry 0x{img.entry:08x}, {len(funcs)} functions")
    try:
        for s, size, name in funcs:
            print(f"  {s:08x} {size // 4:6d} insns  {_shown(name)}")
        print(f"disassemble one: .venv/bin/python -m eemu_ext disasm {_shown(str(path))} SYMBOL|ADDR [--count N]")
    except BrokenPipeError:
        pass
    return 0
