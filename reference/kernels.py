"""The reference's compiled kernels (reference/csrc), loaded through ctypes, or None.

DECISION: C compiled with the host gcc and loaded through ctypes, not numba: no new dependency,
no JIT warm-up in every worker, and a build of about a second cached under build/reference/.
The kernels mirror reference/eefloat.py, controllers.py and rotation.py step for step; the
tests in tests/reference check them bit for bit against that Python model.

`native()` returns the loaded `Kernels`, or None (with a one-line notice on stderr, once) when
there is no C compiler or the build fails; the reference then runs its Python model.
EEDIFF_REFERENCE_NATIVE=0 selects the Python model without trying to build.
"""
from __future__ import annotations

import ctypes
import os
import sys
from typing import Optional

import numpy as np

from . import cbuild
from .controllers import FloatController

MODEL_CODE = {"hw": 0, "trunc": 1}
OPS = ("add", "sub", "mul", "madd", "msub", "div", "sqrt", "rsqrt", "from_int", "to_int", "cmp",
       "u2f", "mac4")
ACC_OPS = ("madda", "msuba", "mula", "adda", "suba")
SOURCES = ("kernels.c",)

_vp = ctypes.c_void_p      # pointers are passed and stored as plain addresses (a typed cast is slow)
_u32p = ctypes.POINTER(ctypes.c_uint32)
_i64 = ctypes.c_int64
_int = ctypes.c_int


class CtrlStruct(ctypes.Structure):
    """ref_ctrl of kernels.c."""
    _fields_ = [("nseg", _i64), ("width", _i64), ("cum", _vp), ("dur", _vp), ("acc", _vp),
                ("delta", _vp)]


class KeyedStruct(ctypes.Structure):
    """ref_keyed of kernels.c."""
    _fields_ = [("nseg", _i64), ("cum", _vp), ("dur", _vp), ("axis", _vp), ("has_axis", _vp),
                ("angle", _vp), ("W", _vp), ("base", _vp)]


class TrackStruct(ctypes.Structure):
    """ref_track of kernels.c: a track's three channels and its constant or keyed rotation."""
    _fields_ = [("ch", _vp), ("R16", _vp), ("keyed", _vp)]


_addressof, _char_at = ctypes.addressof, ctypes.c_char.from_buffer


def _ptr(a: np.ndarray):
    """The array's address (every kernel pointer argument is declared void *: a typed cast per
    call costs more than the kernel). Through ctypes' view of its buffer, a third of the cost of
    a.ctypes; a read-only or empty array takes a.ctypes."""
    try:
        return _addressof(_char_at(a))
    except (TypeError, ValueError):
        return a.ctypes.data


def _u32(x, n=None) -> np.ndarray:
    """x as contiguous uint32 words, each taken modulo 2^32; a uint32 array as it is (a copy only
    when it is not contiguous): its words are in range already."""
    if isinstance(x, np.ndarray) and x.dtype == np.uint32:
        a = np.ascontiguousarray(x)
    else:
        a = np.ascontiguousarray(np.asarray(x, dtype=np.uint64) & 0xFFFFFFFF, dtype=np.uint32)
    if n is not None and a.size != n:
        raise ValueError(f"expected {n} words, got {a.size}")
    return a


class Kernels:
    """The loaded library and typed entry points."""

    def __init__(self, path: str):
        self.path = path
        lib = self.lib = ctypes.CDLL(path)
        lib.ref_ops.argtypes = [_int, _int, _i64, _vp, _vp, _vp, _vp]
        lib.ref_ops.restype = _int
        lib.ref_acc_ops.argtypes = [_int, _int, _i64, _vp, _vp, _vp, _vp, _vp, _vp]
        lib.ref_acc_ops.restype = _int
        lib.ref_channels.argtypes = [_int, _vp, _i64, _vp, _i64, _vp]
        lib.ref_channels.restype = None
        lib.ref_local_exact.argtypes = [_int, _vp, _i64, _vp, _vp, _i64, _vp]
        lib.ref_local_exact.restype = None
        lib.ref_track_local.argtypes = [_int, _vp, _vp, _vp, _i64, _vp]
        lib.ref_track_local.restype = None
        lib.ref_keyed_eval.argtypes = [_int, _vp, _vp, _i64, _vp, _vp]
        lib.ref_keyed_eval.restype = None
        lib.ref_tracks.argtypes = [_int, _vp, _i64, _vp, _i64, _vp, _vp, _vp, _vp]
        lib.ref_tracks.restype = None
        lib.ref_ctrl_compile.argtypes = [_int, _i64, _vp, _vp, _i64, _i64, _vp, _vp, _vp, _vp]
        lib.ref_ctrl_compile.restype = _i64
        lib.ref_keyed_compile.argtypes = [_int, _i64, _vp, _vp, _i64] + [_vp] * 11
        lib.ref_keyed_compile.restype = _i64
        lib.ref_rot_matrix.argtypes = [_int, _vp, _i64, _vp]
        lib.ref_rot_matrix.restype = None
        lib.ref_mul_matrices.argtypes = [_int, _i64, _vp, _vp, _vp]
        lib.ref_mul_matrices.restype = _int
        lib.ref_chain_bounds.argtypes = [_i64, _i64, _vp, _vp, _vp, _vp, _vp, _vp, _vp]
        lib.ref_chain_bounds.restype = _int
        lib.ref_has_fma.argtypes = []
        lib.ref_has_fma.restype = _int
        self.has_fma = bool(lib.ref_has_fma())     # chain_bounds' products need the host's FMA
        lib.ref_world_series.argtypes = [_int, _i64, _i64, _vp, _vp, _vp, _vp]
        lib.ref_world_series.restype = _int
        self._rad = (ctypes.c_uint32 * 3)()
        self._rot16 = (ctypes.c_uint32 * 16)()

    # ---------------------------------------------------------------- float operations

    def op(self, model: str, name: str, a, b=None, c=None) -> np.ndarray:
        """The op over arrays of raw words: out[i] = op(a[i], b[i]) (madd/msub: op(c[i], a[i], b[i]);
        mac4: a and b are (n, 4) fs and ft words). cmp gives -1/0/1 as int32."""
        code = OPS.index(name)
        a = _u32(a)
        n = a.shape[0] if name == "mac4" else a.size
        b = _u32(b if b is not None else np.zeros_like(a))
        c = _u32(c if c is not None else np.zeros(n, dtype=np.uint32))
        if name == "mac4":
            if a.shape != (n, 4) or b.shape != (n, 4):
                raise ValueError("mac4 takes (n, 4) fs and ft words")
        elif b.size != n or c.size != n:
            raise ValueError(f"operand arrays of different lengths for {name}")
        out = np.empty(n, dtype=np.uint32)
        rc = self.lib.ref_ops(MODEL_CODE[model], code, n, _ptr(a), _ptr(b),
                              _ptr(c), _ptr(out))
        if rc:
            raise ValueError(f"kernel ref_ops refused op {name!r} for model {model!r}")
        return out.view(np.int32) if name == "cmp" else out

    def acc_op(self, model: str, name: str, a, b, acc=None, latch=None):
        """An ACC-writing form over arrays: (new ACC words, new "ACC overflowed" latch as bool)."""
        code = ACC_OPS.index(name)
        a, b = _u32(a), _u32(b)
        n = a.size
        acc = _u32(acc if acc is not None else np.zeros(n, dtype=np.uint32))
        lat = np.ascontiguousarray(latch if latch is not None else np.zeros(n), dtype=np.uint8)
        if not (b.size == acc.size == lat.size == n):
            raise ValueError(f"operand arrays of different lengths for {name}")
        out = np.empty(n, dtype=np.uint32)
        over = np.empty(n, dtype=np.uint8)
        rc = self.lib.ref_acc_ops(MODEL_CODE[model], code, n, _ptr(acc), _ptr(lat),
                                  _ptr(a), _ptr(b), _ptr(out), _ptr(over))
        if rc:
            raise ValueError(f"kernel ref_acc_ops refused op {name!r} for model {model!r}")
        return out, over.astype(bool)

    # ---------------------------------------------------------------- controllers

    def channels(self, model: str, ctrls, times: np.ndarray) -> np.ndarray:
        """Channels (a ctypes CtrlStruct array) at every time: (n, sum of widths) uint32."""
        t = _u32(times)
        width = sum(c.width for c in ctrls)
        out = np.empty((t.size, width), dtype=np.uint32)
        self.lib.ref_channels(MODEL_CODE[model], ctrls, len(ctrls), _ptr(t), t.size,
                              _ptr(out))
        return out

    def track_local(self, model: str, pos_scale, R16: np.ndarray, times: np.ndarray) -> np.ndarray:
        """local_exact(R16, scale(T), pos(T)) at every time: (n, 16) uint32."""
        t = _u32(times)
        R = _u32(R16, 16)
        out = np.empty((t.size, 16), dtype=np.uint32)
        self.lib.ref_track_local(MODEL_CODE[model], pos_scale, _ptr(R), _ptr(t), t.size,
                                 _ptr(out))
        return out

    def local_exact(self, model: str, R16, scale, pos) -> np.ndarray:
        """local_exact over n entries: R16 (16,) or (n, 16), scale and pos (n, 3): (n, 16) uint32."""
        s = _u32(scale).reshape(-1, 3)
        p = _u32(pos).reshape(-1, 3)
        R = _u32(R16)
        n = s.shape[0]
        if p.shape[0] != n:
            raise ValueError("scale and pos of different lengths")
        stride = 0 if R.size == 16 else 16
        if stride and R.size != 16 * n:
            raise ValueError("R16 must be one matrix or one per entry")
        out = np.empty((n, 16), dtype=np.uint32)
        self.lib.ref_local_exact(MODEL_CODE[model], _ptr(R), stride, _ptr(s),
                                 _ptr(p), n, _ptr(out))
        return out

    def tracks(self, model: str, tracks, times: np.ndarray):
        """Several tracks (a ctypes TrackStruct array) at every time of `times`: (chan (n, ntr, 7)
        uint32, local (n, ntr, 16) uint32, rot (n, ntr, 3, 3) float64, passed (n, ntr) int64);
        local holds the constant-rotation tracks' entries, rot and passed the keyed ones'."""
        t = _u32(times)
        n, ntr = t.size, len(tracks)
        chan = np.empty((n, ntr, 7), dtype=np.uint32)
        local = np.zeros((n, ntr, 16), dtype=np.uint32)
        rot = np.zeros((n, ntr, 3, 3), dtype=np.float64)
        passed = np.zeros((n, ntr), dtype=np.int64)
        self.lib.ref_tracks(MODEL_CODE[model], ctypes.addressof(tracks), ntr, _ptr(t), n, _ptr(chan),
                            _ptr(local), _ptr(rot), _ptr(passed))
        return chan, local, rot, passed

    def ctrl_compile(self, model: str, keys, width: int, frames: int):
        """controllers.FloatController's set-up of keys [(frame, words)] as arrays: (dur (s,),
        delta (s, width), cum (s - 1,), acc (s, width)) uint32 but cum uint64."""
        n = len(keys)
        if not n or not 1 <= width <= 4:
            raise ValueError(f"a keyed controller set-up takes 1 or more keys of 1 to 4 words, not "
                             f"{n} keys of {width}")
        frame = np.array([f for f, _ in keys], dtype=np.int64)
        val = _u32([x for _, v in keys for x in v], n * width)
        dur = np.empty(n + 1, dtype=np.uint32)
        delta = np.empty((n + 1, width), dtype=np.uint32)
        cum = np.empty(n + 1, dtype=np.uint64)
        acc = np.empty((n + 1, width), dtype=np.uint32)
        ns = self.lib.ref_ctrl_compile(MODEL_CODE[model], n, _ptr(frame), _ptr(val), width, frames,
                                       _ptr(dur), _ptr(delta), _ptr(cum), _ptr(acc))
        return dur[:ns], delta[:ns], cum[:ns - 1], acc[:ns]

    def keyed_compile(self, model: str, keys, frames: int) -> dict:
        """rotation.KeyedRotation's set-up of keys [(frame, (x, y, z) degrees bits)] as arrays:
        words (n, 16), mats (n, 3, 3), dur (s,), has_axis (s,), axis (s, 3), angle (s,),
        cum (s - 1,), W (s, 3, 3) and holds [(segment, key)]."""
        n = len(keys)
        if not n:
            raise ValueError("a keyed rotation needs at least one key")
        frame = np.array([f for f, _ in keys], dtype=np.int64)
        deg = _u32([w for _, d in keys for w in d], 3 * n)
        words = np.empty((n, 16), dtype=np.uint32)
        mats = np.empty((n, 3, 3), dtype=np.float64)
        dur = np.empty(n + 1, dtype=np.uint32)
        has = np.empty(n + 1, dtype=np.uint8)
        axis = np.empty((n + 1, 3), dtype=np.float64)
        angle = np.empty(n + 1, dtype=np.float64)
        cum = np.empty(n + 1, dtype=np.uint64)
        W = np.empty((n + 1, 3, 3), dtype=np.float64)
        hseg = np.empty(n, dtype=np.int64)
        hkey = np.empty(n, dtype=np.int64)
        nh = np.zeros(1, dtype=np.int64)
        ns = self.lib.ref_keyed_compile(MODEL_CODE[model], n, _ptr(frame), _ptr(deg), frames, _ptr(words),
                                        _ptr(mats), _ptr(dur), _ptr(has), _ptr(axis), _ptr(angle),
                                        _ptr(cum), _ptr(W), _ptr(hseg), _ptr(hkey), _ptr(nh))
        h = int(nh[0])
        return {"words": words, "mats": mats, "dur": dur[:ns], "has_axis": has[:ns], "axis": axis[:ns],
                "angle": angle[:ns], "cum": cum[:max(ns - 1, 0)], "W": W[:ns],
                "holds": list(zip(hseg[:h].tolist(), hkey[:h].tolist()))}

    def rot_matrix(self, model: str, rx: int, ry: int, rz: int):
        """sceVu0RotMatrix from radian bits: 16 words (a tuple), as rotation.rot_matrix."""
        self._rad[0], self._rad[1], self._rad[2] = rx, ry, rz
        self.lib.ref_rot_matrix(MODEL_CODE[model], self._rad, 1, self._rot16)
        return tuple(self._rot16[:])

    def mul_matrices(self, model: str, P, L) -> np.ndarray:
        """sceVu0MulMatrix(P[r], L[r]) for every row of two (n, 16) word arrays, as
        rotation.mul_matrix row by row: (n, 16) uint32."""
        P, L = _u32(P).reshape(-1, 16), _u32(L).reshape(-1, 16)
        if P.shape != L.shape:
            raise ValueError(f"mul_matrices takes two (n, 16) arrays of one n, not {P.shape} and {L.shape}")
        out = np.empty(P.shape, dtype=np.uint32)
        if self.lib.ref_mul_matrices(MODEL_CODE[model], P.shape[0], _ptr(P), _ptr(L), _ptr(out)):
            raise ValueError(f"kernel ref_mul_matrices refused model {model!r}")
        return out

    def world_series(self, model: str, anm, parents, locals_) -> np.ndarray:
        """World matrices down parent chains, n rows at once: anm (n, 16) words; per object, in an
        order that lists a parent before its children, its parent (0: the anm, 1 + k: the k-th
        object, -1: none, the world is the local) and its local words ((n, 16), or (16,) for every
        row). (1 + objects, n, 16) uint32: block 0 the anm's, block 1 + k the k-th object's, each
        row sceVu0MulMatrix(parent's row, local's row) as mul_matrices."""
        anm = _u32(anm).reshape(-1, 16)
        n, m = anm.shape[0], len(locals_)
        if len(parents) != m:
            raise ValueError(f"world_series takes a parent per local, not {len(parents)} for {m}")
        out = np.empty((m + 1, n, 16), dtype=np.uint32)
        out[0] = anm
        keep = [_u32(x) for x in locals_]
        stride = np.array([0 if x.size == 16 else 16 for x in keep], dtype=np.int64)
        for x, s in zip(keep, stride.tolist()):
            if x.size != (16 * n if s else 16):
                raise ValueError(f"world_series takes (n, 16) or (16,) local words, not {x.shape} for n = {n}")
        up = np.array(parents, dtype=np.int64).reshape(m)
        address = np.array([_ptr(x) for x in keep], dtype=np.uint64).reshape(m)
        rc = self.lib.ref_world_series(MODEL_CODE[model], n, m, _ptr(up), _ptr(address), _ptr(stride), _ptr(out))
        if rc:
            raise ValueError(f"kernel ref_world_series refused model {model!r} or a parent after its child")
        return out

    def chain_bounds(self, n: int, parents, locals_, worlds, deltas, anm):
        """harness/checks/world.py chain_bounds' carrying down the chains, for finite words on a
        host with FMA: per object, parents first, its parent (-1: a root, -2: the anm, else an
        earlier object), its (n, 16) local words (None: the identity), its reference world words
        (None: |P|·|L|), its keyed δ (None: not keyed); anm the anm's 16 words. (|W|, ΔW): two
        (objects, n, 4, 4) float64 arrays, math orientation; None where a word read is not a
        finite float or a bound came out not finite."""
        if not self.has_fma:
            raise ValueError("chain_bounds needs a host with fused multiply-add")
        k = len(parents)
        keep = []

        def address(words):
            if words is None:
                return 0
            a = _u32(words, 16 * n)
            keep.append(a)
            return _ptr(a) if a.size else 0

        up = np.array(parents, dtype=np.int64).reshape(k)
        if np.any(up >= np.arange(k)):
            raise ValueError("chain_bounds takes each parent before its children")
        loc = np.array([address(x) for x in locals_], dtype=np.uint64).reshape(k)
        wld = np.array([address(x) for x in worlds], dtype=np.uint64).reshape(k)
        dlt = np.array([-1.0 if d is None else d for d in deltas], dtype=np.float64).reshape(k)
        a = _u32(anm, 16)
        W, dW = np.empty((k, n, 4, 4)), np.empty((k, n, 4, 4))
        if self.lib.ref_chain_bounds(n, k, _ptr(up), _ptr(loc), _ptr(wld), _ptr(dlt), _ptr(a), _ptr(W), _ptr(dW)):
            return None
        return W, dW

    def rot_matrices(self, model: str, rad) -> np.ndarray:
        """sceVu0RotMatrix for (n, 3) radian bits: (n, 16) uint32."""
        r = _u32(rad).reshape(-1, 3)
        out = np.empty((r.shape[0], 16), dtype=np.uint32)
        self.lib.ref_rot_matrix(MODEL_CODE[model], _ptr(r), r.shape[0], _ptr(out))
        return out

    def keyed(self, model: str, k: "KeyedStruct", times: np.ndarray):
        """A keyed rotation at every time: ((n, 3, 3) float64, (n,) int64 passed)."""
        t = _u32(times)
        out = np.empty((t.size, 3, 3), dtype=np.float64)
        passed = np.empty(t.size, dtype=np.int64)
        self.lib.ref_keyed_eval(MODEL_CODE[model], ctypes.byref(k), _ptr(t), t.size,
                                _ptr(out), _ptr(passed))
        return out, passed


def ctrl_struct(ctrl, keep: list) -> CtrlStruct:
    """A CtrlStruct for a reference controller (FloatController or ConstantController). The arrays
    it points into are appended to `keep`, which must outlive the struct."""
    s = CtrlStruct()
    if isinstance(ctrl, FloatController) and ctrl._arrays is not None:
        dur, delta, cum, acc = ctrl._arrays              # set up by the kernels: no conversion
        if not cum.size:
            cum = np.zeros(1, np.uint64)
        s.nseg, s.width = dur.size, ctrl.width
    elif isinstance(ctrl, FloatController):
        w = ctrl.width
        cum = np.ascontiguousarray(ctrl._cum, dtype=np.uint64) if ctrl._cum else np.zeros(1, np.uint64)
        dur = _u32([d for d, _ in ctrl.segments])
        acc = _u32([x for row in ctrl._acc for x in row])
        delta = _u32([x for _, dl in ctrl.segments for x in dl])
        s.nseg, s.width = len(ctrl.segments), w
    else:
        w = len(ctrl.value)
        cum, dur, delta = np.zeros(1, np.uint64), np.zeros(1, np.uint32), np.zeros(w, np.uint32)
        acc = _u32(ctrl.value)
        s.nseg, s.width = 0, w
    keep.extend((cum, dur, acc, delta))
    s.cum, s.dur, s.acc, s.delta = _ptr(cum), _ptr(dur), _ptr(acc), _ptr(delta)
    return s


def ctrl_array(ctrls, keep: list):
    """A ctypes array of CtrlStruct for several controllers."""
    arr = (CtrlStruct * len(ctrls))(*(ctrl_struct(c, keep) for c in ctrls))
    keep.append(arr)
    return arr


def keyed_struct(kr, keep: list) -> KeyedStruct:
    """A KeyedStruct for a reference KeyedRotation (arrays appended to `keep`)."""
    s = KeyedStruct()
    segs = kr.segments
    n = len(segs)
    cum = np.ascontiguousarray(kr._cum, dtype=np.uint64) if kr._cum else np.zeros(1, np.uint64)
    dur = _u32([d for d, _, _ in segs]) if n else np.zeros(1, np.uint32)
    axis = np.array([a if a is not None else (0.0, 0.0, 0.0) for _, a, _ in segs] or [(0.0,) * 3],
                    dtype=np.float64).reshape(-1)
    has = np.array([a is not None for _, a, _ in segs] or [0], dtype=np.uint8)
    angle = np.array([g for _, _, g in segs] or [0.0], dtype=np.float64)
    W = np.array(kr._W, dtype=np.float64).reshape(-1)
    base = np.array(kr.base, dtype=np.float64).reshape(-1)
    keep.extend((cum, dur, axis, has, angle, W, base))
    s.nseg = n
    s.cum, s.dur = _ptr(cum), _ptr(dur)
    s.axis, s.has_axis, s.angle = _ptr(axis), _ptr(has), _ptr(angle)
    s.W, s.base = _ptr(W), _ptr(base)
    return s


_STATE = {}


def notice(msg: str) -> None:
    """One line on stderr, once per process and message."""
    seen = _STATE.setdefault("notices", set())
    if msg not in seen:
        seen.add(msg)
        print(msg, file=sys.stderr)


def native() -> Optional[Kernels]:
    """The compiled kernels, or None with a one-line notice (Python model fallback)."""
    if "kernels" in _STATE:
        return _STATE["kernels"]
    k = None
    if os.environ.get("EEDIFF_REFERENCE_NATIVE", "1") == "0":
        notice("reference: EEDIFF_REFERENCE_NATIVE=0, running the Python float model")
    else:
        try:
            k = Kernels(cbuild.build(SOURCES, "kernels"))
        except (cbuild.BuildError, OSError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            notice(f"reference: compiled kernels unavailable ({first}); running the Python float model")
    _STATE["kernels"] = k
    return k


def reset() -> None:
    """Forget the loaded kernels, so the next native() decides again (tests)."""
    _STATE.pop("kernels", None)
    _STATE.pop("notices", None)
