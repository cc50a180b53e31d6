"""Coverage of code (eemu_ext/engines/coverage.py): per instruction address, per branch direction.

With ``Machine(coverage=True)`` both engines count how often every instruction address ran and
which way every conditional branch went, with identical counts: an instruction counts when its
unit completed, an annulled delay slot does not, a branch counts once per execution as taken or
not taken. Counts sum over workers and round-trip through JSON; ``function_report`` gives per
function instructions and directions covered, with an annotated disassembly.
"""
from __future__ import annotations

import json
import os
import random

import pytest

from eemu_ext import EmulationError, Machine
from eemu_ext.engines.coverage import CodeCoverage, function_report
from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32
from eemu_ext.engines.native.build import compiler
from eemu_ext.core.testing import CODE_BASE, program, put_words

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")
B = CODE_BASE
# a loop with an if (beq), a likely back edge (bnel, its slot runs only when taken), a branch
# whose target is its own fall-through, and a branch on the argument a0
LOOP = [
    "addiu t0, zero, 5",           # 00
    "addiu v0, zero, 0",           # 04
    "andi t1, t0, 1",              # 08 loop:
    f"beq t1, zero, {B + 0x18:#x}",  # 0c  taken when t0 is even
    "nop",                         # 10
    "addiu v0, v0, 1",             # 14  odd t0 only
    "addiu t0, t0, -1",            # 18 skip:
    f"bnel t0, zero, {B + 0x08:#x}",  # 1c  likely: the slot is annulled on the way out
    "addiu v0, v0, 16",            # 20
    f"beq zero, zero, {B + 0x2c:#x}",  # 24  taken, to where it falls through anyway
    "nop",                         # 28
    f"bgez a0, {B + 0x38:#x}",     # 2c  the argument decides
    "nop",                         # 30
    "addiu v0, v0, 100",           # 34  a0 < 0 only
    "jr ra",                       # 38
    "nop",                         # 3c
]
ENGINES = ["python", "native"]


@pytest.fixture
def engine(monkeypatch):
    """Once, not once per engine (overrides conftest.py's fixture by name): each test here runs
    both engines itself and compares them."""
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    return None


def machines():
    if compiler() is None:
        pytest.skip("no host C compiler: the native half of the comparison cannot run here")
    return {e: Machine(engine=e, coverage=True) for e in ENGINES}


def run_loop(m, a0):
    put_words(m, B, program(LOOP, B)) if not m.read_u32(B) else None
    m.R[31] = sx32(SENTINEL)
    m.R[29] = STACK_TOP
    m.R[4] = sx32(a0)
    m.run(B)
    return m.R[2] & 0xFFFFFFFF


def test_counts_per_address_and_direction():
    """Every address's count and every branch's directions, as the loop's arithmetic gives them,
    under both engines."""
    for eng, m in machines().items():
        assert run_loop(m, 1) == 3 + 4 * 16
        c = m.code_coverage
        at = {o: c.insns[B + o] for o in range(0, 0x40, 4)}
        assert at == {0x00: 1, 0x04: 1, 0x08: 5, 0x0c: 5, 0x10: 5, 0x14: 3, 0x18: 5, 0x1c: 5, 0x20: 4,
                      0x24: 1, 0x28: 1, 0x2c: 1, 0x30: 1, 0x34: 0, 0x38: 1, 0x3c: 1}, eng
        assert c.directions(B + 0x0c) == (2, 3), eng
        assert c.directions(B + 0x1c) == (4, 1), eng          # likely: the last pass annuls 0x20
        assert c.directions(B + 0x24) == (1, 0), eng          # target == fall-through, still taken
        assert c.directions(B + 0x2c) == (1, 0), eng
        assert m.coverage["bnel"] == 5 and m.coverage["addiu"] == 1 + 1 + 3 + 5 + 4, eng


def test_a_never_taken_direction_is_covered_by_an_input_that_takes_it():
    for eng, m in machines().items():
        run_loop(m, 1)
        c = m.code_coverage
        assert c.not_taken[B + 0x2c] == 0 and c.insns[B + 0x34] == 0
        report_before = CodeCoverage().merge(c)
        assert run_loop(m, -1) == 3 + 4 * 16 + 100
        c = m.code_coverage
        assert c.directions(B + 0x2c) == (1, 1), eng
        assert c.insns[B + 0x34] == 1 and report_before.insns[B + 0x34] == 0, eng


def _lockstep_same(fn):
    got = {}
    for eng, m in machines().items():
        m.load_elf(ELF)
        fn(m)
        got[eng] = (m.code_coverage, dict(+m.coverage))
    assert got["python"][0] == got["native"][0], _first_difference(got["python"][0], got["native"][0])
    assert got["python"][1] == got["native"][1]
    return got["python"][0]


def _first_difference(a, b):
    for name in ("insns", "taken", "not_taken"):
        x, y = getattr(a, name), getattr(b, name)
        for pc in sorted(set(+x) | set(+y)):
            if x[pc] != y[pc]:
                return f"{name}[0x{pc:08x}]: python {x[pc]}, native {y[pc]}"
    return "?"


def test_both_engines_count_the_same_on_a_c_program():
    """Lockstep of the counts: calls, recursion, a jump table, 64-bit helpers, loops."""
    rnd = random.Random("coverage lockstep")
    calls = [("fib", 12), ("gcd", 1071, 462), ("collatz_steps", 27)] + [
        ("calc", rnd.randrange(-1, 9), rnd.getrandbits(31), rnd.randrange(40)) for _ in range(12)] + [
        ("div64", 0x01000100, rnd.getrandbits(31), rnd.getrandbits(16) | 1), ("fnv1a64", 0x01000000, 64, 0x01000200),
        ("sort_and_median", 0x01000000, 16)]

    def work(m):
        m.write(0x01000000, bytes(range(64)))
        for name, *args in calls:
            m.call(name, *args)
    cov = _lockstep_same(work)
    assert sum(cov.insns.values()) > 1000


def test_both_engines_count_the_same_when_a_run_faults():
    """A load from an unmapped address in the middle of a block: it and the instructions before
    it count, the rest of the block does not."""
    def work(m):
        m.write(0x01000000, bytes(16))
        with pytest.raises(EmulationError):
            m.call("sum_array", 0x0FF00000, 8)          # the pointer is not RAM
        m.call("sum_array", 0x01000000, 4)
    cov = _lockstep_same(work)
    assert cov.insns[0x100238] == 2


def test_counts_merge_and_round_trip_through_json():
    """Workers' counts sum; JSON keeps them exactly."""
    ms = machines()
    a, b = ms["python"], ms["native"]
    run_loop(a, 1)
    run_loop(b, -1)
    both = Machine(engine="python", coverage=True)
    run_loop(both, 1)
    run_loop(both, -1)
    merged = a.code_coverage + b.code_coverage
    assert merged == both.code_coverage
    back = CodeCoverage.from_json(json.loads(json.dumps(merged.to_json())))
    assert back == merged and back.insns[B + 0x08] == 10
    with pytest.raises(ValueError, match="format"):
        CodeCoverage.from_json({"insns": {}})


def test_function_report():
    """Per function: instructions covered/total, directions covered/total, and the lines that
    never ran marked '!!', each missing direction named."""
    m = Machine(engine="python", coverage=True)
    m.load_elf(ELF)
    m.call("gcd", 12, 12)                            # gcd(a, a): the loop body never runs
    (rep,) = function_report(m, m.code_coverage, ["gcd"])
    start, size = m.symbol("gcd"), 72
    assert (rep.name, rep.start, rep.end, rep.insns_total) == ("gcd", start, start + size, size // 4)
    never = [ln for ln in rep.lines[1:] if ln.startswith("!!")]
    assert 0 < len(never) == rep.insns_total - rep.insns_covered
    assert rep.directions_total == 2 * sum("[taken" in ln for ln in rep.lines)
    assert rep.directions_covered < rep.directions_total
    assert any("never taken" in ln or "never not-taken" in ln for ln in rep.lines)
    assert "never taken" in rep.lines[1]             # beq a1, zero: b is never 0
    m.call("gcd", 5, 0)
    (rep2,) = function_report(m, m.code_coverage, ["gcd"])
    assert "never" not in rep2.lines[1]
    assert rep2.insns_covered > rep.insns_covered and rep2.directions_covered > rep.directions_covered
    reps = function_report(m, m.code_coverage, ["div64"])        # never called, nor its callees
    assert [r.name for r in reps] == ["div64", "__divdi3", "__moddi3", "__udivdi3", "__umoddi3"][:len(reps)]
    assert len(reps) > 1 and all(r.insns_covered == 0 and r.lines[1].startswith("!!") for r in reps)
    with pytest.raises(ValueError, match="not the start of a function"):
        function_report(m, m.code_coverage, [m.symbol("gcd") + 4])


def test_counts_agree_with_a_recorded_run():
    """The block counters against an independent count: the recorder's instruction-by-instruction
    lines (eemu_ext/analysis/record.py) of the same calls, per address and per branch direction."""
    import collections
    calls = [("fib", 10), ("gcd", 1071, 462), ("collatz_steps", 27), ("calc", 2, 7, 9), ("calc", 9, 1, 1)]
    for eng, m in machines().items():
        m.load_elf(ELF)
        for name, *args in calls:
            m.call(name, *args)
        r = Machine(engine=eng, coverage=True)
        r.load_elf(ELF)
        with r.hooks.add("record") as rec:
            for name, *args in calls:
                r.call(name, *args)
        insns = collections.Counter(ln.pc for ln in rec)
        taken = collections.Counter(ln.pc for ln in rec if ln.taken)
        not_taken = collections.Counter(ln.pc for ln in rec if ln.taken is False)
        c = m.code_coverage
        assert (+c.insns, +c.taken, +c.not_taken) == (insns, taken, not_taken), eng
        assert r.code_coverage == c and +r.coverage == +m.coverage, eng     # a recorded run counts too
