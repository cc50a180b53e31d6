"""The game's instruction mix: the stand-in's code reachable from the functions the harness calls
uses plain compiler output (MIPS integer and FPU instructions) and, beyond it, only what the users'
machine interprets on the retail animation code: the VU0 macro instructions, lqc2/sqc2, ldl/ldr and
the MMI instructions pextlw, pextuw, pcpyld, pcpyud, pextlh, psubh, paddsh, ppach, psraw, pmthi, pmtlo
and pmaddh. An instruction outside that list is allowed only where the source says why, with a
comment ``MIX(mnemonic, ...): why`` in standin/src."""
import os
import re
import struct

import pytest

from harness.driver.game import CONV, FORWARD, INIT_WORK, MODIFY, NOTE_PROCESS, RESET_WORK, SET_WORK

from .elfinfo import ELF_PATH, STANDIN, load

decode = pytest.importorskip("eemu_ext.isa.decode")

ENTRY_POINTS = (CONV, INIT_WORK, RESET_WORK, SET_WORK, FORWARD, NOTE_PROCESS, MODIFY)
# beyond plain MIPS: the R5900 instructions the machine must interpret
LISTED_MMI = {"pextlw", "pextuw", "pcpyld", "pcpyud", "pextlh", "psubh", "paddsh", "ppach", "psraw",
              "pmthi", "pmtlo", "pmaddh"}
LISTED_OTHER = {"lqc2", "sqc2", "ldl", "ldr"}
# plain compiler output: every MIPS I-III row (capstone's) and the FPU's MIPS I single-precision rows;
# the R5900's integer mult/multu/div/divu decode as its own rows but are the compiler's plain forms
PLAIN_FPU = {"add.s", "sub.s", "mul.s", "div.s", "sqrt.s", "abs.s", "mov.s", "neg.s", "cvt.s.w",
             "cvt.w.s", "c.f.s", "c.eq.s", "c.lt.s", "c.le.s", "bc1f", "bc1t", "bc1fl", "bc1tl",
             "mfc1", "mtc1", "cfc1", "ctc1", "lwc1", "swc1"}
PLAIN_MULDIV = {"mult", "multu", "div", "divu"}
JUSTIFIED = re.compile(r"MIX\(([^)]*)\):\s*\S")


def allowed(row) -> bool:
    mn = row.mnemonic.lower()
    if row.owner == "capstone" or mn in PLAIN_FPU or mn in PLAIN_MULDIV:
        return True
    if row.cls == "vu0":                 # the VU0 macro instructions and their COP2 moves
        return True
    return mn in LISTED_MMI or mn in LISTED_OTHER


def justified_in_source():
    """{mnemonic: 'file:line'} of every MIX(...) comment in standin/src."""
    out = {}
    src = os.path.join(STANDIN, "src")
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    for m in JUSTIFIED.finditer(line):
                        for mn in m.group(1).split(","):
                            out.setdefault(mn.strip().lower(), f"{os.path.relpath(path, STANDIN)}:{n}")
    return out


def reachable(elf_path):
    """{function: [(address, row)]} of every function reachable from the entry points through
    jal and j (a jump to another function's start), decoded by the machine's decoder."""
    from eemu_ext.isa import ROWS
    img = load(elf_path)
    d = decode.default_decoder()
    words = dict(img.words())
    starts = {s.value: s for s in img.symbols.values() if s.kind == "FUNC" and s.section == "main"}
    todo = [img.symbols[name] for name in ENTRY_POINTS]
    seen = {}
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        rows = []
        for a in range(f.value, f.value + f.size, 4):
            w = words[a]
            idx = d.decode(w)
            assert idx >= 0, f"0x{a:08x} in {f.name}: 0x{w:08x} does not decode"
            row = ROWS[idx]
            rows.append((a, row))
            if row.mnemonic in ("jal", "j"):
                target = (a & 0xF0000000) | ((w & 0x03FFFFFF) << 2)
                if target in starts and not f.value <= target < f.value + f.size:
                    todo.append(starts[target])
        seen[f.name] = rows
    return seen


def outside_the_mix(elf_path):
    """['mnemonic in function at 0x...'] for every reachable instruction outside the list that no
    MIX(...) comment justifies."""
    why = justified_in_source()
    bad = []
    for name, rows in sorted(reachable(elf_path).items()):
        for a, row in rows:
            if not allowed(row) and row.mnemonic.lower() not in why:
                bad.append(f"{row.mnemonic} in {name} at 0x{a:08x}")
    return bad


def test_every_reachable_instruction_is_in_the_games_mix():
    fns = reachable(ELF_PATH)
    for name in ENTRY_POINTS:
        assert name in fns
    assert "sceVu0MulMatrix" in fns and "memcpy" in fns and "atan2" in fns, sorted(fns)
    bad = outside_the_mix(ELF_PATH)
    assert not bad, "instructions outside the game's mix without a MIX(...) comment saying why:\n" + "\n".join(bad)


def test_the_listing_names_every_mnemonic_the_blend_uses():
    """The walk reaches Modify's hand-written MMI blend and lists its instructions."""
    mns = {row.mnemonic.lower() for _, row in reachable(ELF_PATH)[MODIFY]}
    assert {"pmaddh", "psubh", "paddsh", "ppach", "psraw", "pextlh", "pcpyld", "ldl", "ldr"} <= mns, mns


def test_each_justification_names_an_instruction_outside_the_list():
    """A MIX(...) comment that allows something already allowed is stale."""
    from eemu_ext.isa import ROWS
    by_name = {r.mnemonic.lower(): r for r in ROWS}
    why = justified_in_source()
    assert why, "no MIX(...) comment at all: the FPU accumulator forms of ee.h need one"
    stale = [f"{mn} ({where})" for mn, where in why.items() if mn not in by_name or allowed(by_name[mn])]
    assert not stale, f"MIX(...) comments for instructions inside the list: {stale}"


def test_the_check_goes_red_on_por(tmp_path):
    """Modify's blend zeroed its result register with `por $15, $0, $0`; POR is not in the list.
    The committed ELF with that one word put back fails the check, naming por and Modify."""
    from eemu_ext.core.testing import asm
    img = load(ELF_PATH)
    pcpyld = asm("pcpyld $15, $0, $0")
    por = asm("por $15, $0, $0")
    modify = img.symbols[MODIFY]
    raw = bytearray(open(ELF_PATH, "rb").read())
    from elftools.elf.elffile import ELFFile
    with open(ELF_PATH, "rb") as f:
        main = ELFFile(f).get_section_by_name("main")
        base, off = main["sh_addr"], main["sh_offset"]
    hits = [a for a, w in img.words() if w == pcpyld and modify.value <= a < modify.value + modify.size]
    assert len(hits) == 1, hits
    struct.pack_into("<I", raw, off + hits[0] - base, por)
    broken = tmp_path / "standin.elf"
    broken.write_bytes(bytes(raw))
    assert outside_the_mix(str(broken)) == [f"por in {MODIFY} at 0x{hits[0]:08x}"]
