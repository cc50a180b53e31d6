"""Code written after translation is what runs: a
write into translated code makes the program stale, also on a machine whose program came from
the cache and so never decoded that code itself."""
import os

from eemu_ext import Machine
from eemu_ext.core.testing import program

INT_PROG = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")


def _patch_fib_to_return_99(m):
    a = m.symbol("fib")
    for i, w in enumerate(program(["addiu v0, zero, 99", "jr ra", "nop"], a)):
        m.write_u32(a + 4 * i, w)


def test_patched_code_runs_on_the_machine_that_translated_it(engine):
    m = Machine()
    m.load_elf(INT_PROG)
    assert m.call("fib", 10) == 55
    _patch_fib_to_return_99(m)
    assert m.call("fib", 10) == 99


def test_patched_code_runs_on_a_machine_with_a_cached_program(engine):
    Machine().load_elf(INT_PROG)
    first = Machine()
    first.load_elf(INT_PROG)
    assert first.call("fib", 10) == 55          # the program is now cached in this process
    m = Machine()
    m.load_elf(INT_PROG)
    assert m.call("fib", 10) == 55
    _patch_fib_to_return_99(m)
    assert m.call("fib", 10) == 99
    assert first.call("fib", 10) == 55          # the other machine keeps its own code
