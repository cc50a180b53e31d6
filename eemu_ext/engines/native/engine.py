"""The native engine: runs a machine's code as compiled C blocks, on the machine's own memory.

DECISION: the executable's code is translated once, ahead of
the first run: every block reachable through statically known control flow from the ELF's
function symbols and entry point (translate.py), compiled into one shared library with the host's
C compiler, cached under build/native/ by a hash of the code bytes and of the translator (its
source, the C runtime and every row's compiled semantics). Blocks are dispatched through a
per-machine index over the code's words; a target no block starts at (a jump-table target, code the
walk did not see, a hooked address, a Python-only row) runs one unit in the Python engine and the
run carries on natively after it. The two engines share the machine's memory buffers; the
registers live in Python lists and are copied into the C state when a native stretch starts and
back when it ends (a few microseconds, at hand-overs only).
"""
from __future__ import annotations

import array
import bisect
import ctypes
import hashlib
import json
import os
import struct
import tempfile
import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from eemu_ext.errors import EngineError, HostError
from eemu_ext.engines.native import build
from eemu_ext.engines.native.state import BUMP_WORDS, OFFSETS, TAP_WORDS, EeState, LayoutError, StoreLog, check_offsets, run_format
from eemu_ext.engines.native.translate import PRELUDE, Translator, c_functions, c_tables, c_unit, translator_hash

WHY_NONE, WHY_UNIT, WHY_MISS, WHY_HOOK, WHY_LIMIT, WHY_ONE = range(6)
SENTINEL = 0xFFFFFFF0
LOG_CAP = 4096
NO_IMAGE_BLOCKS = 64
# DECISION: the native engine is tiered. A program already compiled (in this process or in the
# disk cache) runs at once; otherwise the Python engine runs until it has executed COMPILE_AFTER
# instructions of the same code in this process, and only then is the program walked and compiled
# (gcc takes ~12 s on the stand-in). A short run (a repro, one mutant's cases, a quick bulk on a
# new build) so never waits for a compile it cannot repay; a nightly compiles after its first
# seconds. EEMU_COMPILE_AFTER=0 compiles at once (the machine tests, make bench); lockstep
# always does.
COMPILE_AFTER = 20_000_000
_TYPECODE = {ctypes.c_uint8: "B", ctypes.c_uint32: "I", ctypes.c_uint64: "Q"}    # call_batch's arrays
_WAITED: Dict[object, int] = {}       # code identity -> steps the Python engine ran awaiting a program


def compile_after() -> int:
    v = os.environ.get("EEMU_COMPILE_AFTER")
    if v is None or v == "":
        return COMPILE_AFTER
    try:
        n = int(v, 0)
    except ValueError:
        raise ValueError(f"EEMU_COMPILE_AFTER must be a whole number of instructions, not {v!r}") from None
    if n < 0:
        raise ValueError(f"EEMU_COMPILE_AFTER must be >= 0, not {n}")
    return n
MAX_SCAN = 130            # a block spans at most MAX_BLOCK + 1 words; scan a little more
TAP_CAP = 4096                  # calls a run may tap before it returns to Python
BUMP_CAP = 4096                 # allocations a run may serve in C before it returns to Python
BUMP_RULE = {0: 0, 1: 1, "memalign": 0xFF}   # hooks.py's size rules as runtime.h's ee_bump reads them


_OFF = OFFSETS
_REGS = run_format("R", "VI")                           # R RH HI LO F VF VI: one contiguous run
_GPR = run_format("R", "LO")
_FPU = run_format("F", "VI")
_U32 = struct.Struct("<I")
_R32 = run_format("R", "R")                             # R, or RH
_HILO = run_format("HI", "LO")
_V0 = struct.Struct("<Q")
_SCAL = run_format("acc_ovf", "vi24")                   # the scalars m.S mirrors
_OFF_R = _OFF["R"]


def _buffer_address(buf) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(buf))


class EeOp(ctypes.Structure):
    """runtime.h's ee_op, field for field."""
    _fields_ = [("kind", ctypes.c_uint32), ("phase", ctypes.c_uint32), ("a", ctypes.c_uint32), ("n", ctypes.c_uint32),
                ("arg", ctypes.c_uint32), ("off", ctypes.c_uint32), ("nregs", ctypes.c_uint32),
                ("regs", ctypes.c_uint32), ("data", ctypes.c_void_p)]


class EeBatch(ctypes.Structure):
    """runtime.h's ee_batch, field for field."""
    _fields_ = [("n", ctypes.c_uint32), ("i", ctypes.c_uint32), ("period", ctypes.c_uint32), ("nops", ctypes.c_uint32),
                ("pc", ctypes.c_void_p), ("gpr", ctypes.c_void_p), ("limit", ctypes.c_void_p), ("out", ctypes.c_void_p),
                ("ops", ctypes.c_void_p),
                ("gathered", ctypes.c_void_p), ("ngathered", ctypes.c_uint32), ("gathered_cap", ctypes.c_uint32),
                ("tapped", ctypes.c_void_p), ("ntapped", ctypes.c_uint32), ("tapped_cap", ctypes.c_uint32),
                ("tap_counts", ctypes.c_void_p), ("nguard", ctypes.c_uint32), ("nruns", ctypes.c_uint32),
                ("guard_reg", ctypes.c_void_p), ("guard_val", ctypes.c_void_p), ("runs", ctypes.c_void_p),
                ("tap_from", ctypes.c_int32), ("stop", ctypes.c_int32),
                ("room_gathered", ctypes.c_uint32), ("room_tapped", ctypes.c_uint32), ("resume", ctypes.c_int32)]


STOP_DONE, STOP_LEFT, STOP_CHECK, STOP_ROOM = range(4)      # runtime.h EE_STOP_*


class Program:
    """One compiled translation of a machine's code: the library and its block table."""

    def __init__(self, lib, lo: int, nwords: int, key: str, code=None):
        self.lib = lib
        self.lo, self.nwords = lo, nwords
        self.key = key
        # [(address, bytes)]: the code under the blocks as it was translated (sorted, disjoint),
        # or None where the program depends on more than these bytes (same_code)
        self.code = code
        self._code_starts = [a for a, _ in code] if code is not None else []
        lib.ee_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int]
        lib.ee_run.restype = ctypes.c_int
        lib.ee_size.restype = ctypes.c_uint32
        lib.ee_call_batch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32,
                                      ctypes.c_void_p]
        lib.ee_call_batch.restype = ctypes.c_int
        lib.ee_offset.restype = ctypes.c_long
        lib.ee_offset.argtypes = [ctypes.c_int]
        try:
            check_offsets(lib.ee_offset, lib.ee_size(), "native engine")
        except LayoutError as e:
            raise EngineError(str(e)) from None
        n = ctypes.c_uint32.in_dll(lib, "ee_nblocks").value
        arr = ctypes.c_uint32 * max(n, 1)
        self.starts = list(arr.in_dll(lib, "ee_block_start"))[:n]
        self.ends = list(arr.in_dll(lib, "ee_block_end"))[:n]
        self.sizes = list(arr.in_dll(lib, "ee_block_n"))[:n]
        self.taken = list(arr.in_dll(lib, "ee_block_taken"))[:n]     # coverage (runtime.h)
        self.index = {a: i for i, a in enumerate(self.starts)}
        self.span = (min(self.starts), max(self.ends)) if n else (0, 0)     # [lo, hi) of all blocks
        self.longest = max((e - a for a, e in zip(self.starts, self.ends)), default=0)
        # the block index without hooks (NativeEngine._reindex starts from a copy of it)
        free = np.full(max(nwords, 1), -1, dtype=np.int32)
        if n:
            free[(np.array(self.starts, dtype=np.int64) - lo) >> 2] = np.arange(n, dtype=np.int32)
        self.free_index = free.tobytes()

    def same_code(self, mem, lo: int, hi: int) -> bool:
        """Whether the bytes now in memory on [lo, hi) are, wherever a block lies, the ones the
        program was translated from (False when the program does not know them)."""
        code = self.code
        if code is None:
            return False
        k = max(bisect.bisect_right(self._code_starts, lo) - 1, 0)
        for a, data in code[k:]:
            if a >= hi:
                break
            x, y = max(a, lo), min(a + len(data), hi)
            if x < y and mem.read(x, y - x) != data[x - a:y - a]:
                return False
        return True


_PROGRAMS: Dict[str, Program] = {}


def code_ranges(m) -> List[Tuple[int, int]]:
    """Where the translator may read code: the file bytes of the image's executable segments, or
    all of RAM without one."""
    img = m.image
    if img is None:
        return [(0, 0x02000000)]
    return list(img.executable)


def _image_identity(img) -> str:
    ident = getattr(img, "_native_identity", None)
    if ident is None:
        h = hashlib.sha256()
        for v, d in img.segments:
            h.update(v.to_bytes(4, "little"))
            h.update(hashlib.sha256(d).digest())
        h.update(repr(sorted({img.entry} | {a for a, _s, _n in img._funcs})).encode())
        ident = img._native_identity = h.hexdigest()
    return ident


# image identity -> (the code the walk found, the digest of the bytes it found there)
_SPANS: Dict[str, Tuple[List[Tuple[int, int]], str]] = {}
# code without an image: (roots, translator) -> (spans, digest, every byte the walk read, their digest)
_BARE_WALKS: Dict[str, Tuple[List[Tuple[int, int]], str, List[Tuple[int, int]], str]] = {}
BARE_WALKS_KEPT = 256


def _spans_file(ident: str) -> str:
    return os.path.join(build.cache_dir(), f"spans-{ident}.json")


def _load_spans(ident: str):
    """(spans, digest) an earlier process's walk found for this image and translator, or None."""
    try:
        with open(_spans_file(ident), encoding="utf-8") as f:
            got = json.load(f)
        return [(int(a), int(b)) for a, b in got["spans"]], str(got["digest"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _spans_digest(m, spans) -> str:
    """The digest of the bytes now in memory at `spans`."""
    h = hashlib.sha256()
    for a, b in spans:
        h.update(a.to_bytes(4, "little"))
        h.update(m.read(a, b - a))
    return h.hexdigest()


def _save_spans(ident: str, spans, digest: str) -> None:
    """Write atomically: a worker that reads a half-written file would walk again, no harm, but a
    torn list must never be taken for the code."""
    try:
        os.makedirs(build.cache_dir(), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".spans-", dir=build.cache_dir())
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"spans": [[a, b] for a, b in spans], "digest": digest}, f)
        os.replace(tmp, _spans_file(ident))
    except OSError as e:
        raise HostError(f"native engine: the build cache {build.cache_dir()} cannot be written ({e})") from None


def _merge(spans):
    out = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def translate_program(m, roots: List[int], build_it: bool = True) -> Optional[Program]:
    """The compiled program for the code now in the machine's memory, reachable from roots: built
    once, then reused from this process's table or from the disk cache. The cache key hashes the
    code bytes the walk found (not data that shares a segment with them), the roots, the
    translator and the float model. With build_it=False: the program only if it is at hand
    without walking or compiling, else None."""
    ranges = code_ranges(m)
    lo = min((a for a, _ in ranges), default=0)         # an image with no executable segment: no code
    hi = max((b for _, b in ranges), default=0)
    th = translator_hash(m.decoder.rows)
    ident = f"{_image_identity(m.image)}-{th}" if m.image is not None else None
    walked = _SPANS.get(ident) if ident is not None else None
    found = None

    def inside(pc):
        return any(a <= pc < b for a, b in ranges)

    # DECISION: code loaded without an image has no function list and no segment bounds: the walk
    # from the run's start stops after NO_IMAGE_BLOCKS blocks per root (zeroed RAM decodes as NOPs
    # forever);
    # anything past that runs in the Python engine.
    budget = 200_000 if m.image is not None else NO_IMAGE_BLOCKS * max(1, len(roots))
    if walked is None and ident is not None:
        # DECISION: the walk's result is cached on disk beside the libraries, keyed by the image
        # (segment bytes, entry, function symbols) and the translator: every worker of a bulk run
        # and every run after the first skips the walk (0.8 s on the stand-in).
        walked = _load_spans(ident)
    # DECISION: a walk's spans hold only for the code it walked: where the bytes at the spans are
    # no longer the ones the walk saw (code written after loading: a patched function, a test's
    # broken one), the code may reach further or elsewhere, so the walk is done again. The image's
    # identity alone would reuse a walk of other code, and the program key, which hashes only the
    # bytes at the spans, could then name a program compiled from other code.
    spans = digest = None
    if walked is not None and _spans_digest(m, walked[0]) == walked[1]:
        spans, digest = walked
    bare = None
    if spans is None and ident is None:
        # DECISION: code without an image (the machine tests, a snippet per fresh Machine) was
        # walked again by every machine, 55 ms a time for test_core_lockstep's 250-case chunk,
        # though they hold the same code. The walk is kept in this process by its roots and
        # translator and taken again only where every byte it read is still the same: the blocks
        # and the two words after each (a block ends on the word it did not take, or on a branch
        # whose slot it could not), and each unit it left to Python with its slot.
        bare = hashlib.sha256(f"{th}-{sorted(roots)}".encode()).hexdigest()
        got = _BARE_WALKS.get(bare)
        if got is not None and _spans_digest(m, got[2]) == got[3]:
            spans, digest = got[0], got[1]
    if spans is None:
        if not build_it:
            return None
        python_units: List[int] = []
        found = Translator(m).discover(roots, inside, budget, text=False, python_units=python_units)
        spans = _merge((b.start, b.end) for b in found.values())
        digest = _spans_digest(m, spans)
        if ident is not None:
            _save_spans(ident, spans, digest)
        elif bare is not None:
            read = _merge([(b.start, min(b.end + 8, hi)) for b in found.values()]
                          + [(pc, min(pc + 8, hi)) for pc in python_units])
            if len(_BARE_WALKS) >= BARE_WALKS_KEPT:
                _BARE_WALKS.clear()
            _BARE_WALKS[bare] = (spans, digest, read, _spans_digest(m, read))
    if ident is not None:
        _SPANS[ident] = (spans, digest)
    h = hashlib.sha256()
    h.update(digest.encode())
    h.update(repr(sorted(roots)).encode())
    cc = build.compiler() or ""
    h.update(build.compiler_version(cc).encode() if cc else b"")      # a new compiler is a new program
    opt = "-O1"
    key = f"{h.hexdigest()[:20]}-{th}-{m.float_model}{opt.lower()}"
    prog = _PROGRAMS.get(key)
    if prog is not None:
        return prog
    lib = build.cached_library("program", key)
    if lib is None:
        if not build_it:
            return None
        found = Translator(m).discover(roots, inside, budget)        # now with the C text
        blocks = [found[a] for a in sorted(found)]
        model = "-DEE_MODEL_HW=1" if m.float_model == "hw" else "-DEE_MODEL_TRUNC=1"
        # DECISION: programs are compiled at -O1. On the stand-in gcc takes 12.7 s at -O1 against
        # 21 s at -O2, and the bench sample's machine CPU is the same (0.7 s against 0.8: hand-overs,
        # not block code, dominate); -O0 compiles in 7 s but runs _AnimateForward 30% slower. The
        # semantics do not depend on it (-fwrapv, no strict aliasing, float done in integers).
        lib = _library_in_units(blocks, key, (model, opt), m.image is not None)
    if m.image is None and spans:
        # without an image the code range is all of RAM: index only the span the walk found
        lo, hi = spans[0][0], spans[-1][1]
    # DECISION: a program made from an image keeps the bytes at its spans, which (with the image,
    # the roots and the translator) are all its key and its walk's reuse depend on: a write over
    # its blocks that leaves them as they were (a restore of a page the code shares with data, a
    # hook going in or out) keeps the program (NativeEngine.code_written). A program of code
    # without an image depends on bytes past its spans too (the walk's `read`): any write over
    # its blocks translates afresh, as before.
    code = [(a, m.read(a, b - a)) for a, b in spans] if m.image is not None else None
    prog = Program(lib, lo, (hi - lo + 3) // 4, key, code)
    if len(_PROGRAMS) > 64:
        _PROGRAMS.clear()
    _PROGRAMS[key] = prog
    return prog


def _block_name(b) -> str:
    return f"b_{b.start:08x}"


# DECISION: a program is linked from objects, each compiled apart and cached by its text
# (build.library_in_units). The run loop (runtime.h) is a main unit of its own wherever it can
# be: a program of code without an image (a test's few snippets) is one unit, its blocks and their
# table, compiled with the prelude but not the run loop (its include guard EE_RUNTIME_H defined),
# linked with the run loop's object, compiled once per float model and flags: the run loop was
# ~70% of such a program's gcc time (0.12 s user for a 3 KB program, 0.03 without it).
# A program of an image (the stand-in, a mutant: ~900 blocks, ~10 s of gcc as one unit) is
# compiled in units of UNIT_SPAN bytes of code, the missing ones at once on the host's cores, with
# a main unit holding the run loop and the block table: code changed in place (a test's replaced
# function, a mutant that keeps the other functions' addresses) recompiles only its own units.
# Measured on the stand-in (918 blocks, 20 KB of code): 10 units; a whole build costs ~15-25% more
# gcc CPU than one unit (11-13.7 s user against 9.3-10, noisy: eefloat.h's helpers are emitted once
# per unit) but runs on both cores; SetAnmCtrlWork replaced in place is one unit and the link,
# ~1.2 s against ~10. Of the 37 mutants' unit texts, 32% are the stand-in's own (12 mutants keep
# every function's address; the others move most of them). 0x1000 (5 units) saved less on both.
UNIT_SPAN = 0x800
NO_RUN_LOOP = ("-DEE_RUNTIME_H",)


def _library_in_units(blocks, key: str, flags: Tuple[str, ...], image: bool):
    if not image:
        return build.library_in_units("program", build.runtime_headers(), [c_unit(blocks, _block_name)],
                                      f'#include "{PRELUDE}"\n', key, flags, NO_RUN_LOOP, PRELUDE)
    units: Dict[int, list] = {}
    for b in blocks:
        units.setdefault(b.start // UNIT_SPAN, []).append(b)
    texts = [c_functions(units[k], _block_name, export=True) for k in sorted(units)]
    main = (f'#include "{PRELUDE}"\n' + "".join(f"uint32_t {_block_name(b)}(ee_state *st);\n" for b in blocks)
            + c_tables(blocks, _block_name))
    return build.library_in_units("program", build.runtime_headers(), texts, main, key, flags, NO_RUN_LOOP, PRELUDE)


class NativeEngine:
    """The native engine of one Machine: its C state, its block index and the run loop. Where no
    native block starts (or at a hook, or a budget's last units) it runs the Python engine's
    units; a checker (lockstep.LockstepEngine) may take every native block instead."""

    WHY_NONE, WHY_UNIT, WHY_MISS, WHY_HOOK, WHY_LIMIT, WHY_ONE = range(6)

    def __init__(self, m, python):
        self.m = m
        self.python = python
        self.checker = None             # runs each native block in both engines (lockstep.py)
        self.lockstep = False           # a checker is attached
        self.compile_after = compile_after()
        self.c_owns = False             # the C state holds newer FPU/VU0/scalars than the lists
        self._unready = False           # no program at hand for the current code (until it changes)
        self.st = EeState()
        self.addr = ctypes.addressof(self.st)
        self.buf = (ctypes.c_char * ctypes.sizeof(EeState)).from_address(self.addr)
        self.mv = memoryview(self.buf).cast("B")
        mem = m.mem
        self.st.ram = _buffer_address(mem.ram)
        self.st.spr = _buffer_address(mem.spr)
        self.st.vu0 = _buffer_address(mem.vu0)
        self.st.dirty = _buffer_address(mem.dirty)
        self._taps = (ctypes.c_uint32 * (TAP_WORDS * TAP_CAP))()
        self.st.tap_buf = ctypes.addressof(self._taps)
        self.st.tap_cap = TAP_CAP
        self._bump_log = (ctypes.c_uint32 * (BUMP_WORDS * BUMP_CAP))()
        self.st.bump_log = ctypes.addressof(self._bump_log)
        self.st.bump_cap = BUMP_CAP
        self._bump_hooks = None
        self.prog: Optional[Program] = None
        self.bidx = None
        self._bidx_addr = 0
        self._code_stale = True
        self._hooks_stale = True
        self.python_units = 0           # units the Python engine ran inside native runs
        self._bcount = None             # coverage counters (Machine(coverage=True))
        self._cov_blocks = {}           # block number -> its instructions (coverage)
        self._F = self._VF = self._VI = self._sc = None   # what crossed last time
        self._fv_raw = self._sc_raw = None
        self._extra_roots = set()       # declared entries, for code loaded without an image
        # time spent inside compiled code (ee_run) and how many times it was entered: counted only
        # while timing is on (a CPU profile), so a run's hot loop pays nothing for them otherwise
        self.timing = False
        self.c_seconds = 0.0
        self.c_runs = 0

    def attach_checker(self, checker) -> None:
        """Every native block runs through checker.check (lockstep): programs are compiled at
        once, the stores of a block are logged, and the lists always hold the newest state."""
        self.checker = checker
        self.lockstep = True
        self.compile_after = 0
        self._log = StoreLog(LOG_CAP)
        self._log.attach(self.st)

    # -- translation and the block index ------------------------------------------------------
    def code_written(self, lo: int, hi: int) -> None:
        """Memory on [lo, hi), over a translated block, was written (or a hook went in or out
        there): the program is stale unless the bytes under its blocks are still the ones it was
        translated from (translate_program would give the same program)."""
        prog = self.prog
        if self._code_stale or prog is None or not prog.same_code(self.m.mem, lo, hi):
            self.invalidate_code()

    def invalidate_code(self):
        self._code_stale = True
        self._unready = False
        if self.checker is not None:
            self.checker.forget()

    def _code_identity(self):
        img = self.m.image
        return (_image_identity(img), self.m.float_model) if img is not None else self

    def ready(self, pc) -> bool:
        """Whether this run goes native: a program is at hand for the code, or the Python engine
        has run COMPILE_AFTER instructions of it and the program is worth building now."""
        if self.compile_after <= 0 or (self.prog is not None and not self._code_stale):
            return True
        if _WAITED.get(self._code_identity(), 0) >= self.compile_after:
            return True
        if self._unready:
            return False
        prog = translate_program(self.m, self._roots(pc), build_it=False)
        if prog is not None:
            return True
        self._unready = True
        return False

    def waited(self, steps: int) -> None:
        """The Python engine ran `steps` instructions while no program was at hand."""
        k = self._code_identity()
        _WAITED[k] = _WAITED.get(k, 0) + steps

    def invalidate_hooks(self):
        self._hooks_stale = True
        if self.checker is not None:
            self.checker.forget()

    @property
    def _stale(self):
        return self._code_stale or self._hooks_stale

    def covers(self, lo: int, hi: int) -> bool:
        """Whether [lo, hi) overlaps a translated block (a write there makes the program stale)."""
        prog = self.prog
        if prog is None or hi <= prog.span[0] or lo >= prog.span[1]:
            return False
        i = bisect.bisect_right(prog.starts, (hi - 1) & 0xFFFFFFFF) - 1
        # blocks are sorted by start; any block starting before hi and ending after lo overlaps
        while i >= 0:
            if prog.ends[i] > lo:
                return True
            if prog.starts[i] + 4 * MAX_SCAN < lo:
                return False
            i -= 1
        return False

    def _roots(self, pc):
        m = self.m
        if m.image is not None:
            return sorted({m.image.entry} | {a for a, _s, _n in m.image._funcs})
        # DECISION: code without an image is translated from this run's start and the declared
        # entries only. A start the program lacks gets a program of its own (cached by its code and
        # roots): a machine that runs snippets at many addresses compiles each once, rather than
        # every earlier start again with each new one.
        return sorted(self._extra_roots | {pc & 0xFFFFFFFF})

    def declare_entries(self, addrs) -> None:
        """Code loaded without an image has no function symbols: these starts are translated
        together with the runs' own, so one program (compiled once, shared by every machine
        holding the same code and entries) serves them all."""
        new = {a & 0xFFFFFFFF for a in addrs} - self._extra_roots
        if new:
            self._extra_roots |= new
            self.invalidate_code()

    def _ensure(self, pc):
        if (self.prog is not None and self.m.image is None and pc not in self.prog.index
                and pc not in self._extra_roots):
            self._code_stale = True          # code without an image: translate from each new start
        if self._code_stale or self.prog is None:
            prog = translate_program(self.m, self._roots(pc))
            if prog is not self.prog:
                self.flush_coverage()
                self.prog = prog
                self.bidx = (ctypes.c_int32 * max(prog.nwords, 1))()
                self._bidx_addr = ctypes.addressof(self.bidx)
                if self.m.coverage_enabled:
                    self._bcount = (ctypes.c_uint64 * max(4 * len(prog.starts), 1))()
                    self._bcount[0:4 * len(prog.starts):4] = prog.taken
                    self.st.bcount = ctypes.addressof(self._bcount)
                    # each block's instructions as the program has them: the counters are
                    # spread only when read, perhaps after the code under them has changed
                    self._cov_blocks = {}
                    for b in range(len(prog.starts)):
                        self._cov_block(b)
            self._code_stale = False
            self._hooks_stale = True
        if self._hooks_stale:
            self._reindex()
            self._hooks_stale = False

    def _reindex(self):
        """bidx: block number per code word, -1 where no native block starts, -2 on a hook, -3 on
        a tap hook and -4 on a bump hook (both run in C; under lockstep in Python, as hooks). A block
        with a hooked address inside it is left to the Python engine (whose blocks stop there)."""
        prog, bidx = self.prog, self.bidx
        ctypes.memmove(bidx, prog.free_index, len(prog.free_index))
        hooks = sorted(self.m.hooks.at)
        taps = () if self.lockstep else self.m.hooks.taps
        bumps = {} if self.lockstep else self.m.hooks.bumps
        starts, ends, lo, longest = prog.starts, prog.ends, prog.lo, prog.longest
        for h in hooks:                 # the blocks with start < h < end: no start below h - longest
            i = bisect.bisect_left(starts, h) - 1
            while i >= 0 and starts[i] > h - longest:
                if ends[i] > h:
                    bidx[(starts[i] - lo) >> 2] = -1
                i -= 1
        for h in hooks:
            j = (h - lo) >> 2
            if 0 <= j < prog.nwords and not h & 3:
                bidx[j] = -3 if h in taps else -4 if h in bumps else -2
        pairs = [x for a, rule in bumps.items() for x in (a, BUMP_RULE[rule])]
        self._bump_hooks = (ctypes.c_uint32 * max(len(pairs), 1))(*pairs)
        self.st.bump_hooks = ctypes.addressof(self._bump_hooks)
        self.st.bump_nhooks = len(bumps)

    # -- state transfer ---------------------------------------------------------------------------
    # DECISION: the GPRs, HI and LO cross at every hand-over. The FPU/VU0 registers and the
    # scalars cross into C only when they changed (judged against what crossed last time), and out
    # of C only when Python reads them: after a run or at a hook they stay in C (c_owns) until
    # m.F, m.VF, m.VI or m.S is read, or the Python engine runs (Machine._pull). The allocator and
    # note hooks, most hand-overs, touch neither. Lockstep crosses everything every time.
    def sync_in(self):
        m = self.m
        _GPR.pack_into(self.mv, _OFF_R, *m.R, *m.RH, *m.HI, *m.LO)
        if not self.c_owns:
            self._fpu_in()
        self.st.data_floor = getattr(m.mem, "data_floor", 0) or 0
        self.st.hole_lo, self.st.hole_len = m.mem.hole_span()

    def _sync_rest_in(self):
        """sync_in but for R and RH (a call wrote its own)."""
        m = self.m
        _HILO.pack_into(self.mv, _OFF["HI"], *m.HI, *m.LO)
        if not self.c_owns:
            self._fpu_in()
        self.st.data_floor = getattr(m.mem, "data_floor", 0) or 0
        self.st.hole_lo, self.st.hole_len = m.mem.hole_span()

    def _fpu_in(self):
        """The FPU/VU0 registers and the scalars into C, where they changed since they crossed."""
        m = self.m
        F, VF, VI, S = m._F, m._VF, m._VI, m._S
        if F != self._F or VF != self._VF or VI != self._VI:
            vf = [x for v in VF for x in v]
            _FPU.pack_into(self.mv, _OFF["F"], *F, *vf, *VI)
            self._F, self._VF, self._VI = F[:], [v[:] for v in VF], VI[:]
            self._fv_raw = None
        sc = (int(S.acc_ovf) & 0xFFFFFFFFFFFFFFFF, S.sa, S.fcr31, S.acc, *S.vacc, S.q, S.i, S.r, S.mac,
              S.status, S.clip, *S.cop0, S.cmsar0, int(getattr(S, "cpcond0", 1)), getattr(S, "vi24", 0))
        if sc != self._sc:
            _SCAL.pack_into(self.mv, _OFF["acc_ovf"], *sc)
            self._sc = sc
            self._sc_raw = None

    def sync_out(self, lazy: bool = False):
        """C state -> the machine: the GPRs now; the rest now, or (lazy) when Python reads it."""
        m = self.m
        v = _GPR.unpack_from(self.mv, _OFF_R)
        m.R[:] = v[0:32]
        m.RH[:] = v[32:64]
        m.HI[:] = v[64:66]
        m.LO[:] = v[66:68]
        if lazy and not self.lockstep:
            self.c_owns = True
        else:
            self.pull()

    def _bump_in(self, heap):
        """The bump heap's pointers into C (Python's are the newest whenever Python runs)."""
        st = self.st
        st.bump_ptr, st.bump_end, st.bump_high = heap.ptr, heap.end, heap.high_water

    def _bump_out(self):
        """The allocations C served, in order, to the heap (bumped), and its pointers back."""
        st, heap = self.st, self.m.hooks.heap
        n = st.bump_n
        rows = np.frombuffer(self._bump_log, dtype=np.uint32, count=BUMP_WORDS * n).reshape(n, BUMP_WORDS)
        rules = self.m.hooks.bumps
        for a, a0, a1, ra, block in rows.tolist():
            heap.bumped(a, (a0,) if rules.get(a) == 0 else (a0, a1), ra, block)
        st.bump_n = 0
        heap.ptr, heap.high_water = st.bump_ptr, st.bump_high

    def _drain_taps(self):
        """The calls the C run tapped, in order, onto their hooks' lists (before any Python runs)."""
        st, n = self.st, self.st.tap_n
        rows = np.frombuffer(self._taps, dtype=np.uint32, count=TAP_WORDS * n).reshape(n, TAP_WORDS)
        taps = self.m.hooks.taps
        first = int(rows[0, 0])
        if (rows[:, 0] == first).all():          # one tap hook: its calls in one go
            taps[first].extend(map(tuple, rows[:, 1:].tolist()))
        else:
            for row in rows.tolist():
                taps[row[0]].append(tuple(row[1:]))
        st.tap_n = 0

    def f_bits(self, i: int) -> int:
        """$f<i>'s bits in the C state (while c_owns), without pulling the rest."""
        return _U32.unpack_from(self.mv, _OFF["F"] + 4 * i)[0]

    def pull(self):
        """The FPU, VU0 and scalar registers from the C state into the machine's lists."""
        self.c_owns = False
        m, S, mv = self.m, self.m._S, self.mv
        raw = mv[_OFF["F"]:_OFF["F"] + _FPU.size].tobytes()
        if raw != self._fv_raw:
            fv = _FPU.unpack(raw)
            m._F[:] = fv[0:32]
            VF = m._VF
            for i in range(32):
                k = 32 + 4 * i
                VF[i][:] = fv[k:k + 4]
            m._VI[:] = fv[160:176]
            self._F, self._VF, self._VI = m._F[:], [v[:] for v in VF], m._VI[:]
            self._fv_raw = raw
        raw = mv[_OFF["acc_ovf"]:_OFF["acc_ovf"] + _SCAL.size].tobytes()
        if raw != self._sc_raw:
            s = _SCAL.unpack(raw)
            S.acc_ovf = s[0]
            S.sa, S.fcr31, S.acc = s[1], s[2], s[3]
            S.vacc[:] = s[4:8]
            S.q, S.i, S.r, S.mac, S.status, S.clip = s[8:14]
            S.cop0[:] = s[14:46]
            S.cmsar0 = s[46]
            S.cpcond0 = s[47]
            S.vi24 = s[48]
            self._sc, self._sc_raw = s, raw

    # -- the run loop ---------------------------------------------------------------------------
    def run(self, pc: int, limit: int) -> Tuple[int, int]:
        """Run from pc until the sentinel; returns (pc, steps). Faults propagate as the Python
        engine raises them (the caller translates them)."""
        self._ensure(pc)
        self.sync_in()
        return self._loop(pc, limit)

    def call(self, pc: int, gpr: bytes, limit: int) -> Tuple[int, int]:
        """An outermost call: `gpr` is the call's R, RH image (Machine.call's zeroed registers with
        gp, sp, ra and the arguments), written straight into the C state; HI, LO and the rest
        cross as in run(). The Python lists get every GPR when the run ends, as after run()."""
        self._ensure(pc)
        if self.lockstep:
            m = self.m
            m.R[:] = _R32.unpack_from(gpr, 0)
            m.RH[:] = _R32.unpack_from(gpr, _R32.size)
            self.sync_in()
        else:
            self.mv[_OFF_R:_OFF["HI"]] = gpr
            self._sync_rest_in()
        return self._loop(pc, limit)

    def gprs(self):
        """R as the call that just ended left it: in call_each the C state holds it until the end."""
        return _R32.unpack_from(self.mv, _OFF_R) if getattr(self, "_ended_in_c", False) else self.m.R

    def call_each(self, pc, gprs, limit, after=None) -> List[Tuple[int, int]]:
        """Outermost calls from pc, one per R, RH image, one after the other as call() makes them;
        returns (v0, steps) of each. The C state carries over from one call to the next (the lists
        get it once, at the end), so a call costs little more than its own code. pc and limit may
        be lists (one per call); after(i) runs after the i-th call (memory only)."""
        n = len(gprs)
        mixed = isinstance(pc, (list, tuple))
        pcs = list(pc) if mixed else [pc] * n
        limits = list(limit) if isinstance(limit, (list, tuple)) else [limit] * n
        if self.lockstep:
            out = []
            for i, (pc, gpr, limit) in enumerate(zip(pcs, gprs, limits)):
                if mixed:
                    self.m._call_target = pc        # a message names the call's own function
                _, steps = self.call(pc, gpr, limit)
                out.append((self.m.R[2] & 0xFFFFFFFF, steps))
                if after is not None:
                    after(i)
            return out
        out = []
        current = False                 # the C state holds everything but the next call's R, RH
        mv = self.mv
        for i, (pc, gpr, limit) in enumerate(zip(pcs, gprs, limits)):
            if mixed:
                self.m._call_target = pc
            self._ensure(pc)
            mv[_OFF_R:_OFF["HI"]] = gpr
            if not current:
                self._sync_rest_in()
            _, steps = self._loop(pc, limit, sync=False)
            current = self._ended_in_c
            # a call the Python engine finished (its budget met mid-block) left v0 in the lists
            v0 = _V0.unpack_from(mv, _OFF_R + 2 * _V0.size)[0] if current else self.m.R[2]
            out.append((v0 & 0xFFFFFFFF, steps))
            if after is not None:
                after(i)
        if current:
            self.sync_out(lazy=True)
        return out

    def call_batch(self, pcs, gprs, limits, io) -> List[Tuple[int, int]]:
        """call_each with io (a core.callio.CallIO the machine checked: RAM only, no code) doing
        its guard and ops between the calls in C (runtime.h ee_call_batch): Python is entered
        only for a call that leaves compiled code (a hook, a Python-only unit, its budget's last
        units), whose rest, guard and ops it does here as call_each would, for a call the guard's
        fast test did not pass, and to make room; then the batch goes on in C."""
        n = len(pcs)
        m, st = self.m, self.st
        io.start(n)
        b = EeBatch()
        b.n, b.period = n, io.period
        keep = []                       # what the C side points to lives as long as the batch

        def arr(ctype, values):
            a = array.array(_TYPECODE[ctype], values or (0,))
            keep.append(a)
            return a.buffer_info()[0]

        b.pc = arr(ctypes.c_uint32, pcs)
        joined = b"".join(gprs)
        gbuf = ctypes.create_string_buffer(joined, len(joined))
        keep.append(gbuf)
        b.gpr = ctypes.addressof(gbuf)
        b.limit = arr(ctypes.c_uint64, limits)
        out = (ctypes.c_uint64 * (2 * n))()
        b.out = ctypes.addressof(out)
        ops = (EeOp * max(len(io.ops), 1))()
        for k, op in enumerate(io.ops):
            e = ops[k]
            e.kind, e.phase = op[0], op[1]
            if op[0] == 1:                                  # write
                e.a, e.n, e.data = op[2], len(op[3]), arr(ctypes.c_uint8, op[3])
            elif op[0] == 2:                                # and8
                e.a, e.n, e.data = op[2], len(op[3]), arr(ctypes.c_uint32, op[3])
            elif op[0] == 3:                                # gather
                e.n, e.data = len(op[2]), arr(ctypes.c_uint32, op[2])
            else:                                           # taps: row word k is tuple index k - 1
                _, _, tap, regs, arg, offset, nw = op
                e.a, e.arg, e.off, e.n, e.nregs = tap.addr, arg + 1, offset, nw, len(regs)
                e.regs = sum((r + 1) << (4 * j) for j, r in enumerate(regs))
        keep.append(ops)
        b.ops, b.nops = ctypes.addressof(ops), len(io.ops)
        per_call, per_tap = io.per_call(), io.per_tap()
        b.room_gathered = max(per_call.values(), default=0)
        b.room_tapped = TAP_CAP * max(per_tap.values(), default=0)
        gathered = (ctypes.c_uint32 * max(sum(per_call.get(i % io.period, 0) for i in range(io.period))
                                          * (n // io.period + 1), 1))()
        tapped = (ctypes.c_uint32 * max(2 * b.room_tapped, 1))()
        b.gathered, b.gathered_cap = ctypes.addressof(gathered), len(gathered)
        b.tapped, b.tapped_cap = ctypes.addressof(tapped), len(tapped)
        counts = (ctypes.c_uint32 * max(n, 1))()
        b.tap_counts = ctypes.addressof(counts)
        regs = sorted(io.guard_regs.items())
        b.nguard = len(regs)
        b.guard_reg = arr(ctypes.c_uint32, [r for r, _ in regs])
        b.guard_val = arr(ctypes.c_uint64, [v for _, v in regs])
        b.nruns = len(io.guard_runs)
        b.runs = arr(ctypes.c_uint32, [x for run in io.guard_runs for x in run])
        taps = {t.addr: t for t in io.taps()}

        def flush():
            """C's output so far onto io's, before Python adds a call's own (call order)."""
            if b.ngathered:
                io._gathered.append(np.frombuffer(gathered, dtype=np.uint32, count=b.ngathered).copy())
            if b.ntapped:
                io._tapped.append(np.frombuffer(tapped, dtype=np.uint32, count=b.ntapped).copy())
            b.ngathered = b.ntapped = 0

        def marks():
            """Drain the tap buffer; per gathered tap, where the current call's calls start."""
            n_tap, first = st.tap_n, b.tap_from
            mine = dict.fromkeys(taps, 0)
            if n_tap > first and taps:
                for a in self._taps[TAP_WORDS * first:TAP_WORDS * n_tap:TAP_WORDS]:
                    if a in mine:
                        mine[a] += 1
            if n_tap:
                self._drain_taps()
            return {a: len(t.calls) - mine[a] for a, t in taps.items()}

        self._ensure(pcs[0])
        self._sync_rest_in()
        baddr = ctypes.addressof(b)
        current = True                  # the C state holds everything but the next call's R, RH
        self._ended_in_c = True
        try:
            while b.i < n:
                if not current:
                    self._sync_rest_in()
                    current = True
                self._ensure(pcs[b.i])
                prog = self.prog
                if not b.resume:
                    b.tap_from = st.tap_n
                else:
                    b.tap_from = 0              # the finished call's taps, moved back (_taps_back)
                heap = m.hooks.heap
                if heap is not None:
                    self._bump_in(heap)
                if self.timing:
                    t0 = time.perf_counter()
                    prog.lib.ee_call_batch(self.addr, self._bidx_addr, prog.lo, prog.nwords, baddr)
                    self.c_seconds += time.perf_counter() - t0
                    self.c_runs += 1
                else:
                    prog.lib.ee_call_batch(self.addr, self._bidx_addr, prog.lo, prog.nwords, baddr)
                if st.bump_n:
                    self._bump_out()
                stop, i = b.stop, b.i
                if stop == STOP_DONE:
                    break
                if stop == STOP_ROOM:
                    if st.tap_n:
                        self._drain_taps()
                    flush()
                    continue
                flush()                 # call i's rest, guard and ops in Python, in call order
                at = marks()
                if stop == STOP_LEFT:
                    self.m._call_target = pcs[i]
                    _, steps = self._loop(st.pc, limits[i], sync=False, steps=st.steps)
                    current = self._ended_in_c
                    # a call the Python engine finished (its budget met mid-block) left v0 in the lists
                    v0 = _V0.unpack_from(self.mv, _OFF_R + 2 * _V0.size)[0] if current else m.R[2]
                    out[2 * i], out[2 * i + 1] = v0 & 0xFFFFFFFF, steps
                    if st.tap_n:
                        self._drain_taps()
                    if current and self._taps_back(taps, at):
                        b.resume = 1            # its guard and ops in C, as for a call C finished
                        continue
                else:
                    self._ended_in_c = True
                io.after_call(m, i, at)
                b.i = i + 1
        except BaseException:
            # call b.i raised (its code, its guard's check): io's outputs are the calls' before it
            self._batch_outputs(io, flush, counts, out, b.i)
            raise
        if st.tap_n:
            self._drain_taps()
        self._batch_outputs(io, flush, counts, out, n)
        if current:
            self.sync_out(lazy=True)
        got = out[:]
        return list(zip(got[0::2], got[1::2]))

    @staticmethod
    def _batch_outputs(io, flush, counts, out, done):
        """io's outputs of a batch's first `done` calls: C's onto io's (flush), the tap counts, v0s."""
        flush()
        io.tap_counts = np.maximum(io.tap_counts, np.frombuffer(counts, dtype=np.uint32, count=len(io.tap_counts)))
        io._returned = out[0:2 * done:2]
        io.finish()

    def _taps_back(self, taps, marks) -> bool:
        """A batch's call that Python finished: its calls of the gathered taps (those after
        marks[address] in each hook's calls) moved back into the emptied tap buffer, in call
        order per tap, for C to gather; False (nothing moved) when they do not fit."""
        st = self.st
        rows = []
        for a, t in taps.items():
            got = t.calls[marks[a]:]
            rows.extend((a,) + tuple(r) for r in got)
        if len(rows) > TAP_CAP // 2:
            return False
        for a, t in taps.items():
            del t.calls[marks[a]:]
        buf = self._taps
        for k, row in enumerate(rows):
            buf[TAP_WORDS * k:TAP_WORDS * (k + 1)] = row
        st.tap_n = len(rows)
        return True

    def _loop(self, pc: int, limit: int, sync: bool = True, steps: int = 0) -> Tuple[int, int]:
        """The run from pc (its registers in C) to the sentinel, `steps` already run. sync=False
        leaves the registers in C at the end (call_each); _ended_in_c says whether C holds the
        newest state then (a run that met its budget ends in the Python engine, on the lists)."""
        m = self.m
        st = self.st
        self._ended_in_c = False
        while pc != SENTINEL:
            prog = self.prog
            if self.lockstep:
                why, pc, steps = self._lockstep_block(pc, steps, limit)
            else:
                st.pc = pc
                st.steps = steps
                st.limit = limit
                heap = m.hooks.heap
                if heap is not None:
                    self._bump_in(heap)
                if self.timing:
                    t0 = time.perf_counter()
                    why = prog.lib.ee_run(self.addr, self._bidx_addr, prog.lo, prog.nwords, 0)
                    self.c_seconds += time.perf_counter() - t0
                    self.c_runs += 1
                else:
                    why = prog.lib.ee_run(self.addr, self._bidx_addr, prog.lo, prog.nwords, 0)
                pc, steps = st.pc, st.steps
                if st.bump_n:
                    self._bump_out()
                if st.tap_n:
                    self._drain_taps()
            if pc == SENTINEL:
                break
            if why == WHY_ONE:
                continue
            self.sync_out(lazy=why == WHY_HOOK)       # a hook reads what it needs through m.F ...
            self.python.prev_block = st.prev
            if why == WHY_UNIT:
                self._count_partial(pc)
            if why == WHY_LIMIT:
                m.pc = pc
                return self.python.run_exact(pc, steps, limit)
            pc, steps = self._python_unit(pc, steps, limit, why)
            if self._stale:                 # a hook changed the code or the hooks
                self._ensure(pc)
            self.sync_in()
        self._ended_in_c = True
        if sync:
            self.sync_out(lazy=True)
        # the block counters stay in C until m.coverage / m.code_coverage is read (or the program
        # changes): a flush walks every block of the program, far more than one call's work
        return pc, steps

    # -- coverage (Machine(coverage=True)): per-block exit counts, spread over the instructions --
    def _cov_block(self, b: int) -> tuple:
        """(pcs, mnemonics, conditional branch pc, annullable slot pc) of native block b."""
        got = self._cov_blocks.get(b)
        if got is None:
            m, prog = self.m, self.prog
            rows = m.decoder.rows
            pcs = tuple(range(prog.starts[b], prog.ends[b], 4))
            mns = tuple(rows[m.decoded(a)[0]].mnemonic for a in pcs)
            branch = slot = None
            if len(pcs) >= 2:
                flow = rows[m.decoded(pcs[-2])[0]].flow
                if flow in ("branch", "likely"):
                    branch = pcs[-2]
                    slot = pcs[-1] if flow == "likely" else None
            got = self._cov_blocks[b] = (pcs, mns, branch, slot)
        return got

    def flush_coverage(self):
        if not self.m.coverage_enabled or self.prog is None or getattr(self, "_bcount", None) is None:
            return
        from eemu_ext.engines.coverage import spread
        m, bc = self.m, self._bcount
        for b in range(len(self.prog.starts)):
            full, ann, taken = bc[4 * b + 1], bc[4 * b + 2], bc[4 * b + 3]
            if not (full or ann or taken):
                continue
            spread(m._code_coverage, m._coverage, self._cov_block(b), full, ann, taken)
            bc[4 * b + 1] = bc[4 * b + 2] = bc[4 * b + 3] = 0

    def _count_partial(self, pc: int):
        """Coverage of a block that left early at unit pc: the units before it ran."""
        m = self.m
        if m.coverage_enabled and self.st.prev and self.st.prev <= pc:
            rows = m.decoder.rows
            for a in range(self.st.prev, pc, 4):
                m._code_coverage.insns[a] += 1
                m._coverage[rows[m.decoded(a)[0]].mnemonic] += 1

    def _lockstep_block(self, pc: int, steps: int, limit: int):
        """One block in both engines (lockstep.py); (why, pc, steps) as the native run gives them."""
        prog = self.prog
        i = (pc - prog.lo) >> 2
        b = self.bidx[i] if 0 <= i < prog.nwords and not pc & 3 else -1
        if b < 0:
            return (WHY_HOOK if b == -2 else WHY_MISS), pc, steps
        if steps + prog.sizes[b] > limit:
            return WHY_LIMIT, pc, steps
        npc, nsteps, why = self.checker.check(pc, steps, limit)
        return why, npc, nsteps

    def native_snapshot(self) -> tuple:
        """The C state's registers in lockstep.NAMES order."""
        return _REGS.unpack_from(self.mv, _OFF["R"]) + _SCAL.unpack_from(self.mv, _OFF["acc_ovf"])

    def _read_log(self):
        st = self.st
        n = st.log_n
        if n > st.log_cap:
            raise EngineError(f"lockstep: a block made more than {st.log_cap} stores (the store log's "
                              f"capacity)", st.pc)
        if not n:
            return []
        log = self._log
        old = ctypes.string_at(log.old, 16 * n)
        new = ctypes.string_at(log.new, 16 * n)
        out = []
        frm = int.from_bytes
        for k in range(n):
            size = log.size[k]
            out.append((log.addr[k], size, frm(old[16 * k:16 * k + size], "little"),
                        frm(new[16 * k:16 * k + size], "little")))
        return out

    def run_one_logged(self, pc: int, steps: int, limit: int):
        """Exactly one native block from the Python lists' state, stores logged; the machine's
        state afterwards is the native result. Returns (why, pc, steps, store log)."""
        st, prog = self.st, self.prog
        self.sync_in()
        st.pc, st.steps, st.limit = pc, steps, limit
        st.log_on, st.log_n = 1, 0
        try:
            why = prog.lib.ee_run(self.addr, self._bidx_addr, prog.lo, prog.nwords, 1)
        finally:
            st.log_on = 0
        return why, st.pc, st.steps, self._read_log()

    def run_unit_logged(self, fn):
        """One unit's C function (lockstep localisation); (why, next pc, steps, store log)."""
        st = self.st
        fn.argtypes = [ctypes.c_void_p]
        fn.restype = ctypes.c_uint32
        self.sync_in()
        st.why, st.steps, st.log_on, st.log_n = 0, 0, 1, 0
        try:
            ret = fn(self.addr)
        finally:
            st.log_on = 0
        log = self._read_log()
        why = st.why
        self.sync_out()
        return why, (st.pc if why else ret), st.steps, log

    def _python_unit(self, pc: int, steps: int, limit: int, why: int) -> Tuple[int, int]:
        """One unit in the Python engine (one Python block where no native block starts)."""
        m = self.m
        self.python_units += 1
        single = why != WHY_MISS or pc in m.hooks.at or self._python_only(pc)
        py = self.python
        e = (py.single if single else py.blocks).get(pc) or py.unit(pc, single)
        if steps + e[1] > limit:
            m.pc = pc
            return self.python.run_exact(pc, steps, limit)
        S = m._S                        # annul is the Python engine's own (never in C)
        ann0 = S.annul
        m.pc = pc
        pc = e[0]()
        return pc, steps + e[1] - (S.annul - ann0)

    def _python_only(self, pc: int) -> bool:
        d = self.m.decoded(pc)
        if d is None or d[0] < 0:
            return True
        row = self.m.decoder.rows[d[0]]
        return not row.c or bool(row.python_only) or row.flow == "stop"
