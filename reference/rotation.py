"""Rotations (animation-semantics.md §3): cossin, sceVu0RotMatrix and ⊗ in EE arithmetic, keyed
rotations as axis-angle steps in double (m2a / EigenVector / a2m), single-value rotations.

EE matrices are 16 raw words, column-major: math element (row r, column c) is word 4c + r.
Double matrices are 3x3 lists of rows, math orientation.
"""
from __future__ import annotations

from bisect import bisect_left
from math import atan2, cos, sin, sqrt
from typing import List, Optional, Sequence, Tuple

from .eefloat import bits_to_double

M32 = 0xFFFFFFFF
ONE = 0x3F800000
PI = 0x40490FDB
HALF_PI = 0x3FC90FDB
DEG180 = 0x43340000
TO_S16 = 0x43360B61
FROM_S16 = 0x38C90FDB
EIGEN_MIN = 0x2D2FEBFF
SIN = (0x362E9C14, 0xB94FB21F, 0x3C08873E, 0xBE2AAAA4)   # S5432 at 0x002F7520: x^9, x^7, x^5, x^3
EIGEN_MIN_D = bits_to_double(EIGEN_MIN)

IDENTITY16 = (ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE)
IDENTITY3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
SCRATCH_WORDS = (0, 1, 2, 4, 5, 6, 8, 9, 10)     # the 3x3 part of a 16-word matrix, scratch order


# ----------------------------------------------------------------------------- EE arithmetic

def cossin(a: int, o) -> Tuple[int, int]:
    """_sceVu0ecossin (§3.3): (sin bits, cos bits) of the angle a, with the game's defects."""
    f_add, f_sub, f_mul = o.f_add, o.f_sub, o.f_mul
    neg = bool(a & 0x80000000) and ((a >> 23) & 0xFF) != 0
    x = f_add(HALF_PI, a) if neg else f_sub(HALF_PI, a)
    x2 = f_mul(x, x)
    p = [f_mul(f_mul(SIN[k], x), x2) for k in range(4)]         # fs = SIN vector, ft = x, x2
    for k in range(3):
        p[k] = f_mul(p[k], x2)
    r = f_add(x, p[3])
    for k in range(2):
        p[k] = f_mul(p[k], x2)
    r = f_add(r, p[2])
    p[0] = f_mul(p[0], x2)
    r = f_add(r, p[1])
    r = f_add(r, p[0])
    c = r
    q = o.f_sqrt(f_sub(ONE, f_mul(r, r)))
    s = f_sub(0, q) if neg else f_add(0, q)
    return s, c


def mul_matrix(L: Sequence[int], R: Sequence[int], o) -> Tuple[int, ...]:
    """sceVu0MulMatrix L ⊗ R (§3.2): out_j[k] = chain over i of L_i[k] (fs) × R_j[i] (ft)."""
    mac4 = o.mac4
    out = [0] * 16
    for j in range(4):
        rj = R[4 * j:4 * j + 4]
        for k in range(4):
            out[4 * j + k] = mac4(((L[k], rj[0]), (L[4 + k], rj[1]), (L[8 + k], rj[2]),
                                   (L[12 + k], rj[3])))
    return tuple(out)


def rot_matrix(rx: int, ry: int, rz: int, o) -> Tuple[int, ...]:
    """sceVu0RotMatrix (§3.2): Lx ⊗ (Ly ⊗ (Lz ⊗ I)), i.e. R = Rx·Ry·Rz, from radian bits."""
    f_add, f_sub = o.f_add, o.f_sub
    M = IDENTITY16
    s, c = cossin(rz, o)
    c1, s1, n = f_add(0, c), f_add(0, s), f_sub(0, s)
    M = mul_matrix((c1, s1, 0, 0, n, c1, 0, 0, 0, 0, ONE, 0, 0, 0, 0, ONE), M, o)
    s, c = cossin(ry, o)
    c1, s1, n = f_add(0, c), f_add(0, s), f_sub(0, s)
    M = mul_matrix((c1, 0, n, 0, 0, ONE, 0, 0, s1, 0, c1, 0, 0, 0, 0, ONE), M, o)
    s, c = cossin(rx, o)
    c1, s1, n = f_add(0, c), f_add(0, s), f_sub(0, s)
    M = mul_matrix((ONE, 0, 0, 0, 0, c1, s1, 0, 0, n, c1, 0, 0, 0, 0, ONE), M, o)
    return M


def quantise(d: int, o) -> int:
    """§3.1: degrees bits -> radians bits on the 1/65536-turn grid (TO_S16 and FROM_S16 are fs)."""
    i = o.f_to_int(o.f_mul(TO_S16, d))
    s = i & 0xFFFF
    s = s - 0x10000 if s & 0x8000 else s
    return o.f_mul(FROM_S16, o.f_from_int(s & M32))


def degrees_to_radians(d: int, o) -> int:
    """§3.7 / §11: f_div(f_mul(PI, deg), DEG180), no quantisation."""
    return o.f_div(o.f_mul(PI, d), DEG180)


def single_rotation(deg: Sequence[int], o, rot=None) -> Tuple[int, ...]:
    """§3.7: the 16-word matrix of a single-value rotation (degrees bits x, y, z). rot(rx, ry, rz)
    computes sceVu0RotMatrix (default: rot_matrix with o; the compiled kernel's when given)."""
    rad = [degrees_to_radians(d, o) for d in deg]
    return rot(*rad) if rot is not None else rot_matrix(*rad, o)


def scratch9(M: Sequence[int]) -> List[int]:
    """The 9 words of a 16-word matrix's 3x3 part in scratch order (interfaces.md §3)."""
    return [M[w] for w in SCRATCH_WORDS]


def to_double3(M: Sequence[int]) -> Tuple[Tuple[float, ...], ...]:
    """Math 3x3 (rows) of a column-major 16-word EE matrix: element (r, c) is word 4c + r."""
    return tuple(tuple(bits_to_double(M[4 * c + r]) for c in range(3)) for r in range(3))


# ----------------------------------------------------------------------------- double math

def mat3_mul(A, B):
    return tuple(tuple(A[r][0] * B[0][c] + A[r][1] * B[1][c] + A[r][2] * B[2][c] for c in range(3))
                 for r in range(3))


def mat3_t(A):
    return tuple(tuple(A[c][r] for c in range(3)) for r in range(3))


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _normalize(v):
    n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n == 0.0:
        return (0.0, 0.0, 0.0)                               # §3.4: a zero vector normalises to zero
    return (v[0] / n, v[1] / n, v[2] / n)


def m2a(m) -> Tuple[Optional[Tuple[float, float, float]], float]:
    """§3.4 (m2a / EigenVector): the axis and angle of a rotation step, or (None, 0.0)."""
    a = [[m[r][c] - (1.0 if r == c else 0.0) for c in range(3)] for r in range(3)]
    col = [(a[0][c], a[1][c], a[2][c]) for c in range(3)]
    best, row = -1.0, 0
    for i in range(3):
        r1, r2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            c1, c2 = (j + 1) % 3, (j + 2) % 3
            cof = abs(col[r1][c1] * col[r2][c2] - col[r1][c2] * col[r2][c1])
            if cof > best:
                best, row = cof, i
    if best < EIGEN_MIN_D:
        return None, 0.0
    ca, cb = col[(row + 1) % 3], col[(row + 2) % 3]
    u = _normalize(_cross(ca, cb))
    w = _normalize(ca)
    x = _normalize(_cross(u, w))
    F = (u, w, x)
    local = mat3_mul(F, mat3_mul(m, mat3_t(F)))
    return u, atan2(local[2][1], local[1][1])


def a2m(axis, angle: float):
    """§3.5: c·I + s·[u]× + t·u·uᵀ; the identity when there is no axis."""
    if axis is None:
        return IDENTITY3
    x, y, z = axis
    c, s = cos(angle), sin(angle)
    t = 1.0 - c
    return ((c + t * x * x, t * x * y - s * z, t * x * z + s * y),
            (t * x * y + s * z, c + t * y * y, t * y * z - s * x),
            (t * x * z - s * y, t * y * z + s * x, c + t * z * z))


# ----------------------------------------------------------------------------- keyed rotations

class KeyedRotation:
    """A kind-2 rotation controller compiled per §3.6, evaluated in double."""

    __slots__ = ("base", "segments", "key_matrices", "key_words", "_holds", "_cum", "_W", "_ops")

    def __init__(self, keys, frames: int, o, rot=None):
        """rot(rx, ry, rz): sceVu0RotMatrix (default rot_matrix with o; the compiled kernel's when given)."""
        if not keys:
            raise ValueError("a keyed rotation needs at least one key")
        self._ops = o
        mats, words = [], []
        for _, deg in keys:
            rad = [quantise(d, o) for d in deg]
            R = rot(*rad) if rot is not None else rot_matrix(rad[0], rad[1], rad[2], o)
            words.append(tuple(R))
            mats.append(to_double3(R))
        self.key_matrices = mats
        self.key_words = words          # each key's own sceVu0RotMatrix, 16 raw words
        self.base = mats[0]
        t = (keys[0][0] * 256) & M32
        segs = []
        holds = []                      # (segment, key): a held key right after a turn into it
        if t != 0:
            segs.append((t, None, 0.0))
        for i in range(1, len(keys)):
            t_new = (keys[i][0] * 256) & M32
            axis, angle = m2a(mat3_mul(mats[i], mat3_t(mats[i - 1])))
            if (i >= 2 and axis is None and keys[i][1] == keys[i - 1][1]
                    and keys[i - 2][0] < keys[i - 1][0] < keys[i][0] and segs[-1][1] is not None):
                holds.append((len(segs), i - 1))
            segs.append(((t_new - t) & M32, axis, angle))
            t = t_new
        end = (frames * 256) & M32
        if t < end:
            # §3.6 step 4: the final hold reuses the last segment's axis and angle, with the
            # negated remaining span as its duration (the creep). DECISION: with no segment at
            # all (one key at frame 0) it has no axis.
            axis, angle = (segs[-1][1], segs[-1][2]) if segs else (None, 0.0)
            segs.append(((t - end) & M32, axis, angle))
        self.segments = tuple(segs)
        cum, c = [], 0
        W = [self.base]
        for dur, axis, angle in segs[:-1]:
            c += dur
            cum.append(c)
            W.append(mat3_mul(a2m(axis, angle), W[-1]))      # the step multiplies on the left
        self._cum = cum
        self._W = W
        self._holds = tuple((cum[j - 1], k) for j, k in holds)

    @classmethod
    def compiled(cls, keys, frames: int, o, kern, model: str) -> "KeyedRotation":
        """The same KeyedRotation, set up by the compiled kernels (kern.keyed_compile, which mirrors
        __init__ step for step; tests/reference checks every field bit for bit)."""
        if not keys:
            raise ValueError("a keyed rotation needs at least one key")
        k = kern.keyed_compile(model, keys, frames)
        self = cls.__new__(cls)
        self._ops = o
        self.key_words = [tuple(w) for w in k["words"].tolist()]
        self.key_matrices = [tuple(map(tuple, m)) for m in k["mats"].tolist()]
        self.base = self.key_matrices[0]
        self.segments = tuple((d, tuple(a) if h else None, g) for d, h, a, g in
                              zip(k["dur"].tolist(), k["has_axis"].tolist(), k["axis"].tolist(),
                                  k["angle"].tolist()))
        self._cum = k["cum"].tolist()
        self._W = [tuple(map(tuple, m)) for m in k["W"].tolist()]
        self._holds = tuple((self._cum[j - 1], key) for j, key in k["holds"])
        return self

    def holds(self):
        """[(T, key)]: each key held after a turn into it. At T the turn into `key` ends (frac 1);
        after T the step has no axis and the pose is the running matrix the turn reached
        (§3.4 step 4, §3.6). Only keys whose words repeat exactly, so no float rounding can
        give the step an axis."""
        return list(self._holds)

    def passed(self, T: int) -> int:
        """passed(T) of §3.6: how many segments the walk multiplies in."""
        if not self.segments:
            return 0
        return bisect_left(self._cum, T)

    def frac_bits(self, T: int) -> Tuple[int, int, int]:
        """(passed, t, frac bits) at T, frac = f_div(u2f(t), u2f(dur)) in EE arithmetic."""
        i = bisect_left(self._cum, T)
        t = T - (self._cum[i - 1] if i else 0)
        dur = self.segments[i][0]
        o = self._ops
        return i, t, (o.f_div(o.u2f(t), o.u2f(dur)) if dur else 0)

    def evaluate(self, T: int):
        """The double 3x3 rotation (math rows) at T."""
        if not self.segments:
            return self.base
        i, _, fb = self.frac_bits(T)
        _, axis, angle = self.segments[i]
        return mat3_mul(a2m(axis, angle * bits_to_double(fb)), self._W[i])
