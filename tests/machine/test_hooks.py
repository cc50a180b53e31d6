"""m.hooks (eemu_ext/core/hooks.py, interfaces.md §1): one registry for the Python code a run calls: a
function replaced at an address, a hook before every unit, the SYSCALL/BREAK handlers and
recordings. add returns a handle; removing it (or leaving its with block) takes the hook out."""
import os

import pytest

from eemu_ext import SyscallError
from eemu_ext.core.testing import CODE_BASE as B, program, put_words, run_words

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")


def test_an_address_hook_replaces_the_function_until_its_handle_is_removed(m):
    m.load_elf(ELF)
    h = m.hooks.add("address", lambda mm: 99, "fib")
    assert m.call("fib", 7) == 99 and h.addr == m.symbol("fib")
    h.remove()
    assert m.call("fib", 7) == 13


def test_a_handle_is_a_context_manager(m):
    m.load_elf(ELF)
    with m.hooks.add("address", lambda mm: 5, "fib"):
        assert m.call("fib", 7) == 5
    assert m.call("fib", 7) == 13 and m.hooks.at == {}


def test_a_new_hook_at_an_address_replaces_the_old_and_the_old_handle_leaves_it(m):
    m.load_elf(ELF)
    old = m.hooks.add("address", lambda mm: 1, "fib")
    m.hooks.add("address", lambda mm: 2, "fib")
    old.remove()
    assert m.call("fib", 7) == 2


def test_step_hooks_run_before_every_unit_in_order(m):
    seen = []
    m.hooks.add("step", lambda mm, pc: seen.append(("a", pc)))
    h = m.hooks.add("step", lambda mm, pc: seen.append(("b", pc)))
    run_words(m, program(["addiu v0, zero, 1", "addiu v0, v0, 1"]))
    assert seen[:4] == [("a", B), ("b", B), ("a", B + 4), ("b", B + 4)] and m.R[2] == 2
    h.remove()
    seen.clear()
    run_words(m, program(["nop"]))
    assert [w for w, _ in seen] == ["a", "a"]              # nop, then jr ra with its slot


def test_syscall_hooks_get_kind_and_code_and_without_one_it_is_an_error(m):
    put_words(m, B, program(["syscall 0x3c", "break 0x7", "jr ra", "nop"]))
    with pytest.raises(SyscallError, match="no handler"):
        m.call(B)
    seen = []
    with m.hooks.add("syscall", lambda mm, kind, code: seen.append((kind, code, mm.pc))):
        m.call(B)
    assert seen == [("syscall", 0x3C, B), ("break", 0x7, B + 4)]


def test_a_record_hook_records_the_runs_while_it_is_installed(m):
    m.load_elf(ELF)
    with m.hooks.add("record") as rec:
        assert m.call("fib", 3) == 2
    n = len(rec)
    assert n == m.steps and rec[0].pc == m.symbol("fib")
    m.call("fib", 3)
    assert len(rec) == n and m.hooks.recording is None


def test_an_unknown_kind_or_a_missing_function_is_refused(m):
    with pytest.raises(ValueError, match="hook kind"):
        m.hooks.add("memory", lambda mm: 0, B)
    with pytest.raises(TypeError):
        m.hooks.add("step", None)
    with pytest.raises(ValueError, match="address"):
        m.hooks.add("address", lambda mm: 0)


def test_a_hook_reads_one_float_argument_as_bits_without_the_whole_fpu_state(m):
    # the caller puts pi's bits in $f12 and calls a hooked address; the hook's m.f_bits(12)
    # is what m.F[12] says, under the native engine before anything pulled the FPU state
    target = B + 0x100
    seen = []
    m.hooks.add("address", lambda mm: seen.append((mm.f_bits(12), mm.f_bits(13))), target)
    run_words(m, program(["or s0, ra, zero", "lui t0, 0x4049", "ori t0, t0, 0x0fdb", "mtc1 t0, f12",
                          f"jal 0x{target:x}", "nop", "or ra, s0, zero"]))
    assert seen == [(0x40490FDB, m.F[13] & 0xFFFFFFFF)] and m.F[12] & 0xFFFFFFFF == 0x40490FDB


def test_a_tap_hook_replaces_the_function_by_nothing_and_lists_each_call_s_arguments(m, engine):
    m.load_elf(ELF)
    m.call("fib", 3)
    units = m.native.python_units if m.native is not None else 0
    with m.hooks.add("tap", addr="fib") as calls:
        m.call("fib", 7, 0x80000001)
        assert m.steps == 1                                                 # one unit
        m.call("fib", 9)
    assert [c[:2] for c in calls] == [(7, 0x80000001), (9, 0)] and all(len(c) == 8 for c in calls)
    if engine == "native":
        assert m.native.python_units == units, "a tap runs in C: no Python unit"
    assert m.call("fib", 7) == 13 and m.hooks.at == {} and m.hooks.taps == {}


def test_a_tap_inside_a_run_keeps_the_calls_in_order_with_their_float_arguments(m):
    target = B + 0x100
    put_words(m, target, program(["jr ra", "nop"]))
    with m.hooks.add("tap", addr=target) as calls:
        run_words(m, program(["or s0, ra, zero", "addiu v0, zero, 5", "addiu a0, zero, 1", "addiu a1, zero, 2",
                              "lui t0, 0x3f80", "mtc1 t0, f12", f"jal 0x{target:x}", "addiu a2, zero, 3",
                              f"jal 0x{target:x}", "addiu a0, zero, 4", "or ra, s0, zero"]))
    assert [c[:3] + c[4:5] for c in calls] == [(1, 2, 3, 0x3F800000), (4, 2, 3, 0x3F800000)]
    assert m.R[2] & 0xFFFFFFFF == 5 and m.steps == 13 + 2


def test_two_tap_hooks_in_one_run_each_list_their_own_calls_in_order(m):
    one, two = B + 0x100, B + 0x140
    put_words(m, one, program(["jr ra", "nop"]))
    put_words(m, two, program(["jr ra", "nop"]))
    with m.hooks.add("tap", addr=one) as first, m.hooks.add("tap", addr=two) as second:
        run_words(m, program(["or s0, ra, zero", "addiu a0, zero, 1", f"jal 0x{one:x}", "nop",
                              "addiu a0, zero, 2", f"jal 0x{two:x}", "nop", "addiu a0, zero, 3",
                              f"jal 0x{one:x}", "nop", "or ra, s0, zero"]))
    assert [c[0] for c in first] == [1, 3] and [c[0] for c in second] == [2]
    assert all(isinstance(c, tuple) and len(c) == 8 for c in first + second)


class _Heap:
    """A bump heap as hooks.py "bump" reads it, with the allocator its Python hook runs."""

    def __init__(self, m, start, end):
        self.m, self.ptr, self.end, self.high_water, self.log = m, start, end, start, []

    def alloc(self, n, align=16):
        size, at = (n + 15) & ~15, (self.ptr + align - 1) & ~(align - 1)
        if at + size > self.end:
            raise MemoryError(f"heap exhausted at 0x{at:x}")
        if n:
            self.m.write(at, bytes(n))
        self.ptr = self.high_water = at + size
        return at

    def bumped(self, addr, args, ra, block):
        self.log.append((addr, args, ra, block))

    def hook(self, rule):
        def fn(m):
            a0, a1 = m.args(2)
            if rule == "memalign":
                pow2 = [x for x in (a0, a1) if x and not x & (x - 1) and x <= 4096]
                block = self.alloc(max(a0, a1), max(16, min(pow2)) if pow2 else 16)
            else:
                block = self.alloc((a0, a1)[rule])
            self.log.append((m.pc, (a0,) if rule == 0 else (a0, a1), m.R[31] & 0xFFFFFFFF, block))
            return block
        return fn


def _bump_program(m, heap, malloc, memalign):
    m.write(0x00300000, b"\xAA" * 0x200)           # what the blocks are zeroed over
    m.hooks.add("bump", heap.hook(0), malloc, heap=heap, size=0)
    m.hooks.add("bump", heap.hook("memalign"), memalign, heap=heap, size="memalign")
    put_words(m, malloc, program(["jr ra", "nop"]))
    put_words(m, memalign, program(["jr ra", "nop"]))
    run_words(m, program(["or s0, ra, zero", "addiu a0, zero, 20", f"jal 0x{malloc:x}", "nop",
                          "or s1, v0, zero", "addiu a0, zero, 0x40", f"jal 0x{memalign:x}", "addiu a1, zero, 0x24",
                          "or s2, v0, zero", "addiu a0, zero, 1", f"jal 0x{malloc:x}", "addiu a1, zero, 7",
                          "or ra, s0, zero"]))


def test_a_bump_hook_allocates_zeroed_blocks_and_logs_each_call_without_python(m, engine):
    """hooks.py "bump": the size rule's block at the heap pointer, aligned, zero-filled, v0 its
    address, every call told to the heap in order; the native engine serves it in C."""
    malloc, memalign = B + 0x100, B + 0x140
    heap = _Heap(m, 0x00300008, 0x00300200)
    units = m.native.python_units if m.native is not None else 0
    _bump_program(m, heap, malloc, memalign)
    assert [(a, args, block) for a, args, _, block in heap.log] == [
        (malloc, (20,), 0x00300010), (memalign, (0x40, 0x24), 0x00300040), (malloc, (1,), 0x00300080)]
    assert len({ra for *_, ra, _ in heap.log}) == 3
    assert m.R[17] & 0xFFFFFFFF == 0x00300010 and m.R[18] & 0xFFFFFFFF == 0x00300040
    assert m.R[2] & 0xFFFFFFFF == 0x00300080 and heap.ptr == heap.high_water == 0x00300090
    assert m.read(0x00300010, 20) == bytes(20) and m.read(0x00300024, 4) == b"\xAA" * 4
    assert m.read(0x00300040, 0x40) == bytes(0x40) and m.read(0x00300081, 1) == b"\xAA"
    if engine == "native":
        assert m.native.python_units == units, "the allocations run in C: no Python unit"


def test_a_bump_hook_the_heap_cannot_serve_is_its_python_hook_s(m):
    """A block past the heap's end: the native engine leaves the call to the Python hook, whose
    error the run raises; the calls before it were served and logged."""
    heap = _Heap(m, 0x00300008, 0x00300050)
    with pytest.raises(MemoryError, match="heap exhausted"):
        _bump_program(m, heap, B + 0x100, B + 0x140)
    assert [block for *_, block in heap.log] == [0x00300010] and heap.ptr == 0x00300030
