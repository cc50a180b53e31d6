"""The stand-in is real EE code: every word decodes on the machine's decoder, and the
instruction classes the game's animation path uses are all present (r5900.md §11)."""
import collections
import re

import pytest

from .elfinfo import load

decode = pytest.importorskip("eemu_ext.isa.decode")


@pytest.fixture(scope="module")
def listing():
    from eemu_ext.isa import ROWS
    img = load()
    d = decode.default_decoder()
    rows = []
    for addr, word in img.words():
        idx = d.decode(word)
        rows.append((addr, word, ROWS[idx] if idx >= 0 else None, d.disasm(word, addr) if idx >= 0 else None))
    return img, rows


def test_every_word_of_text_decodes(listing):
    """No word the machine would stop on (r5900.md §10): no double ops, no libgcc, no traps."""
    img, rows = listing
    bad = [f"0x{a:08x}: 0x{w:08x} in {img.function_at(a).name if img.function_at(a) else '?'}"
           for a, w, row, _ in rows if row is None]
    assert not bad, "undecodable words:\n" + "\n".join(bad[:20])
    traps = [(hex(a), row.mnemonic) for a, w, row, _ in rows if row.cls in ("trap", "system")]
    assert not traps, f"trap/system instructions in the stand-in: {traps}"


def classes(rows):
    c = collections.Counter()
    for _, _, row, _ in rows:
        m = row.mnemonic.lower()
        if row.cls == "vu0" and m.startswith("v"):
            c["VU0 macro"] += 1
        if row.cls == "mmi" or m in ("lq", "sq"):
            c["MMI"] += 1
        if m in ("lqc2", "sqc2"):
            c["LQC2/SQC2"] += 1
        if m in ("ldl", "ldr"):
            c["LDL/LDR"] += 1
        if m == "madd.s":
            c["MADD.S"] += 1
        c[m] += 1
    return c


def test_instruction_classes_present(listing):
    """VU0 macro, MMI, LQC2/SQC2, LDL/LDR and MADD.S all occur in the code."""
    _, rows = listing
    c = classes(rows)
    for k in ("VU0 macro", "MMI", "LQC2/SQC2", "LDL/LDR", "MADD.S"):
        assert c[k] > 0, f"no {k} instruction in the stand-in"
    # the specific forms animation-semantics.md names
    for m in ("vmulax", "vmadday", "vmaddaz", "vmaddw", "vsqrt", "vftoi0", "vitof0",
              "psubh", "pmaddh", "psraw", "ppach", "pextlh", "paddsh", "pcpyld", "mula.s", "madda.s"):
        assert any(k.startswith(m) for k in c), f"no {m}"


MUL = re.compile(r"^(mul\.s|mula\.s|madd\.s|madda\.s|msub\.s|msuba\.s|"
                 r"vmul|vmula|vmadd|vmadda|vmsub|vmsuba|vopmula|vopmsub)")


def test_every_float_multiply_is_a_recorded_site(listing):
    """animation-semantics.md §1: every EE multiply comes from an FMUL site (or a VU0 asm block)
    that records itself, so none was generated (or reordered) by the compiler."""
    img, rows = listing
    sites = {s.address for s in img.sites}
    muls = [(a, row.mnemonic) for a, w, row, _ in rows if MUL.match(row.mnemonic.lower())]
    assert muls, "no multiply at all?"
    unrecorded = [f"0x{a:08x} {m} in {img.function_at(a).name}" for a, m in muls if a not in sites]
    assert not unrecorded, "multiplies without a site record:\n" + "\n".join(unrecorded)
    stale = [hex(s.address) for s in img.sites
             if s.address not in {a for a, _ in muls}]
    assert not stale, f"site records that do not point at a multiply: {stale}"


SOFT_DOUBLE = ("f64_add", "f64_sub", "f64_mul", "f64_div", "f64_from_f32", "f64_to_f32", "atan2")
INT64 = re.compile(r"^(dsll|dsrl|dsra|daddu|dsubu|dsllv|dsrlv|dsll32|dsrl32|ld|sd|multu)$")


def function_rows(img, rows, name):
    s = img.symbols[name]
    return [(a, row) for a, _, row, _ in rows if s.value <= a < s.value + s.size]


def test_every_function_lies_in_the_checked_text(listing):
    """The decode test above covers main's code; no function of the ELF lives anywhere else but
    in an overlay section (whose bytes are the DATA/*.PRG files, tests/standin/test_retail_layout.py)."""
    img, rows = listing
    end = img.text_addr + len(img.text)
    outside = [s.name for s in img.symbols.values()
               if s.kind == "FUNC" and not (img.text_addr <= s.value and s.value + s.size <= end)
               and not s.section.endswith(".prg")]
    assert not outside, f"functions outside main's code: {outside}"


def test_the_soft_double_code_is_r5900_integer_code(listing):
    """animation-semantics.md §3.4: m2a's angle comes from a double-precision atan2; on the EE that
    is 64-bit integer code. Each soft-double routine is in the decoded text, uses 64-bit integer
    instructions and no floating-point ones, and m2a calls atan2."""
    img, rows = listing
    for name in SOFT_DOUBLE:
        fr = function_rows(img, rows, name)
        assert fr, f"{name} is not in the stand-in"
        mn = [row.mnemonic.lower() for _, row in fr]
        assert any(INT64.match(m) for m in mn), f"{name}: no 64-bit integer instruction"
        assert not [m for m in mn if m.endswith(".s") or m.endswith(".d") or m.startswith("v")], name
    assert any(INT64.match(row.mnemonic.lower()) and row.mnemonic.lower() == "multu"
               for _, row in function_rows(img, rows, "f64_mul")), "f64_mul without MULTU"
    target = img.symbols["atan2"].value
    jal = 0x0C000000 | ((target >> 2) & 0x3FFFFFF)
    words = dict(img.words())
    m2a = img.symbols["m2a"]
    assert any(words[a] == jal for a in range(m2a.value, m2a.value + m2a.size, 4)), "m2a does not call atan2"


def test_the_decode_check_refuses_libgccs_soft_double():
    """Why double.c exists: the cross compiler's libgcc __adddf3/__muldf3 are MIPS32 code that the
    R5900 decoder refuses, so linking them would fail test_every_word_of_text_decodes."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("mipsel-linux-gnu-gcc"):
        pytest.skip("needs gcc-mipsel-linux-gnu to locate libgcc.a")
    from elftools.elf.elffile import ELFFile
    lib = subprocess.run(["mipsel-linux-gnu-gcc", "-print-libgcc-file-name"], capture_output=True,
                         text=True, check=True).stdout.strip()
    d = decode.default_decoder()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["mipsel-linux-gnu-ar", "x", lib, "adddf3.o", "muldf3.o"], cwd=tmp, check=True)
        refused = 0
        for obj in ("adddf3.o", "muldf3.o"):
            with open(f"{tmp}/{obj}", "rb") as f:
                text = ELFFile(f).get_section_by_name(".text").data()
            ws = [int.from_bytes(text[i:i + 4], "little") for i in range(0, len(text) - 3, 4)]
            refused += sum(1 for w in ws if d.decode(w) < 0)
    assert refused > 0
