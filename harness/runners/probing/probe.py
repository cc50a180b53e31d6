"""The readiness probe: each entry point on a few small chunks, watched, before any bulk.

It records the functions entered (a symbolised call tree with counts), syscalls and COP0 use, data
accesses outside the memory the executable and the harness provide, reads of reader, ccAnm,
ccStream and ccSys fields executable-abi.md §5 does not list, the allocator calls with their
arguments and the output cursor's high-water mark; it measures what _AnimateForward adds. Every
finding is one line naming symbol, pc and address; the verdict is ready only with no error.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from harness.driver import memory_map as mm
from harness.driver import stubs
from corpus.names import counted
from harness import HarnessError
from harness.driver.volumes import from_executable
from harness.driver.game import FORWARD, NOTE_PROCESS, SHORT, Game

SENTINEL = 0xFFFFFFF0
# Bytes of each harness-made structure that executable-abi.md §5 names (offset, size).
KNOWN_FIELDS = {
    "ccAnm": (mm.ANM, mm.ANM_SIZE, [(0x94, 4), (0x98, 4), (0x9C, 2), (0x9E, 2), (0xA0, 4), (0xA4, 4),
                                    (0xAC, 4), (mm.ANM_READER + mm.READER_PTR, 4),
                                    (mm.ANM_READER + mm.READER_END, 4), (0xF8, 4), (0x104, 4)]),
    "ccStream": (mm.STREAM, mm.STREAM_SIZE, [(0xA8, 4), (0xB4, 4)]),
    "ccSys": (mm.SYS, mm.SYS_SIZE, [(mm.SYS_SCRATCH_PTR, 4)]),
    "reader": (mm.RB, mm.RB_SIZE, [(mm.READER_PTR, 4), (mm.READER_END, 4)]),
}
# The memory the harness sets up (checks.md §8.1), besides the heap's allocated part and the stack.
HARNESS_REGIONS = [(mm.SYS, mm.SYS + mm.SYS_SIZE), (mm.RB, mm.RB + mm.RB_SIZE),
                   (mm.CHUNK, mm.CHUNK + mm.CHUNK_SIZE), (mm.DATAPTR, mm.NUM + 4),
                   (mm.TBL, mm.ANM), (mm.ANM, mm.ANM + mm.ANM_SIZE), (mm.STREAM, mm.STREAM + mm.STREAM_SIZE),
                   (mm.IDX, mm.MORPH_PARAM), (mm.MORPH_PARAM, mm.MORPH_PARAM + mm.MORPH_PARAM_SIZE),
                   (mm.SCRATCH, mm.SCRATCH_END), (mm.DATA_BUF, mm.DATA_BUF_END),
                   (0x70000000, 0x70004000)]          # the scratchpad (the game keeps matrices there)
STACK_SPAN = 0x00100000      # DECISION: the lowest 1 MiB below STACK_TOP counts as the stack
IMAGE_END = 0x01000000       # executable-abi.md §1.3: image and .bss end below 0x01000000
SIZES = {"lb": 1, "lbu": 1, "sb": 1, "lh": 2, "lhu": 2, "sh": 2, "ld": 8, "sd": 8, "ldl": 8, "ldr": 8,
         "sdl": 8, "sdr": 8, "lq": 16, "sq": 16, "lqc2": 16, "sqc2": 16}
COP0_EXTRA = frozenset(("cache",))      # COP0-class rows plus the cache operation
FORWARD_SPEED, FORWARD_STEP = 256, 100


class ProbeStop(Exception):
    """The probe stops the run where it saw something it cannot let run on (a low-memory call)."""
    _eemu_passthrough = True      # re-raised by the machine unchanged


@dataclass
class Finding:
    severity: str            # 'error' (not ready) or 'warn' (handled, but the spec's reading is off)
    kind: str
    text: str

    def line(self):
        return f"{self.severity.upper():5s} {self.kind}: {self.text}"


@dataclass
class Report:
    image: str
    chunks: List[str]
    findings: List[Finding] = field(default_factory=list)
    edges: Counter = field(default_factory=Counter)      # (caller or None, callee) -> calls
    syscalls: Counter = field(default_factory=Counter)
    cop0: Counter = field(default_factory=Counter)
    allocs: List[tuple] = field(default_factory=list)
    high_water: List[tuple] = field(default_factory=list)  # (chunk, bytes used, buffer bytes)
    forward: Optional[Tuple[str, int]] = None              # (reading, measured time)
    layout: List[str] = field(default_factory=list)       # what the loader found (probe_layout.py)
    offsets: List[str] = field(default_factory=list)      # the structure offsets against the code (probe_fields.py)
    symbolize: object = field(default=lambda a: f"0x{a:08x}", repr=False)

    @property
    def ready(self):
        return not any(f.severity == "error" for f in self.findings)

    def add(self, severity, kind, text):
        if not any(f.kind == kind and f.text == text for f in self.findings):
            self.findings.append(Finding(severity, kind, text))


class Watch:
    """The machine's step and syscall hooks: call tree, COP0, accesses, unknown field reads."""

    def __init__(self, game: Game, report: Report):
        self.g, self.r, self.m = game, report, game.m
        img = game.img
        funcs = getattr(img, "_funcs", None) or []
        self.starts = {s: n for s, _, n in funcs} or {a: n for n, a in img.symbols.items()}
        self.floor = game.m.data_floor
        # DECISION: the executable's image, .bss and overlay window end at its volume's heap section
        # (executable-abi.md §1.2, volumes.md §1); the game's own heap beyond it is the stubs'
        # business, so an access there is outside memory. An executable of no volume: IMAGE_END.
        vol = from_executable(img)
        self.image_end = vol.heap if vol is not None else IMAGE_END
        self.decoded: Dict[int, tuple] = {}
        self.known = {name: (base, size, {base + o + i for o, n in f for i in range(n)})
                      for name, (base, size, f) in KNOWN_FIELDS.items()}
        self.m.hooks.add("step", self.step)
        self.m.hooks.add("syscall", self.syscall)

    def func_of(self, addr):
        s = self.m.symbolize(addr)
        return s.split("+", 1)[0]

    def where(self, pc):
        return f"pc 0x{pc:08x} ({self.m.symbolize(pc)})"

    def step(self, m, pc):
        if pc < self.floor:
            ra = m.R[31] & 0xFFFFFFFF
            raise ProbeStop(f"a call through a null or low pointer: pc 0x{pc:08x} lies below the "
                            f"executable's lowest segment 0x{self.floor:08x}; reached from 0x{(ra - 8) & 0xFFFFFFFF:08x} "
                            f"({m.symbolize((ra - 8) & 0xFFFFFFFF)}): {m.disasm((ra - 8) & 0xFFFFFFFF)}")
        name = self.starts.get(pc)
        if name is not None:
            ra = m.R[31] & 0xFFFFFFFF
            caller = None if ra == SENTINEL else self.func_of((ra - 8) & 0xFFFFFFFF)
            self.r.edges[(caller, name)] += 1
        self.insn(m, pc)
        d = self.info(m, pc)
        if d and d[4]:                      # a branch: its delay slot runs in the same unit
            self.insn(m, pc + 4)

    def info(self, m, pc):
        d = self.decoded.get(pc)
        if d is None:
            dec = m.decoded(pc)
            if dec is None or dec[0] < 0:
                d = None
            else:
                row = m.decoder.rows[dec[0]]
                word = dec[1]
                mn = row.mnemonic
                store = row.cls == "store" or mn in ("swc1", "sqc2")
                mem = store or row.cls == "load" or mn in ("lwc1", "lqc2")
                imm = word & 0xFFFF
                d = (mn if row.cls != "cop0" and mn not in COP0_EXTRA else "cop0:" + mn, mem, (word >> 21) & 31, imm - 0x10000 if imm & 0x8000 else imm, bool(row.flow), store)
            self.decoded[pc] = d
        return d

    def insn(self, m, pc):
        d = self.info(m, pc)
        if d is None:
            return
        mn, mem, rs, imm, _, store = d
        if mn.startswith("cop0:"):
            self.r.cop0[(mn[5:], self.m.symbolize(pc))] += 1
        if not mem:
            return
        size = SIZES.get(mn, 4)
        a = ((m.R[rs] & 0xFFFFFFFF) + imm) & 0xFFFFFFFF
        a &= ~(size - 1)
        phys = a & 0x1FFFFFFF if a >= 0x80000000 else a
        self.classify(pc, mn, phys, size, store)

    def classify(self, pc, mn, a, size, store):
        if self.floor <= a < self.image_end:
            return                                        # the executable's image and .bss
        if mm.STACK_TOP - STACK_SPAN <= a < mm.STACK_TOP:
            return
        for name, (base, n, known) in self.known.items():
            if base <= a < base + n:
                if not store and not all(a + i in known for i in range(size)):
                    self.r.add("error", "unknown field",
                               f"{mn} at {self.where(pc)} reads {name} +0x{a - base:X} (0x{a:08x}), a field "
                               f"executable-abi.md §5 does not list; the harness leaves it zero")
                return
        for lo, hi in HARNESS_REGIONS:
            if lo <= a < hi:
                return
        if self.g.heap.start <= a < self.g.heap.ptr:
            return
        if a < self.floor:
            return            # the machine's data floor faults on it; reported from the fault
        self.r.add("error", "outside memory",
                   f"{mn} at {self.where(pc)} {'writes' if store else 'reads'} 0x{a:08x}, outside the "
                   f"executable and the memory the harness set up (heap in use up to 0x{self.g.heap.ptr:08x})")

    def syscall(self, m, kind, code):
        self.r.syscalls[(kind, m.symbolize(m.pc), code)] += 1


def probe(image, corpus, float_model="hw", n_chunks=3, budgets=None, machine_args=None, volume=None) -> Report:
    """Probe `image` on a few small chunks of `corpus` (those with objects, notes, materials);
    machine_args: its sidecar and resident overlay (harness/executable.py); volume: the volume whose
    structure offsets are checked against the code (harness/volume.py; none: not checked)."""
    ids = pick_chunks(corpus, n_chunks)
    report = Report(str(image), ids)
    report.machine_args = dict(machine_args or {})
    game = new_game(image, float_model, report, budgets)
    from harness.runners.probing.probe_layout import layout_lines, loaded_layout
    img = game.img if game is not None else loaded_layout(image, report.machine_args)
    if img is not None:              # the layout shows even when the image cannot be driven
        report.layout, found = layout_lines(img, str(image))
        if volume is not None:
            from harness.runners.probing.probe_fields import offset_lines
            report.offsets, more = offset_lines(img, volume)
            found = list(found) + more
        for severity, kind, text in found:
            report.add(severity, kind, text)
    if game is None:
        return report
    for cid in ids:
        ch = corpus.chunk(cid)
        for stage in (stage_load, stage_controllers, stage_forward, stage_notes):
            try:
                stage(game, ch, report)
            except Exception as exc:
                report.add("error", kind_of(exc, stage.__name__[6:]), describe(exc, ch.id))
                game = new_game(image, float_model, report, budgets)
                if game is None:
                    return report
    try:
        stage_modify(game, report)
    except Exception as exc:
        report.add("error", "modify", describe(exc, "Modify case"))
    for (kind, where, code), n in report.syscalls.items():
        report.add("error", "syscall", f"{kind} 0x{code:x} in {where} (x{n}): the animation path makes a system call")
    for (mn, where), n in report.cop0.items():
        report.add("warn", "COP0", f"{mn} in {where} (x{n})")
    return report


def new_game(image, float_model, report, budgets):
    try:
        game = Game(image, float_model, budgets=budgets, **getattr(report, "machine_args", {}))
    except Exception as exc:
        report.add("error", "image", describe(exc, str(image)))
        return None
    game.load_once = False       # the probe watches every load the executable really makes
    report._watch = Watch(game, report)
    report.symbolize = game.m.symbolize
    return game


def kind_of(exc, stage):
    """The finding kind for an exception that stopped a stage."""
    from eemu_ext.errors import EmulationError, MemoryFault, StepLimitExceeded
    text = str(exc)
    if isinstance(exc, ProbeStop):
        return "null call"
    if isinstance(exc, MemoryFault):
        return "low memory" if "below the data floor" in text else "memory fault"
    if isinstance(exc, StepLimitExceeded):
        return "step budget"
    if isinstance(exc, HarnessError) and "output-buffer overrun" in text:
        return "output overrun"
    if isinstance(exc, EmulationError):
        return "emulation error"      # e.g. an instruction fetch outside the loaded segments
    return stage


def describe(exc, where):
    text = " ".join(str(exc).split())
    return f"{where}: {type(exc).__name__}: {text}"


def pick_chunks(corpus, n):
    """The smallest chunks that have object tracks and at least 3 frames, then notes and materials.
    DECISION: by size, then archive order, so a probe is quick and deterministic."""
    from reference import Animation
    by_size = sorted(corpus.chunk_ids(), key=lambda c: (len(corpus.chunk(c).data), c))
    want = ["tracks", "notes", "materials"]
    out = []
    for cid in by_size:
        if not want or len(out) >= n:
            break
        ch = corpus.chunk(cid)
        try:
            a = Animation.parse(ch.data, names=ch.names, ext=ch.ext)
        except Exception:
            continue
        have = [w for w in want if getattr(a, w)]
        if have and a.frames >= 3 and a.tracks:
            out.append(cid)
            for w in have:
                want.remove(w)
    if not out:
        raise HarnessError("probe: no chunk with object tracks and at least 3 frames in the corpus")
    return out


def stage_load(game, ch, report):
    game.load(ch.data)
    out, end = game.out_buffer
    report.high_water.append((ch.id, game.out_high, end - out))
    note_allocs(game, report)


def note_allocs(game, report):
    for name, args, ra, addr in game.heap.log:
        report.allocs.append((name, args, ra, addr))
        if name == stubs.MEMALIGN:
            a0, a1 = args
            if stubs.is_pow2(a0) and a0 <= 4096 and a1 > a0:
                report.add("warn", "ccMemalign order",
                           f"{name} called as (align, size) = (0x{a0:x}, 0x{a1:x}) from 0x{(ra - 8) & 0xFFFFFFFF:08x} "
                           f"({game.m.symbolize((ra - 8) & 0xFFFFFFFF)}), not the (size, align) of executable-abi.md §6; "
                           f"the stub allocates max(a0, a1) = 0x{max(a0, a1):x} bytes aligned to 0x{a0:x}")
    game.heap.log = []


def stage_controllers(game, ch, report):
    entries = game.load(ch.data)
    game.new_anm()
    objs = [e for e in entries if e.kind == mm.KIND_OBJECT][:2]
    for e in objs:
        work, _ = game.work(e.ctrl)
        for t in (0, 1, 256):
            game.reset_work(work)
            game.step(work, t)
    note_allocs(game, report)


def stage_forward(game, ch, report):
    """From a fresh playback with frameSpd = 256, forward(100): 100 = the step, 256 = frameSpd."""
    entries = game.load(ch.data)
    game.playback(entries, ch.names, FORWARD_SPEED)
    game.call(FORWARD, mm.ANM, FORWARD_STEP)
    t = game.time()
    if report.forward is None:
        reading = {FORWARD_STEP: "step", FORWARD_SPEED: "frameSpd",
                   FORWARD_STEP * FORWARD_SPEED: "multiplier"}.get(t, "other")
        report.forward = (reading, t)
        sym = f"_AnimateForward ({game.sym[FORWARD]:#010x})"
        if reading == "frameSpd":
            report.add("warn", "_AnimateForward",
                       f"{sym} adds ccAnm::frameSpd (+0x9C), not its step argument: forward({FORWARD_STEP}) with "
                       f"frameSpd {FORWARD_SPEED} gave time {t} ({ch.id}); the harness writes frameSpd := step "
                       f"before each call, so both readings agree for steps up to 65535")
        elif reading != "step":
            report.add("error", "_AnimateForward",
                       f"{sym}: forward({FORWARD_STEP}) with frameSpd {FORWARD_SPEED} gave time {t} ({ch.id}): "
                       f"neither the step (executable-abi.md §4) nor frameSpd; the checks cannot drive it")
    for _ in range(3):
        game.forward(256)
    note_allocs(game, report)


def stage_notes(game, ch, report):
    """Play with funcNoteProcess = 0 (the executable's default), NoteProcess; then with the hook."""
    entries = game.load(ch.data)
    game.playback(entries, ch.names, 256)
    game.give_every_entry_an_instance(entries)
    from reference import Animation
    frames = Animation.parse(ch.data, names=ch.names, ext=ch.ext).frames
    # every frame once, so each note fires (DECISION: at most 400 frames, the probe stays quick)
    for _ in range(max(3, min(frames + 1, 400))):
        game.forward(256)
        game.call(NOTE_PROCESS, mm.ANM)                 # no note function: nothing may be called
    game.enable_notes()
    game.forward(256)
    game.note_process()
    for flag in game.note_flags:
        report.add("error", "note hook", f"{flag} ({ch.id})")
    game.note_flags = []
    note_allocs(game, report)


def stage_modify(game, report):
    base = [(10, 20, 30), (-5, 7, 0)]
    targets = [([(12, 18, 33), (-4, 9, 1)], 0x3F800000, 0x3F000000)]
    game.modify(base, 0x3F800000, targets)
    note_allocs(game, report)


# -- the report ---------------------------------------------------------------------------------
def format_report(r: Report, max_allocs=12) -> str:
    from harness.arguments import engine_in_use
    L = [f"eediff probe: {r.image} (engine {engine_in_use()})", f"  chunks: {', '.join(r.chunks)}", ""] + (r.layout + [""] if r.layout else [])
    L.append("call tree (calls per edge):")
    children: Dict[Optional[str], Counter] = {}
    for (a, b), n in r.edges.items():
        children.setdefault(a, Counter())[b] += n

    shown = set()

    def walk(name, n, depth):
        # a function's callees are listed once, under its first appearance
        again = name in shown and children.get(name)
        L.append(f"  {'  ' * depth}{short(name)} x{n}{'  (callees above)' if again else ''}")
        if name in shown:
            return
        shown.add(name)
        for c, k in sorted(children.get(name, {}).items(), key=lambda x: (-x[1], x[0])):
            walk(c, k, depth + 1)
    for root, n in sorted(children.get(None, {}).items(), key=lambda x: (-x[1], x[0])):
        walk(root, n, 0)
    if not r.edges:
        L.append("  (no function entered)")
    L.append("")
    L.append("syscalls: " + (", ".join(f"{k[0]} 0x{k[2]:x} in {k[1]} x{n}" for k, n in r.syscalls.items()) or "none"))
    L.append("COP0: " + (", ".join(f"{k[0]} in {k[1]} x{n}" for k, n in r.cop0.items()) or "none"))
    L.append("")
    per = Counter((a[0], a[1]) for a in r.allocs)
    L.append(f"allocator log ({len(r.allocs)} calls; distinct (function, arguments) first {max_allocs}):")
    seen = []
    for name, args, ra, addr in r.allocs:
        if (name, args) in seen:
            continue
        seen.append((name, args))
        if len(seen) > max_allocs:
            break
        site = (ra - 8) & 0xFFFFFFFF
        L.append(f"  {name}({', '.join(f'0x{x:x}' for x in args)}) x{per[(name, args)]}, first from "
                 f"0x{site:08x} ({r.symbolize(site)}) -> 0x{addr:08x}")
    L.append("output cursor high-water: " + ("; ".join(f"{c}: {u} of {n} bytes" for c, u, n in r.high_water) or "none"))
    if r.forward:
        L.append(f"_AnimateForward: forward({FORWARD_STEP}) from a fresh playback with frameSpd {FORWARD_SPEED} -> "
                 f"time {r.forward[1]}: the {'argument is the step' if r.forward[0] == 'step' else r.forward[0] + ' reading'}")
    L.append("")
    L.append("findings:" if r.findings else "findings: none")
    for f in r.findings:
        L.append("  " + f.line())
    errors = sum(f.severity == "error" for f in r.findings)
    warns = len(r.findings) - errors
    if r.ready:
        L.append(f"verdict: READY ({warns} warnings)" + (": see the WARN lines" if warns else ""))
    else:
        first = next(f for f in r.findings if f.severity == "error")
        L.append(f"verdict: NOT READY ({counted(errors, 'error')}, {counted(warns, 'warning')}): {first.kind}")
    return "\n".join(L)


def short(name):
    return SHORT.get(name, name)


def run_cli(opts, budgets=None) -> int:
    from harness.volume import of_options, volume_lines
    vol = of_options(opts, unloadable=True)  # a contradiction stops here, before the probe
    corpus = opts.open_corpus()
    r = probe(opts.image, corpus, opts.float_model, budgets=budgets, machine_args=opts.machine_args(),
              volume=vol.volume if vol is not None else None)
    if vol is not None:
        r.layout[1:1] = volume_lines(vol) + r.offsets
    from corpus.truncation import check_archive
    cut = check_archive(opts.data_path(), opts.image, opts.sidecar_symbols())
    if cut:                     # the index tables see members the archive no longer holds
        r.findings.append(Finding("error", "truncated archive", cut))
    print(format_report(r))
    return 0 if r.ready else 1
