"""Real code: the C + inline-asm halfword morph blend (cprog/mmi_prog.c) run on the machine.

animation-semantics.md §9.2 steps 2-3: the program blends s16 vertex triples with the game's MMI
sequence (psubh, pmaddh, pmflo/pmfhi, pcpyld/pcpyud, psraw, ppach, paddsh); the test computes
the same blend independently from §9.2's integer formula and compares every component.
"""
from __future__ import annotations

import os
import random
import shutil
import struct
import subprocess

import pytest

from eemu_ext import Machine

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cprog")
ELF = os.path.join(HERE, "mmi_prog.elf")
CC = "mipsel-linux-gnu-gcc"
# The brief's flags, plus what Debian's cross toolchain needs for a bare, position-dependent image:
# -no-pie (its default is PIE), an entry symbol, no build-id, and 16-byte segment alignment
# (keeps the committed ELF at ~2 KiB instead of 128 KiB of page padding).
CFLAGS = ["-march=r5900", "-mabi=eabi", "-mlong32", "-msingle-float", "-O2", "-G0", "-mno-abicalls",
          "-fno-pic", "-ffreestanding", "-nostdlib", "-no-pie", "-Wl,-Ttext=0x100000",
          "-Wl,-e,morph_blend", "-Wl,--build-id=none", "-Wl,-z,max-page-size=16"]

HEAP = 0x00800000            # inputs and outputs, well away from the image


def build(out_path: str) -> None:
    """Compile cprog/mmi_prog.c to ``out_path`` (run from cprog/ so no path leaks into the ELF)."""
    subprocess.run([CC, *CFLAGS, "-o", out_path, "mmi_prog.c"], cwd=HERE, check=True,
                   capture_output=True, text=True)


# --- §9.2, written independently of the program ------------------------------------------------

def s16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - 0x100000000 if v & 0x80000000 else v


def weight_lanes(x: int, negative: bool):
    """§9.2 step 2, the "equivalently" form: (lane_x, lane_y, lane_z)."""
    lo, hi = x & 0xFFFF, (x >> 16) & 0xFFFF
    h = 0xFFFF if negative else 0
    return s16(lo), s16(hi | lo), s16(h | hi | lo)


def blend(base, targets, weights):
    """§9.2 step 3: out = clamp(s16(acc >> 12) + b), acc = sum s16(t - b) * lane (s32, wrapping)."""
    lanes = [weight_lanes(x, neg) for x, neg in weights]
    out = []
    for i, b in enumerate(base):
        acc = 0
        for t, lane in zip(targets, lanes):
            acc = s32(acc + s16(t[i] - b) * lane[i % 3])
        out.append(max(-32768, min(32767, s16(acc >> 12) + b)))
    return out


def random_weight(rng: random.Random):
    kind = rng.random()
    if kind < 0.5:
        return rng.randrange(0, 8 * 4096), False                  # 0 <= w < 8: the disc's range
    if kind < 0.6:
        return rng.randrange(8 * 4096, 16 * 4096), False          # all lanes s16(x) < 0
    if kind < 0.7:
        return rng.getrandbits(32), False                         # large w: lanes differ
    if kind < 0.8:
        return 0, True                                            # w = -0: only z changes
    if kind < 0.9:
        return (-rng.randrange(1, 65537)) & 0xFFFFFFFF, True      # -16 < w < 0
    return rng.getrandbits(32), True


def random_component(rng: random.Random) -> int:
    return rng.choice((-32768, 32767, 0, -1, 1)) if rng.random() < 0.15 else rng.randrange(-32768, 32768)


def run_blend(m: Machine, base, targets, weights):
    n = len(base) // 3
    addr = HEAP
    base_at = addr
    m.write(base_at, struct.pack(f"<{len(base)}h", *base))
    addr += 0x1000
    tptrs = []
    for t in targets:
        m.write(addr, struct.pack(f"<{len(t)}h", *t))
        tptrs.append(addr)
        addr += 0x1000
    table_at, xs_at, negs_at, out_at = addr, addr + 0x100, addr + 0x200, addr + 0x300
    m.write(table_at, struct.pack(f"<{len(tptrs)}I", *tptrs))
    m.write(xs_at, struct.pack(f"<{len(weights)}I", *[x for x, _ in weights]))
    m.write(negs_at, struct.pack(f"<{len(weights)}I", *[int(neg) for _, neg in weights]))
    m.write(out_at, b"\x55" * (6 * n + 16))
    ret = m.call("morph_blend", out_at, base_at, n, table_at, xs_at, negs_at, len(targets))
    assert ret == n
    return list(struct.unpack(f"<{3 * n}h", m.read(out_at, 6 * n)))


def test_blend_matches_spec_formula(request):
    """Seeded random vertices, targets and weights (incl. -0, negative and large weights)."""
    seed = request.config.getoption("--seed")
    m = Machine(coverage=True)
    m.load_elf(ELF)
    for case in range(30):
        rng = random.Random(f"{seed}:mmi-prog:{case}")
        n = rng.randrange(1, 10)
        base = [random_component(rng) for _ in range(3 * n)]
        targets = [[random_component(rng) for _ in range(3 * n)] for _ in range(rng.randrange(0, 6))]
        weights = [random_weight(rng) for _ in targets]
        got = run_blend(m, base, targets, weights)
        want = blend(base, targets, weights)
        assert got == want, (f"case {case} (seed {seed}): n={n} weights={weights}\n"
                             f"  got  {got}\n  want {want}")
    for mn in ("psubh", "pmaddh", "pmflo", "pmfhi", "pcpyld", "pcpyud", "psraw", "ppach", "paddsh"):
        assert m.coverage[mn] > 0, mn


def test_blend_saturates_and_wraps():
    """§9.2: the final add saturates; s16(acc >> 12) keeps the low 16 bits (wraps)."""
    m = Machine()
    m.load_elf(ELF)
    base = [32000, -32000, 100]
    targets = [[32767, -32768, 100 + 0x4000]]
    weights = [(8 * 4096 - 1, False)]          # lane = 32767 on x, y, z
    got = run_blend(m, base, targets, weights)
    assert got == blend(base, targets, weights)
    assert got[0] == 32767 and got[1] == -32768                    # saturated
    assert got[2] == s16(((0x4000 * 32767) >> 12) + 100)            # within range: no clamp


@pytest.mark.needs_cross
def test_committed_elf_is_reproducible(tmp_path):
    """Rebuilding cprog/mmi_prog.c gives the committed ELF byte for byte."""
    if shutil.which(CC) is None:
        pytest.skip(f"{CC} not installed")
    out = tmp_path / "mmi_prog.elf"
    build(str(out))
    with open(ELF, "rb") as f:
        committed = f.read()
    assert out.read_bytes() == committed, "rebuild differs: run the build in test_mmi_prog.py and commit"


if __name__ == "__main__":          # python tests/machine/test_mmi_prog.py  rebuilds the ELF
    build(ELF)
