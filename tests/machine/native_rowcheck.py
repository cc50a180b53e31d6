"""One row's compiled semantics (``Row.c``) against its Python ``sem``, bit for bit, on random state.

For every case (a row, one of its encodings, one random machine state) the row's C, with the
encoding's field tokens substituted by value (whole-word tokens not preceded by '.' or '->', as
ee.h states; C comments and string or character literals are left as they are), runs as its own C
function on a ctypes ``ee_state``, and the Python engine runs the same word through
``Machine.step()``. Then everything is compared as raw integers: R, RH, HI, LO, F, VF (VF0
included), VI, every scalar of ee_state (FCR31, ACC, its overflow latch, Q, I, R, MAC, status,
CLIP ...), a 64 KiB window of RAM, VU0 memory, the addresses the C stored to, and for control-flow
rows the next pc (``cond``/``tgt`` as the engine uses them).

The C side is built as block code will be: the csrc headers first, then ``#define R (st->R)`` ...
``#define S (*st)``, then one function per encoding; after the row's C come the engine's r0 rule
(a written GPR field that is 0 restores R[0] = RH[0] = 0) and its link write.

Memory: the LD*/ST* macros here serve aligned RAM addresses below 32 MiB and VU0 memory
(0x11004000-0x11007FFF, wrapping at 4 KiB); any other address, or a misaligned one, leaves the
function (returns 1) the way a native block exits to the Python engine. Such a case is an *exit*:
it passes when the C left the whole state and memory exactly as it found them (ee.h: no state
written before a load or store that can fail), whatever Python then did with the access. Rows
whose operands include ``mem`` get their base register aimed into the RAM window most of the time.

Generic: rows of any module (integer, COP1, VU0, MMI) go through the same path; every random
choice derives from (seed, model, mnemonic).
"""
from __future__ import annotations

import ctypes
import mmap
import random
import re
import struct
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import pytest

from eemu_ext import Machine, eefloat
from eemu_ext.engines.engine import FIELD_TOKENS
from eemu_ext.errors import EmulationError
from eemu_ext.isa.row import Row, fields_of
from eemu_ext.engines.native import build, state
from tests.machine.test_float_crosscheck import operand, partner

if build.compiler() is None:
    pytest.skip("no host C compiler (cc or gcc): compiled row semantics cannot be built",
                allow_module_level=True)

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
RAM_SIZE = 0x02000000            # RAM the C side serves: aligned addresses below 32 MiB
WINDOW = 0x10000                 # RAM randomised and compared: [0, WINDOW)
CODE = 0x00080000                # where the Python engine runs the word (outside the window)
VU0_BASE = 0x11004000            # VU0 memory, mapped at [VU0_BASE, VU0_BASE + 4 * VU0_SIZE)
VU0_SIZE = 0x1000
LOG_CAP = 64                     # stores the C side records per case

u8 = ctypes.c_uint8
EEState = state.EeState


# Python machine scalars (m.S.<name>) mirrored in ee_state; lists are compared element-wise.
SCALARS = tuple(state.names("acc_ovf", "vi24"))
ARRAYS = tuple(n for n in state.names("R", "VI") if n != "VF")     # and VF, 32 x 4 lanes

# A whole-word field token not preceded by '.' or '->' (ee.h's rule); C comments and string or
# character literals are matched first and kept as they are.
_TOKEN_RE = re.compile(r"(/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')"
                       r"|(?<![.\w])(?<!->)\b(" + "|".join(sorted(FIELD_TOKENS)) + r")\b", re.S)


def substitute_c(c: str, fields: Dict[str, int]) -> str:
    """The row's C with every field token replaced by its value (negative values parenthesised)."""
    def one(mo):
        if mo.group(1) is not None:
            return mo.group(1)
        v = fields[mo.group(2)]
        return str(v) if v >= 0 else f"({v})"
    return _TOKEN_RE.sub(one, c)


_INCLUDES = r"""
#include "ee.h"
#include "model.h"
#include "vu0.h"
#include "mmi.h"
#include <stddef.h>
"""

_MACROS = r"""
/* block code's names for the state (ee.h) */
#define R (st->R)
#define RH (st->RH)
#define HI (st->HI)
#define LO (st->LO)
#define F (st->F)
#define VF (st->VF)
#define VI (st->VI)
#define VJUNK (st->VJUNK)
#define S (*st)

/* memory: aligned RAM below RC_RAM and VU0 memory; anything else leaves the row (returns 1) */
static inline uint8_t *rc_ptr(ee_state *st, uint32_t a, uint32_t n)
{
    if (a & (n - 1))
        return 0;
    if (a < RC_RAM && a + n <= RC_RAM)
        return st->ram + a;
    if (a >= 0x11004000U && a < 0x11008000U)
        return st->vu0 + (a & 0xFFFU);
    return 0;
}

static void rc_log(ee_state *st, uint32_t a, uint32_t n)
{
    if (st->log_n < st->log_cap) {
        st->log_addr[st->log_n] = a;
        st->log_size[st->log_n] = (uint8_t)n;
    }
    st->log_n++;
}

#define RC_LD(T, a) ({ uint8_t *p_ld_ = rc_ptr(st, (uint32_t)(a), sizeof(T)); T v_ld_;           \
                       if (!p_ld_) return 1; memcpy(&v_ld_, p_ld_, sizeof(T)); v_ld_; })
#define RC_ST(T, a, v) do { uint32_t a_st_ = (uint32_t)(a); uint8_t *p_st_ = rc_ptr(st, a_st_, sizeof(T)); \
                            T v_st_ = (T)(v); if (!p_st_) return 1;                              \
                            memcpy(p_st_, &v_st_, sizeof(T)); rc_log(st, a_st_, sizeof(T)); } while (0)
#define LD8(a) ((uint64_t)RC_LD(uint8_t, a))
#define LD16(a) ((uint64_t)RC_LD(uint16_t, a))
#define LD32(a) ((uint64_t)RC_LD(uint32_t, a))
#define LD64(a) ((uint64_t)RC_LD(uint64_t, a))
#define LD128(a) RC_LD(u128, a)
#define ST8(a, v) RC_ST(uint8_t, a, v)
#define ST16(a, v) RC_ST(uint16_t, a, v)
#define ST32(a, v) RC_ST(uint32_t, a, v)
#define ST64(a, v) RC_ST(uint64_t, a, v)
#define ST128(a, v) RC_ST(u128, a, v)
#define TO_PYTHON return 1

typedef int (*rc_fn)(ee_state *st, int *cond_out, uint32_t *tgt_out);
"""


def layout_source() -> str:
    """``rc_offset(k)``: the compiler's offsetof the k-th field of ee_state (ee_state.h's table, -1
    past the end); ``rc_sizeof()``."""
    return ("long rc_offset(int k) { return k >= 0 && k < EE_STATE_NFIELDS ? ee_state_offsets[k] : -1; }\n"
            "long rc_sizeof(void) { return (long)sizeof(ee_state); }\n")


def case_function(name: str, row: Row, c: str, word: int, pc: int = CODE) -> str:
    """C source of one encoding's function: the row's C, then the r0 rule and the link write
    (engine.BlockCompiler's), then cond and tgt out. Returns 0 when the row completed, 1 when it
    left through an access the C side does not serve (or TO_PYTHON)."""
    f = fields_of(word, pc)
    body = substitute_c(c, f)
    tail = []
    for w in row.gpr_writes:
        if (int(w) if w.isdigit() else f[w]) == 0:
            tail.append("R[0] = 0; RH[0] = 0;")
            break
    if row.link:
        reg = 31 if row.link.isdigit() else f[row.link]
        if reg:
            tail.append(f"R[{reg}] = SX32({(pc + 8) & M32:#x}U);")
    return (f"/* {row.mnemonic} {word:#010x} at {pc:#x} */\n"
            f"static int {name}(ee_state *st, int *cond_out, uint32_t *tgt_out)\n{{\n"
            f"    int cond = 0; uint32_t tgt = 0;\n    {{\n{body}\n    }}\n    "
            + "\n    ".join(tail) + "\n"
            "    *cond_out = cond; *tgt_out = tgt; (void)cond; (void)tgt;\n    return 0;\n}\n")


def library_source(model: str, functions: Sequence[str]) -> Dict[str, str]:
    """{filename: text} of a check library: the csrc headers and one C file of case functions."""
    define = {"hw": "#define EE_MODEL_HW 1\n", "trunc": "#define EE_MODEL_TRUNC 1\n"}[model]
    n = len(functions)
    body = [define, f"#define RC_RAM 0x{RAM_SIZE:x}U\n", _INCLUDES, layout_source(), _MACROS]
    body += functions
    body.append("static const rc_fn rc_table[] = {" + ", ".join(f"rc_{k}" for k in range(n)) + "};\n")
    body.append(f"int rc_count(void) {{ return {n}; }}\n"
                "int rc_run(int k, ee_state *st, int *cond_out, uint32_t *tgt_out)\n"
                f"{{ return k >= 0 && k < {n} ? rc_table[k](st, cond_out, tgt_out) : -1; }}\n")
    src = build.runtime_headers()
    src["rows.c"] = "".join(body)
    return src


_LAYOUT_CHECKED = set()


def check_layout(lib) -> None:
    """The ctypes EeState must match the compiler's ee_state, field by field."""
    if id(lib) in _LAYOUT_CHECKED:
        return
    lib.rc_offset.restype = ctypes.c_long
    lib.rc_offset.argtypes = [ctypes.c_int]
    lib.rc_sizeof.restype = ctypes.c_long
    state.check_offsets(lib.rc_offset, lib.rc_sizeof(), "the row checker's library")
    _LAYOUT_CHECKED.add(id(lib))


# ---------------------------------------------------------------- random encodings and state

def random_word(row: Row, rng: random.Random, decoder, row_id: int, tries: int = 200,
                accept: Optional[Callable[[int], bool]] = None) -> int:
    """An encoding of ``row`` (one the decoder gives back to it, and ``accept`` if given) with
    register fields biased to 0 and to aliasing (rd = rs, fd = ft, ...)."""
    free = ~row.mask & M32
    for _ in range(tries):
        w = row.match | (rng.getrandbits(32) & free)
        for shift in (21, 16, 11, 6):
            if (free >> shift) & 31 != 31:
                continue
            r = rng.random()
            if r < 0.12:
                w &= ~(31 << shift)
            elif r < 0.3:
                other = rng.choice([s for s in (21, 16, 11, 6) if s != shift])
                w = (w & ~(31 << shift)) | (((w >> other) & 31) << shift)
        if decoder.decode(w) == row_id and (accept is None or accept(w)):
            return w
    raise AssertionError(f"row {row.mnemonic}: no random encoding decodes back to it")


def lane_value(rng: random.Random, prev: Optional[int]) -> int:
    """A float lane pattern, edge-biased; sometimes close in exponent to the previous lane."""
    if prev is not None and rng.random() < 0.3:
        return partner(rng, prev)
    return operand(rng)


def _u64(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.1:
        return rng.choice((0, M64, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF, 1, 0xFFFFFFFF80000000))
    if r < 0.3:
        return sum(rng.choice((0, 0x8000, 0xFFFF, 0x7FFF, 1, rng.getrandbits(16))) << (16 * k)
                   for k in range(4))
    return rng.getrandbits(64)


def _vi(rng: random.Random) -> int:
    return rng.choice((rng.randint(0, 255), rng.getrandbits(16), 0, 0xFFFF, 0x8000, 0x7FFF))


def _lanes(rng: random.Random, prev: Optional[int]) -> List[int]:
    out = []
    for _ in range(4):
        prev = lane_value(rng, prev)
        out.append(prev)
    return out


def base_state(rng: random.Random) -> dict:
    """A random value for every register (the registers a case does not name keep these)."""
    return {"R": [0] + [_u64(rng) for _ in range(31)], "RH": [0] + [_u64(rng) for _ in range(31)],
            "F": [operand(rng) for _ in range(32)],
            "VF": [[0, 0, 0, 0x3F800000]] + [_lanes(rng, None) for _ in range(31)],
            "VI": [0] + [_vi(rng) for _ in range(15)]}


def random_state(rng: random.Random, base: dict, word: int, model: str) -> dict:
    """A random machine state (every field of ee_state the rows can read or write): fresh values
    for the registers the word's register fields name (bits 25-21, 20-16, 15-11, 10-6, as GPR, VF,
    VI and FPR numbers), for HI/LO, every scalar and memory; ``base`` for the other registers.
    VF0, VI0 and r0 keep their fixed values. FCR31 and the ACC overflow latch take values the
    model can hold: under trunc only the condition bit of FCR31 moves and the latch stays clear."""
    regs = {(word >> sh) & 31 for sh in (21, 16, 11, 6)}
    R, RH, F = list(base["R"]), list(base["RH"]), list(base["F"])
    VF = [list(v) for v in base["VF"]]
    VI = list(base["VI"])
    prev = None
    for n in regs:
        if n:
            R[n], RH[n], F[n] = _u64(rng), _u64(rng), operand(rng)
            VF[n] = _lanes(rng, prev)
            prev = VF[n][rng.randrange(4)]
        if n & 15:
            VI[n & 15] = _vi(rng)
    hw = model == "hw"
    fcr_mask = eefloat.FCR_WRITABLE if hw else eefloat.FCR_C
    return {
        "R": R, "RH": RH, "HI": [_u64(rng), _u64(rng)], "LO": [_u64(rng), _u64(rng)],
        "F": F, "VF": VF, "VI": VI,
        "acc_ovf": eefloat.OVF if hw and rng.random() < 0.25 else 0, "sa": rng.randint(0, 15),
        "fcr31": eefloat.FCR_FIXED | (rng.getrandbits(32) & fcr_mask), "acc": operand(rng),
        "vacc": _lanes(rng, prev), "q": operand(rng), "i": operand(rng),
        "r": 0x3F800000 | rng.getrandbits(23),
        "mac": rng.choice((0, rng.getrandbits(16), rng.getrandbits(16) & 0x0FFF)),
        "status": rng.getrandbits(12), "clip": rng.getrandbits(24),
        "cop0": [rng.getrandbits(32) for _ in range(32)], "cmsar0": rng.getrandbits(16),
        "cpcond0": rng.randint(0, 1), "vi24": rng.getrandbits(16) & 0x0C0C,
        "ram": rng.randbytes(WINDOW), "vu0": rng.randbytes(VU0_SIZE),
    }


def aim_memory_operand(row: Row, word: int, st: dict, rng: random.Random) -> None:
    """For a row with a ``mem`` operand: base register aimed at an aligned RAM address in the window
    (70%), a misaligned one (10%), VU0 memory (5%), else at an address the C side does not serve
    (a KSEG0 mirror of the window, unmapped, the top of the address space): an exit. The upper 32
    bits of the base stay random."""
    if "mem" not in row.operands:
        return
    f = fields_of(word)
    rs = f["rs"]
    if rs == 0:
        return
    r = rng.random()
    if r < 0.8:
        target = rng.randrange(0, WINDOW - 16) & ~15
        if r >= 0.7:
            target += rng.randrange(1, 16)
    elif r < 0.85:
        target = VU0_BASE + (rng.randrange(0, VU0_SIZE) & ~15)
    else:
        target = rng.choice((0x80000000 | rng.randrange(0, WINDOW - 16), 0x40000000,
                             0xFFFFFFF0 + rng.randrange(0, 16)))
    low = (target - f["imm"]) & M32
    st["R"][rs] = (st["R"][rs] & 0xFFFFFFFF00000000) | low


# ---------------------------------------------------------------- state transfer

def load_python(m: Machine, st: dict) -> None:
    for name in ARRAYS:
        getattr(m, name)[:] = st[name]
    for k in range(32):
        m.VF[k][:] = st["VF"][k]
    for name in SCALARS:
        v = st[name]
        setattr(m.S, name, list(v) if isinstance(v, list) else v)
    m.mem.ram[0:WINDOW] = st["ram"]
    m.mem.vu0[:] = st["vu0"]


def python_snapshot(m: Machine) -> dict:
    out = {name: list(getattr(m, name)) for name in ARRAYS}
    out["VF"] = [list(v) for v in m.VF]
    for name in SCALARS:
        v = getattr(m.S, name)
        out[name] = list(v) if isinstance(v, list) else v
    out["ram"] = bytes(m.mem.ram[0:WINDOW])
    out["vu0"] = bytes(m.mem.vu0)
    return out


class CSide:
    """A ctypes ee_state with its own 32 MiB of RAM, VU0 memory and a store log."""

    def __init__(self):
        self.st = EEState()
        self.ram = mmap.mmap(-1, RAM_SIZE)
        self._ram_c = ctypes.c_char.from_buffer(self.ram)
        self.vu0 = (u8 * VU0_SIZE)()
        self.log = state.StoreLog(LOG_CAP)
        st = self.st
        st.ram = ctypes.addressof(self._ram_c)
        st.vu0 = ctypes.addressof(self.vu0)
        self.log.attach(st)
        st.log_on = 1

    def load(self, s: dict) -> None:
        st = self.st
        for name in ARRAYS:
            getattr(st, name)[:] = s[name]
        for k in range(32):
            st.VF[k][:] = s["VF"][k]
        st.VJUNK[:] = [0, 0, 0, 0]
        for name in SCALARS:
            v = s[name]
            if isinstance(v, list):
                getattr(st, name)[:] = v
            else:
                setattr(st, name, v)
        self.ram[0:WINDOW] = s["ram"]
        ctypes.memmove(self.vu0, s["vu0"], VU0_SIZE)
        st.log_n = 0

    def snapshot(self) -> dict:
        st = self.st
        out = {name: list(getattr(st, name)) for name in ARRAYS}
        out["VF"] = [list(st.VF[k]) for k in range(32)]
        for name in SCALARS:
            v = getattr(st, name)
            out[name] = list(v) if not isinstance(v, int) else v
        out["ram"] = bytes(self.ram[0:WINDOW])
        out["vu0"] = bytes(self.vu0)
        return out

    def stray_stores(self) -> List[str]:
        """Stores the C made outside the compared memory (the RAM window and VU0 memory)."""
        out = []
        for j in range(min(self.st.log_n, LOG_CAP)):
            a, n = self.log.addr[j], self.log.size[j]
            if not (a + n <= WINDOW or VU0_BASE <= a < VU0_BASE + 4 * VU0_SIZE):
                out.append(f"c stored {n} bytes at 0x{a:x}, outside the compared memory")
        return out


def differences(want: dict, got: dict, limit: int = 4) -> List[str]:
    """The first few differing state members, named, as hex patterns."""
    out = []
    for name in want:
        a, b = want[name], got[name]
        if a == b:
            continue
        if isinstance(a, bytes):
            k = next(i for i in range(len(a)) if a[i] != b[i])
            out.append(f"{name}[0x{k:x}]: python 0x{a[k]:02x}, c 0x{b[k]:02x}")
        elif isinstance(a, list):
            for k, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    out.append(f"{name}[{k}]: python {_hex(x)}, c {_hex(y)}")
        else:
            out.append(f"{name}: python {_hex(a)}, c {_hex(b)}")
        if len(out) >= limit:
            break
    return out[:limit]


def _hex(v):
    return "[" + ", ".join(_hex(x) for x in v) + "]" if isinstance(v, list) else f"0x{v:x}"


def next_pc(row: Row, word: int, pc: int, cond: int, tgt: int) -> Optional[int]:
    """The pc the engine continues at after a flow row, from the C's cond and tgt (None for
    straight-line rows)."""
    f = fields_of(word, pc)
    if row.flow in ("branch", "likely"):
        return f["btarget"] if cond else (pc + 8) & M32
    if row.flow == "jump":
        return f["jtarget"]
    if row.flow == "jump_reg":
        return tgt
    return None


# ---------------------------------------------------------------- the check

@pytest.fixture
def engine():
    """Once, not once per engine: a test module that imports this fixture overrides conftest.py's
    by name, since each row's C runs on its own ee_state against Machine.step(), the Python
    engine's."""
    return None


@dataclass
class Result:
    """Counts of one check run; ``failures`` names row, word and the differing members."""
    compared: Dict[str, int] = field(default_factory=dict)   # mnemonic -> cases compared
    exits: Dict[str, int] = field(default_factory=dict)      # mnemonic -> cases that left C
    failures: List[str] = field(default_factory=list)


def check_rows(model: str, rows: Sequence[Tuple[Row, str]], words_per_row: int, states_per_word: int,
               seed: str, prepare: Optional[Callable[[Row, int, dict, random.Random], None]] = None,
               accept: Optional[Callable[[int], bool]] = None) -> Result:
    """Check each (table row, C text) on ``words_per_row`` random encodings times
    ``states_per_word`` random states under ``model``. The C text is normally ``row.c``; a test may
    pass another to show a wrong one is caught. ``prepare(row, word, state, rng)`` may bias a
    case's state; ``accept(word)`` limits the encodings. Every random choice derives from (seed,
    model, mnemonic)."""
    m = Machine(float_model=model)
    dec = m.decoder
    ids = {id(r): k for k, r in enumerate(dec.rows)}
    cases = []          # (row, word, rng)
    functions = []
    for row, c in rows:
        if not c:
            raise AssertionError(f"row {row.mnemonic}: no C to check")
        if row.flow == "stop":
            raise AssertionError(f"row {row.mnemonic}: flow 'stop' rows are not checked one by one")
        rid = ids.get(id(row))
        if rid is None:
            raise AssertionError(f"row {row.mnemonic}: not a row of the machine's table")
        rng = random.Random(f"{seed}:{model}:{row.mnemonic}")
        for _ in range(words_per_row):
            w = random_word(row, rng, dec, rid, accept=accept)
            functions.append(case_function(f"rc_{len(cases)}", row, c, w))
            cases.append((row, w, rng))
    lib = build.shared_library(f"rowcheck-{model}", library_source(model, functions))
    lib.rc_run.argtypes = [ctypes.c_int, ctypes.POINTER(EEState), ctypes.POINTER(ctypes.c_int),
                           ctypes.POINTER(ctypes.c_uint32)]
    lib.rc_run.restype = ctypes.c_int
    check_layout(lib)

    side = CSide()
    cond, tgt = ctypes.c_int(), ctypes.c_uint32()
    res = Result()
    nop = struct.pack("<I", 0)
    base = base_state(random.Random(f"{seed}:{model}:base"))
    for k, (row, w, rng) in enumerate(cases):
        m.write(CODE, struct.pack("<I", w) + nop)
        name = f"{row.mnemonic} 0x{w:08x} ({dec.disasm(w, CODE)}, {model})"
        for _ in range(states_per_word):
            st0 = random_state(rng, base, w, model)
            aim_memory_operand(row, w, st0, rng)
            if prepare is not None:
                prepare(row, w, st0, rng)
            side.load(st0)
            rc = lib.rc_run(k, ctypes.byref(side.st), ctypes.byref(cond), ctypes.byref(tgt))
            got = side.snapshot()
            if rc == 1:
                diff = differences(st0, got)
                if diff:
                    res.failures.append(f"{name}: left native code after writing state: {'; '.join(diff)}")
                res.exits[row.mnemonic] = res.exits.get(row.mnemonic, 0) + 1
                continue
            if rc != 0:
                raise AssertionError(f"rc_run({k}) returned {rc}")
            load_python(m, st0)
            m.pc = CODE
            try:
                npc = m.step()
            except EmulationError as e:
                res.failures.append(f"{name}: Python raised {type(e).__name__} ({e}), C completed")
                continue
            diff = differences(python_snapshot(m), got) + side.stray_stores()
            want_npc = next_pc(row, w, CODE, cond.value, tgt.value)
            if want_npc is not None and want_npc != npc:
                diff.append(f"next pc: python 0x{npc:x}, c 0x{want_npc:x} "
                            f"(cond={cond.value}, tgt=0x{tgt.value:x})")
            if diff:
                res.failures.append(f"{name}: {'; '.join(diff)}")
            res.compared[row.mnemonic] = res.compared.get(row.mnemonic, 0) + 1
    return res
