"""The compiled float runtime (csrc/eefloat.h, eefloat.c) loaded through ctypes.

``load()`` builds the library once (cached by content, see build.py) and returns a ``CFloat``:
every function of eemu_ext/eefloat.py as a Python callable under its Python name (``hw_add``,
``booth_carry_lost``, ``_srt_div``, ``fmax`` ...), ``batch(op, *arrays)`` to evaluate one
operation over numpy arrays in one call, and ``model("hw" | "trunc")`` giving a FloatModel-like
object bound to the C functions as eefloat.FloatModel binds the Python ones.

One ctypes call costs far more than the operation; ``ns_per_op`` times an operation inside C.
"""
from __future__ import annotations

import ctypes
import time
from typing import Callable, Dict, Optional

import numpy as np

from eemu_ext.engines.native import build

# Python name -> C name, where they differ (eefloat.h says why).
C_NAMES = {"fmax": "ee_fmax", "fmin": "ee_fmin", "fabs": "ee_fabs", "fneg": "ee_fneg",
           "_srt_div": "srt_div", "_srt_sqrt": "srt_sqrt", "_tr_round": "tr_round"}

u32, u64, i64, cint = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64, ctypes.c_int
# argument kind (eefloat.c's EEF_OPS) -> ctypes argtypes
_ARGTYPES = {"X1": [u32], "XN": [u32, cint], "X2": [u32, u32], "X4": [u32, u32, u32, u64],
             "XM": [u32, u64, u64, u32], "XF": [u32, u64], "XR": [u32, u64, cint]}
_RESTYPES = {"booth_carry_lost": cint, "key": i64, "raw_key": i64, "bits_e": u32,
             "srt_div": u32, "srt_sqrt": u32, "from_int": u32, "ftoi": u32, "to_int": u32,
             "itof": u32, "ee_fmax": u32, "ee_fmin": u32, "ee_fabs": u32, "ee_fneg": u32,
             "tr_round": u32, "tr_itof": u32, "tr_ftoi": u32, "fcr_arith": u32, "fcr_acc": u32,
             "fcr_div": u32, "fcr_sqrt": u32, "fcr_noflags": u32}
_ARITY = {"X1": 1, "XN": 2, "X2": 2, "X4": 4, "XM": 4, "XF": 2, "XR": 3}

# FloatModel attribute -> C function, per model (eefloat.HW, eefloat.TRUNC)
_COMMON = dict(from_int="from_int", to_int="to_int", key="key", fmax="ee_fmax", fmin="ee_fmin",
               fabs="ee_fabs", fneg="ee_fneg")
MODEL_BINDINGS = {
    "hw": dict(add="hw_add", sub="hw_sub", mul="hw_mul", div="hw_div", sqrt="hw_sqrt",
               rsqrt="hw_rsqrt", madd="hw_madd", msub="hw_msub", itof="itof", ftoi="ftoi",
               vdiv="hw_div", vsqrt="hw_sqrt", vrsqrt="hw_vrsqrt", fcr_arith="fcr_arith",
               fcr_acc="fcr_acc", fcr_div="fcr_div", fcr_sqrt="fcr_sqrt", **_COMMON),
    "trunc": dict(add="tr_add", sub="tr_sub", mul="tr_mul", div="tr_div", sqrt="tr_sqrt",
                  rsqrt="tr_rsqrt", madd="tr_madd", msub="tr_msub", itof="tr_itof",
                  ftoi="tr_ftoi", vdiv="tr_div", vsqrt="tr_sqrt", vrsqrt="tr_rsqrt",
                  fcr_arith="fcr_noflags", fcr_acc="fcr_noflags", fcr_div="fcr_noflags",
                  fcr_sqrt="fcr_noflags", **_COMMON),
}


def sources(patch: Optional[Callable[[str], str]] = None) -> Dict[str, str]:
    """{filename: text} of the float library; ``patch`` rewrites eefloat.h (to build a variant)."""
    h = build.csrc("eefloat.h")
    if patch is not None:
        h = patch(h)
    return {"eefloat.h": h, "eefloat.c": build.csrc("eefloat.c")}


class CModel:
    """A FloatModel-like bundle of C functions (attributes as eefloat.FloatModel's)."""

    def __init__(self, name: str, lib: "CFloat"):
        self.name = name
        self.flags = name == "hw"
        for attr, cname in MODEL_BINDINGS[name].items():
            setattr(self, attr, lib.fn(cname))

    def __repr__(self):
        return f"<CModel {self.name}>"


class CFloat:
    """The loaded library: each op as a callable, plus batch evaluation."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        lib.eef_op_name.restype = ctypes.c_char_p
        lib.eef_op_kind.restype = ctypes.c_char_p
        lib.eef_batch.restype = cint
        lib.eef_batch.argtypes = [cint, ctypes.c_size_t] + [ctypes.c_void_p] * 5
        lib.eef_spin.restype = u64
        lib.eef_spin.argtypes = [cint, ctypes.c_size_t] + [ctypes.c_void_p] * 5 + [cint]
        lib.eef_tr_sqrt_parts.restype = u64
        lib.eef_tr_sqrt_parts.argtypes = [u32]
        self.ops: Dict[str, int] = {}
        self.kinds: Dict[str, str] = {}
        self._fns: Dict[str, Callable] = {}
        for i in range(lib.eef_op_count()):
            name = lib.eef_op_name(i).decode()
            kind = lib.eef_op_kind(i).decode()
            self.ops[name], self.kinds[name] = i, kind
            f = getattr(lib, name)
            f.argtypes = _ARGTYPES[kind]
            f.restype = _RESTYPES.get(name, u64)
            self._fns[name] = f
        self._fns["booth_carry_lost"] = (lambda g: lambda A, B: bool(g(A, B)))(self._fns["booth_carry_lost"])
        for kind_n in ("ftoi", "itof", "tr_itof", "tr_ftoi"):       # Python default n = 0
            self._fns[kind_n] = (lambda g: lambda x, n=0: g(x, n))(self._fns[kind_n])
        for name in ("hw_madd", "hw_msub", "tr_madd", "tr_msub"):  # Python default acc_ovf = False
            self._fns[name] = (lambda g: lambda acc, a, b, acc_ovf=False: g(acc, a, b, int(acc_ovf)))(
                self._fns[name])
        self._fns["macc"] = (lambda g: lambda acc, p, acc_ovf, neg: g(acc, p, int(bool(acc_ovf)), neg))(
            self._fns["macc"])
        self._models: Dict[str, CModel] = {}

    def fn(self, name: str) -> Callable:
        """The C function for a Python (eefloat) or C name."""
        return self._fns[C_NAMES.get(name, name)]

    def __getattr__(self, name: str):
        fns = self.__dict__.get("_fns")
        if fns is not None:
            c = C_NAMES.get(name, name)
            if c in fns:
                return fns[c]
        raise AttributeError(f"the C float library has no function {name!r}")

    def tr_sqrt_parts(self, x: int):
        """(t, half), as eefloat._tr_sqrt_parts."""
        v = self.lib.eef_tr_sqrt_parts(x)
        half = v & 0xFFFFFFFF
        return v >> 32, half - (1 << 32) if half & 0x80000000 else half

    _tr_sqrt_parts = tr_sqrt_parts

    def model(self, name: str) -> CModel:
        m = self._models.get(name)
        if m is None:
            m = self._models[name] = CModel(name, self)
        return m

    def _arrays(self, name: str, args):
        c = C_NAMES.get(name, name)
        op = self.ops.get(c)
        if op is None:
            raise KeyError(f"eef_batch has no operation {name!r}")
        want = _ARITY[self.kinds[c]]
        if len(args) != want:
            raise TypeError(f"{name} takes {want} operand arrays, got {len(args)}")
        arrs = [np.ascontiguousarray(a, dtype=np.uint64) for a in args]
        n = len(arrs[0])
        if any(len(a) != n for a in arrs):
            raise ValueError(f"{name}: operand arrays differ in length")
        ptrs = [a.ctypes.data for a in arrs] + [None] * (4 - len(arrs))
        return op, n, arrs, ptrs

    def batch(self, name: str, *args) -> np.ndarray:
        """name(args[0][k], args[1][k], ...) for every k, as a uint64 array (signed results as
        their 64-bit two's complement)."""
        op, n, arrs, ptrs = self._arrays(name, args)
        out = np.empty(n, dtype=np.uint64)
        if self.lib.eef_batch(op, n, *ptrs, out.ctypes.data) != 0:
            raise RuntimeError(f"eef_batch rejected operation {name!r}")
        return out

    def ns_per_op(self, name: str, *args, rounds: int = 3) -> float:
        """Nanoseconds per call of ``name`` over these operand arrays, timed inside C (CPU time)."""
        op, n, arrs, ptrs = self._arrays(name, args)
        out = np.empty(n, dtype=np.uint64)
        t = time.process_time()
        self.lib.eef_spin(op, n, *ptrs, out.ctypes.data, rounds)
        return (time.process_time() - t) * 1e9 / (n * rounds)


_LOADED: Dict[str, CFloat] = {}


def load(patch: Optional[Callable[[str], str]] = None, name: str = "eefloat") -> CFloat:
    """Build (or reuse) the float library; raises build.NativeUnavailable without a C compiler.

    ``patch`` and ``name`` build a variant from rewritten eefloat.h text (tests use this to show
    a planted fault is caught)."""
    src = sources(patch)
    k = name + "\0" + src["eefloat.h"]
    lib = _LOADED.get(k)
    if lib is None:
        lib = _LOADED[k] = CFloat(build.shared_library(name, src))
    return lib
