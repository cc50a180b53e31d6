"""MMI and SA rows: the spec's examples and rules (r5900.md §5.3, §6), encodings and operand orders (§4.4).

The examples (tests/machine/cases_mmi.py EXAMPLES: the QFSRV example, MTSA read-back, PLZCW,
PHMADH/PHMSBH odd words, PMTHL keeping odd words, PDIVBW's rules, the PMFHL formats, saturations,
PABS of the most negative value ...) run here through the rows' sem; test_coverage.py runs the
very same examples as instruction words on the Machine.
"""
from __future__ import annotations

import random
import shutil
import struct
import subprocess

import pytest

from eemu_ext.isa.decode import default_decoder
from eemu_ext.isa import ROWS
from eemu_ext.isa import mmi
from tests.machine.cases_mmi import EXAMPLES, St, W, diff, enc, expected_state, run_sem

MMI_SPACE = [r for r in ROWS if r.match >> 26 == 0x1C]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_spec_example(ex):
    got = run_sem(ex.words, ex.before)
    d = diff(got, expected_state(ex), ex.regs())
    assert not d, f"{ex.name} ({ex.cite}):\n  " + "\n  ".join(d)


def test_r0_destination_discarded_but_hi_lo_updated():
    """§6: a write to r0 is discarded, but HI/LO side effects still happen."""
    st = St({4: W(2, 0, 0, 0), 5: W(3, 0, 0, 0)})
    got = run_sem([enc("pmulth", rd=0, rs=4, rt=5), enc("paddw", rd=0, rs=4, rt=5)], st)
    assert {k: v for k, v in got.gpr.items() if v} == st.gpr      # no GPR changed
    assert got.lo == W(6, 0, 0, 0) and got.hi == 0


def test_plzcw_keeps_upper_64_bits():
    """§3: PLZCW writes bits 0-63 only."""
    st = St({4: W(0x0000FFFF, 0xFFFF0000), 6: W(7, 7, 0xCAFEBABE, 0x12345678)})
    got = run_sem([enc("plzcw", rd=6, rs=4)], st)
    assert got.g(6) == W(15, 15, 0xCAFEBABE, 0x12345678)


def test_psllh_uses_sa_and_15():
    """§6.2: the halfword shifts use (sa AND 15); the word shifts use sa."""
    st = St({5: W(0x00010001, 0, 0, 0)})
    got = run_sem([enc("psllh", rd=6, rt=5, sa=17), enc("psllw", rd=7, rt=5, sa=17)], st)
    assert got.g(6) == W(0x00020002)
    assert got.g(7) == W(0x00020000)


def test_qfsrv_every_sa():
    """§5.3: rd := the low 128 bits of (rs * 2^128 + rt) >> (8 * SA), for SA = 0 .. 15."""
    rs = int.from_bytes(bytes(range(0x20, 0x30)), "little")
    rt = int.from_bytes(bytes(range(0x10, 0x20)), "little")
    for sa in range(16):
        got = run_sem([enc("qfsrv", rd=6, rs=4, rt=5)], St({4: rs, 5: rt}, sa=sa))
        assert got.g(6).to_bytes(16, "little") == bytes(range(0x10 + sa, 0x20 + sa)), sa


# --- encodings (§4.4) -----------------------------------------------------------------------------

MUST_BE_ZERO = {            # operands a row does not name are must-be-zero fields
    "rs": 0x03E00000, "rt": 0x001F0000, "rd": 0x0000F800, "sa": 0x000007C0}


@pytest.mark.parametrize("row", mmi.ROWS, ids=[r.mnemonic for r in mmi.ROWS])
def test_nonzero_must_be_zero_field_is_rejected(row):
    """§4.4: a decoder should reject encodings whose must-be-zero fields are nonzero."""
    dec = default_decoder()
    base = row.match
    assert ROWS[dec.decode(base)] is row
    # the sa field carries the MMI0-3 / PMFHL sub-opcode; only the immediate shifts use it
    fields = [f for f in ("rs", "rt", "rd") if f not in row.operands]
    for f in fields:
        for bit in (1, 16):
            word = base | (bit * (MUST_BE_ZERO[f] & -MUST_BE_ZERO[f]))
            assert dec.decode(word) == -1, (row.mnemonic, f, hex(word))


@pytest.mark.parametrize("row", mmi.ROWS, ids=[r.mnemonic for r in mmi.ROWS])
def test_operand_order(row):
    """§4.4 operand orders, checked against rabbitizer's R5900 disassembly."""
    rabbitizer = pytest.importorskip("rabbitizer")
    rng = random.Random(f"mmi-operand-order:{row.mnemonic}")
    dec = default_decoder()
    for _ in range(20):
        word = row.match | (rng.getrandbits(32) & ~row.mask & 0xFFFFFFFF)
        ours = dec.disasm(word).replace(",", " ").split()
        theirs = rabbitizer.Instruction(word, category=rabbitizer.InstrCategory.R5900)
        theirs = theirs.disassemble().replace("$", "").replace(",", " ").split()
        assert ours == theirs, hex(word)


def test_mmi_space_validity_matches_rabbitizer():
    """Every op-0x1C word is either one of our rows or rejected, exactly as rabbitizer decodes it."""
    rabbitizer = pytest.importorskip("rabbitizer")
    rng = random.Random("mmi-space-validity")
    dec = default_decoder()
    bad = []
    for _ in range(20_000):
        word = 0x70000000 | rng.getrandbits(26)
        ok = dec.decode(word) != -1
        if ok != rabbitizer.Instruction(word, category=rabbitizer.InstrCategory.R5900).isValid():
            bad.append(hex(word))
    assert not bad, bad[:20]


@pytest.mark.needs_cross
def test_mnemonics_match_gnu_objdump(tmp_path):
    """The mnemonics of every MMI row as GNU objdump -m mips:5900 prints them."""
    objdump = shutil.which("mipsel-linux-gnu-objdump")
    if not objdump:
        pytest.skip("mipsel-linux-gnu-objdump not installed")
    words = [r.match for r in mmi.ROWS]
    blob = tmp_path / "w.bin"
    blob.write_bytes(struct.pack(f"<{len(words)}I", *words))
    out = subprocess.run([objdump, "-D", "-b", "binary", "-m", "mips:5900", str(blob)],
                         capture_output=True, text=True, check=True).stdout
    names = [ln.split("\t")[2].split()[0] for ln in out.splitlines()
             if ln.startswith(" ") and ln.count("\t") >= 2]
    assert names == [r.mnemonic for r in mmi.ROWS]
