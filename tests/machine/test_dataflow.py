"""The table's data flow (eemu_ext/analysis/dataflow.py) agrees with what every row does when it executes.

For every executable row (not Python-only, not SYSCALL/BREAK), random words of the row execute on
random state in the Python engine, one instruction (``m.step()``; a branch with a NOP in its slot):

* what changed -- every register, control register, lane, and every byte of the data window and
  of VU0 memory -- lies inside the declared writes and the declared stores;
* perturbation: the same word runs again from a state where every location NOT among the declared
  reads, and every memory byte not among the declared loads, is drawn afresh. The declared writes,
  the stored bytes, the next pc and whether it faulted must come out the same.

``test_a_wrong_declaration_is_caught`` runs the same checker with one row's declaration broken
(a write dropped, a read dropped, a store's width shrunk) and expects it to complain, so the
checker itself cannot pass vacuously.
"""
from __future__ import annotations

import random

import pytest

from eemu_ext import EmulationError, Machine
from eemu_ext.analysis.dataflow import Dataflow, Loc, Mem, all_locations, analyze, get, put
from eemu_ext.isa import ROWS
from eemu_ext.memory import VU0_BASE, VU0_SIZE
from eemu_ext.core.testing import CODE_BASE, put_words

DATA = 0x00100000            # the data window every declared RAM access is aimed into
WINDOW = 0x1000
SAMPLES = 24
LOCS = all_locations()
EXECUTABLE = [(i, r) for i, r in enumerate(ROWS) if not r.python_only and r.flow != "stop"]


@pytest.fixture
def engine():
    """Once, not once per engine (overrides conftest.py's fixture by name): data flow is a
    property of the table, checked on the Python engine."""
    return "python"


def _random_value(rnd, loc: Loc) -> int:
    k = loc.kind
    if k in ("gpr", "hi", "lo"):
        return rnd.getrandbits(64)
    if k == "vi":
        return rnd.getrandbits(16)
    if k == "sa":
        return rnd.randrange(16)
    if k == "acc_ovf":
        return rnd.choice((0, 1 << 32))
    if k == "cpcond0":
        return rnd.randrange(2)
    return rnd.getrandbits(32)


def _word(rnd, row, index, dec):
    for _ in range(50):
        w = row.match | (rnd.getrandbits(32) & ~row.mask & 0xFFFFFFFF)
        if dec.decode(w) == index:
            return w
    return None


def _byte_set(m, mems, kind):
    out = set()
    for x in mems:
        if x.kind == kind:
            a = x.address(m)
            out.update(range(a, a + x.width))
    return out


def _mem_image(m):
    return m.read(DATA, WINDOW) + bytes(m.mem.vu0)


def _addr_of(i):
    return DATA + i if i < WINDOW else VU0_BASE + (i - WINDOW)


def _run(m, word_pc):
    """One step from CODE_BASE; (next pc or None when it faulted, fault type name)."""
    m.pc = word_pc
    try:
        return m.step(), ""
    except EmulationError as e:
        return None, type(e).__name__


def _setup(m, rnd, flow: Dataflow):
    """Random registers and memory; base registers aimed into the data window."""
    for loc in LOCS:
        put(m, loc, _random_value(rnd, loc))
    m.write(DATA, rnd.randbytes(WINDOW))
    m.mem.vu0[:] = rnd.randbytes(VU0_SIZE)
    for x in flow.mem:
        if x.base is not None:
            target = DATA + 0x200 + rnd.randrange(0, WINDOW - 0x400)
            target &= ~(x.width - 1) if rnd.random() < 0.9 else ~0
            m.R[x.base.n] = (target - x.offset) & 0xFFFFFFFFFFFFFFFF


def _result(m, flow: Dataflow, npc, fault, stores):
    img = _mem_image(m)
    return (npc, fault, tuple((loc, get(m, loc)) for loc in sorted(flow.writes)),
            tuple(img[i] for i in stores))


def check_row(index, row, rnd, samples=SAMPLES, flow_of=analyze):
    """Problems found running ``samples`` random words of the row (empty: the declaration holds)."""
    m = Machine(engine="python")
    dec = m.decoder
    problems, ran = [], 0
    for _ in range(samples):
        w = _word(rnd, row, index, dec)
        if w is None:
            break
        put_words(m, CODE_BASE, [w, 0])
        flow = flow_of(row, w, CODE_BASE)
        _setup(m, rnd, flow)
        before = {loc: get(m, loc) for loc in LOCS}
        img0 = _mem_image(m)
        loads, stores = _byte_set(m, flow.mem, "load"), _byte_set(m, flow.mem, "store")
        state = (before, m.read(DATA, WINDOW), bytes(m.mem.vu0))
        npc, fault = _run(m, CODE_BASE)
        if fault:
            continue
        ran += 1
        what = f"{row.mnemonic} word 0x{w:08x} ({flow})"
        changed = {loc for loc in LOCS if get(m, loc) != before[loc]}
        if not changed <= flow.writes:
            problems.append(f"{what}: changed {sorted(map(str, changed - flow.writes))}, not declared written")
        img1 = _mem_image(m)
        moved = {_addr_of(i) for i in range(len(img0)) if img0[i] != img1[i]}
        if not moved <= stores:
            problems.append(f"{what}: stored to {sorted(hex(a) for a in moved - stores)[:4]}, not declared")
        store_idx = sorted(a - DATA if DATA <= a < DATA + WINDOW else WINDOW + (a - VU0_BASE)
                           for a in stores if DATA <= a < DATA + WINDOW or VU0_BASE <= a < VU0_BASE + VU0_SIZE)
        r1 = _result(m, flow, npc, fault, store_idx)
        # perturbation: everything the row does not declare read is drawn afresh
        for loc in LOCS:
            put(m, loc, state[0][loc] if loc in flow.reads else _random_value(rnd, loc))
        fresh = bytearray(rnd.randbytes(WINDOW))
        fresh_vu = bytearray(rnd.randbytes(VU0_SIZE))
        for a in loads:
            if DATA <= a < DATA + WINDOW:
                fresh[a - DATA] = state[1][a - DATA]
            elif VU0_BASE <= a < VU0_BASE + VU0_SIZE:
                fresh_vu[a - VU0_BASE] = state[2][a - VU0_BASE]
        m.write(DATA, bytes(fresh))
        m.mem.vu0[:] = fresh_vu
        npc2, fault2 = _run(m, CODE_BASE)
        r2 = _result(m, flow, npc2, fault2, store_idx)
        if r1 != r2:
            diff = [f"{a[0]}: {a[1]:#x} -> {b[1]:#x}" for a, b in zip(r1[2], r2[2]) if a != b]
            if r1[:2] != r2[:2]:
                diff.append(f"next pc/fault {r1[:2]} -> {r2[:2]}")
            if r1[3] != r2[3]:
                diff.append("stored bytes differ")
            problems.append(f"{what}: changing undeclared reads changed the result: {'; '.join(diff[:4])}")
        if len(problems) > 3:
            break
    return problems, ran


@pytest.mark.parametrize("index,row", EXECUTABLE, ids=[f"{r.mnemonic}-{i}" for i, r in EXECUTABLE])
def test_row_dataflow_matches_execution(index, row):
    rnd = random.Random(f"dataflow {row.mnemonic} {index}")
    problems, ran = check_row(index, row, rnd)
    assert not problems, "\n".join(problems)
    assert ran or row.cls == "trap", f"{row.mnemonic}: no sample ran without a fault"


def _broken(kind, target):
    def flow_of(row, word, pc):
        f = analyze(row, word, pc)
        if kind == "write":
            return f._replace(writes=frozenset(x for x in f.writes if x.kind != target))
        if kind == "read":
            return f._replace(reads=frozenset(x for x in f.reads if x.kind != target))
        return f._replace(mem=tuple(x._replace(width=x.width // 2) if x.kind == target else x for x in f.mem))
    return flow_of


@pytest.mark.parametrize("mnemonic,kind,target", [
    ("addu", "write", "gpr"),          # rd's write left out
    ("movz", "read", "gpr"),           # movz keeps rd when rt != 0: rd is read
    ("vaddx", "read", "status"),       # the sticky STATUS bits survive
    ("madd.s", "write", "fcr31"),
    ("pmaddh", "read", "hi"),
    ("sw", "mem", "store"),            # 2 bytes declared of a 4-byte store
    ("lq", "mem", "load"),
])
def test_a_wrong_declaration_is_caught(mnemonic, kind, target):
    index = next(i for i, r in EXECUTABLE if r.mnemonic == mnemonic)
    problems, ran = check_row(index, ROWS[index], random.Random(7), samples=40, flow_of=_broken(kind, target))
    assert ran and problems, f"a {kind} of {target} dropped from {mnemonic} went unnoticed"


def test_descriptors_name_fields_and_widths():
    """r5900.md §5.2: LQ ignores the low 4 address bits: one 16-byte load at (rs + imm) & ~15;
    JAL writes $ra; a VU0 row names only the lanes of its dest mask."""
    from eemu_ext.core.testing import asm
    f = analyze(ROWS[next(i for i, r in EXECUTABLE if r.mnemonic == "lq")], asm("lq a1, 32(a0)"))
    assert f.loads == (Mem("load", 16, f.loads[0].expr, Loc("gpr", 4, 0), 32, 0xFFFFFFF0),)
    assert f.writes == {Loc("gpr", 5, 0), Loc("gpr", 5, 1)} and f.reads == {Loc("gpr", 4, 0)}
    jal = next(r for r in ROWS if r.mnemonic == "jal")
    assert analyze(jal, jal.match).writes == {Loc("gpr", 31, 0)}
    vaddx = next(i for i, r in EXECUTABLE if r.mnemonic == "vaddx")
    w = ROWS[vaddx].match | (0b1010 << 21) | (3 << 16) | (2 << 11) | (1 << 6)    # vaddx.xz vf1, vf2, vf3x
    f = analyze(ROWS[vaddx], w)
    assert {x for x in f.writes if x.kind == "vf"} == {Loc("vf", 1, 0), Loc("vf", 1, 2)}
    assert {x for x in f.reads if x.kind == "vf"} == {Loc("vf", 2, 0), Loc("vf", 2, 2), Loc("vf", 3, 0)}
