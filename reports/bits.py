"""Raw-bit views of mismatch values: parse u32 patterns, ulp distance, differing bits.

Values in mismatch records are raw bits (interfaces.md §4): u32 patterns as "0x3f800000"
strings, plain ints, or lists of those. Floats are decoded for display only; every
comparison here works on the u32 patterns.
"""
from __future__ import annotations

import struct

from ground.fields import BadField, Field

MASK32 = 0xFFFFFFFF


def parse_u32(value) -> int | None:
    """The u32 pattern of a record value ("0x3f800000", "1065353216", or an int), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value & MASK32 if -0x80000000 <= value <= MASK32 else None
    if isinstance(value, str):
        s = value.strip()
        try:
            v = int(s, 16) if s.lower().startswith(("0x", "-0x")) else int(s, 10)
        except ValueError:
            return None
        return v & MASK32 if -0x80000000 <= v <= MASK32 else None
    return None


# Fields whose values are integers, not float patterns (checks.md §2.2, §4.1, §5, §6.2).
# DECISION: interfaces.md §4 writes every u32 as "0x..." whether it is a float or not; these
# field names mark the integer ones, which get no float reading and no ulp distance.
INTEGER_FIELDS = ("frame counter", "return value", "u", "v")


def is_integer_field(field) -> bool:
    try:
        f = Field.parse(str(field or ""))
    except BadField:
        return False
    return f.name in INTEGER_FIELDS or f.name.startswith("vertex") or f.name.endswith("count") or f.member in ("u", "v")


def frame_text(value: int) -> str:
    """A (frameNow << 8) | frameCnt value as "frame 4 + 5/256"."""
    return f"frame {value >> 8} + {value & 255}/256"


def is_hex_pattern(value) -> bool:
    """True for the record's "0x..." u32 notation (so a float reading is meaningful)."""
    return isinstance(value, str) and value.strip().lower().startswith("0x")


def u2f(bits: int) -> float:
    """The IEEE single value of a u32 pattern, for display only."""
    return struct.unpack("<f", struct.pack("<I", bits & MASK32))[0]


def float_text(bits: int) -> str:
    """A display string for the float reading of bits; EE-specific cases are named."""
    exp = (bits >> 23) & 0xFF
    frac = bits & 0x7FFFFF
    sign = "-" if bits >> 31 else ""
    if exp == 0xFF:
        # DECISION: the EE has no Inf/NaN (ee-float.md); exponent 255 reads as a huge
        # normal number on the EE, so say both rather than printing "nan".
        return f"{sign}(exp 255: Fmax-class on EE, IEEE {'inf' if frac == 0 else 'nan'})"
    if exp == 0 and frac:
        return f"{sign}denormal (EE reads 0)"
    return repr(u2f(bits))


def ordered(bits: int) -> int:
    """Map a float pattern to an integer line on which adjacent floats differ by 1 (+0 == -0)."""
    bits &= MASK32
    return -(bits & 0x7FFFFFFF) if bits >> 31 else bits


def ulp_distance(a: int, b: int) -> int:
    """Number of representable floats between two u32 patterns (0 for +0 vs -0)."""
    return abs(ordered(a) - ordered(b))


def diff_mask(a: int, b: int) -> int:
    return (a ^ b) & MASK32


def bit_ranges(mask: int, floaty: bool = True) -> str:
    """Which bits differ, by field, e.g. "2 bit(s): fraction 0-1"; an integer's are "bits 0-1"."""
    if not mask:
        return "no bits differ"
    parts = []
    fields = (("sign", 31, 31), ("exponent", 23, 30), ("fraction", 0, 22)) if floaty else (("bits", 0, 31),)
    for name, lo, hi in fields:
        sub = [i for i in range(lo, hi + 1) if (mask >> i) & 1]
        if sub:
            parts.append(f"{name} {sub[0]}" + (f"-{sub[-1]}" if len(sub) > 1 else ""))
    return f"{bin(mask).count('1')} bit(s): " + ", ".join(parts)
