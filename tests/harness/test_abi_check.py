"""Every call keeps the calling convention (executable-abi.md §2, §3.1): sp, s0-s7, fp and gp as it
found them, ra still the return sentinel, and no store outside the harness's memory (0x01000000 up,
and the executable's data; never its functions' code nor the gap below 0x01000000). A call that
breaks it fails its chunk, naming the function and the register or the address, on every engine
and in a batch (Game.call_each) as alone: a sidecar that puts a function past its prologue no
longer passes."""
import shutil

import pytest

from eemu_ext import CallIO
from eemu_ext.engines.native.build import compiler
from eemu_ext.core.testing import asm
from harness.__main__ import main
from harness.driver.abi import AbiViolation
from harness.driver.game import SET_WORK, Game
from tests.harness.test_stripped_image import ELF, STRIPPED

ENGINES = ("python", "native", "lockstep")
CASE = "eq077.cmp::ANM_eq077000"


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param != "python" and compiler() is None:
        pytest.skip("no host C compiler: the native engine cannot run here")
    monkeypatch.setenv("EEMU_ENGINE", request.param)
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    return request.param


def game_running(lines):
    """The stand-in with SetAnmCtrlWork's code replaced by `lines`."""
    g = Game(ELF)
    at = g.sym[SET_WORK]
    for i, line in enumerate(lines):
        g.m.write_u32(at + 4 * i, asm(line, at + 4 * i))
    return g


BROKEN = [
    (["addiu sp, sp, -16", "jr ra", "nop"], r"returned with sp 0x1ffeff0, not 0x1fff000 as it was called"),
    (["addiu s0, zero, 1", "jr ra", "nop"], r"returned with s0 0x1, not 0x0 as it was called"),
    (["addiu s7, zero, 7", "jr ra", "nop"], r"returned with s7 0x7, not 0x0"),
    (["addiu s8, zero, 1", "jr ra", "nop"], r"returned with fp 0x1, not 0x0"),
    (["addiu gp, gp, 4", "jr ra", "nop"], r"returned with gp 0x\w+, not 0x\w+ as it was called"),
    (["jr ra", "addiu ra, zero, 0"], r"returned with ra 0x0, not 0xfffffffffffffff0 the return sentinel"),
    (["lui t0, 0x10", "sw t0, 0x2000(t0)", "jr ra", "nop"],
     r"stored outside the harness's memory: 0x00102000 \(\w+"),
    (["lui t0, 0x80", "addiu t1, zero, 1", "sw t1, 0(t0)", "jr ra", "nop"],
     r"stored outside the harness's memory: 0x00800000 \(it may store only at 0x01000000-0x02000000"),
]


@pytest.mark.parametrize("lines,message", BROKEN, ids=[m.split(":")[0][:28] for _, m in BROKEN])
def test_a_call_that_breaks_the_calling_convention_fails_naming_what(engine, lines, message):
    g = game_running(lines)
    with pytest.raises(AbiViolation, match=rf"^SetAnmCtrlWork {message}"):
        g.call(SET_WORK, 0, 0)


@pytest.mark.parametrize("lines,message", BROKEN[:1] + BROKEN[-2:], ids=["sp", "code", "gap"])
def test_the_check_runs_on_every_call_of_a_batch(engine, lines, message):
    g = game_running(lines)
    with pytest.raises(AbiViolation, match=rf"^SetAnmCtrlWork {message}"):
        g.call_each(SET_WORK, [(0, 0)] * 3)
    # the first call of the batch is clean; the second breaks it
    g = game_running(["lui t0, 0x100", "lw t1, 0x20(t0)", "addiu t1, t1, 1", "sw t1, 0x20(t0)",
                      "addiu t2, zero, 2", "bne t1, t2, 0x1000f8", "nop"] + lines)
    g.m.write_u32(0x01000020, 0)
    seen = []
    with pytest.raises(AbiViolation, match=message):
        g.call_each(SET_WORK, [(0, 0)] * 3, after=seen.append)
    assert seen == [0]


@pytest.mark.parametrize("lines,message", BROKEN[:2] + BROKEN[-2:], ids=["sp", "s0", "code", "gap"])
def test_the_check_runs_on_every_call_of_a_batch_whose_work_between_the_calls_is_a_callio(engine, lines, message):
    """Game.call_each(io=...): the native engine runs the batch in C with the check's registers
    and pages as the CallIO's guard; the second call breaks the convention and is named."""
    g = game_running(["lui t0, 0x100", "lw t1, 0x20(t0)", "addiu t1, t1, 1", "sw t1, 0x20(t0)",
                      "addiu t2, zero, 2", "bne t1, t2, 0x1000f8", "nop"] + lines)
    g.m.write_u32(0x01000020, 0)
    io = CallIO()
    io.gather(0, [0x01000020])
    with pytest.raises(AbiViolation, match=rf"^SetAnmCtrlWork {message}"):
        g.call_each(SET_WORK, [(0, 0)] * 3, io=io)
    assert g.m.read_u32(0x01000020) == 2                 # the third call never ran
    g = game_running(["lui t0, 0x100", "lw t1, 0x20(t0)", "addiu t1, t1, 1", "jr ra", "sw t1, 0x20(t0)"])
    g.m.write_u32(0x01000020, 0)
    io = CallIO()
    io.gather(0, [0x01000020])
    assert g.call_each(SET_WORK, [(0, 0)] * 3, io=io) == [0] * 3 and io.gathered.tolist() == [1, 2, 3]


def test_stores_to_the_harness_memory_and_the_executables_data_and_a_saved_register_pass(engine):
    g = game_running(["addiu sp, sp, -16", "sq s0, 0(sp)", "addiu s0, zero, 5", "lui t0, 0x100",
                      "sw s0, 0x10(t0)", "lui t0, 0x11", "sw s0, 0(t0)", "lq s0, 0(sp)", "jr ra",
                      "addiu sp, sp, 16"])
    assert g.call(SET_WORK, 0, 0) == 0
    assert g.call_each(SET_WORK, [(0, 0)] * 2) == [0, 0]
    assert g.m.read_u32(0x01000010) == 5 and g.m.read_u32(0x00110000) == 5


def test_a_sidecar_that_skips_a_prologue_fails_the_chunk(tmp_path, capsys, monkeypatch):
    exe = tmp_path / "vol2.elf"
    shutil.copy(STRIPPED, exe)
    text = open(STRIPPED + ".syms").read()
    line = next(x for x in text.splitlines() if "\t_AnimateForward__5ccAnmFUi" in x)
    _, va, size, _, _, how = line.split("\t")                 # volumes.md §2: sizes in decimal, then how
    moved = f"main\t0x{int(va, 16) + 8:08x}\t{int(size) - 8}\tFUNC\t_AnimateForward__5ccAnmFUi\t{how}"
    (tmp_path / "vol2.elf.syms").write_text(text.replace(line, moved))
    for eng in ("python", "native"):
        monkeypatch.setenv("EEMU_ENGINE", eng)
        assert main(["one", "--image", str(exe), "--case", CASE]) == 1
        out = capsys.readouterr()
        assert "AbiViolation: _AnimateForward returned with sp" in out.out + out.err
