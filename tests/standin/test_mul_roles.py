"""Every EE float multiply has the operand roles of animation-semantics.md §1 (fs = multiplicand,
ft = multiplier; ee-float.md §3.3), checked on the stand-in's machine code: each multiply site
records itself (standin/src/ee.h FMUL), and the test follows the fs/ft registers back to where
their values come from (a constant, a VU0 load from a known argument or table)."""
import struct

import pytest

from .elfinfo import load

TO_S16, FROM_S16, PI, F4096 = 0x43360B61, 0x38C90FDB, 0x40490FDB, 0x45800000

# §1 row -> the texts written at the FMUL site, (fs, ft)
FPU_ROLES = {
    1: ("delta", "frac"),
    2: ("bf(TO_S16_BITS)", "bf(deg)"),
    3: ("bf(FROM_S16_BITS)", "f_from_int(s)"),
    10: ("bf(PI_BITS)", "bf(deg)"),
    11: ("bf(PI_BITS)", "bf(deg)"),
    12: ("bf(uv)", "bf(F4096_BITS)"),
    14: ("bf(w)", "bf(F4096_BITS)"),
}
# §1 row -> (which operand holds a constant, its bits)
CONSTANT_OPERAND = {2: ("fs", TO_S16), 3: ("fs", FROM_S16), 10: ("fs", PI), 11: ("fs", PI),
                    12: ("ft", F4096), 14: ("ft", F4096)}


@pytest.fixture(scope="module")
def img():
    return load()


def fields(word):
    return {"ft": (word >> 16) & 31, "fs": (word >> 11) & 31, "fd": (word >> 6) & 31, "rt": (word >> 16) & 31,
            "rs": (word >> 21) & 31, "imm": word & 0xFFFF, "op": word >> 26}


def s16(x):
    return x - 0x10000 if x & 0x8000 else x


class Flow:
    """A backward scan inside one function for the instruction that last set a register."""

    def __init__(self, img):
        self.img = img
        self.words = dict(img.words())
        self.rodata = None

    def word_at(self, addr):
        if addr in self.words:
            return self.words[addr]
        from elftools.elf.elffile import ELFFile
        with open(self.img.path, "rb") as f:
            for seg in ELFFile(f).iter_segments():
                if seg["p_type"] == "PT_LOAD" and seg["p_vaddr"] <= addr < seg["p_vaddr"] + seg["p_filesz"]:
                    return struct.unpack_from("<I", seg.data(), addr - seg["p_vaddr"])[0]
        raise KeyError(hex(addr))

    def back(self, addr):
        fn = self.img.function_at(addr)
        a = addr - 4
        while a >= fn.value:
            yield a, self.words[a]
            a -= 4

    def gpr_value(self, addr, reg):
        """The constant a GPR holds at addr (lui/ori/addiu chains), or None."""
        low = 0
        for a, w in self.back(addr):
            f = fields(w)
            if f["op"] == 0x0F and f["rt"] == reg:                     # lui
                return ((f["imm"] << 16) + low) & 0xFFFFFFFF
            if f["op"] == 0x09 and f["rt"] == reg and f["rs"] == reg:  # addiu reg, reg, imm
                low += s16(f["imm"])
                continue
            if f["op"] == 0x0D and f["rt"] == reg and f["rs"] == reg:  # ori
                low |= f["imm"]
                continue
            if f["op"] == 0x0D and f["rt"] == reg and f["rs"] == 0:   # li via ori
                return f["imm"]
            if f["op"] == 0x09 and f["rt"] == reg and f["rs"] == 0:   # li via addiu
                return s16(f["imm"]) & 0xFFFFFFFF
            if self.writes_gpr(w) == reg:
                return None
        return None

    @staticmethod
    def writes_gpr(w):
        f = fields(w)
        if f["op"] == 0 and (w & 0x3F) not in (8, 9, 0x18, 0x19, 0x1A, 0x1B):
            return (w >> 11) & 31
        if f["op"] in (0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x20, 0x21, 0x23, 0x24, 0x25, 0x27, 0x37):
            return f["rt"]
        return None

    def fpr_constant(self, addr, reg):
        """The bits an FPR holds at addr when set from a constant (lwc1 of a literal, mtc1 of li)."""
        for a, w in self.back(addr):
            f = fields(w)
            if f["op"] == 0x31 and f["rt"] == reg:                     # lwc1 ft, imm(base)
                base = self.gpr_value(a, f["rs"])
                return None if base is None else self.word_at((base + s16(f["imm"])) & 0xFFFFFFFF)
            if f["op"] == 0x11 and f["rs"] == 4 and f["fs"] == reg:    # mtc1 rt, fs
                return self.gpr_value(a, f["rt"])
            if f["op"] == 0x11 and f["rs"] == 16 and f["fd"] == reg and (w & 0x3F) == 6:   # mov.s
                return self.fpr_constant(a, f["fs"])
            if f["op"] == 0x11 and f["rs"] in (16, 20) and f["fd"] == reg:
                return None
        return None

    def vf_loaded_from(self, addr, vf):
        """(base GPR, offset) of the LQC2 that last loaded vf before addr in the same function."""
        for a, w in self.back(addr):
            f = fields(w)
            if f["op"] == 0x36 and f["rt"] == vf:
                return f["rs"], s16(f["imm"]), a
        return None


def test_fpu_sites_name_the_spec_roles(img):
    """Each FMUL site of §1 rows 1-3, 10-12, 14 is written (fs, ft) as the spec's table says."""
    seen = set()
    for s in img.sites:
        if s.site in FPU_ROLES:
            assert s.roles == FPU_ROLES[s.site], f"site {s.site} at 0x{s.address:08x}: {s.roles}"
            seen.add(s.site)
    assert seen == set(FPU_ROLES), f"§1 rows without a site: {set(FPU_ROLES) - seen}"


def test_fpu_constant_operands_sit_in_their_role(img):
    """The constant factor of rows 2, 3, 10, 11 is in fs and of rows 12, 14 in ft (the encoded
    register is traced back to the literal it was loaded from)."""
    flow = Flow(img)
    checked = 0
    for s in img.sites:
        if s.site not in CONSTANT_OPERAND:
            continue
        role, bits = CONSTANT_OPERAND[s.site]
        w = flow.words[s.address]
        assert (w >> 26) == 0x11 and (w & 0x3F) == 0x02, f"site {s.site} is not mul.s"
        f = fields(w)
        got = flow.fpr_constant(s.address, f[role])
        other = flow.fpr_constant(s.address, f["ft" if role == "fs" else "fs"])
        assert got == bits, (f"§1 row {s.site} at 0x{s.address:08x}: {role} = $f{f[role]} holds "
                             f"{got and hex(got)}, want 0x{bits:08x}")
        assert other != bits, f"§1 row {s.site}: both operands hold the constant"
        checked += 1
    assert checked >= 6


def test_vu0_matrix_product_roles(img):
    """§1 row 8 / §3.2: in sceVu0MulMatrix(out, left, right) every VMULA/VMADDA/VMADD has fs loaded
    from the left matrix (a1) and a broadcast ft loaded from the right matrix (a2), lanes x,y,z,w
    in that order (VMULAx, VMADDAy, VMADDAz, VMADDw)."""
    flow = Flow(img)
    sites = [s for s in img.sites if s.site == 8]
    assert len(sites) == 16
    for n, s in enumerate(sites):
        w = flow.words[s.address]
        f = fields(w)
        assert (w >> 26) == 0x12 and (w >> 21) & 0xF == 0xF, "dest must be .xyzw"
        base_fs, off_fs, _ = flow.vf_loaded_from(s.address, f["fs"])
        base_ft, off_ft, _ = flow.vf_loaded_from(s.address, f["ft"])
        assert base_fs == 5 and off_fs == 16 * (n % 4), f"product {n}: fs from {base_fs}+{off_fs}"
        assert base_ft == 6 and off_ft == 16 * (n // 4), f"product {n}: ft from {base_ft}+{off_ft}"
        assert w & 3 == n % 4, f"product {n}: broadcast lane {w & 3}"


def test_vu0_cossin_roles(img):
    """§1 rows 4-7 / §3.3: x*x and r*r square one register; SIN[k]*x has fs = the S5432 vector and
    ft = x broadcast; the power steps have ft = x2 broadcast."""
    flow = Flow(img)
    by = {}
    for s in img.sites:
        by.setdefault(s.site, []).append(s)
    (x2,) = by[4]
    (sq,) = by[7]
    for s in (x2, sq):
        f = fields(flow.words[s.address])
        assert f["fs"] == f["ft"], f"site {s.site}: operands must be the same register"
    fx2 = fields(flow.words[x2.address])
    (seed,) = by[5]
    f = fields(flow.words[seed.address])
    base, off, at = flow.vf_loaded_from(seed.address, f["fs"])
    assert flow.gpr_value(at, base) == img.symbols["S5432"].value + off, "fs must be the S5432 vector"
    assert f["ft"] == fx2["fs"], "ft must be x"
    for s in by[6]:
        f = fields(flow.words[s.address])
        assert f["ft"] == fx2["fd"], f"site 6 at 0x{s.address:08x}: ft must be x2"


def test_vu0_morph_rescale_roles(img):
    """§1 row 13 / §9.2: ratio x f_from_int(c) has fs = the ratio vector (target +16) and ft = the
    VITOF0 result."""
    flow = Flow(img)
    (s,) = [s for s in img.sites if s.site == 13]
    f = fields(flow.words[s.address])
    _, off, _ = flow.vf_loaded_from(s.address, f["fs"])
    assert off == 16
    prev = flow.words[s.address - 4]
    assert (prev & 0x7FF) == 0x13C and fields(prev)["ft"] == f["ft"], "ft must come from vitof0"
