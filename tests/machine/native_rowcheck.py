"""Unit check of compiled row semantics (``Row.c``) against the Python engine, one row at a time.

For a row with ``c``, ``check_rows(rows, model)`` picks a few random valid encodings, turns each
into one C function (its field tokens substituted, as the native engine does, wrapped in the names
of eemu_ext/native/csrc/ee.h: ``#define R (st->R)`` ... ``#define S (*st)`` and LD*/ST* macros on
``st->ram``), and runs it on an ``ee_state`` while ``Machine.step()`` runs the same word in the
Python engine, both from the same random register, FPU, VU0 and memory state. It compares every
GPR (both halves), HI/LO, FPR, VF, VI, every scalar of ``m.S`` the state struct carries (FCR31,
ACC, its overflow latch ...), the memory window the row may touch, and for control-flow rows the
next pc (``cond``/``tgt`` as the engine would use them, with the link register).

The C loads and stores serve RAM addresses below 32 MiB that are aligned; any other access leaves
the function, as a native block hands such an instruction back to the Python engine. Such a trial
checks ee.h's rule instead: nothing (register, scalar or memory) may have changed before the exit.

Generic: rows of any module (integer, COP1, VU0, MMI) go through the same path. Every random
choice derives from the seed string and the row.
"""
from __future__ import annotations

import ctypes
import mmap
import random
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from eemu_ext import Machine, eefloat
from eemu_ext.engine import FIELD_TOKENS
from eemu_ext.errors import EmulationError
from eemu_ext.isa.row import Row, fields_of
from eemu_ext.native import build
from eemu_ext.testing import put_words
from tests.machine.test_float_crosscheck import operand

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
RAM_SIZE = 0x02000000
CODE = 0x00080000                 # one encoding per 8 bytes (the word and a NOP delay slot)
WINDOW = 0x00100000               # the memory rows' addresses fall in [WINDOW, WINDOW + WINDOW_SIZE)
WINDOW_SIZE = 0x1000
MIRROR = 0x80000000               # KSEG0: mapped by the Python engine, not by the C fast path
LOG_CAP = 64

u8, u32, u64, i32, vp = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_void_p


class EEState(ctypes.Structure):
    """ee.h's ``ee_state``; check_layout() compares it with the C compiler's layout."""
    _fields_ = [
        ("R", u64 * 32), ("RH", u64 * 32), ("HI", u64 * 2), ("LO", u64 * 2), ("F", u32 * 32),
        ("VF", (u32 * 4) * 32), ("VI", u32 * 16), ("VJUNK", u32 * 4),
        ("acc_ovf", u64),
        ("sa", u32), ("fcr31", u32), ("acc", u32), ("vacc", u32 * 4), ("q", u32), ("i", u32),
        ("r", u32), ("mac", u32), ("status", u32), ("clip", u32), ("cop0", u32 * 32),
        ("cmsar0", u32), ("cpcond0", u32), ("vi24", u32),
        ("ram", vp), ("spr", vp), ("vu0", vp),
        ("data_floor", u32), ("pc", u32), ("steps", u64), ("limit", u64), ("why", i32),
        ("log_on", i32), ("log_n", i32), ("log_cap", i32),
        ("log_addr", vp), ("log_size", vp), ("log_old", vp), ("log_new", vp),
        ("prev", u32), ("annulled", i32), ("bcount", vp), ("dirty", vp),
    ]


# scalar -> (lanes or 0 for a plain value, random generator); m.S carries most of them
SCALARS = ("acc_ovf", "sa", "fcr31", "acc", "vacc", "q", "i", "r", "mac", "status", "clip", "cop0",
           "cmsar0", "cpcond0", "vi24")
ARRAYS = ("R", "RH", "HI", "LO", "F", "VF", "VI")
ENGINE_PRIVATE = ("VJUNK", "ram", "spr", "vu0", "data_floor", "pc", "steps", "limit", "why",
                  "log_on", "log_n", "log_cap", "log_addr", "log_size", "log_old", "log_new", "prev", "annulled",
                  "bcount", "dirty")

_MEM_RE = re.compile(r"\b(?:(?:ld|st)(?:8|16|32|64|128)\s*\(|MV(?:8|16|32|64)\[)")

WRAPPER_INCLUDES = r"""
#include "ee.h"
#include "model.h"
#include <stddef.h>
"""

WRAPPER_HEAD = r"""
#define R (st->R)
#define RH (st->RH)
#define HI (st->HI)
#define LO (st->LO)
#define F (st->F)
#define VF (st->VF)
#define VI (st->VI)
#define VJUNK (st->VJUNK)
#define S (*st)
#define RC_RAM 0x02000000ULL

static void rc_log(ee_state *st, uint64_t a, int n)
{
    if (st->log_n < st->log_cap) {
        st->log_addr[st->log_n] = (uint32_t)a;
        st->log_size[st->log_n] = (uint8_t)n;
    }
    st->log_n++;
}

/* served: an aligned RAM address below 32 MiB; anything else leaves the function (rc_exit) */
#define RC_LD(a, n, T) ({ uint64_t _la = (uint64_t)(a); \
    if (_la > RC_RAM - (n) || (_la & ((n) - 1))) goto rc_exit; \
    T _lv; memcpy(&_lv, st->ram + _la, (n)); _lv; })
#define RC_ST(a, v, n, T) ({ uint64_t _sa = (uint64_t)(a); \
    if (_sa > RC_RAM - (n) || (_sa & ((n) - 1))) goto rc_exit; \
    T _sv = (T)(v); memcpy(st->ram + _sa, &_sv, (n)); rc_log(st, _sa, (n)); (void)0; })
#define LD8(a)  ((uint64_t)RC_LD(a, 1, uint8_t))
#define LD16(a) ((uint64_t)RC_LD(a, 2, uint16_t))
#define LD32(a) ((uint64_t)RC_LD(a, 4, uint32_t))
#define LD64(a) ((uint64_t)RC_LD(a, 8, uint64_t))
#define LD128(a) RC_LD(a, 16, u128)
#define ST8(a, v)   RC_ST(a, v, 1, uint8_t)
#define ST16(a, v)  RC_ST(a, v, 2, uint16_t)
#define ST32(a, v)  RC_ST(a, v, 4, uint32_t)
#define ST64(a, v)  RC_ST(a, v, 8, uint64_t)
#define ST128(a, v) RC_ST(a, v, 16, u128)
"""


# A whole-word field token not preceded by '.' or '->' (ee.h's rule); C comments and string or
# character literals are matched first and kept as they are.
_C_TOKEN_RE = re.compile(r"(/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')"
                         r"|(?<![.\w])(?<!->)\b(" + "|".join(sorted(FIELD_TOKENS)) + r")\b", re.S)


def c_source(row: Row, word: int, pc: int) -> str:
    """The row's c with the encoding's field values in place of its field tokens."""
    if not row.c.strip():
        raise ValueError(f"row {row.mnemonic} has no compiled semantics (c)")
    f = fields_of(word, pc)

    def value(mo):
        if mo.group(1) is not None:
            return mo.group(1)
        v = f[mo.group(2)]
        return str(v) if v >= 0 else f"({v})"
    return _C_TOKEN_RE.sub(value, row.c)


def wrapper(k: int, row: Row, word: int, pc: int) -> str:
    """``int rc_k(ee_state *st, int *cond, uint32_t *tgt)``: 0 when the row completed, 1 when it
    left through rc_exit (a load or store the fast path does not serve)."""
    f = fields_of(word, pc)
    body = c_source(row, word, pc)
    tail = []
    for w in row.gpr_writes:                 # the engine's r0 rule (engine.BlockCompiler._insn)
        if (int(w) if w.isdigit() else f[w]) == 0:
            tail.append("R[0] = 0; RH[0] = 0;")
            break
    if row.link:                             # the engine's link write (engine._flow)
        reg = 31 if row.link.isdigit() else f[row.link]
        if reg:
            tail.append(f"R[{reg}] = SX32({(pc + 8) & M32:#x}U);")
    return (f"/* {row.mnemonic} {word:#010x} at {pc:#x} */\n"
            f"int rc_{k}(ee_state *st, int *cond_out, uint32_t *tgt_out)\n{{\n"
            f"    int cond = 0; uint32_t tgt = 0;\n"
            f"    {{\n{body}\n    }}\n    " + "\n    ".join(tail) + "\n"
            f"    *cond_out = cond; *tgt_out = tgt;\n    return 0;\nrc_exit:\n    return 1;\n}}\n")


_LAYOUT_FIELDS = [n for n, _ in EEState._fields_]


def layout_source() -> str:
    lines = ["uint64_t rc_layout(int k) {"]
    for i, n in enumerate(_LAYOUT_FIELDS):
        lines.append(f"    if (k == {i}) return offsetof(ee_state, {n});")
    lines.append("    return sizeof(ee_state);\n}")
    return "\n".join(lines) + "\n"


@dataclass
class Instance:
    row: Row
    word: int
    pc: int
    fn: object


@dataclass
class Report:
    """What check_rows compared: per row, trials compared and trials handed back; mismatches."""
    compared: Dict[str, int] = field(default_factory=dict)
    handed_back: Dict[str, int] = field(default_factory=dict)
    mismatches: List[str] = field(default_factory=list)

    def total(self) -> int:
        return sum(self.compared.values())


def encodings(row: Row, decoder, rng: random.Random, n: int) -> List[int]:
    """n random words that decode to this row (memory rows get a nonzero base register)."""
    out = []
    ids = [i for i, r in enumerate(decoder.rows)
           if (r.mnemonic, r.mask, r.match) == (row.mnemonic, row.mask, row.match)]
    if not ids:
        raise ValueError(f"row {row.mnemonic} ({row.mask:#x}/{row.match:#x}) is not in the decoder's table")
    rid = ids[0]
    mem = bool(_MEM_RE.search(row.sem))
    for _ in range(n * 200):
        w = (rng.getrandbits(32) & ~row.mask) | row.match
        if mem and not (w >> 21) & 31:
            continue
        if decoder.decode(w) == rid:
            out.append(w)
            if len(out) == n:
                return out
    raise ValueError(f"row {row.mnemonic}: no random encoding decodes to it (mask {row.mask:#x})")


_PATTERNS: List[int] = []


def patterns() -> List[int]:
    """4,096 edge-biased float patterns (the cross-check's generator, fixed seed); states draw
    their FPR, ACC and VF values from here, which is much cheaper than one generator call each."""
    if not _PATTERNS:
        rng = random.Random("rowcheck-patterns")
        _PATTERNS.extend(operand(rng) for _ in range(4096))
    return _PATTERNS


def random_state(rng: random.Random, model: str) -> dict:
    """A random machine state: GPRs, HI/LO, FPRs (edge-biased patterns), VU0 and scalars."""
    def gpr():
        r = rng.random()
        if r < 0.3:
            v = rng.getrandbits(32)
            return v | 0xFFFFFFFF00000000 if v & 0x80000000 else v
        if r < 0.4:
            return rng.choice((0, 1, M64, 0x80000000, 0x7FFFFFFF))
        return rng.getrandbits(64)
    fl = rng.choices(patterns(), k=32 + 124 + 7)
    R = [0] + [gpr() for _ in range(31)]
    RH = [0] + [rng.getrandbits(64) for _ in range(31)]
    fcr_mask = eefloat.FCR_WRITABLE if model == "hw" else eefloat.FCR_C
    S = {
        "acc_ovf": eefloat.OVF if model == "hw" and rng.random() < 0.1 else 0,
        "sa": rng.getrandbits(4), "fcr31": (rng.getrandbits(32) & fcr_mask) | eefloat.FCR_FIXED,
        "acc": fl[156], "vacc": fl[157:161], "q": fl[161], "i": fl[162],
        "r": 0x3F800000 | rng.getrandbits(23), "mac": rng.getrandbits(16),
        "status": rng.getrandbits(12), "clip": rng.getrandbits(24),
        "cop0": [rng.getrandbits(32) for _ in range(32)], "cmsar0": rng.getrandbits(16),
        "cpcond0": rng.getrandbits(1), "vi24": rng.getrandbits(16),
    }
    VF = [[0, 0, 0, 0x3F800000]] + [fl[32 + 4 * k:36 + 4 * k] for k in range(31)]
    return {"R": R, "RH": RH, "HI": [rng.getrandbits(64) for _ in range(2)],
            "LO": [rng.getrandbits(64) for _ in range(2)], "F": fl[:32],
            "VF": VF, "VI": [0] + [rng.getrandbits(16) for _ in range(15)], "S": S,
            "mem": rng.randbytes(WINDOW_SIZE)}


def aim_memory(state: dict, row: Row, word: int, rng: random.Random) -> None:
    """For a row that loads or stores: R[rs] so that R[rs] + imm lands in the window (mostly
    aligned to 16; sometimes unaligned, sometimes through a mirror the C path does not serve)."""
    f = fields_of(word)
    rs = f["rs"]
    if not rs or not _MEM_RE.search(row.sem):
        return
    r = rng.random()
    addr = WINDOW + (rng.randrange(0, WINDOW_SIZE - 16) & ~15)
    if r < 0.1:
        addr += rng.randrange(1, 16)
    elif r < 0.15:
        addr |= MIRROR
    state["R"][rs] = (rng.getrandbits(32) << 32) | ((addr - f["imm"]) & M32)


class RowChecker:
    """Compiles and runs rows' c against Machine.step(); one per float model."""

    def __init__(self, model: str = "hw"):
        if build.compiler() is None:
            raise build.NativeUnavailable("no host C compiler (cc or gcc) on PATH")
        self.model = model
        self.m = Machine(float_model=model)
        self.py_scalars = [s for s in SCALARS if hasattr(self.m.S, s)]
        self.c_only = [s for s in SCALARS if s not in self.py_scalars]
        self.ram = mmap.mmap(-1, RAM_SIZE)
        self._ram_c = ctypes.c_char.from_buffer(self.ram)
        self.st = EEState()
        self.log_addr = (u32 * LOG_CAP)()
        self.log_size = (u8 * LOG_CAP)()
        self.st.ram = ctypes.addressof(self._ram_c)
        self.st.log_addr = ctypes.addressof(self.log_addr)
        self.st.log_size = ctypes.addressof(self.log_size)
        self.st.log_cap = LOG_CAP
        self.st.log_on = 1

    # ------------------------------------------------------------------ building
    def compile(self, rows: Sequence[Row], seed: str, per_row: int, patch=None) -> List[Instance]:
        """One C function per (row, random encoding), all in one library. ``patch(row, c)`` may
        rewrite a row's C text (tests plant faults with it)."""
        insts: List[Tuple[Row, int, int]] = []
        for row in rows:
            rng = random.Random(f"{seed}:enc:{row.mnemonic}:{row.match:#x}")
            for w in encodings(row, self.m.decoder, rng, per_row):
                insts.append((row, w, CODE + 8 * len(insts)))
        flag = "EE_MODEL_HW" if self.model == "hw" else "EE_MODEL_TRUNC"
        parts = [f"#define {flag} 1", WRAPPER_INCLUDES, layout_source(), WRAPPER_HEAD]
        for k, (row, w, pc) in enumerate(insts):
            if patch is not None:
                row = _with_c(row, patch(row, row.c))
            parts.append(wrapper(k, row, w, pc))
        srcs = {"ee.h": build.csrc("ee.h"), "model.h": build.csrc("model.h"),
                "eefloat.h": build.csrc("eefloat.h"), "rowcheck.c": "\n".join(parts)}
        lib = build.shared_library(f"rowcheck-{self.model}", srcs)
        self._check_layout(lib)
        words = []
        for _, w, _ in insts:
            words += [w, 0]
        put_words(self.m, CODE, words)
        out = []
        for k, (row, w, pc) in enumerate(insts):
            fn = getattr(lib, f"rc_{k}")
            fn.argtypes = [ctypes.POINTER(EEState), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(u32)]
            fn.restype = ctypes.c_int
            out.append(Instance(row, w, pc, fn))
        return out

    def _check_layout(self, lib) -> None:
        lib.rc_layout.restype = u64
        lib.rc_layout.argtypes = [ctypes.c_int]
        for i, n in enumerate(_LAYOUT_FIELDS):
            want = getattr(EEState, n).offset
            got = lib.rc_layout(i)
            if got != want:
                raise AssertionError(f"ee.h's ee_state.{n} is at offset {got}, the checker's copy "
                                     f"(tests/machine/native_rowcheck.py EEState) has {want}")
        if lib.rc_layout(len(_LAYOUT_FIELDS)) != ctypes.sizeof(EEState):
            raise AssertionError("ee.h's ee_state size differs from native_rowcheck.EEState")

    # ------------------------------------------------------------------ state transfer
    def _load(self, state: dict) -> None:
        m, st = self.m, self.st
        for name in ARRAYS:
            src = state[name]
            dst = getattr(m, name)
            if name == "VF":
                for i, v in enumerate(src):
                    dst[i][:] = v
                    st.VF[i][:] = v
            else:
                dst[:] = src
                getattr(st, name)[:] = src
        for s in SCALARS:
            v = state["S"][s]
            if s in self.py_scalars:
                cur = getattr(m.S, s)
                if isinstance(cur, list):
                    cur[:] = v
                else:
                    setattr(m.S, s, v)
            if isinstance(v, list):
                getattr(st, s)[:] = v
            else:
                setattr(st, s, v)
        m.write(WINDOW, state["mem"])
        self.ram[WINDOW:WINDOW + WINDOW_SIZE] = state["mem"]
        st.log_n = 0

    def _c_snapshot(self) -> dict:
        st = self.st
        snap = {n: [list(v) for v in st.VF] if n == "VF" else list(getattr(st, n)) for n in ARRAYS}
        for s in SCALARS:
            v = getattr(st, s)
            snap[s] = list(v) if not isinstance(v, int) else v
        snap["mem"] = bytes(self.ram[WINDOW:WINDOW + WINDOW_SIZE])
        return snap

    def _py_snapshot(self) -> dict:
        m = self.m
        snap = {n: [list(v) for v in m.VF] if n == "VF" else list(getattr(m, n)) for n in ARRAYS}
        for s in self.py_scalars:
            v = getattr(m.S, s)
            snap[s] = list(v) if isinstance(v, list) else v
        snap["mem"] = m.read(WINDOW, WINDOW_SIZE)
        return snap

    # ------------------------------------------------------------------ one trial
    def trial(self, inst: Instance, state: dict) -> Tuple[str, List[str]]:
        """Run one instance from state in both engines: ('compared' | 'handed_back', diffs)."""
        self._load(state)
        before = self._c_snapshot()
        cond, tgt = ctypes.c_int(0), u32(0)
        left = inst.fn(ctypes.byref(self.st), ctypes.byref(cond), ctypes.byref(tgt))
        c = self._c_snapshot()
        if left:
            diffs = [f"{k} changed before the unserved access" for k in before if c[k] != before[k]]
            return "handed_back", diffs
        m = self.m
        m.pc = inst.pc
        try:
            npc = m.step()
        except EmulationError as e:
            return "compared", [f"the Python engine raised ({type(e).__name__}: {e}); C completed"]
        py = self._py_snapshot()
        diffs = []
        for k in py:
            if k == "mem":
                if py[k] != c[k]:
                    off = next(i for i in range(WINDOW_SIZE) if py[k][i] != c[k][i])
                    diffs.append(f"memory at {WINDOW + off:#x}: python {py[k][off]:#04x} C {c[k][off]:#04x}")
            elif py[k] != c[k]:
                diffs.append(_diff(k, before[k], py[k], c[k]))
        for s in self.c_only:
            if c[s] != before[s]:
                diffs.append(f"C wrote {s} ({before[s]!r} -> {c[s]!r}), which m.S does not carry")
        for j in range(min(self.st.log_n, LOG_CAP)):
            a = self.log_addr[j]
            if not WINDOW <= a < WINDOW + WINDOW_SIZE:
                diffs.append(f"C stored {self.log_size[j]} bytes at {a:#x}, outside the window")
        want_npc = _next_pc(inst, cond.value, tgt.value)
        if want_npc is not None and want_npc != npc:
            diffs.append(f"next pc: python {npc:#x}, C {want_npc:#x} (cond={cond.value}, tgt={tgt.value:#x})")
        return "compared", diffs

    def check(self, rows: Sequence[Row], seed: str, per_row: int = 4, trials: int = 50,
              patch=None, limit: int = 20) -> Report:
        """Every row in rows: per_row encodings x trials random states, both engines."""
        rep = Report()
        for row in rows:
            if row.flow == "stop":
                raise ValueError(f"row {row.mnemonic}: flow 'stop' rows are not checked one by one")
        for inst in self.compile(rows, seed, per_row, patch):
            name = inst.row.mnemonic
            rep.compared.setdefault(name, 0)
            rep.handed_back.setdefault(name, 0)
            rng = random.Random(f"{seed}:state:{name}:{inst.word:#x}")
            for t in range(trials):
                state = random_state(rng, self.model)
                aim_memory(state, inst.row, inst.word, rng)
                kind, diffs = self.trial(inst, state)
                if kind == "compared":
                    rep.compared[name] += 1
                else:
                    rep.handed_back[name] += 1
                if diffs and len(rep.mismatches) < limit:
                    rep.mismatches.append(
                        f"{name} {inst.word:#010x} ({self.m.decoder.disasm(inst.word, inst.pc)}) "
                        f"at {inst.pc:#x}, {kind}, trial {t}: " + "; ".join(diffs[:4]))
        return rep


def _diff(name: str, before, py, c) -> str:
    if isinstance(py, list):
        for i, (b, p, q) in enumerate(zip(before, py, c)):
            if p != q:
                return f"{name}[{i}]: before {_h(b)} python {_h(p)} C {_h(q)}"
    return f"{name}: before {_h(before)} python {_h(py)} C {_h(c)}"


def _h(v) -> str:
    return "[" + ", ".join(_h(x) for x in v) + "]" if isinstance(v, list) else hex(v)


def _next_pc(inst: Instance, cond: int, tgt: int) -> Optional[int]:
    """The pc the engine continues at after a flow row (None for straight-line rows)."""
    f = fields_of(inst.word, inst.pc)
    flow = inst.row.flow
    if flow in ("branch", "likely"):
        return f["btarget"] if cond else (inst.pc + 8) & M32
    if flow == "jump":
        return f["jtarget"]
    if flow == "jump_reg":
        return tgt
    return None


def _with_c(row: Row, c: str) -> Row:
    import dataclasses
    return dataclasses.replace(row, c=c)
