"""Integer semantics from r5900.md §3, §5 and §9, one test per rule, with the spec's [HW] vectors."""
import pytest

from eemu_ext import MemoryFault, SyscallError, TrapError
from eemu_ext.core.testing import CODE_BASE as B, program, run_words, set_regs

M64 = (1 << 64) - 1
HI128 = 0xDEADBEEF_CAFEF00D << 64


def run(m, lines, **regs):
    set_regs(m, **regs)
    return run_words(m, program(lines))


# --- §3 the upper-64-bit rule -------------------------------------------------------------------
@pytest.mark.parametrize("text", ["addu t0, a0, a1", "daddu t0, a0, a1", "sll t0, a0, 3", "or t0, a0, a1",
                                  "slt t0, a0, a1", "lui t0, 0x1234", "movn t0, a0, a1", "mflo t0",
                                  "mult t0, a0, a1", "madd t0, a0, a1", "mfhi1 t0", "mfsa t0"])
def test_upper_64_kept_by_64_bit_writers(m, text):
    """r5900.md §3: MIPS III ALU ops, shifts, LUI, SLT*, MOVN, MFHI/MFLO, MULT rd ... keep bits 64-127."""
    run(m, [text], t0=HI128 | 0x5555, a0=7, a1=9)
    assert m.gpr[8] >> 64 == HI128 >> 64


@pytest.mark.parametrize("text", ["lw t0, 0(a2)", "ld t0, 0(a2)", "lb t0, 0(a2)", "lwl t0, 1(a2)", "lwr t0, 1(a2)",
                                  "ldl t0, 3(a2)", "ldr t0, 3(a2)", "lwu t0, 0(a2)", "lhu t0, 0(a2)"])
def test_upper_64_kept_by_loads_except_lq(m, text):
    """r5900.md §3: every load except LQ writes bits 0-63 only."""
    m.write(0x1000, bytes(range(1, 17)))
    run(m, [text], t0=HI128 | 0x5555, a2=0x1000)
    assert m.gpr[8] >> 64 == HI128 >> 64


def test_lq_sq_move_128_bits_ignoring_low_address_bits(m):
    """r5900.md §5.2: LQ/SQ use (base + offset) AND NOT 0xF; an offset of +11 reads the same as +0 [HW]."""
    m.write(0x2000, bytes(range(16)))
    run(m, ["lq t0, 11(a2)", "sq t0, 0x13(a2)"], t0=0, a2=0x2000)
    assert m.gpr[8] == int.from_bytes(bytes(range(16)), "little")
    assert m.read(0x2010, 16) == bytes(range(16))


def test_lq_to_r0_is_discarded(m):
    m.write(0x2000, b"\xff" * 16)
    run(m, ["lq zero, 0(a2)"], a2=0x2000)
    assert m.gpr[0] == 0 and m.RH[0] == 0


def test_link_register_writes_64_bits(m):
    """r5900.md §3: link-register writes keep bits 64-127 [INF]."""
    set_regs(m, ra=HI128)
    target = B + 12
    words = program([f"bgezal zero, {target:#x}", "nop", "nop", "jr s0", "nop"])
    set_regs(m, s0=0xFFFFFFFF_FFFFFFF0)
    run_words(m, words)
    assert m.RH[31] == HI128 >> 64
    assert m.R[31] == B + 8


# --- §5.1 multiply and divide ------------------------------------------------------------------
def test_three_operand_mult(m):
    """r5900.md §5.1: MULT rd, rs, rt: LO0/HI0 sign-extended halves of the product, rd := LO0."""
    run(m, ["mult v0, a0, a1"], a0=0x12345678, a1=(-3) & M64)
    p = 0x12345678 * -3
    lo, hi = p & 0xFFFFFFFF, (p >> 32) & 0xFFFFFFFF
    sx = lambda v: v | 0xFFFFFFFF00000000 if v & 0x80000000 else v
    assert m.LO[0] == sx(lo) and m.HI[0] == sx(hi) and m.R[2] == sx(lo)


def test_multu_halves_are_sign_extended(m):
    """r5900.md §5.1 [HW]: MULTU's HI0 and LO0 are sign-extended from bit 31."""
    run(m, ["multu v0, a0, a1"], a0=0xFFFFFFFF, a1=0xFFFFFFFF)
    # 0xFFFFFFFE_00000001
    assert m.LO[0] == 1 and m.HI[0] == 0xFFFFFFFF_FFFFFFFE


def test_madd_accumulates_low_words_of_hi_lo(m):
    """r5900.md §5.1: MADD reads only the low words of HI0/LO0 as a signed 64-bit accumulator."""
    m.HI[0], m.LO[0] = 0xAAAA0000_00000001, 0x5555FFFF_FFFFFFFF      # acc = 0x00000001_FFFFFFFF
    run(m, ["madd v0, a0, a1"], a0=2, a1=3)
    acc = 0x1_FFFFFFFF + 6
    assert m.LO[0] == 5 and m.HI[0] == 2 and m.R[2] == 5 and acc == 0x2_00000005


def test_maddu_unsigned(m):
    m.HI[0], m.LO[0] = 0, 0xFFFFFFFF
    run(m, ["maddu zero, a0, a1"], a0=0xFFFFFFFF, a1=2)
    acc = 0xFFFFFFFF + 0xFFFFFFFF * 2
    assert m.LO[0] == (acc & 0xFFFFFFFF) | 0xFFFFFFFF00000000 and m.HI[0] == acc >> 32


def test_pipeline_1_forms_touch_only_hi1_lo1(m):
    """r5900.md §3, §5.1 [HW]: MULT1/DIV1/MADD1 use HI1/LO1 and keep HI0/LO0."""
    m.HI[0], m.LO[0] = 111, 222
    run(m, ["mult1 v0, a0, a1", "mflo1 v1", "div1 a0, a1", "mfhi1 t0", "mflo1 t1"], a0=7, a1=2)
    assert (m.HI[0], m.LO[0]) == (111, 222)
    assert m.R[2] == 14 and m.R[3] == 14 and m.R[8] == 1 and m.R[9] == 3
    run(m, ["mthi1 a0", "mtlo1 a1", "madd1 v0, a0, a1"], a0=1, a1=1)
    assert m.LO[1] == 2 and m.HI[1] == 1 and (m.HI[0], m.LO[0]) == (111, 222)


def test_div_edge_cases(m):
    """r5900.md §5.1 [HW]: DIV by zero and -2^31 / -1; remainder has the sign of the dividend."""
    run(m, ["div a0, a1"], a0=(-7) & M64, a1=0)
    assert m.LO[0] == 1 and m.HI[0] == (-7) & M64
    run(m, ["div a0, a1"], a0=7, a1=0)
    assert m.LO[0] == M64 and m.HI[0] == 7
    run(m, ["div a0, a1"], a0=0xFFFFFFFF80000000, a1=M64)
    assert m.LO[0] == 0xFFFFFFFF80000000 and m.HI[0] == 0
    run(m, ["div a0, a1"], a0=(-7) & M64, a1=2)
    assert m.LO[0] == (-3) & M64 and m.HI[0] == (-1) & M64


def test_divu_edge_cases(m):
    run(m, ["divu a0, a1"], a0=0x80000005, a1=0)
    assert m.LO[0] == M64 and m.HI[0] == 0xFFFFFFFF80000005
    run(m, ["divu a0, a1"], a0=0xFFFFFFFF, a1=2)
    assert m.LO[0] == 0x7FFFFFFF and m.HI[0] == 1


def test_mthi_mtlo_write_pipeline_0_only(m):
    m.HI[1], m.LO[1] = 5, 6
    run(m, ["mthi a0", "mtlo a1"], a0=0x1_00000001, a1=3)
    assert m.HI == [0x1_00000001, 5] and m.LO == [3, 6]


# --- §5.2 unaligned pairs ----------------------------------------------------------------------
def test_lwr_example_keeps_upper_bits(m):
    """r5900.md §5.2 [HW]: LWR at +1, reg 0xFFFFFFFF_ABCD4321, mem 0x23456789 -> 0xFFFFFFFF_AB234567."""
    m.write_u32(0x3000, 0x23456789)
    run(m, ["lwr t0, 1(a2)"], t0=0xFFFFFFFF_ABCD4321, a2=0x3000)
    assert m.R[8] == 0xFFFFFFFF_AB234567


def test_lwr_aligned_sign_extends(m):
    m.write_u32(0x3000, 0x83456789)
    run(m, ["lwr t0, 0(a2)"], t0=0x12345678_00000000, a2=0x3000)
    assert m.R[8] == 0xFFFFFFFF_83456789


def lane_model(kind, reg, mem, s):
    """The byte-lane table of r5900.md §5.2, written out directly."""
    if kind == "lwl":
        t = (reg & 0xFFFFFFFF & (0x00FFFFFF >> 8 * s)) | ((mem << (24 - 8 * s)) & 0xFFFFFFFF)
        return t | 0xFFFFFFFF00000000 if t & 0x80000000 else t
    if kind == "ldl":
        return (reg & (0x00FFFFFFFFFFFFFF >> 8 * s)) | ((mem << (56 - 8 * s)) & M64)
    if kind == "ldr":
        return (reg & ~(M64 >> 8 * s) & M64) | (mem >> 8 * s)
    if kind == "swl":
        return (mem & ~(0xFFFFFFFF >> (24 - 8 * s)) & 0xFFFFFFFF) | ((reg & 0xFFFFFFFF) >> (24 - 8 * s))
    if kind == "swr":
        return (mem & ((1 << 8 * s) - 1)) | (((reg & 0xFFFFFFFF) << 8 * s) & 0xFFFFFFFF)
    if kind == "sdl":
        return (mem & ~(M64 >> (56 - 8 * s)) & M64) | (reg >> (56 - 8 * s))
    if kind == "sdr":
        return (mem & ((1 << 8 * s) - 1)) | ((reg << 8 * s) & M64)
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["lwl", "ldl", "ldr", "swl", "swr", "sdl", "sdr"])
def test_unaligned_lanes_every_offset(m, kind):
    """r5900.md §5.2: every byte offset of every unaligned load/store against the table."""
    reg, memv = 0x8899AABB_CCDDEEFF, 0x01234567_89ABCDEF
    width = 8 if kind[1] == "d" else 4
    for s in range(width):
        m.write_u64(0x4000, memv)
        run(m, [f"{kind} t0, {s}(a2)"], t0=reg, a2=0x4000)
        mem = memv & ((1 << 8 * width) - 1)
        want = lane_model(kind, reg, mem, s)
        if kind[0] == "l":
            assert m.R[8] == want, (kind, s)
        else:
            got = int.from_bytes(m.read(0x4000, width), "little")
            assert got == want, (kind, s)


def test_lwl_lwr_pair_loads_unaligned_word(m):
    m.write(0x5000, bytes(range(0x10, 0x20)))
    run(m, ["lwl t0, 6(a2)", "lwr t0, 3(a2)"], a2=0x5000)
    assert m.R[8] == 0x16151413


def test_misaligned_lw_stops(m):
    """r5900.md §5.2: LW on a misaligned address raises an address error; the interpreter stops."""
    with pytest.raises(MemoryFault, match=r"misaligned.*pc 0x00080000.*lw t0, 2\(a2\)"):
        run(m, ["lw t0, 2(a2)"], a2=0x5000)


# --- §5.3 SA ------------------------------------------------------------------------------------
def test_sa_register_rules(m):
    """r5900.md §2, §5.3 [HW]: MTSA keeps 4 bits; MTSAB/MTSAH XOR with the immediate."""
    run(m, ["mtsa a0", "mfsa v0"], a0=16)
    assert m.R[2] == 0
    run(m, ["mtsa a0", "mfsa v0"], a0=0xFFFF)
    assert m.R[2] == 15
    run(m, ["mtsab a0, 5", "mfsa v0"], a0=3)
    assert m.R[2] == 6
    run(m, ["mtsah a0, 1", "mfsa v0"], a0=4)
    assert m.R[2] == 10


# --- §5.4 system and overflow ------------------------------------------------------------------
def test_add_overflow_raises_addu_does_not(m):
    """r5900.md §5.4: ADD/ADDI/SUB overflow -> an error; ADDU never traps."""
    run(m, ["addu v0, a0, a0"], a0=0x7FFFFFFF)
    assert m.R[2] == 0xFFFFFFFF_FFFFFFFE
    with pytest.raises(TrapError, match="ADD integer overflow.*pc 0x00080000"):
        run(m, ["add v0, a0, a0"], a0=0x7FFFFFFF)
    with pytest.raises(TrapError, match="ADDI"):
        run(m, ["addi v0, a0, 1"], a0=0x7FFFFFFF)
    with pytest.raises(TrapError, match="DADD"):
        run(m, ["dadd v0, a0, a0"], a0=0x7FFFFFFF_FFFFFFFF)


def test_traps(m):
    run(m, ["teq a0, a1"], a0=1, a1=2)
    with pytest.raises(TrapError, match="TEQ"):
        run(m, ["teq a0, a1"], a0=2, a1=2)
    with pytest.raises(TrapError, match="TLTI"):
        run(m, ["tlti a0, 0"], a0=M64)


def test_syscall_without_handler_stops_cleanly(m):
    with pytest.raises(SyscallError, match="SYSCALL.*no handler"):
        run(m, ["syscall 0x5"])


def test_syscall_handler_runs_and_continues(m):
    seen = []
    m.hooks.add("syscall", lambda mm, kind, code: seen.append((kind, code, mm.R[4])))
    run(m, ["syscall 0x5", "addiu v0, zero, 9", "break 0x3"], a0=42)
    assert seen == [("syscall", 5, 42), ("break", 3, 42)] and m.R[2] == 9


def test_ei_di_in_kernel_mode(m):
    """r5900.md §5.4: EI/DI set/clear Status.EIE (bit 16) in kernel mode, do nothing in user mode."""
    run(m, ["ei", "mfc0 v0, Status"])
    assert m.R[2] & 0x10000
    run(m, ["di", "mfc0 v0, Status"])
    assert not m.R[2] & 0x10000
    run(m, ["mtc0 a0, Status", "ei", "mfc0 v0, Status"], a0=0x10)        # KSU = user
    assert m.R[2] == 0x10


def test_movz_movn_test_all_64_bits(m):
    """r5900.md §5.4: MOVZ/MOVN test all 64 bits of rt."""
    run(m, ["movz v0, a0, a1", "movn v1, a0, a1"], a0=5, a1=1 << 40, v0=0, v1=0)
    assert m.R[2] == 0 and m.R[3] == 5


# --- §9 branches and delay slots ---------------------------------------------------------------
def test_likely_not_taken_annuls_delay_slot(m):
    """r5900.md §9: a not-taken likely branch annuls its delay slot."""
    run(m, [f"beql a0, a1, {B + 16:#x}", "addiu v0, zero, 1", "addiu v1, zero, 2"], a0=1, a1=2)
    assert m.R[2] == 0 and m.R[3] == 2
    assert m.steps == 4            # beql, addiu v1, jr, nop (the annulled slot does not count)


def test_likely_taken_runs_delay_slot(m):
    run(m, [f"bnel a0, a1, {B + 12:#x}", "addiu v0, zero, 1", "addiu v1, zero, 2"], a0=1, a1=2)
    assert m.R[2] == 1 and m.R[3] == 0


def test_link_before_delay_slot(m):
    """r5900.md §9 [HW]: the link is written before the delay slot; a slot write to ra wins."""
    words = program([f"bltzal zero, {B + 16:#x}", "addiu ra, zero, 0x77", "nop", "nop", "nop"])
    set_regs(m, ra=0)
    m.write(B, b"".join(w.to_bytes(4, "little") for w in words))
    m.R[31] = 0
    # not taken: bltzal zero never branches, but ra is written first, then the slot overwrites it
    m.pc = B
    m.step()
    assert m.R[31] == 0x77 and m.pc == B + 8


def test_jalr_reads_target_before_delay_slot(m):
    """r5900.md §9 [HW]: JALR reads rs before the delay slot; `jalr rs, rs` jumps to the old value."""
    prog = program(["jalr t9, t9", "addiu t9, zero, 0", "addiu v0, zero, 1", "jr ra", "nop",
                    "addiu v0, zero, 2", "jr ra", "nop"])
    set_regs(m, t9=B + 20)
    run_words(m, prog)
    assert m.R[2] == 2 and m.R[25] == 0


def test_jalr_link_then_slot_overwrites(m):
    prog = program(["jalr t0, t1", "addiu t0, zero, 5", "nop", "nop", "jr ra", "nop"])
    set_regs(m, t1=B + 16)
    run_words(m, prog)
    assert m.R[8] == 5


def _four_branches(m, br):
    """Four taken branches in a row, each in the previous one's delay slot (r5900.md §9 [HW]);
    target k sets v0 := k and returns."""
    lines = [f"{br}{B + 0x40 + 0x10 * k:#x}" for k in range(4)] + ["nop"] * 12
    for k in range(4):
        lines += [f"addiu v0, zero, {k + 1}", "jr ra", "nop", "nop"]
    m.S.fcr31 |= 1 << 23                     # FPU condition true: BC1T/BC1TL taken
    run(m, lines)
    return m.R[2]


def test_a_branch_in_a_delay_slot_follows_the_pc_npc_model(m):
    """r5900.md §9 [HW]: with BEQ, execution ends at the second branch's target."""
    assert _four_branches(m, "beq zero, zero, ") == 2


def test_bc1tl_in_delay_slots_ends_at_the_second_target(m):
    assert _four_branches(m, "bc1tl ") == 2


def test_bc1t_in_delay_slots_ends_at_the_fourth_target(m):
    """r5900.md §9 [HW]: each later BC1T in a delay slot replaces the earlier redirection."""
    assert _four_branches(m, "bc1t ") == 4


def test_r0_writes_discarded(m):
    run(m, ["addiu zero, zero, 5", "lui zero, 0x1234", "mult zero, a0, a0"], a0=3)
    assert m.gpr[0] == 0 and m.LO[0] == 9
    m.gpr[0] = 7
    assert m.gpr[0] == 0
