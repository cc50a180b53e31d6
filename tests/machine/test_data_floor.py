"""The data floor: a data access below Machine(data_floor=ADDR) faults, naming pc, symbol and instruction.

A null or low-memory pointer must not read zeroes silently. The floor
covers every load and store width, the RAM mirrors and the unaligned LWL/LWR family; instruction
fetch and the harness's own read/write are not floored.
"""
import pytest

from eemu_ext import Machine
from eemu_ext.errors import MemoryFault
from eemu_ext.core.testing import CODE_BASE, asm, run_words

FLOOR = 0x00100000
LOW = 0x00000010         # a field of a null object


@pytest.mark.parametrize("line", ["lw $2, 16($5)", "lb $2, 16($5)", "lhu $2, 16($5)", "ld $2, 16($5)",
                                  "lq $2, 16($5)", "lwl $2, 19($5)", "sw $2, 16($5)", "sb $2, 16($5)",
                                  "sd $2, 16($5)", "sq $2, 16($5)", "lqc2"])
def test_a_low_access_faults_under_the_floor_and_reads_zero_without_it(line):
    words = [0xD8A10010 if line == "lqc2" else asm(line)]      # lqc2 $vf1, 16($5)
    m = Machine(data_floor=FLOOR)
    with pytest.raises(MemoryFault) as e:
        run_words(m, words)
    msg = str(e.value)
    assert "below the data floor 0x00100000" in msg
    assert f"pc 0x{CODE_BASE:08x}" in msg and line.split()[0] in msg
    assert e.value.pc == CODE_BASE and e.value.address == (LOW if "19" not in line else 0x10)
    run_words(Machine(), words)                  # no floor: the same access silently succeeds


def test_a_kseg0_mirror_of_low_memory_is_floored_too():
    m = Machine(data_floor=FLOOR)
    with pytest.raises(MemoryFault, match="below the data floor"):
        run_words(m, [asm("lw $2, 16($5)")], setup=lambda m: m.gpr.__setitem__(5, 0xFFFFFFFF80000000))


def test_accesses_at_and_above_the_floor_and_fetch_from_below_it_work():
    m = Machine(data_floor=0x00040000)        # the code at CODE_BASE lies above; data at the floor
    m.write_u32(0x00040000, 1234)
    run_words(m, [asm("lw $2, 0($5)")], setup=lambda m: m.gpr.__setitem__(5, 0x00040000))
    assert m.gpr[2] == 1234
    m = Machine(data_floor=0x00100000)        # code below the floor still runs (fetch is not floored)
    run_words(m, [asm("addiu $2, $0, 7")])
    assert m.gpr[2] == 7
    assert m.read_u32(0) == 0                   # the harness's own reads are not floored


def test_the_floor_is_settable_and_takes_effect_on_compiled_code():
    m = Machine()
    run_words(m, [asm("lw $2, 16($5)")])
    m.data_floor = FLOOR
    assert m.mem.data_floor == FLOOR
    with pytest.raises(MemoryFault, match="below the data floor"):
        run_words(m, [asm("lw $2, 16($5)")])
    m.data_floor = 0
    run_words(m, [asm("lw $2, 16($5)")])
