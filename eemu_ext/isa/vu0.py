"""VU0 macro-mode rows (COP2): FMAC, FDIV, integer, memory and random-register ops (r5900.md §8).

Float values and flags follow ee-float.md §3.10 through the machine's float model; the lane
helpers (``vu_*``) come from ``namespace(machine)``. Lanes: x = 0 ... w = 3, dest bit 8 >> lane.
VF[0] never changes: rows that would write it write a scratch list instead (flags still update).
DECISION: under trunc the MAC and status flags are not kept (ee-float.md §2.2: "VU0 flags are not
kept"), while CLIP, a comparison result rather than an arithmetic flag, is kept under both models.

Each row's ``c`` is its compiled form, generated beside its ``sem`` and calling the C helpers of
eemu_ext/engines/native/csrc/vu0.h under the same names. VCALLMS, VCALLMSR and CTC2 are Python-only (they
can raise). vi24 is ``S.vi24`` in both engines.
"""
from __future__ import annotations

import functools

from eemu_ext import eefloat
from eemu_ext.eefloat import M32, SIGN
from eemu_ext.isa.cop1 import float_model_of
from eemu_ext.isa.row import OPERAND_FORMATS, Row

OP_COP2 = 0x12 << 26
CO = OP_COP2 | (1 << 25)              # macro instructions: bit 25 set
M_SP1 = 0xFE00003F                    # special1: op, CO and funct fixed
M_SP2 = 0xFE0007FF                    # special2: op, CO, fd-as-opcode and funct fixed
M_DEST = 0xF << 21
M_FT = 31 << 16
M_FS = 31 << 11
M_FD = 31 << 6
LANE = "xyzw"
VU0_MEM = 0x11004000

# -- operand formatters (rabbitizer's spelling; the dest suffix is an operand starting with '.') --
_F = OPERAND_FORMATS
_F.setdefault("dest", lambda f: "." + "".join(c for i, c in enumerate(LANE) if f["dest"] & (8 >> i))
              if f["dest"] else "")
_F.setdefault("vfd", lambda f: f"$vf{f['fd']}")
_F.setdefault("vfs", lambda f: f"$vf{f['fs']}")
_F.setdefault("vft", lambda f: f"$vf{f['ft']}")
_F.setdefault("vrt", lambda f: f"$vf{f['rt']}")
_F.setdefault("vrd", lambda f: f"$vf{f['rd']}")
_F.setdefault("virdc", lambda f: f"$vi{f['rd']}")
_F.setdefault("vftbc", lambda f: f"$vf{f['ft']}{LANE[f['bc']]}")
_F.setdefault("vftw", lambda f: f"$vf{f['ft']}w")
_F.setdefault("vfsf", lambda f: f"$vf{f['fs']}{LANE[f['fsf']]}")
_F.setdefault("vftf", lambda f: f"$vf{f['ft']}{LANE[f['ftf']]}")
_F.setdefault("vacc", lambda _f: "$ACC")
_F.setdefault("vq", lambda _f: "$Q")
_F.setdefault("vi_i", lambda _f: "$I")
_F.setdefault("vr", lambda _f: "$R")
_F.setdefault("vid", lambda f: f"$vi{f['fd']}")
_F.setdefault("vis", lambda f: f"$vi{f['fs']}")
_F.setdefault("vit", lambda f: f"$vi{f['ft']}")
_F.setdefault("imm5", lambda f: str(f["imm5"]))
_F.setdefault("imm15x8", lambda f: hex(f["imm15"] << 3))
_F.setdefault("vis_inc", lambda f: f"($vi{f['fs']}++)")
_F.setdefault("vit_inc", lambda f: f"($vi{f['ft']}++)")
_F.setdefault("vis_dec", lambda f: f"(--$vi{f['fs']})")
_F.setdefault("vit_dec", lambda f: f"(--$vi{f['ft']})")
_F.setdefault("vis_ind", lambda f: f"($vi{f['fs']})")

ROWS: list = []


def _row(mn, mask, match, ops, sem, note="", gpr_writes=(), c="", python_only=""):
    ROWS.append(Row(mn, mask, match, ops, "vu0", sem, owner="ee", note=note, gpr_writes=gpr_writes,
                    c=c, python_only=python_only))


def _c(*stmts):
    """A row's C (eemu_ext/engines/native/csrc/vu0.h): the statements in one block, so its locals are its own.
    DECISION: every template is braced, so an engine may paste rows one after another."""
    return "{ " + " ".join(stmts) + " }"


def _sp1(funct):
    return CO | funct


def _sp2(index):
    return CO | ((index >> 2) << 6) | 0x3C | (index & 3)


# vu_madd's sign flip of the product: 0 for the MADD forms, 0x80000000 for the MSUB forms.
_NEG = {"madd": "0", "msub": "0x80000000"}

# Target of a float write to fd / ft: VF0 is never written.
_TD = "(VF[fd] if fd else VJUNK)"
_TT = "(VF[ft] if ft else VJUNK)"
_TD_C = "(fd ? VF[fd] : VJUNK)"
_TT_C = "(ft ? VF[ft] : VJUNK)"

# Second operand forms: (mnemonic suffix, operand kind, Python expression giving 4 lanes).
_BC = "_b = VF[ft][bc]\n"
_FORMS_B = {
    "bc": ("vftbc", _BC, "(_b, _b, _b, _b)"),
    "q": ("vq", "_b = S.q\n", "(_b, _b, _b, _b)"),
    "i": ("vi_i", "_b = S.i\n", "(_b, _b, _b, _b)"),
    "": ("vft", "", "VF[ft]"),
}
# The same forms in C: (statements before the call, expression giving the 4 lanes).
_BB_C = "const uint32_t _bb[4] = {_b, _b, _b, _b};"
_FORMS_B_C = {
    "bc": ("uint32_t _b = VF[ft][bc]; " + _BB_C, "_bb"),
    "q": ("uint32_t _b = S.q; " + _BB_C, "_bb"),
    "i": ("uint32_t _b = S.i; " + _BB_C, "_bb"),
    "": ("", "VF[ft]"),
}


def _fmac(kind, form, dst, dst_c, latch):
    """(sem, c) of one FMAC op: kind add/sub/mul (vu_op), madd/msub (vu_madd), max/min (vu_sel)."""
    kind_b, pre, expr = _FORMS_B[form]
    pre_c, expr_c = _FORMS_B_C[form]
    if kind in ("add", "sub", "mul"):
        sem = pre + f"vu_op(S, f_{kind}, {dst}, VF[fs], {expr}, dest)"
        c = f"vu_op(&S, f_{kind}, {dst_c}, VF[fs], {expr_c}, dest);"
    elif kind in ("madd", "msub"):
        sem = pre + f"vu_madd(S, {_NEG[kind]}, {dst}, VF[fs], {expr}, dest, {latch})"
        c = f"vu_madd(&S, {_NEG[kind]}, {dst_c}, VF[fs], {expr_c}, dest, {latch});"
    else:
        sem = pre + f"vu_sel(f_{kind}, {dst}, VF[fs], {expr}, dest)"
        c = f"vu_sel(f_{kind}, {dst_c}, VF[fs], {expr_c}, dest);"
    return sem, _c(pre_c, c) if pre_c else _c(c)

# ---- special1: FMAC ops writing fd -------------------------------------------------------------
for base, name, kind in ((0x00, "vadd", "add"), (0x04, "vsub", "sub"), (0x08, "vmadd", "madd"),
                         (0x0C, "vmsub", "msub"), (0x10, "vmax", "max"), (0x14, "vmini", "min"),
                         (0x18, "vmul", "mul")):
    sem, c = _fmac(kind, "bc", _TD, _TD_C, 0)
    for bc in range(4):
        _row(f"{name}{LANE[bc]}", M_SP1, _sp1(base + bc), ("dest", "vfd", "vfs", "vftbc"), sem, c=c)

_SP1_FORMS = [
    (0x1C, "vmulq", "mul", "q"), (0x1D, "vmaxi", "max", "i"), (0x1E, "vmuli", "mul", "i"),
    (0x1F, "vminii", "min", "i"), (0x20, "vaddq", "add", "q"), (0x21, "vmaddq", "madd", "q"),
    (0x22, "vaddi", "add", "i"), (0x23, "vmaddi", "madd", "i"), (0x24, "vsubq", "sub", "q"),
    (0x25, "vmsubq", "msub", "q"), (0x26, "vsubi", "sub", "i"), (0x27, "vmsubi", "msub", "i"),
    (0x28, "vadd", "add", ""), (0x29, "vmadd", "madd", ""), (0x2A, "vmul", "mul", ""),
    (0x2B, "vmax", "max", ""), (0x2C, "vsub", "sub", ""), (0x2D, "vmsub", "msub", ""),
    (0x2F, "vmini", "min", ""),
]
for funct, name, kind, form in _SP1_FORMS:
    kind_b = _FORMS_B[form][0]
    sem, c = _fmac(kind, form, _TD, _TD_C, 0)
    mask = M_SP1 if form == "" or form == "bc" else M_SP1 | M_FT
    _row(name, mask, _sp1(funct), ("dest", "vfd", "vfs", kind_b), sem, c=c)

_row("vopmsub", M_SP1, _sp1(0x2E), ("dest", "vfd", "vfs", "vft"),
     "_a = VF[fs]\n_b = VF[ft]\n"
     f"vu_madd(S, 0x80000000, {_TD}, (_a[1], _a[2], _a[0], 0), (_b[2], _b[0], _b[1], 0), 14, 0)",
     note="fd.xyz := ACC.xyz - fs.yzx * ft.zxy; DECISION: any dest field is accepted, xyz always used",
     c=_c("const uint32_t *_a = VF[fs], *_b = VF[ft];",
          "const uint32_t _x[4] = {_a[1], _a[2], _a[0], 0}, _y[4] = {_b[2], _b[0], _b[1], 0};",
          f"vu_madd(&S, 0x80000000, {_TD_C}, _x, _y, 14, 0);"))

# ---- special1: integer ops, VCALLMS -------------------------------------------------------------
_I3 = ("vid", "vis", "vit")
_row("viadd", M_SP1 | M_DEST, _sp1(0x30), _I3,
     "if fd & 15: VI[fd & 15] = (VI[fs & 15] + VI[ft & 15]) & 0xFFFF",
     c="if (fd & 15) VI[fd & 15] = (VI[fs & 15] + VI[ft & 15]) & 0xFFFF;")
_row("visub", M_SP1 | M_DEST, _sp1(0x31), _I3,
     "if fd & 15: VI[fd & 15] = (VI[fs & 15] - VI[ft & 15]) & 0xFFFF",
     c="if (fd & 15) VI[fd & 15] = (VI[fs & 15] - VI[ft & 15]) & 0xFFFF;")
_row("viaddi", M_SP1 | M_DEST, _sp1(0x32), ("vit", "vis", "imm5"),
     "if ft & 15: VI[ft & 15] = (VI[fs & 15] + imm5) & 0xFFFF",
     c="if (ft & 15) VI[ft & 15] = (VI[fs & 15] + imm5) & 0xFFFF;")
_row("viand", M_SP1 | M_DEST, _sp1(0x34), _I3,
     "if fd & 15: VI[fd & 15] = VI[fs & 15] & VI[ft & 15]",
     c="if (fd & 15) VI[fd & 15] = VI[fs & 15] & VI[ft & 15];")
_row("vior", M_SP1 | M_DEST, _sp1(0x35), _I3,
     "if fd & 15: VI[fd & 15] = VI[fs & 15] | VI[ft & 15]",
     c="if (fd & 15) VI[fd & 15] = VI[fs & 15] | VI[ft & 15];")
_row("vcallms", M_SP1 | M_DEST, _sp1(0x38), ("imm15x8",),
     "fault('machine', 'VU micro mode is not supported: vcallms 0x%x' % imm15)",
     note="needs a VU0 micro-mode interpreter (out of scope, r5900.md §8.4)",
     python_only="raises: VU0 micro mode is not supported")
_row("vcallmsr", M_SP1 | M_DEST | M_FT | M_FD, _sp1(0x39), ("vis",),
     "fault('machine', 'VU micro mode is not supported: vcallmsr (CMSAR0 0x%x)' % S.cmsar0)",
     note="needs a VU0 micro-mode interpreter (out of scope, r5900.md §8.4)",
     python_only="raises: VU0 micro mode is not supported")

# ---- special2: FMAC ops writing ACC ---------------------------------------------------------------
_ACC = "S.vacc"
for base, name, kind in ((0x00, "vadda", "add"), (0x04, "vsuba", "sub"), (0x08, "vmadda", "madd"),
                         (0x0C, "vmsuba", "msub"), (0x18, "vmula", "mul")):
    sem, c = _fmac(kind, "bc", _ACC, _ACC, 1)
    for bc in range(4):
        _row(f"{name}{LANE[bc]}", M_SP2, _sp2(base + bc), ("dest", "vacc", "vfs", "vftbc"), sem, c=c)

_SP2_FORMS = [
    (0x1C, "vmulaq", "mul", "q"), (0x1E, "vmulai", "mul", "i"),
    (0x20, "vaddaq", "add", "q"), (0x21, "vmaddaq", "madd", "q"),
    (0x22, "vaddai", "add", "i"), (0x23, "vmaddai", "madd", "i"),
    (0x24, "vsubaq", "sub", "q"), (0x25, "vmsubaq", "msub", "q"),
    (0x26, "vsubai", "sub", "i"), (0x27, "vmsubai", "msub", "i"),
    (0x28, "vadda", "add", ""), (0x29, "vmadda", "madd", ""), (0x2A, "vmula", "mul", ""),
    (0x2C, "vsuba", "sub", ""), (0x2D, "vmsuba", "msub", ""),
]
for index, name, kind, form in _SP2_FORMS:
    kind_b = _FORMS_B[form][0]
    sem, c = _fmac(kind, form, _ACC, _ACC, 1)
    mask = M_SP2 if form == "" else M_SP2 | M_FT
    ops = ("dest", "vacc", "vfs", kind_b)
    if name in ("vadda", "vmsuba"):
        # GNU as (and rabbitizer) write these two as "$ACC, ft, fs": `vmsuba.xyzw $ACC,$vf1,$vf2`
        # encodes ft = vf1, fs = vf2. The semantics follow the fields (fs is the multiplicand).
        ops = ("dest", "vacc", "vft", "vfs")
    _row(name, mask, _sp2(index), ops, sem, c=c)

_row("vopmula", M_SP2, _sp2(0x2E), ("dest", "vacc", "vfs", "vft"),
     "_a = VF[fs]\n_b = VF[ft]\n"
     "vu_op(S, f_mul, S.vacc, (_a[1], _a[2], _a[0], 0), (_b[2], _b[0], _b[1], 0), 14)",
     note="ACC.xyz := fs.yzx * ft.zxy; DECISION: any dest field is accepted, xyz always used",
     c=_c("const uint32_t *_a = VF[fs], *_b = VF[ft];",
          "const uint32_t _x[4] = {_a[1], _a[2], _a[0], 0}, _y[4] = {_b[2], _b[0], _b[1], 0};",
          "vu_op(&S, f_mul, S.vacc, _x, _y, 14);"))

# ---- special2: conversions, moves, clip ------------------------------------------------------------
for i, n in enumerate((0, 4, 12, 15)):
    _row(f"vitof{n}", M_SP2, _sp2(0x10 + i), ("dest", "vft", "vfs"),
         f"vu_map(f_itof, {_TT}, VF[fs], dest, {n})",
         c=_c(f"vu_map(f_itof, {_TT_C}, VF[fs], dest, {n});"))
    _row(f"vftoi{n}", M_SP2, _sp2(0x14 + i), ("dest", "vft", "vfs"),
         f"vu_map(f_ftoi, {_TT}, VF[fs], dest, {n})",
         c=_c(f"vu_map(f_ftoi, {_TT_C}, VF[fs], dest, {n});"))


def _set(lanes, py_pre="_a = VF[fs]\n", c_pre="const uint32_t *_a = VF[fs];"):
    """(sem, c) of ft.c := lanes[c] for the lanes in dest; lanes are expressions (the same text
    in Python and C) over the operand read first into _a (a tuple in Python, an array in C)."""
    return (f"{py_pre}vu_set({_TT}, ({', '.join(lanes)}), dest)",
            _c(c_pre, f"const uint32_t _x[4] = {{{', '.join(lanes)}}};", f"vu_set({_TT_C}, _x, dest);"))


_sem, _cc = _set([f"_a[{k}] & 0x7FFFFFFF" for k in range(4)])
_row("vabs", M_SP2, _sp2(0x1D), ("dest", "vft", "vfs"), _sem, c=_cc)
_sem, _cc = _set([f"_a[{k}]" for k in range(4)])
_row("vmove", M_SP2, _sp2(0x30), ("dest", "vft", "vfs"), _sem, c=_cc)
_sem, _cc = _set([f"_a[{k}]" for k in (1, 2, 3, 0)])
_row("vmr32", M_SP2, _sp2(0x31), ("dest", "vft", "vfs"), _sem, c=_cc,
     note="rotates lanes: ft.x := fs.y, ft.y := fs.z, ft.z := fs.w, ft.w := fs.x")
_row("vclipw", M_SP2, _sp2(0x1F), ("dest", "vfs", "vftw"),
     "vu_clip(S, VF[fs], VF[ft][3])", note="DECISION: any dest field is accepted, xyz always judged",
     c=_c("vu_clip(&S, VF[fs], VF[ft][3]);"))
_row("vnop", 0xFFFFFFFF, _sp2(0x2F), (), "pass", c=";")

# ---- special2: VU0 data memory (byte address VI * 16, wrapping at 4 KiB) ----------------------------
_LANES_LD = ("_o = VU0_MEM + ((VI[{r} & 15] << 4) & 0xFF0)\n_d = {dst}\n"
             "for _c in range(4):\n    if dest & (8 >> _c): _d[_c] = ld32(_o + 4 * _c)")
_LANES_ST = ("_o = VU0_MEM + ((VI[{r} & 15] << 4) & 0xFF0)\n_s = VF[fs]\n"
             "for _c in range(4):\n    if dest & (8 >> _c): st32(_o + 4 * _c, _s[_c])")


def _mem_c(store, r, step):
    """C of VLQI/VLQD (store 0) and VSQI/VSQD (store 1) on VI[r]: step +1 after, -1 before the
    access. The VI update and (loads) the VF writes follow every access, as ee.h requires; all four
    lanes lie in one aligned quadword of VU0 memory, so no access fails after another succeeded."""
    out = [f"uint32_t _i = VI[{r} & 15];"]
    if step < 0:
        out.append(f"if ({r} & 15) _i = (_i - 1) & 0xFFFF;")
    out.append("uint32_t _o = VU0_MEM + ((_i << 4) & 0xFF0); int _c;")
    if store:
        out.append("const uint32_t *_s = VF[fs];")
        out.append("for (_c = 0; _c < 4; _c++) if (dest & (8 >> _c)) ST32(_o + 4 * _c, _s[_c]);")
    else:
        out.append(f"uint32_t _l[4], *_d = {_TT_C};")
        out.append("for (_c = 0; _c < 4; _c++) if (dest & (8 >> _c)) _l[_c] = LD32(_o + 4 * _c);")
        out.append("for (_c = 0; _c < 4; _c++) if (dest & (8 >> _c)) _d[_c] = _l[_c];")
    if step > 0:
        out.append(f"if ({r} & 15) VI[{r} & 15] = (_i + 1) & 0xFFFF;")
    else:
        out.append(f"if ({r} & 15) VI[{r} & 15] = _i;")
    return _c(*out)


_row("vlqi", M_SP2, _sp2(0x34), ("dest", "vft", "vis_inc"),
     _LANES_LD.format(r="fs", dst=_TT) + "\nif fs & 15: VI[fs & 15] = (VI[fs & 15] + 1) & 0xFFFF",
     c=_mem_c(0, "fs", 1))
_row("vsqi", M_SP2, _sp2(0x35), ("dest", "vfs", "vit_inc"),
     _LANES_ST.format(r="ft") + "\nif ft & 15: VI[ft & 15] = (VI[ft & 15] + 1) & 0xFFFF",
     c=_mem_c(1, "ft", 1))
_row("vlqd", M_SP2, _sp2(0x36), ("dest", "vft", "vis_dec"),
     "if fs & 15: VI[fs & 15] = (VI[fs & 15] - 1) & 0xFFFF\n" + _LANES_LD.format(r="fs", dst=_TT),
     c=_mem_c(0, "fs", -1))
_row("vsqd", M_SP2, _sp2(0x37), ("dest", "vfs", "vit_dec"),
     "if ft & 15: VI[ft & 15] = (VI[ft & 15] - 1) & 0xFFFF\n" + _LANES_ST.format(r="ft"),
     c=_mem_c(1, "ft", -1))
for _lane in range(4):
    # exactly one lane in dest (r5900.md §8.3); other dest values are not VILWR/VISWR
    # one row per lane, named like rabbitizer's opcodes (vilwr.x ... viswr.w)
    _addr = f"VU0_MEM + ((VI[fs & 15] << 4) & 0xFF0) + {4 * _lane}"
    _row(f"vilwr.{LANE[_lane]}", M_SP2 | M_DEST, _sp2(0x3E) | ((8 >> _lane) << 21), ("vit", "vis_ind"),
         f"if ft & 15: VI[ft & 15] = ld32({_addr}) & 0xFFFF",
         c=f"if (ft & 15) VI[ft & 15] = LD32({_addr}) & 0xFFFF;")
    _row(f"viswr.{LANE[_lane]}", M_SP2 | M_DEST, _sp2(0x3F) | ((8 >> _lane) << 21), ("vit", "vis_ind"),
         f"st32({_addr}, VI[ft & 15])", c=f"ST32({_addr}, VI[ft & 15]);")

# ---- special2: FDIV unit, integer transfers, random register -----------------------------------------
_row("vdiv", M_SP2, _sp2(0x38), ("vq", "vfsf", "vftf"),
     "vu_fdiv(S, f_vdiv(VF[fs][fsf], VF[ft][ftf]))",
     c="vu_fdiv(&S, f_vdiv(VF[fs][fsf], VF[ft][ftf]));")
_row("vsqrt", M_SP2 | M_FS, _sp2(0x39), ("vq", "vftf"),
     "vu_fdiv(S, f_vsqrt(VF[ft][ftf]))",
     note="fs must be 0; DECISION: fsf is ignored (GNU as sets fsf = 1 here, rabbitizer rejects that)",
     c="vu_fdiv(&S, f_vsqrt(VF[ft][ftf]));")
_row("vrsqrt", M_SP2, _sp2(0x3A), ("vq", "vfsf", "vftf"),
     "vu_fdiv(S, f_vrsqrt(VF[fs][fsf], VF[ft][ftf]))",
     c="vu_fdiv(&S, f_vrsqrt(VF[fs][fsf], VF[ft][ftf]));")
_row("vwaitq", 0xFFFFFFFF, _sp2(0x3B), (), "pass", note="Q is written at once (r5900.md §8.4)", c=";")
_row("vmtir", M_SP2 | (3 << 23), _sp2(0x3C), ("vit", "vfsf"),
     "if ft & 15: VI[ft & 15] = VF[fs][fsf] & 0xFFFF",
     c="if (ft & 15) VI[ft & 15] = VF[fs][fsf] & 0xFFFF;")
_sem, _cc = _set(["_v"] * 4, py_pre="_v = VI[fs & 15]\n_v = _v | 0xFFFF0000 if _v & 0x8000 else _v\n",
                 c_pre="uint32_t _v = VI[fs & 15]; if (_v & 0x8000) _v |= 0xFFFF0000;")
_row("vmfir", M_SP2, _sp2(0x3D), ("dest", "vft", "vis"), _sem, c=_cc)
_sem, _cc = _set(["_r"] * 4,
                 py_pre="_r = S.r\n_r = 0x3F800000 | (((_r << 1) ^ (((_r >> 4) ^ (_r >> 22)) & 1)) & 0x7FFFFF)\n"
                        "S.r = _r\n",
                 c_pre="uint32_t _r = S.r; "
                       "_r = 0x3F800000 | (((_r << 1) ^ (((_r >> 4) ^ (_r >> 22)) & 1)) & 0x7FFFFF); S.r = _r;")
_row("vrnext", M_SP2 | M_FS, _sp2(0x40), ("dest", "vft", "vr"), _sem, c=_cc)
_sem, _cc = _set(["_r"] * 4, py_pre="_r = S.r\n", c_pre="uint32_t _r = S.r;")
_row("vrget", M_SP2 | M_FS, _sp2(0x41), ("dest", "vft", "vr"), _sem, c=_cc)
_row("vrinit", M_SP2 | (3 << 23) | M_FT, _sp2(0x42), ("vr", "vfsf"),
     "S.r = 0x3F800000 | (VF[fs][fsf] & 0x7FFFFF)", c="S.r = 0x3F800000 | (VF[fs][fsf] & 0x7FFFFF);")
_row("vrxor", M_SP2 | (3 << 23) | M_FT, _sp2(0x43), ("vr", "vfsf"),
     "S.r = 0x3F800000 | ((S.r ^ VF[fs][fsf]) & 0x7FFFFF)",
     c="S.r = 0x3F800000 | ((S.r ^ VF[fs][fsf]) & 0x7FFFFF);")

# ---- transfers between the EE and VU0 (r5900.md §4.7, §8.4) --------------------------------------------
for il, suf in ((0, ".ni"), (1, ".i")):
    _row("qmfc2" + suf, 0xFFE007FF, OP_COP2 | (1 << 21) | il, ("rt", "vrd"),
         "_v = VF[rd]\nR[rt] = _v[0] | (_v[1] << 32)\nRH[rt] = _v[2] | (_v[3] << 32)",
         note="all 128 bits", gpr_writes=("rt",),
         c=_c("const uint32_t *_v = VF[rd];", "R[rt] = _v[0] | ((uint64_t)_v[1] << 32);",
              "RH[rt] = _v[2] | ((uint64_t)_v[3] << 32);"))
    _row("cfc2" + suf, 0xFFE007FF, OP_COP2 | (2 << 21) | il, ("rt", "virdc"),
         "R[rt] = sx32(vu_cfc2(S, rd))", note="sign-extends, keeps bits 64-127", gpr_writes=("rt",),
         c="R[rt] = SX32(vu_cfc2(&S, rd));")
    _row("qmtc2" + suf, 0xFFE007FF, OP_COP2 | (5 << 21) | il, ("rt", "vrd"),
         "if rd: VF[rd][:] = (R[rt] & 0xFFFFFFFF, R[rt] >> 32, RH[rt] & 0xFFFFFFFF, RH[rt] >> 32)",
         c="if (rd) { uint64_t _l = R[rt], _h = RH[rt]; VF[rd][0] = (uint32_t)_l; "
           "VF[rd][1] = (uint32_t)(_l >> 32); VF[rd][2] = (uint32_t)_h; VF[rd][3] = (uint32_t)(_h >> 32); }")
    # A write to vi31 (CMSAR1) raises: the compiled form leaves that one to Python (TO_PYTHON).
    _row("ctc2" + suf, 0xFFE007FF, OP_COP2 | (6 << 21) | il, ("rt", "virdc"),
         "vu_ctc2(S, rd, R[rt] & 0xFFFFFFFF)",
         c="if (rd == 31) TO_PYTHON;\nvu_ctc2(st, rd, (uint32_t)R[rt]);")

ROWS.append(Row("lqc2", 0xFC000000, 0x36 << 26, ("vrt", "mem"), "vu0",
                "_v = ld128((R[rs] + imm) & 0xFFFFFFF0)\n"
                "if rt: VF[rt][:] = (_v & 0xFFFFFFFF, (_v >> 32) & 0xFFFFFFFF, (_v >> 64) & 0xFFFFFFFF, _v >> 96)",
                owner="ee", note="address & ~15 (r5900.md §5.2); into VF0 discarded",
                c=_c("u128 _v = LD128((R[rs] + imm) & 0xFFFFFFF0);",
                     "if (rt) { VF[rt][0] = (uint32_t)_v; VF[rt][1] = (uint32_t)(_v >> 32); "
                     "VF[rt][2] = (uint32_t)(_v >> 64); VF[rt][3] = (uint32_t)(_v >> 96); }")))
ROWS.append(Row("sqc2", 0xFC000000, 0x3E << 26, ("vrt", "mem"), "vu0",
                "_v = VF[rt]\nst128((R[rs] + imm) & 0xFFFFFFF0, _v[0] | (_v[1] << 32) | (_v[2] << 64) | (_v[3] << 96))",
                owner="ee", note="address & ~15",
                c=_c("const uint32_t *_v = VF[rt];",
                     "ST128((R[rs] + imm) & 0xFFFFFFF0, (u128)_v[0] | ((u128)_v[1] << 32) "
                     "| ((u128)_v[2] << 64) | ((u128)_v[3] << 96));")))
for rt, name, flow in ((0, "bc2f", "branch"), (1, "bc2t", "branch"), (2, "bc2fl", "likely"),
                       (3, "bc2tl", "likely")):
    # DECISION: the COP2 condition line's meaning is unverified (r5900.md §8.4, [INF]); without a
    # running micro program it reads 0 here, so BC2F is always taken and BC2T never.
    ROWS.append(Row(name, 0xFFFF0000, OP_COP2 | (8 << 21) | (rt << 16), ("btarget",), "vu0",
                    "cond = " + ("True" if rt in (0, 2) else "False"), owner="ee", flow=flow,
                    note="COP2 condition modelled as 0 (no micro mode); DECISION",
                    c="cond = " + ("1;" if rt in (0, 2) else "0;")))
del _lane, _addr, _sem, _cc


# ----------------------------------------------------------------------------------------------
# Lane helpers (namespace)
# ----------------------------------------------------------------------------------------------

_LANES = ((0, 8), (1, 4), (2, 2), (3, 1))


_LANE_FLAGS = """
        if r > 0xFFFFFFFF:
            v = r & 0xFFFFFFFF
            if r & UNF:
                mac |= {Z} | {U}
            elif not v & 0x7F800000:
                mac |= {Z}
            elif r & OVF:
                mac |= {O}
        else:
            v = r
            if not v & 0x7F800000:
                mac |= {Z}
        if v & 0x80000000:
            mac |= {S}
        dst[{c}] = v
"""

_STATUS = """
    S.mac = mac
    if mac:
        low = ((1 if mac & 0xF else 0) | (2 if mac & 0xF0 else 0) | (4 if mac & 0xF00 else 0)
               | (8 if mac & 0xF000 else 0))
        S.status = (S.status & 0xFF0) | low | (low << 6)
    else:
        S.status &= 0xFF0
"""


def _gen_fmac_helpers() -> str:
    """Source of the hw vu_op / vu_madd: per lane c (dest bit 8 >> c), the result's MAC bits are
    Z at 3 - c, S at 7 - c, U at 11 - c, O at 15 - c; underflow gives U and Z, else a zero result
    Z, else overflow O (ee-float.md §3.10); S is the stored sign."""
    op = ["def vu_op(S, f, dst, a, b, dest):", "    mac = 0"]
    ma = ["def vu_madd(S, neg, dst, a, b, dest, latch):",
          "    acc = S.vacc", "    old = S.mac if latch else 0", "    mac = 0"]
    for c in range(4):
        k = dict(c=c, Z=1 << (3 - c), S=1 << (7 - c), U=1 << (11 - c), O=1 << (15 - c))
        op += [f"    if dest & {8 >> c}:", f"        r = f(a[{c}], b[{c}])"]
        op.append(_LANE_FLAGS.format(**k).rstrip("\n"))
        ma += [f"    if dest & {8 >> c}:",
               f"        p = mul(a[{c}], b[{c}])",
               f"        if p > 0xFFFFFFFF or old & {k['O']}:",
               f"            r = macc(acc[{c}], p, old & {k['O']}, neg)",
               "        else:",
               f"            r = add(acc[{c}], p ^ neg)"]
        ma.append(_LANE_FLAGS.format(**k).rstrip("\n"))
    return "\n".join(op) + _STATUS + "\n" + "\n".join(ma) + _STATUS



@functools.lru_cache(maxsize=None)
def _fmac_code():
    """_gen_fmac_helpers() compiled once per process: compiling it was 1.0 of the 1.7 ms a Machine()
    took. Each make_helpers call still executes it into a fresh namespace bound to its own model."""
    return compile(_gen_fmac_helpers(), "<string>", "exec")


def make_helpers(fm: eefloat.FloatModel) -> dict:
    """The vu_* helpers for one float model (flags kept only under hw)."""
    flags = fm.flags
    OVF, UNF = eefloat.OVF, eefloat.UNF

    add, mul, macc = fm.add, fm.mul, eefloat.macc

    if flags:
        # vu_op and vu_madd are generated with the four lanes unrolled (they run for every VU0
        # FMAC instruction); each lane applies the MAC rules of §3.10 with its own bit constants.
        g = {"mul": mul, "add": add, "macc": macc, "OVF": OVF, "UNF": UNF}
        exec(_fmac_code(), g)
        vu_op, vu_madd = g["vu_op"], g["vu_madd"]

        def vu_fdiv(S, r):
            """Q := r; status I and D replaced by the FDIV flags and ORed into IS and DS."""
            S.q = r & M32
            st = S.status & ~0x30
            if r & eefloat.INV:
                st |= 0x410
            if r & eefloat.DIVZ:
                st |= 0x820
            S.status = st
    else:
        def vu_op(_S, f, dst, a, b, dest):
            for c, bit in _LANES:
                if dest & bit:
                    dst[c] = f(a[c], b[c])

        def vu_madd(S, neg, dst, a, b, dest, _latch):
            acc = S.vacc
            for c, bit in _LANES:
                if dest & bit:
                    dst[c] = add(acc[c], mul(a[c], b[c]) ^ neg)

        def vu_fdiv(S, r):
            S.q = r & M32

    def vu_sel(f, dst, a, b, dest):
        """dst.c := f(a.c, b.c) with no flags (VMAX, VMINI)."""
        for c, bit in _LANES:
            if dest & bit:
                dst[c] = f(a[c], b[c])

    def vu_map(f, dst, a, dest, n):
        """dst.c := f(a.c, n) with no flags (VITOFn, VFTOIn)."""
        for c, bit in _LANES:
            if dest & bit:
                dst[c] = f(a[c], n)

    def vu_set(dst, vals, dest):
        for c, bit in _LANES:
            if dest & bit:
                dst[c] = vals[c]

    def vu_clip(S, a, w):
        """VCLIPw.xyz (§3.10): six judgement bits against |w| (0x007FFFFF when E(w) = 0)."""
        W = w & 0x7FFFFFFF if w & 0x7F800000 else 0x007FFFFF
        bits = 0
        for c in range(3):
            v = a[c]
            if v < SIGN:
                if v > W:
                    bits |= 1 << (2 * c)
            elif v ^ SIGN > W:
                bits |= 2 << (2 * c)
        S.clip = ((S.clip << 6) | bits) & 0xFFFFFF

    return dict(vu_op=vu_op, vu_madd=vu_madd, vu_fdiv=vu_fdiv, vu_sel=vu_sel, vu_map=vu_map,
                vu_set=vu_set, vu_clip=vu_clip)


def make_control(machine) -> dict:
    """CFC2/CTC2 (r5900.md §8.4): the control registers vi16-vi31 and VI1-VI15."""
    VI = machine.VI
    # vi24 lives in the machine's scalar state (S.vi24), shared with the native engine's ee_state.
    machine.S.vi24 = 0

    def vu_cfc2(S, n):
        if n < 16:
            return VI[n] if n else 0
        if n == 16:
            return S.status
        if n == 17:
            return S.mac
        if n == 18:
            return S.clip
        if n == 19:
            return 0x2E30              # reserved: reads a constant [HW]
        if n == 20:
            return S.r & 0x7FFFFF
        if n == 21:
            return S.i
        if n == 22:
            return S.q
        if n == 24:
            return S.vi24
        if n == 27:
            return S.cmsar0
        # 23, 25 reserved; 26 TPC, 28 FBRST, 29 VPU-STAT, 30: read 0 without micro mode (DECISION)
        return 0

    def vu_ctc2(S, n, v):
        if n < 16:
            if n:
                VI[n] = v & 0xFFFF
        elif n == 16:
            S.status = (S.status & 0x3F) | (v & 0xFC0)
        elif n == 18:
            S.clip = v & 0xFFFFFF
        elif n == 20:
            S.r = 0x3F800000 | (v & 0x7FFFFF)
        elif n == 21:
            S.i = v
        elif n == 22:
            S.q = v
        elif n == 24:
            S.vi24 = v & 0x0C0C   # DECISION: keeps the bits hardware read back (0x0C0C)
        elif n == 27:
            S.cmsar0 = v & 0xFFFF
        elif n == 31:
            # DECISION: a write starts a VU1 micro program (r5900.md §8.4): out of scope, stop.
            machine_fault("CTC2 to CMSAR1 (vi31) starts a VU1 micro program: not supported "
                          f"(value 0x{v:08x})")
        # 17 MAC, 19, 23, 25 reserved, 26 TPC, 29 VPU-STAT: read-only; 28 FBRST: DECISION ignored
        # (no micro program can be running or stopped), 30: ignored.

    def machine_fault(msg):
        from eemu_ext.errors import MachineError
        raise MachineError(msg)

    return dict(vu_cfc2=vu_cfc2, vu_ctc2=vu_ctc2)


def namespace(machine) -> dict:
    """Lane helpers and model functions for VU0 sem code, chosen by ``machine.float_model``."""
    fm = float_model_of(machine)
    ns = make_helpers(fm)
    ns.update(make_control(machine))
    ns.update({
        "f_add": fm.add, "f_sub": fm.sub, "f_mul": fm.mul, "f_madd": fm.madd, "f_msub": fm.msub,
        "f_max": fm.fmax, "f_min": fm.fmin, "f_itof": fm.itof, "f_ftoi": fm.ftoi,
        "f_vdiv": fm.vdiv, "f_vsqrt": fm.vsqrt, "f_vrsqrt": fm.vrsqrt,
        "VJUNK": [0, 0, 0, 0], "VU0_MEM": VU0_MEM,
    })
    return ns


# --- data flow (eemu_ext/analysis/dataflow.py) -------------------------------------------------------------
# The lane helpers that take the state, summarised in the sem language (what they read and write;
# values are not modelled). The hw model's flags are the superset: under trunc MAC/STATUS stay.
_EACH_LANE = "for _c in range(4):\n    if dest & (8 >> _c):\n        "
_FLAGS = "S.mac = 0\nS.status = S.status\n"
EFFECTS = {
    "vu_op": ("S, f, dst, a, b, dest", _EACH_LANE + "dst[_c] = f(a[_c], b[_c])\n" + _FLAGS),
    "vu_madd": ("S, neg, dst, a, b, dest, latch",
                "old = S.mac if latch else 0\n" + _EACH_LANE
                + "dst[_c] = f(S.vacc[_c], a[_c], b[_c], old)\n" + _FLAGS),
    "vu_fdiv": ("S, r", "S.q = r\nS.status = S.status | r\n"),
    "vu_sel": ("f, dst, a, b, dest", _EACH_LANE + "dst[_c] = f(a[_c], b[_c])\n"),
    "vu_map": ("f, dst, a, dest, n", _EACH_LANE + "dst[_c] = f(a[_c], n)\n"),
    "vu_set": ("dst, vals, dest", _EACH_LANE + "dst[_c] = vals[_c]\n"),
    "vu_clip": ("S, a, w", "S.clip = (S.clip << 6) | a[0] | a[1] | a[2] | w\n"),
    "vu_cfc2": ("S, n", "if n < 16:\n    return VI[n]\n" + "".join(
        f"if n == {k}:\n    return S.{a}\n" for k, a in ((16, "status"), (17, "mac"), (18, "clip"), (20, "r"),
                                                     (21, "i"), (22, "q"), (24, "vi24"), (27, "cmsar0")))),
    "vu_ctc2": ("S, n, v", "if n < 16:\n    VI[n] = v\nelif n == 16:\n    S.status = S.status | v\n"
                "elif n == 18:\n    S.clip = v\nelif n == 20:\n    S.r = v\nelif n == 21:\n    S.i = v\n"
                "elif n == 22:\n    S.q = v\nelif n == 24:\n    S.vi24 = v\nelif n == 27:\n    S.cmsar0 = v\n"),
}


# Words where our decoding intentionally differs from rabbitizer's (tests/machine/test_decode_rabbitizer.py):
DECODE_DIFFERENCES = [
    # VSQRT with fsf != 0: GNU as emits fsf = 1 for `vsqrt $Q,$vf2z`; the hardware ignores fs/fsf
    # for VSQRT, rabbitizer rejects the word. We accept it (fs must still be 0).
    (M_SP2 | M_FS | (3 << 21), _sp2(0x39) | (k << 21), "vsqrt: fsf ignored (GNU as sets it)")
    for k in (1, 2, 3)
]
