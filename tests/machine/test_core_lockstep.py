"""Lockstep of the two engine modes: compiled basic blocks vs one instruction per block.

Random straight-line sequences drawn from EVERY non-control-flow row of the table (integer, MMI,
COP1, VU0 as they exist) run from the same random state in both modes; the whole architectural
state and the data memory must agree, and a sequence that stops must stop with the same error at
the same pc. This catches semantics that depend on block boundaries (a temporary of one row read
by the next, a missing r0 restore, a stale fast-path local).
"""
import random

import pytest

from eemu_ext import EmulationError, Machine
from eemu_ext.core.testing import CODE_BASE, put_words
from eemu_ext.core.machine import SENTINEL, sx32

DATA = 0x00100000
ROWS = Machine().decoder.rows
# Rows that always stop (TLB ops, VCALLMS) or mostly trap are left to their own tests, so that
# most sequences run to the end.
TRAPPING = {"add", "addi", "sub", "dadd", "daddi", "dsub"}
PLAIN = [r for r in ROWS if not r.flow and r.cls != "trap" and r.mnemonic not in TRAPPING
         and "fault(" not in r.sem.split("\n")[0]]


def random_word(rnd, row):
    free = ~row.mask & 0xFFFFFFFF
    w = row.match | (rnd.getrandbits(32) & free)
    if "mem" in row.operands and rnd.random() < 0.9:
        w &= ~0xF                                     # aligned offsets from the pointer registers
    return w


def state(rnd):
    regs = []
    for i in range(32):
        k = rnd.random()
        if k < 0.7:                                   # a pointer into the data area
            regs.append(DATA + 0x8000 + (rnd.randrange(0, 0x1000) << 4))
        elif k < 0.7:
            regs.append(sx32(rnd.getrandbits(32)))
        else:
            regs.append(rnd.getrandbits(64))
    regs[0] = 0
    return regs, [rnd.getrandbits(64) for _ in range(32)], [rnd.getrandbits(32) for _ in range(32)]


def snapshot(m):
    S = m.S
    scal = {k: (list(v) if isinstance(v, list) else v) for k, v in vars(S).items() if k != "annul"}
    return (list(m.R), list(m.RH), list(m.HI), list(m.LO), list(m.F), [list(v) for v in m.VF], list(m.VI),
            scal, m.read(DATA, 0x20000), bytes(m.mem.vu0), bytes(m.mem.spr))


STRIDE = 0x40                                         # one case: 10 rows, j TRAMP, nop
TRAMP = CODE_BASE - 0x100                             # hooked: back to the sentinel


def run_mode(code, start, st, hl, single):
    """Run the case at `start` of `code` (every case of the chunk, laid out from CODE_BASE, each
    ending in ``j TRAMP; nop``) from the given state, on a fresh machine."""
    regs, rh, f = st
    m = Machine()
    m.single_step = single
    put_words(m, CODE_BASE, code)
    # every case's start is an entry: under the native engine one program serves the whole chunk
    m.declare_entries(range(CODE_BASE, CODE_BASE + 4 * len(code), STRIDE))

    def stop(mm):                                     # return to the sentinel whatever ra holds now
        saved.append(mm.R[31])
        mm.R[31] = sx32(SENTINEL)
    saved = []
    m.hooks.add("address", stop, TRAMP)
    m.R[:] = regs
    m.RH[:] = rh
    m.RH[0] = 0
    m.F[:] = f
    m.HI[:], m.LO[:] = hl[:2], hl[2:]
    m.R[31] = sx32(SENTINEL)
    try:
        m.run(start, limit=1000)
        m.R[31] = saved[0]
        err = None
    except EmulationError as e:
        err = (type(e).__name__, e.pc)
    return err, snapshot(m)


def j_tramp():
    return 0x08000000 | ((TRAMP >> 2) & 0x03FFFFFF)


@pytest.mark.parametrize("chunk", range(4))
def test_blocks_and_single_steps_agree(chunk):
    cases = []
    code = []
    for k in range(250):
        rnd = random.Random(f"lockstep:{chunk}:{k}")
        rows = [rnd.choice(PLAIN) for _ in range(10)]
        words = [random_word(rnd, r) for r in rows]
        st = state(rnd)
        hl = [rnd.getrandbits(64) for _ in range(4)]
        cases.append((k, rows, words, st, hl, CODE_BASE + 4 * len(code)))
        case = words + [j_tramp(), 0]
        code += case + [0] * (STRIDE // 4 - len(case))
    for k, rows, words, st, hl, start in cases:
        a = run_mode(code, start, st, hl, single=False)
        b = run_mode(code, start, st, hl, single=True)
        if a != b:
            names = ", ".join(r.mnemonic for r in rows)
            ea, eb = a[0], b[0]
            diff = [i for i, (x, y) in enumerate(zip(a[1], b[1])) if x != y]
            pytest.fail(f"case lockstep:{chunk}:{k} [{names}] words {[hex(w) for w in words]}: "
                        f"errors {ea} vs {eb}, state parts differing {diff}")
