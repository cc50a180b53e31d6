"""Float benchmark: instructions/s of float-heavy emulated loops per float model, and µs per model op.

Times are process CPU time (time.process_time), so a busy shared machine does not inflate them.

``float_bench()`` returns ``{model: {"cop1": ips, "vu0": ips, "ops_us": {op: µs}}}`` and prints a
table; ``python -m benchmarks.machine`` calls it, ``python -m benchmarks.float_ops`` runs it alone.
"""
from __future__ import annotations

import random
import time

from eemu_ext import eefloat
from eemu_ext.core.machine import Machine
from eemu_ext.core.testing import run_words

CODE = 0x00080000


def _cop1(fd, fs, ft, funct):
    return 0x46000000 | (ft << 16) | (fs << 11) | (fd << 6) | funct


def _vu(index_or_funct, dest=0xF, ft=0, fs=0, fd=0, special2=False):
    w = 0x4A000000 | (dest << 21) | (ft << 16) | (fs << 11)
    if special2:
        return w | ((index_or_funct >> 2) << 6) | 0x3C | (index_or_funct & 3)
    return w | (fd << 6) | index_or_funct


def _loop(body, n):
    """t0 := n; body; addiu t0,t0,-1; bne t0,zero,loop; nop."""
    words = [0x3C080000 | (n >> 16), 0x35080000 | (n & 0xFFFF)]
    back = -(len(body) + 2)
    return words + body + [0x2508FFFF, 0x15000000 | (back & 0xFFFF), 0]


# A COP1 body like the animation code's interpolation: products, sums, a multiply-add, a divide.
COP1_BODY = [
    _cop1(3, 1, 2, 0x02),      # mul.s   f3, f1, f2
    _cop1(4, 3, 1, 0x00),      # add.s   f4, f3, f1
    _cop1(0, 1, 2, 0x1A),      # mula.s  f1, f2
    _cop1(0, 3, 4, 0x1E),      # madda.s f3, f4
    _cop1(5, 2, 4, 0x1C),      # madd.s  f5, f2, f4
    _cop1(6, 5, 3, 0x01),      # sub.s   f6, f5, f3
    _cop1(7, 6, 2, 0x02),      # mul.s   f7, f6, f2
    _cop1(8, 7, 1, 0x00),      # add.s   f8, f7, f1
]
# sceVu0MulMatrix's inner column (animation-semantics.md §3.2) and a vector add.
VU0_BODY = [
    _vu(0x18, ft=8, fs=4, special2=True),        # vmulax.xyzw  ACC, vf4, vf8x
    _vu(0x09, ft=8, fs=5, special2=True),        # vmadday.xyzw ACC, vf5, vf8y
    _vu(0x0A, ft=8, fs=6, special2=True),        # vmaddaz.xyzw ACC, vf6, vf8z
    _vu(0x0B, ft=8, fs=7, fd=9),                 # vmaddw.xyzw  vf9, vf7, vf8w
    _vu(0x28, ft=9, fs=4, fd=10),                # vadd.xyzw    vf10, vf4, vf9
]


def _seed_state(m, rng):
    for k in range(1, 9):
        m.F[k] = (rng.randint(120, 134) << 23) | rng.getrandbits(23)
    for k in range(4, 11):
        m.VF[k][:] = [(rng.randint(120, 134) << 23) | rng.getrandbits(23) for _ in range(4)]


def loop_ips(model: str, body, n: int = 20000, engine: str = "python") -> float:
    """Instructions/s of ``body`` looped n times on a Machine with the given float model."""
    if engine != "python":                       # translate and compile once, untimed
        m = Machine(float_model=model, engine=engine)
        _seed_state(m, random.Random(f"bench_float:{model}"))
        run_words(m, _loop(body, 2), base=CODE, limit=10 * 2 * (len(body) + 3))
    m = Machine(float_model=model, engine=engine)
    _seed_state(m, random.Random(f"bench_float:{model}"))
    words = _loop(body, n)
    t = time.process_time()
    run_words(m, words, base=CODE, limit=10 * n * (len(body) + 3))
    dt = time.process_time() - t
    return m.steps / dt


def op_operands(model: str, n: int) -> list:
    """n + 1 random normal patterns (exponents 100-154), the same for every call with this model;
    the ops are timed on the n pairs of neighbours."""
    rng = random.Random(f"bench_float_ops:{model}")
    return [(rng.getrandbits(1) << 31) | (rng.randint(100, 154) << 23) | rng.getrandbits(23)
            for _ in range(n + 1)]


def op_seconds(fm, name: str, pairs) -> float:
    """CPU seconds for one call of the float model ``fm``'s ``name`` per pair (sqrt takes the first
    of each pair, madd (a, b, a) with the latch clear)."""
    f = getattr(fm, name)
    t = time.process_time()
    if name == "sqrt":
        for a, _ in pairs:
            f(a)
    elif name == "madd":
        for a, b in pairs:
            f(a, b, a, False)
    else:
        for a, b in pairs:
            f(a, b)
    return time.process_time() - t


def op_us(model: str, n: int = 20000) -> dict:
    """µs per call of the model's arithmetic on random normal operands."""
    fm = eefloat.model(model)
    xs = op_operands(model, n)
    pairs = list(zip(xs, xs[1:]))
    return {name: op_seconds(fm, name, pairs) / n * 1e6
            for name in ("add", "mul", "madd", "div", "sqrt", "rsqrt")}


def float_bench(n: int = 20000, quiet: bool = False, ops_n: int = 20000, engines=("python",)) -> dict:
    """Instructions/s of a COP1 loop and a VU0 loop per engine, and µs per op, for each float model."""
    res = {}
    for model in ("hw", "trunc"):
        res[model] = {"ops_us": op_us(model, ops_n)}
        for e in engines:
            k = n * (20 if e != "python" else 1)
            res[model][e] = {"cop1": loop_ips(model, COP1_BODY, k, e), "vu0": loop_ips(model, VU0_BODY, k, e)}
    if not quiet:
        print("float loops (instructions per CPU-second)  COP1 body     VU0 body")
        for model, r in res.items():
            for e in engines:
                print(f"  model {model:5s} {e:7s}                  {r[e]['cop1']:12,.0f} {r[e]['vu0']:12,.0f}")
            if "native" in engines:
                print(f"  model {model:5s} native / python          {r['native']['cop1'] / r['python']['cop1']:11.1f}x"
                      f" {r['native']['vu0'] / r['python']['vu0']:11.1f}x")
        print("float model ops (µs per call):  " + "  ".join(f"{k:>6s}" for k in res["hw"]["ops_us"]))
        for model, r in res.items():
            print(f"  model {model:5s}                 " + "  ".join(f"{v:6.2f}" for v in r["ops_us"].values()))
    return res


BENCH_OPS = ("add", "mul", "madd", "div", "sqrt", "rsqrt")


def op_ns(model: str, n: int = 20000, lib=None) -> dict:
    """{op: {"c": ns, "python": ns}} per call of the model's arithmetic, C timed inside C, on
    the random normal operands of op_operands (CPU time)."""
    import numpy as np
    from eemu_ext.engines.native.cfloat import MODEL_BINDINGS, load
    lib = lib or load()
    fm = eefloat.model(model)
    xs = op_operands(model, n)
    a, b = np.array(xs[:-1], dtype=np.uint64), np.array(xs[1:], dtype=np.uint64)
    zero = np.zeros(n, dtype=np.uint64)
    pairs = list(zip(xs, xs[1:]))
    out = {}
    for op in BENCH_OPS:
        cname = MODEL_BINDINGS[model][op]
        args = {"sqrt": (a,), "madd": (a, b, a, zero)}.get(op, (a, b))
        c_ns = lib.ns_per_op(cname, *args, rounds=max(1, 200000 // n))
        out[op] = {"c": c_ns, "python": op_seconds(fm, op, pairs) * 1e9 / n}
    return out


if __name__ == "__main__":
    float_bench()
