"""Instruction fetch outside the executable's loaded segments is a fault naming the jump that got
there and ra, in both engines: a call through a null pointer
must not slide through zeroed low memory as NOPs."""
import os

import pytest

from eemu_ext import Machine
from eemu_ext.errors import MemoryFault
from eemu_ext.core.testing import program

INT_PROG = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")


def _null_call(m):
    m.load_elf(INT_PROG)
    a = m.symbol("fib")
    m.write(a, b"".join(w.to_bytes(4, "little") for w in program(["jalr ra, zero", "nop"], a)))
    return a


def test_a_call_through_a_null_pointer_names_the_jalr_and_ra(engine):
    m = Machine()
    a = _null_call(m)
    with pytest.raises(MemoryFault) as ei:
        m.call("fib", 3)
    msg = str(ei.value)
    assert ei.value.pc == 0
    assert "outside the executable's loaded segments" in msg
    assert f"reached by jalr ra, zero at 0x{a:08x} (fib)" in msg
    assert f"ra = 0x{a + 8:08x} (fib+0x8)" in msg


def test_without_an_image_code_may_run_anywhere(engine):
    """The rule is the image's: a machine with no ELF loaded fetches from any mapped address."""
    from eemu_ext.core.testing import run_words
    m = run_words(Machine(), program(["addiu v0, zero, 7"]))
    assert m.R[2] == 7
