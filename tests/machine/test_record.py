"""The recorder (eemu_ext/analysis/record.py): every executed instruction with the values it read and wrote.

Small hand-assembled programs run under ``with m.hooks.add("record") as rec``: each line has the pc, the
word, the raw values of its read locations (before) and written locations (after), its loads and
stores; ``last_store_to`` finds the store behind a byte of memory and ``producer_chain`` walks the
data flow back to the loads from the inputs and the entry arguments. A recorded run leaves the
machine exactly as an unrecorded one does, under either engine.
"""
from __future__ import annotations

import pytest

from eemu_ext import EmulationError, Machine
from eemu_ext.analysis.dataflow import Loc, all_locations, get
from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32
from eemu_ext.core.testing import CODE_BASE, program, put_words

B = CODE_BASE
IN, OUT = 0x00200000, 0x00200100
KERNEL = [
    "lw t0, 0(a0)",            # 0  input[0]
    "lw t1, 4(a0)",            # 1  input[1]
    "addu t2, t0, t1",         # 2
    "sll t3, t2, 2",           # 3
    "addiu t4, zero, 7",       # 4
    "xor t5, t3, t4",          # 5
    "sw t5, 0(a1)",            # 6  out[0] = ((in0 + in1) << 2) ^ 7
    "sw t4, 4(a1)",            # 7  out[1] = 7
    "lw t6, 0(a1)",            # 8  out[0] back through memory
    "addiu t6, t6, 1",         # 9
    "sw t6, 8(a1)",            # 10 out[2] = out[0] + 1
    "jr ra",                   # 11
    "nop",                     # 12
]
GPR = {n: i for i, n in enumerate(("zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3",
                                    "t4", "t5", "t6", "t7"))}


def reg(name, part=0):
    return Loc("gpr", GPR[name], part)


def prepare(m, lines=KERNEL, a0=IN, a1=OUT):
    put_words(m, B, program(lines, B))
    m.write(IN, (1000).to_bytes(4, "little") + (234).to_bytes(4, "little"))
    m.R[31] = sx32(SENTINEL)
    m.R[29] = STACK_TOP
    m.R[4], m.R[5] = a0, a1


def state(m):
    return [get(m, x) for x in all_locations()], m.read(IN, 0x200)


def test_lines_carry_raw_values(m):
    prepare(m)
    with m.hooks.add("record") as rec:
        m.run(B, limit=1000)
    assert [ln.pc for ln in rec] == [B + 4 * i for i in range(13)]
    add = rec[2]
    assert add.word == program(KERNEL, B)[2]
    assert add.reads == {reg("t0"): 1000, reg("t1"): 234} and add.writes == {reg("t2"): 1234}
    assert rec[0].loads == [(IN, 4, 1000)] and rec[0].writes == {reg("t0"): 1000}
    assert rec[6].stores == [(OUT, 4, ((1234 << 2) ^ 7))]
    assert rec[6].reads == {reg("a1"): OUT, reg("t5"): (1234 << 2) ^ 7}
    assert "addu t2, t0, t1" in rec.text(2) and "t2=0x4d2" in rec.text(2)
    assert len(rec.format().splitlines()) == 13


def test_last_store_and_producer_chain(m):
    """The store behind out[2] leads back through memory to out[0]'s store, the arithmetic, the
    two loads from the input (leaves) and the entry arguments a0, a1 (leaves)."""
    prepare(m)
    with m.hooks.add("record") as rec:
        m.run(B, limit=1000)
    assert rec.last_store_to(OUT + 8) == 10 and rec.last_store_to(OUT + 5) == 7
    assert rec.last_store_to(OUT + 0x40) is None
    chain = rec.producer_chain(10, inputs=[(IN, IN + 8)])
    lines = {k.index for k in chain if k.index is not None}
    assert lines == {10, 9, 8, 6, 5, 4, 3, 2, 1, 0}          # the unrelated sw t4, 4(a1) is not there
    leaves = sorted((k.leaf, k.via) for k in chain if k.index is None)
    assert ("input", f"[{IN:#010x}] (4 bytes)") in leaves and ("input", f"[{IN + 4:#010x}] (4 bytes)") in leaves
    assert {x for x in leaves if x[0].startswith("entry")} == {("entry argument a0", "$a0"),
                                                                ("entry argument a1", "$a1")}
    via_mem = [k for k in chain if k.index == 6]
    assert via_mem[0].parent == 8 and via_mem[0].via == f"[{OUT:#010x}] (4 bytes)"
    short = rec.producer_chain(10, depth=2, inputs=[(IN, IN + 8)])
    assert max(k.depth for k in short) == 2 and {k.index for k in short if k.index is not None} == {10, 9, 8}
    text = rec.format_chain(chain)
    assert "xor t5, t3, t4" in text and "entry argument a0" in text and "input" in text
    # without input ranges the loads lead on to memory no recorded store wrote
    assert any(k.leaf == "initial memory" for k in rec.producer_chain(10))


def test_a_recorded_run_equals_an_unrecorded_one(engine):
    plain, recorded = Machine(), Machine()
    for mm in (plain, recorded):
        prepare(mm)
    plain.run(B)
    with recorded.hooks.add("record"):
        recorded.run(B)
    assert state(recorded) == state(plain) and recorded.steps == plain.steps == 13
    recorded.run(B)                                         # and the engine runs on from it
    assert recorded.read_u32(OUT + 8) == ((1234 << 2) ^ 7) + 1


BRANCHES = [
    "addiu t0, zero, 3",                 # 0
    "addiu t0, t0, -1",                  # 1 loop:
    f"bnel t0, zero, {B + 4:#x}",        # 2  likely: the slot runs only when taken
    "addiu v0, v0, 2",                   # 3
    f"jal {B + 0x20:#x}",                # 4
    "addiu a2, zero, 5",                 # 5  delay slot of the call
    f"beq zero, zero, {B + 0x28:#x}",    # 6
    "nop",                               # 7
    "jr ra",                             # 8  (0x20) the callee
    "addu v1, a2, a2",                   # 9  its slot
    "jr t9",                             # 10 (0x28) back to the caller (t9 = the entry ra)
    "nop",
]


def test_branches_slots_and_links(m):
    """r5900.md §9: a taken branch's slot runs; a likely branch not taken annuls its slot (no
    line); JAL writes ra = pc + 8 before its slot runs."""
    prepare(m, BRANCHES)
    m.R[2] = 0
    m.R[25] = ra = m.R[31]
    with m.hooks.add("record") as rec:
        m.run(B, limit=1000)
    pcs = [(ln.pc - B) // 4 for ln in rec]
    assert pcs == [0, 1, 2, 3, 1, 2, 3, 1, 2, 4, 5, 8, 9, 6, 7, 10, 11]
    assert [ln.taken for ln in rec if (ln.pc - B) // 4 == 2] == [True, True, False]
    jal = rec[9]
    assert jal.writes == {Loc("gpr", 31, 0): B + 0x18}
    assert rec[12].reads == {reg("a2"): 5} and rec[12].writes == {reg("v1"): 10}
    assert m.R[2] == 4 and m.steps == len(rec) and ra == sx32(SENTINEL)
    assert rec[15].reads == {Loc("gpr", 25, 0): ra}


def test_a_fault_is_the_last_line(m):
    prepare(m, a0=0x0FF00000)
    with m.hooks.add("record") as rec:
        with pytest.raises(EmulationError) as e:
            m.run(B, limit=1000)
    assert e.value.pc == B and len(rec) == 1 and rec[0].fault and rec[0].reads == {reg("a0"): 0x0FF00000}


def test_a_hook_is_one_line_and_a_leaf(m):
    """A hooked call: one line whose writes are what the hook changed; the chain stops there."""
    lines = [f"jal {B + 0x40:#x}", "nop", "addiu v0, v0, 1", "sw v0, 0(a1)", "jr t9", "nop"]
    prepare(m, lines)
    m.R[25] = m.R[31]
    m.hooks.add("address", lambda mm: 41, B + 0x40)
    with m.hooks.add("record") as rec:
        m.run(B, limit=1000)
    hook = next(ln for ln in rec if ln.hook)
    assert hook.writes[reg("v0")] == 41
    store = rec.last_store_to(OUT)
    chain = rec.producer_chain(store)
    assert hook.index in {k.index for k in chain} and m.read_u32(OUT) == 42


def test_a_lines_reads_and_writes_come_in_one_order_whatever_the_processs_hash_seed():
    """Determinism: a location set iterates in an order that follows str hashing, which differs from
    process to process; the recorder keeps each line's reads and writes sorted, so the data flow back
    (a mismatch's provenance chain) is the same in every run."""
    import os
    import subprocess
    import sys
    code = ("from eemu_ext import Machine\n"
            "from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32\n"
            "from eemu_ext.core.testing import CODE_BASE, program, put_words\n"
            "m = Machine()\n"
            "put_words(m, CODE_BASE, program(['madd v0, a0, a1', 'jr ra', 'nop'], CODE_BASE))\n"
            "m.R[31] = sx32(SENTINEL); m.R[29] = STACK_TOP\n"
            "with m.hooks.add('record') as rec:\n"
            "    m.run(CODE_BASE, limit=100)\n"
            "print([str(x) for x in rec[0].reads], [str(x) for x in rec[0].writes])\n")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout for seed in range(1, 6)}
    assert seen == {"['$a0', '$a1', 'HI', 'LO'] ['$v0', 'HI', 'LO']\n"}
