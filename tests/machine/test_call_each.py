"""Machine.call_each: the calls of one batch give what the same calls made one by one give (v0,
steps, the registers and memory after), hooks, faults and budgets included (executable-abi.md
§3.1 for each call). The native engine keeps its state in C between the calls of a batch."""
import os

import pytest

from eemu_ext import Machine, StepLimitExceeded
from eemu_ext.core.testing import CODE_BASE as B, program, put_words

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")
HOOKED = 0x00200000

# f(a0, a1) = hooked(a0) + a1, through a stack frame: a hook in the middle of every call
CALLER = ["addiu sp, sp, -16", "sw ra, 0(sp)", "sw a1, 4(sp)", "lui t9, 0x20", "jalr ra, t9", "nop",
          "lw ra, 0(sp)", "lw a1, 4(sp)", "mult zero, v0, a1", "addu v0, v0, a1", "jr ra", "addiu sp, sp, 16"]


def state(m):
    return (list(m.R), list(m.RH), list(m.HI), list(m.LO), m.read(0x01FFE000, 0x1000))


def test_a_batch_of_calls_equals_the_calls_one_by_one():
    args = [(n,) for n in (0, 1, 7, 12, 3)]
    one, batch = Machine(), Machine()
    for m in (one, batch):
        m.load_elf(ELF)
    want = []
    for a in args:
        v0 = one.call("fib", *a)
        want.append((v0, one.steps))
    assert batch.call_each("fib", args) == want
    assert [v for v, _ in want] == [0, 1, 13, 144, 2]
    assert batch.steps == one.steps
    assert state(batch) == state(one)
    assert batch.call_each("fib", []) == []


def test_a_hook_in_every_call_of_a_batch():
    one, batch = Machine(), Machine()
    for m in (one, batch):
        put_words(m, B, program(CALLER))
        m.hooks.add("address", lambda mm: mm.args(1)[0] * 2, HOOKED)
        m.declare_entries([B])
    args = [(5, 1), (0x40000000, 3), (9, 0xFFFFFFFF)]
    want = []
    for a in args:
        want.append((one.call(B, *a), one.steps))
    got = batch.call_each(B, args)
    assert got == want
    assert got[0][0] == (10 + 1) & 0xFFFFFFFF
    assert state(batch) == state(one)


def test_a_call_over_its_budget_stops_the_batch_as_it_stops_a_call():
    m = Machine()
    m.load_elf(ELF)
    with pytest.raises(StepLimitExceeded):
        m.call_each("fib", [(3,), (20,), (4,)], limit=2_000)
    assert m.call_each("fib", [(6,)]) == [(8, m.steps)]      # the machine goes on afterwards


def test_a_hook_may_make_a_batch_of_nested_calls():
    m = Machine()
    m.load_elf(ELF)
    put_words(m, B, program(CALLER))
    m.allow_fetch(B, B + 4 * len(CALLER))
    m.hooks.add("address", lambda mm: sum(v for v, _ in mm.call_each("fib", [(mm.args(1)[0],), (2,)])), HOOKED)
    assert m.call(B, 7, 0) == 13 + 1


def test_calls_that_need_exactly_their_budget_complete_in_a_batch_as_alone():
    """The budget is each call's own: calls needing exactly `limit` steps complete, with the
    v0, steps and state that the same calls made one by one give."""
    probe = Machine()
    probe.load_elf(ELF)
    probe.call("fib", 9)
    limit = probe.steps                              # fib(9) needs exactly this many steps
    one, batch = Machine(), Machine()
    for m in (one, batch):
        m.load_elf(ELF)
    args = [(9,), (9,), (2,)]
    want = []
    for a in args:
        v0 = one.call("fib", *a, limit=limit)
        want.append((v0, one.steps))
    assert batch.call_each("fib", args, limit=limit) == want
    assert want[0] == (34, limit)
    assert state(batch) == state(one)


def test_a_mixed_batch_names_the_function_of_the_call_that_ran_over_its_budget():
    m = Machine()
    m.load_elf(ELF)
    with pytest.raises(StepLimitExceeded, match="calling fib"):
        m.call_each(["gcd", "fib"], [(12, 18), (20,)], limit=[100_000, 2_000])
    with pytest.raises(StepLimitExceeded, match="calling gcd"):
        m.call_each(["fib", "gcd"], [(3,), (1134903170, 701408733)], limit=[100_000, 50])
