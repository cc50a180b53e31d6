"""Lockstep: engine="lockstep" runs every native block in both engines
from the same state and stops at the first instruction whose effects differ. A lockstep that
cannot fail proves nothing, so these tests plant a wrong compiled semantics and check that it is
caught at the right instruction, with both values named."""
import dataclasses

import pytest

from eemu_ext import Machine
from eemu_ext.isa.decode import Decoder
from eemu_ext.errors import LockstepMismatch
from eemu_ext.isa import ROWS
from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32
from eemu_ext.engines.native.build import compiler
from eemu_ext.core.testing import CODE_BASE, program, put_words

pytestmark = pytest.mark.skipif(compiler() is None, reason="no host C compiler: no native engine here")

PROG = ["addiu t0, zero, 5",            # loop counter
        "addiu v0, zero, 0",
        "addu v0, v0, t0",              # CODE_BASE + 8: the planted row
        "addiu t0, t0, -1",
        f"bne t0, zero, {CODE_BASE + 8:#x}",
        "nop",
        "sw v0, 0x100(sp)",             # CODE_BASE + 24
        "jr ra", "nop"]


def _planted(mnemonic, c):
    rows = [dataclasses.replace(r, c=c) if r.mnemonic == mnemonic else r for r in ROWS]
    return Decoder(rows)


def _run(m):
    put_words(m, CODE_BASE, program(PROG, CODE_BASE))
    m.R[31] = sx32(SENTINEL)
    m.R[29] = STACK_TOP - 0x1000
    m.run(CODE_BASE, limit=10_000)
    return m


def test_lockstep_agrees_on_a_clean_program():
    m = _run(Machine(engine="lockstep"))
    assert m.R[2] == 15 and m.read_u32(STACK_TOP - 0x1000 + 0x100) == 15
    assert m.native.checker.checked >= 5          # every block was compared


def test_a_result_off_by_one_is_caught_at_its_instruction():
    m = Machine(engine="lockstep", decoder=_planted("addu", "R[rd] = SX32(R[rs] + R[rt] + 1);"))
    with pytest.raises(LockstepMismatch) as ei:
        _run(m)
    e = ei.value
    assert e.pc == CODE_BASE + 8
    assert "addu v0, v0, t0" in str(e)
    assert ("R[2]", 5, 6) in e.diffs               # python 5, native 6


def test_a_wrong_store_is_caught_at_the_store():
    m = Machine(engine="lockstep", decoder=_planted("sw", "uint32_t a = (uint32_t)(R[rs] + (uint64_t)(int64_t)(imm));\n"
                                                          "ST32(a + 4, R[rt]);"))
    with pytest.raises(LockstepMismatch) as ei:
        _run(m)
    assert ei.value.pc == CODE_BASE + 24
    assert any(what.startswith("mem[") for what, _p, _n in ei.value.diffs)


def test_the_native_engine_alone_does_not_notice_the_plant():
    """Without lockstep the planted row simply computes a wrong value: lockstep is the check."""
    m = _run(Machine(engine="native", decoder=_planted("addu", "R[rd] = SX32(R[rs] + R[rt] + 1);")))
    assert m.R[2] == 20                           # 15, plus 1 on each of the 5 iterations
