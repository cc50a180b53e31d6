"""Raw-bit helpers: hex strings, ulp distance, float views of u32 patterns (README.md §3.3)."""
import struct


def hx(v):
    return f"0x{v & 0xFFFFFFFF:08x}"


def f32(bits):
    """The value of a u32 pattern read as an EE float: E=0 reads as (signed) zero, E=255 as a number."""
    bits &= 0xFFFFFFFF
    e = (bits >> 23) & 0xFF
    if e == 0:
        return -0.0 if bits >> 31 else 0.0
    if e == 255:   # EE: no inf/NaN, an ordinary large number
        mant = 1.0 + (bits & 0x7FFFFF) / 8388608.0
        v = mant * 2.0 ** 128
        return -v if bits >> 31 else v
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def ordered(bits):
    bits &= 0xFFFFFFFF
    return -(bits & 0x7FFFFFFF) if bits >> 31 else bits


def ulp(a, b):
    """Distance between two u32 float patterns in units in the last place (-0 and +0 are 0 apart)."""
    return abs(ordered(a) - ordered(b))


def zero_exponent(bits):
    return (bits >> 23) & 0xFF == 0


def f32_array(words):
    """f32() of every u32 of an integer array, as float64 (E=0 reads as signed zero, E=255 as an
    ordinary number): the vectorised form of f32, equal to it element for element."""
    import numpy as np
    w = np.asarray(words, dtype=np.uint32)
    e = w & 0x7F800000
    # an IEEE single with the same bits is the same number, but for E=0 (read as a signed zero)
    # and E=255 (an ordinary number, 2^128 times the significand)
    src = np.where(e == 0, w & 0x80000000, w).astype(np.uint32)
    big = e == 0x7F800000
    some_big = bool(big.any())
    if some_big:
        src[big] = 0                     # no NaN or infinity goes through the float32 view
    v = src.view(np.float32).astype(np.float64)
    if some_big:
        wb = w[big]
        mag = np.ldexp(1.0 + (wb & 0x7FFFFF).astype(np.float64) / 8388608.0, 128)
        v[big] = np.where(wb >> 31 == 1, -mag, mag)
    return v


def trans_add(bits):
    """f_add(+0, p): what sceVu0TransMatrix stores for a translation word (animation-semantics.md §4.3.2)."""
    return 0 if zero_exponent(bits) else bits & 0xFFFFFFFF


def f32_bits(x):
    """The nearest f32 pattern of a Python float (for showing a double reference value as bits)."""
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0x7F800000 if x > 0 else 0xFF800000
