"""The Machine surface of interfaces.md §1 and executable-abi.md §3: state views, memory map,
calls, hooks, nested calls, budgets, coverage, single-step, and every error path."""
import os

import pytest

from eemu_ext import (ElfError, EmulationError, Machine, MemoryFault, StepLimitExceeded,
                      UnimplementedInstruction)
from eemu_ext.core.machine import SENTINEL, STACK_TOP
from eemu_ext.core.testing import CODE_BASE as B, program, put_words, run_words, set_regs

ELF = os.path.join(os.path.dirname(__file__), "cprog", "int_prog.elf")


def test_fresh_state(m):
    """r5900.md §2 and ee-float.md §3.9: VF0 = (0,0,0,1.0), FCR31 = 0x01000001, R = 0x3F800000."""
    assert all(m.gpr[i] == 0 for i in range(32))
    assert m.VF[0] == [0, 0, 0, 0x3F800000] and m.fcr31 == 0x01000001 and m.S.r == 0x3F800000
    assert m.F == [0] * 32 and m.HI == [0, 0] and m.LO == [0, 0]
    with pytest.raises(ValueError):
        Machine(float_model="ieee")


def test_gpr_view_is_128_bit_and_r0_ignores_writes(m):
    m.gpr[5] = (1 << 128) - 2
    assert m.gpr[5] == (1 << 128) - 2 and m.R[5] == (1 << 64) - 2 and m.RH[5] == (1 << 64) - 1
    m.gpr[0] = 123
    assert m.gpr[0] == 0 and len(m.gpr) == 32


def test_args_are_masked(m):
    set_regs(m, a0=-1 & ((1 << 64) - 1), a1=5, t3=0x1_0000_0007)
    assert m.args(8) == [0xFFFFFFFF, 5, 0, 0, 0, 0, 0, 7]


def test_memory_mirrors_scratchpad_vu0(m):
    """r5900.md §10: KSEG0/KSEG1/0x20000000 show the same RAM; scratchpad at 0x70000000; VU0 data
    memory at 0x11004000 wraps modulo 0x1000 (§8.3)."""
    m.write_u32(0x00123450, 0xCAFEBABE)
    for base in (0x80000000, 0xA0000000, 0x20000000):
        assert m.read_u32(base + 0x00123450) == 0xCAFEBABE
    m.write_u64(0x70003FF8, 0x1122334455667788)
    assert m.read_u64(0x70003FF8) == 0x1122334455667788
    m.write_u16(0x11004010, 0xBEEF)
    assert m.read_u16(0x11005010) == 0xBEEF and m.mem.vu0[0x10:0x12] == b"\xef\xbe"
    m.write_u8(0x01FFFFFF, 0x5A)
    assert m.read_u8(0x81FFFFFF) == 0x5A


@pytest.mark.parametrize("addr", [0x02000000, 0x70004000, 0x10000000, 0xFFFF0000])
def test_unmapped_access_from_code_names_pc_address_size_instruction(m, addr):
    """r5900.md §10: an access outside every mapped range stops with pc, address, size and the instruction."""
    hi, lo = addr >> 16, addr & 0xFFFF
    with pytest.raises(MemoryFault) as e:
        run_words(m, program([f"lui a0, {hi:#x}", f"ori a0, a0, {lo:#x}", "sw a1, 0(a0)"]))
    msg = str(e.value)
    assert f"0x{addr:08x}" in msg and "4-byte store" in msg and "pc 0x00080008" in msg and "sw a1, 0(a0)" in msg
    assert e.value.pc == B + 8 and e.value.address == addr and e.value.size == 4
    assert m.pc == B + 8


def test_host_side_unmapped_read_is_a_memory_fault(m):
    with pytest.raises(MemoryFault, match="0x02000000"):
        m.read(0x02000000, 4)


def test_fault_in_delay_slot_reports_slot_pc(m):
    with pytest.raises(MemoryFault) as e:
        run_words(m, program([f"beq zero, zero, {B + 12:#x}", "lw v0, 1(zero)", "nop", "nop"]))
    assert e.value.pc == B + 4 and "misaligned" in str(e.value)


def test_unimplemented_instruction_message_has_disassembly(m):
    """r5900.md §1, §10: an instruction the EE lacks stops with pc, word and disassembly."""
    with pytest.raises(UnimplementedInstruction) as e:
        run_words(m, [0x24020001, 0x0085001C])            # addiu v0, zero, 1; dmult a0, a1
    msg = str(e.value)
    assert "pc 0x00080004" in msg and "0x0085001c" in msg and "dmult $a0, $a1" in msg and "EE lacks" in msg
    assert e.value.word == 0x0085001C and m.R[2] == 1    # the instruction before it did run


def test_unimplemented_names_symbol(m):
    m.load_elf(ELF)
    addr = m.symbol("entry")
    m.write_u32(addr, 0xC0000000)                        # ll zero, 0(zero): the EE lacks LL
    with pytest.raises(UnimplementedInstruction, match=r"pc 0x[0-9a-f]{8} \(entry\).*'ll'"):
        m.call("entry")


def test_step_limit_names_limit_pc_and_symbol(m):
    """executable-abi.md §3.1: exceeding the budget stops with the limit and the pc (symbol+offset)."""
    m.load_elf(ELF)
    with pytest.raises(StepLimitExceeded) as e:
        m.call("fib", 25, limit=10_000)
    msg = str(e.value)
    assert "10,000" in msg and "fib" in msg and f"0x{e.value.pc:08x}" in msg and e.value.limit == 10_000


def test_step_budget_is_exact(m):
    """A loop of known length: the budget fails one step short and succeeds at the exact count."""
    words = program(["addiu t0, zero, 100", "addiu t0, t0, -1", f"bne t0, zero, {B + 4:#x}", "nop"])
    run_words(m, words)
    n = m.steps
    assert n == 1 + 3 * 100 + 2
    with pytest.raises(StepLimitExceeded):
        run_words(m, words, limit=n - 1)
    run_words(m, words, limit=n)
    assert m.steps == n


def test_call_protocol(m):
    """executable-abi.md §3.1: GPRs zeroed, gp/sp/ra set, args sign-extended, v0 & 0xFFFFFFFF returned."""
    seen = {}
    code = program(["jr ra", "nop"])
    put_words(m, B, code)
    m.gpr[17] = 12345

    def spy(mm):
        seen.update(sp=mm.R[29], ra=mm.R[31], a0=mm.R[4], a7=mm.R[11], s1=mm.gpr[17])
        return -2
    m.hooks.add("address", spy, B)
    assert m.call(B, -1, 2, 3, 4, 5, 6, 7, 0x80000000) == 0xFFFFFFFE
    assert seen == dict(sp=STACK_TOP, ra=0xFFFFFFFF_FFFFFFF0, a0=(1 << 64) - 1, a7=0xFFFFFFFF_80000000, s1=0)
    assert m.R[2] == 0xFFFFFFFF_FFFFFFFE                 # hook result sign-extended into v0


def test_hook_replaces_function_and_returns_to_ra(m):
    m.load_elf(ELF)
    m.hooks.add("address", lambda mm: mm.args(1)[0] * 1000, "fib")
    assert m.call("fib", 7) == 7000 and m.steps == 1      # a hook counts as one step
    m.hooks.remove("fib")
    assert m.call("fib", 7) == 13


def test_hook_inside_compiled_code_and_data_address(m):
    """Any address may be hooked, including a data address used as a function pointer (§3.3)."""
    fptr = 0x00200000                                     # nothing but zeros there
    words = program(["lui t9, 0x20", "jalr ra, t9", "nop", "addu v0, v0, v0", "jr s0", "nop"])
    put_words(m, B, words)
    m.hooks.add("address", lambda mm: 21, fptr)
    set_regs(m, s0=SENTINEL | 0xFFFFFFFF_00000000)
    m.run(B)
    assert m.R[2] == 42


def test_hook_added_after_compilation_splits_blocks(m):
    words = program(["addiu v0, zero, 1", "addiu v0, v0, 1", "addiu v0, v0, 1"])
    run_words(m, words)
    assert m.R[2] == 3
    m.hooks.add("address", lambda mm: 100, B + 4)       # the middle of an already compiled block
    set_regs(m, ra=SENTINEL | 0xFFFFFFFF_00000000)
    m.run(B)
    assert m.R[2] == 100


def test_nested_call_from_hook_restores_caller(m):
    """executable-abi.md §3.3: a hook may call game code; the caller's registers are restored."""
    m.load_elf(ELF)
    calls = []

    def inner(mm):
        before = [mm.gpr[i] for i in range(32)]
        r = mm.call("fib", 10)
        calls.append(r)
        assert [mm.gpr[i] for i in range(32)] == before
        return r + 1
    m.hooks.add("address", inner, "collatz_steps")
    words = program(["or s0, ra, zero", "jal 0x%x" % m.symbol("collatz_steps"), "addiu a0, zero, 27",
                     "addu v0, v0, s1", "jr s0", "nop"])
    m.allow_fetch(B, put_words(m, B, words))       # a trampoline outside the image's segments
    assert m.call(B) == 56 and calls == [55]


def test_coverage_counts_mnemonics():
    m = Machine(coverage=True)
    run_words(m, program(["addiu t0, zero, 3", "addiu t0, t0, -1", f"bnel t0, zero, {B + 4:#x}",
                          "addu v0, v0, t0"]))
    c = m.coverage
    assert c["addiu"] == 4 and c["bnel"] == 3 and c["addu"] == 2 and c["jr"] == 1 and c["sll"] == 1


def test_single_step_mode_gives_the_same_results():
    words = program(["addiu t0, zero, 50", "addu v0, v0, t0", "addiu t0, t0, -1", f"bne t0, zero, {B + 4:#x}",
                     "sll v1, v0, 1"])
    a = run_words(Machine(), words)
    m = Machine()
    m.single_step = True
    b = run_words(m, words)
    assert (a.R, a.steps) == (b.R, b.steps)
    s = Machine()
    put_words(s, B, words)
    s.pc = B
    pcs = [s.step() for _ in range(3)]
    assert pcs == [B + 4, B + 8, B + 12] and s.R[8] == 49


def test_write_over_compiled_code_invalidates_it(m):
    run_words(m, program(["addiu v0, zero, 1"]))
    assert m.R[2] == 1
    run_words(m, program(["addiu v0, zero, 2"]))
    assert m.R[2] == 2


def test_missing_symbol_and_no_image(m):
    with pytest.raises(ElfError, match="no image loaded"):
        m.symbol("fib")
    m.load_elf(ELF)
    with pytest.raises(ElfError, match=r"no symbol 'nosuch'.*int_prog.elf|int_prog.elf.*'nosuch'"):
        m.call("nosuch")
    assert m.symbolize(m.symbol("fib") + 8) == "fib+0x8" and m.symbolize(0x01F00000) == "0x01f00000"


def test_errors_are_emulation_errors():
    for cls in (StepLimitExceeded, UnimplementedInstruction, MemoryFault, ElfError):
        assert issubclass(cls, EmulationError)


def test_state_persists_between_calls(m):
    """executable-abi.md §3.2: HI/LO, FPU and VU0 state survive calls; GPRs do not."""
    m.load_elf(ELF)
    m.HI[1] = 77
    m.F[3] = 0x40000000
    m.call("fib", 3)
    assert m.HI[1] == 77 and m.F[3] == 0x40000000


def test_nested_call_from_hook_during_run(m):
    """A hook reached from m.run (not m.call) may also call code; the caller's registers survive."""
    m.load_elf(ELF)
    target = 0x00200000
    m.hooks.add("address", lambda mm: mm.call("fib", 6), target)
    words = program(["addiu s1, zero, 5", "lui t9, 0x20", "jalr ra, t9", "nop", "addu v0, v0, s1", "jr s0", "nop"])
    set_regs(m, s0=SENTINEL | 0xFFFFFFFF_00000000, sp=STACK_TOP - 0x100)
    m.allow_fetch(B, put_words(m, B, words))
    m.run(B)
    assert m.R[2] == 8 + 5 and m.R[29] == STACK_TOP - 0x100


@pytest.mark.parametrize("base", [0x00001000, 0x70001000, 0x80001000])
def test_loads_stores_in_ram_scratchpad_and_mirror(m, base):
    """Every width through RAM, the scratchpad and KSEG0 (fast and slow paths), incl. LQ/SQ."""
    hi, lo = base >> 16, base & 0xFFFF
    words = program([f"lui a0, {hi:#x}", f"ori a0, a0, {lo:#x}",
                     "sb a1, 0(a0)", "sh a1, 2(a0)", "sw a1, 4(a0)", "sd a1, 8(a0)", "sq a2, 16(a0)",
                     "lbu t0, 0(a0)", "lh t1, 2(a0)", "lw t2, 4(a0)", "ld t3, 8(a0)", "lq t4, 16(a0)"])
    set_regs(m, a1=0x89ABCDEF_FEDCBA98, a2=(0x11223344_55667788 << 64) | 0x99AABBCC_DDEEFF00)
    run_words(m, words)
    assert m.gpr[8] == 0x98 and m.R[9] == 0xFFFFFFFF_FFFFBA98 and m.R[10] == 0xFFFFFFFF_FEDCBA98
    assert m.R[11] == 0x89ABCDEF_FEDCBA98 and m.gpr[12] == m.gpr[6]
    assert m.read(base + 16, 16) == m.gpr[6].to_bytes(16, "little")
    with pytest.raises(MemoryFault, match="misaligned"):
        run_words(m, program([f"lui a0, {hi:#x}", f"ori a0, a0, {lo:#x}", "lw t0, 2(a0)"]))


def test_hook_errors_pass_through_unchanged(m):
    """A hook's own exception (a harness error, an assertion) reaches the caller as itself."""
    class HarnessProblem(Exception):
        pass

    def bad(mm):
        raise HarnessProblem("stub saw a bad pointer")
    m.hooks.add("address", bad, B)
    with pytest.raises(HarnessProblem, match="bad pointer"):
        m.call(B)
    m.hooks.add("address", lambda mm: mm.read_u32(0x05000000), B)   # an emulation error from a hook gets located
    with pytest.raises(MemoryFault, match=r"0x05000000.*pc 0x00080000"):
        m.call(B)


@pytest.mark.parametrize("target,why", [(0x05000000, "0x05000000"), (0x00080002, "0x00080002")])
def test_jump_to_unmapped_or_misaligned_pc_is_a_fetch_fault(m, target, why):
    words = program([f"lui t9, {target >> 16:#x}", f"ori t9, t9, {target & 0xFFFF:#x}", "jr t9", "nop"])
    with pytest.raises(MemoryFault, match=f"instruction fetch at {why}") as e:
        run_words(m, words)
    assert e.value.pc == target


def test_decoded_once_per_address_and_forgotten_on_write(m):
    """Decoding is cached per address as (row id, word); writing the code drops the entry."""
    put_words(m, B, program(["addu v0, a0, a1"]))
    rid, word = m.decoded(B)
    assert m.decoder.rows[rid].mnemonic == "addu" and word == 0x00851021
    assert m.decoded(B) is m.decoded(B)
    put_words(m, 0x80000000 | B, program(["subu v0, a0, a1"]))     # through the KSEG0 mirror
    assert m.decoder.rows[m.decoded(B)[0]].mnemonic == "subu"
    assert m.decoded(0x05000000) is None and m.decoder.rows[m.decoded(B + 0x100)[0]].mnemonic == "sll"


def test_a_step_hook_sees_every_unit_and_respects_the_budget(m):
    m.load_elf(ELF)
    seen = []
    m.hooks.add("step", lambda mm, pc: seen.append(pc))
    assert m.call("gcd", 12, 18) == 6
    fast = Machine()
    fast.load_elf(ELF)
    fast.call("gcd", 12, 18)
    assert len(seen) <= fast.steps and seen[0] == m.symbol("gcd") and m.steps == fast.steps
    with pytest.raises(StepLimitExceeded):
        m.call("fib", 20, limit=500)


def test_run_command_prints_v0_and_trace(capsys):
    from eemu_ext.__main__ import main
    assert main(["run", ELF, "gcd", "12", "18", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "v0 = 0x00000006 (6)" in out and "gcd+0x8" in out and "div a0, a1" in out and "a1=0x6" in out
    assert main(["run", ELF, "fib", "25", "--limit", "1000"]) == 2
    assert "step limit 1,000" in capsys.readouterr().err


def test_step_budget_is_exact_with_annulled_slots(m):
    """Annulled likely-branch delay slots are not steps, also when the budget is tight."""
    words = program(["addiu t0, zero, 100", "addiu t0, t0, -1", f"bnel t0, zero, {B + 4:#x}", "nop"])
    run_words(m, words)
    assert m.steps == 1 + 2 * 100 + 99 + 2
    run_words(m, words, limit=m.steps)
    with pytest.raises(StepLimitExceeded):
        run_words(m, words, limit=1 + 2 * 100 + 99 + 1)
