"""The native engine's machine state, declared once: ``FIELDS`` (name, C type, count, note).

Everything else is made from this table: the C struct ``ee_state`` (``c_header()``, committed as
``csrc/ee_state.h``, which ``ee.h`` includes; ``python -m eemu_ext.engines.native.state`` writes it and a
test holds the file to it), the ctypes class ``EeState``, the ``struct`` formats the engine packs
contiguous runs of fields with (``run_format``), and the names of the registers the two engines
share (``element_names``). ``check_offsets`` holds every field's offset in a compiled library
(``ee_state_offsets``, written into the header before any macro can rename a field) against the
ctypes class, and names the first field that differs.

DECISION: the C struct is a committed file written by the generator, not one the build writes:
a reader of the C finds the struct beside ee.h, every path that reads csrc/ (the translator's hash,
the build's headers, the row checker) sees it unchanged, and a test holds it to the table.
"""
from __future__ import annotations

import ctypes
import os
import struct
from typing import Dict, List, NamedTuple, Tuple, Union

LANES = "xyzw"
TAP_WORDS = 9       # words per tapped call in tap_buf: the address, a0..a3, $f12..$f15
BUMP_WORDS = 5      # words per allocation in bump_log: the address, a0, a1, ra, the block


class Field(NamedTuple):
    name: str
    ctype: str                              # a key of _CTYPES
    count: Union[int, Tuple[int, int]] = 1  # 1: a scalar; n: uint32_t x[n]; (n, k): x[n][k]
    note: str = ""                          # the C comment after the field
    label: str = ""                         # the register's name in a lockstep report, if not name


FIELDS: Tuple[Field, ...] = (
    Field("R", "uint64_t", 32, "the low 64 bits of GPR n (Python R)"),
    Field("RH", "uint64_t", 32, "the high 64 bits of GPR n (Python RH)"),
    Field("HI", "uint64_t", 2),
    Field("LO", "uint64_t", 2),
    Field("F", "uint32_t", 32, "FPR patterns"),
    Field("VF", "uint32_t", (32, 4), "VU0 float registers, lanes x y z w"),
    Field("VI", "uint32_t", 16, "VU0 integer registers (u16 values)"),
    Field("VJUNK", "uint32_t", 4, "scratch for writes to VF0"),
    # scalars (Python: m.S.<name>)
    Field("acc_ovf", "uint64_t", 1, "0 or the OVF bit (1 << 32), as Python keeps it"),
    Field("sa", "uint32_t"),
    Field("fcr31", "uint32_t"),
    Field("acc", "uint32_t"),
    Field("vacc", "uint32_t", 4, "VU0 ACC, lanes x y z w", label="ACC"),
    Field("q", "uint32_t"),
    Field("i", "uint32_t"),
    Field("r", "uint32_t"),
    Field("mac", "uint32_t"),
    Field("status", "uint32_t"),
    Field("clip", "uint32_t"),
    Field("cop0", "uint32_t", 32),
    Field("cmsar0", "uint32_t"),
    Field("cpcond0", "uint32_t"),
    Field("vi24", "uint32_t"),
    # memory: the machine's own buffers (no copies)
    Field("ram", "uint8_t *"),
    Field("spr", "uint8_t *"),
    Field("vu0", "uint8_t *"),
    Field("data_floor", "uint32_t", 1, "data accesses below this address leave native code (0 = none)"),
    # run control (engine-private)
    Field("pc", "uint32_t"),
    Field("steps", "uint64_t"),
    Field("limit", "uint64_t"),
    Field("why", "int32_t", 1, "why the run loop returned to Python (WHY_* in block.h)"),
    # lockstep: a log of every store a block makes (address, size, old and new value)
    Field("log_on", "int32_t"),
    Field("log_n", "int32_t"),
    Field("log_cap", "int32_t"),
    Field("log_addr", "uint32_t *"),
    Field("log_size", "uint8_t *"),
    Field("log_old", "u128 *"),
    Field("log_new", "u128 *"),
    Field("prev", "uint32_t", 1, "the start of the last block the run loop entered"),
    Field("annulled", "int32_t", 1, "a block left through a likely branch's annul path (1), or took a "
          "branch whose target is its fall-through (2)"),
    Field("bcount", "uint64_t *", 1, "coverage: per block, [taken pc, completed, likely not taken, taken] "
          "(or NULL)"),
    Field("dirty", "uint8_t *", 1, "one byte per 4 KiB RAM page, set by every store there (memory.py)"),
    Field("hole_lo", "uint32_t", 1, "data accesses in [hole_lo, hole_lo + hole_len) leave native code"),
    Field("hole_len", "uint32_t"),
    # tap hooks (hooks.py "tap"): per call, TAP_WORDS words: the address, a0..a3, $f12..$f15
    Field("tap_buf", "uint32_t *"),
    Field("tap_n", "int32_t"),
    Field("tap_cap", "int32_t"),
    # bump hooks (hooks.py "bump"): an allocator served in C. bump_hooks holds (address, size rule)
    # pairs; each allocation C serves leaves BUMP_WORDS words in bump_log: the address, a0, a1, ra
    # and the block's address
    Field("bump_ptr", "uint32_t", 1, "the heap's next free byte"),
    Field("bump_end", "uint32_t", 1, "one past the heap"),
    Field("bump_high", "uint32_t", 1, "the heap's high-water mark"),
    Field("bump_hooks", "uint32_t *"),
    Field("bump_nhooks", "int32_t"),
    Field("bump_log", "uint32_t *"),
    Field("bump_n", "int32_t"),
    Field("bump_cap", "int32_t"),
)

# C type -> (ctypes type, struct code). DECISION: every pointer is a c_void_p on the Python side,
# set from an address (ctypes.addressof): the engine and the row checker never read through them
_CTYPES = {
    "uint64_t": (ctypes.c_uint64, "Q"),
    "uint32_t": (ctypes.c_uint32, "I"),
    "int32_t": (ctypes.c_int32, "i"),
    "uint8_t *": (ctypes.c_void_p, None),
    "uint32_t *": (ctypes.c_void_p, None),
    "uint64_t *": (ctypes.c_void_p, None),
    "u128 *": (ctypes.c_void_p, None),
}

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csrc", "ee_state.h")


def _dims(f: Field) -> Tuple[int, ...]:
    return () if f.count == 1 else (f.count if isinstance(f.count, tuple) else (f.count,))


def ctypes_fields(fields=FIELDS) -> List[Tuple[str, type]]:
    out = []
    for f in fields:
        t = _CTYPES[f.ctype][0]
        for n in reversed(_dims(f)):
            t = t * n
        out.append((f.name, t))
    return out


def ctypes_class(fields=FIELDS) -> type:
    """A ctypes Structure laid out as the table says."""
    return type("EeState", (ctypes.Structure,), {
        "__doc__": "ee_state, made from eemu_ext/engines/native/state.py's FIELDS.",
        "_fields_": ctypes_fields(fields)})


EeState = ctypes_class()
OFFSETS: Dict[str, int] = {f.name: getattr(EeState, f.name).offset for f in FIELDS}


def c_header(fields=FIELDS) -> str:
    """The text of csrc/ee_state.h: the struct, then each field's offsetof in table order."""
    lines = ["/* ee_state, the native engine's machine state. Generated from eemu_ext/engines/native/state.py",
             " * (python -m eemu_ext.engines.native.state): edit the table there, not this file. */",
             "#ifndef EE_STATE_H", "#define EE_STATE_H", "#include <stddef.h>", "#include <stdint.h>", "",
             "typedef unsigned __int128 u128;", "", "typedef struct ee_state {"]
    for f in fields:
        star = f.ctype.endswith("*")
        decl = f"{f.ctype}{'' if star else ' '}{f.name}" + "".join(f"[{n}]" for n in _dims(f)) + ";"
        lines.append(f"    {decl}" + (f"  /* {f.note} */" if f.note else ""))
    lines.append("} ee_state;")
    lines.append("")
    lines.append("/* every field's offset, in the table's order (the engine checks them against its ctypes class) */")
    lines.append("static const long ee_state_offsets[] = {")
    lines.extend(f"    offsetof(ee_state, {f.name})," for f in fields)
    lines.append("};")
    lines.append(f"#define EE_STATE_NFIELDS {len(fields)}")
    lines.append(f"#define TAP_WORDS {TAP_WORDS}  /* words per tapped call in tap_buf */")
    lines.append(f"#define BUMP_WORDS {BUMP_WORDS}  /* words per allocation in bump_log */")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def check_offsets(offset_of, sizeof: int, where: str, cls=EeState) -> None:
    """Every field's offset and the size in a compiled library against ``cls``: ``offset_of(k)``
    is the library's offsetof of the k-th field. Raises LayoutError naming the first field that
    differs."""
    for k, (name, _t) in enumerate(cls._fields_):
        off = offset_of(k)
        want = getattr(cls, name).offset
        if off != want:
            raise LayoutError(f"{where}: ee_state.{name} is at offset {off} in the compiled C, at {want} in "
                              f"the ctypes class (eemu_ext/engines/native/state.py)")
    if sizeof != ctypes.sizeof(cls):
        raise LayoutError(f"{where}: sizeof(ee_state) is {sizeof} in the compiled C, {ctypes.sizeof(cls)} "
                          f"in the ctypes class (eemu_ext/engines/native/state.py)")


class StoreLog:
    """The buffers of ee_state's store log (lockstep, the row checker): per store its address,
    size, and old and new value (16 bytes each); attach(st) points a state at them."""

    def __init__(self, cap: int):
        self.cap = cap
        self.addr = (ctypes.c_uint32 * cap)()
        self.size = (ctypes.c_uint8 * cap)()
        self.old = (ctypes.c_uint8 * (16 * cap))()
        self.new = (ctypes.c_uint8 * (16 * cap))()

    def attach(self, st) -> None:
        st.log_addr, st.log_size = ctypes.addressof(self.addr), ctypes.addressof(self.size)
        st.log_old, st.log_new = ctypes.addressof(self.old), ctypes.addressof(self.new)
        st.log_cap = self.cap


class LayoutError(Exception):
    """ee_state's C layout differs from the ctypes class."""


def _field(name: str) -> Field:
    for f in FIELDS:
        if f.name == name:
            return f
    raise KeyError(f"ee_state has no field {name!r}")


def names(first: str, last: str) -> List[str]:
    """The names of the fields from first to last, in the table's order."""
    order = [f.name for f in FIELDS]
    return order[order.index(first):order.index(last) + 1]


def run_format(first: str, last: str) -> struct.Struct:
    """A little-endian struct for the fields first..last, which must lie back to back (no padding)."""
    codes, end = [], OFFSETS[first]
    for name in names(first, last):
        f = _field(name)
        code = _CTYPES[f.ctype][1]
        if code is None:
            raise ValueError(f"ee_state.{name} is a pointer: not part of a register run")
        if OFFSETS[name] != end:
            raise ValueError(f"ee_state.{name} does not follow the field before it (padding)")
        n = 1
        for d in _dims(f):
            n *= d
        codes.append(f"{n}{code}")
        end += n * struct.calcsize(code)
    return struct.Struct("<" + "".join(codes))


def element_names(first: str, last: str, skip=()) -> List[str]:
    """One name per register word of the fields first..last (a run_format's order, less skip)."""
    out: List[str] = []
    for name in names(first, last):
        if name in skip:
            continue
        f = _field(name)
        dims = _dims(f)
        if not dims:
            out.append(name)
        elif len(dims) == 2:
            out.extend(f"{name}[{i}].{LANES[c]}" for i in range(dims[0]) for c in range(dims[1]))
        elif f.label:
            out.extend(f"{f.label}.{LANES[c]}" for c in range(dims[0]))
        else:
            out.extend(f"{name}[{i}]" for i in range(dims[0]))
    return out


def main() -> int:
    with open(HEADER, "w", encoding="utf-8") as f:
        f.write(c_header())
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
