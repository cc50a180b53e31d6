"""Provenance of a mismatch: the game's instructions behind the word a check compared.

A mismatch is replayed (its shrunk input when there is one) with the machine's recorder on
(eemu_ext/analysis/record.py) around the one game call that wrote the compared word: SetAnmCtrlWork of the
compared time for a controllers mismatch, the last _AnimateForward for a playback one. The store
that last wrote the word (``rec.last_store_to``) starts a walk of the data flow backward
(``rec.producer_chain``, depth DEPTH): the instruction that produced the stored register, the
producers of its operands, and so on, stopping at loads of chunk data (the data buffer and the
loaded chunk region of driver/memory_map.py) and at the call's arguments.

The first differing step: the reference (reference.Animation on its Python float model) is run on
the same case with its float operations traced, which gives the set of every f32 pattern it
computed or consumed for the compared value.
DECISION: the first differing step is the first step, in execution order, of the chain's float
computations (a line writing an FPR, a VF lane or an accumulator that loads nothing and whose
output equals none of its inputs) whose output bits are none of the reference's patterns: the
reference names no intermediate there. A chain without such a step says so (`first_differs`
None, `note`).

The word's own path (`value_path`): from its last store, the loads, stores and register moves
that passed its bits on, back to the instruction that computed them; when the traced call only
moved the word (a matrix precomputed at load), into a recorded ConvLCNum2ALCNum. Without a first
differing step, that instruction is the origin: a copy or a load is never named as the producer.

Everything is plain JSON (interfaces.md §4, `provenance` of a Mismatch record).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ground.fields import BadField, Field
from harness import checks
from harness.compare.tables import entries_by_record
from harness.driver import memory_map as mm
from harness.driver.game import FORWARD, SET_WORK

DEPTH = 12
# DECISION: a chunk's first PER_CHUNK mismatches are traced (each costs one recorded replay,
# about a second), so a broken build that fails every chunk stays cheap.
PER_CHUNK = 3
FLOAT_KINDS = ("fpr", "vf", "vacc", "acc")


class NoProvenance(Exception):
    """The mismatch cannot be traced (says why: a check without a replay, a word not re-made)."""


# -- values --------------------------------------------------------------------------------------
def f32_text(v: int) -> str:
    """The float of a pattern's low 32 bits, as the EE reads it (E = 0 is zero, E = 255 a number)."""
    from reference.eefloat import bits_to_double
    return f"{bits_to_double(v & 0xFFFFFFFF):.9g}"


def value(loc: str, v: int) -> dict:
    return {"loc": loc, "hex": f"0x{v:08x}" if v <= 0xFFFFFFFF else f"0x{v:016x}", "float": f32_text(v)}


# -- the reference's traced float patterns --------------------------------------------------------
class TracedOps:
    """A reference FloatOps whose every operation records its operands and result (u32 patterns)."""

    NAMES = ("f_add", "f_sub", "f_mul", "f_madd", "f_msub", "f_div", "f_sqrt", "f_rsqrt", "f_from_int",
             "u2f")

    def __init__(self, base):
        self.base, self.model, self.values = base, base.model, set()
        self.f_cmp, self.f_to_int = base.f_cmp, base.f_to_int
        for name in self.NAMES:
            setattr(self, name, self._traced(getattr(base, name)))

    def _traced(self, fn):
        seen = self.values

        def op(*args):
            r = fn(*args)
            seen.update(a & 0xFFFFFFFF for a in args)
            seen.add(r & 0xFFFFFFFF)
            return r
        return op

    def mac4(self, terms):
        r = self.base.mac4(terms)
        self.values.update(x & 0xFFFFFFFF for t in terms for x in t)
        self.values.add(r & 0xFFFFFFFF)
        return r


def reference_patterns(ch, float_model, track, T, local=False):
    """Every f32 pattern the reference computes or consumes evaluating one track at time T."""
    from reference import Animation
    anim = Animation.parse(ch.data, names=ch.names, ext=ch.ext, float_model=float_model, native=False)
    ops = TracedOps(anim.ops)
    # DECISION: the traced bundle replaces the model's own before anything is compiled (the
    # Python model compiles a track's controllers on first use with the track's ops).
    anim.ops = ops
    for tr in anim.tracks:
        tr._o = ops
    anim.pose(track, T)
    if local:
        anim.local_matrix(track, T)
    return ops.values


# -- the compared word ------------------------------------------------------------------------
# check -> (the word, its plain field and offset; the 3x3's field and its offset (word 4c + r);
# {axis field: (offset of x, words between axes)}): where each compared field's word lies
WORDS = {"controllers": ("scratch", ("transparency", mm.SCRATCH_ALPHA), ("rotation", mm.SCRATCH_ROT),
                         {"position": (mm.SCRATCH_POS, 1), "scale": (mm.SCRATCH_SCALE, 5)}),
         "playback": ("coord", ("localtp", mm.COORD_LOCALTP), ("matrix", mm.COORD_MATRIX),
                      {"translation": (mm.COORD_MATRIX + 4 * 12, 1)})}


def word_offset(check: str, field: str) -> int:
    """The byte offset of a field's word: a controllers field in the scratch area (executable-abi.md
    §5.6, Game.scratch), a playback field in the coord (+0x40 matrix, +0x88 localtp)."""
    where, (plain, plain_at), (nine, nine_at), axes = WORDS[check]
    try:
        f = Field.parse(field)
    except BadField:
        raise NoProvenance(f"{check} field {field!r} is no field") from None
    if f == Field(plain):
        return plain_at
    if f.name == nine and f.member is None and len(f.index) == 2 and max(f.index) < 3:
        r, c = f.index
        return nine_at + 4 * (4 * c + r)
    if f.name in axes and not f.index and f.axis_index is not None:
        base, stride = axes[f.name]
        return base + 4 * stride * f.axis_index
    raise NoProvenance(f"{check} field {field!r} is no {where} word")


def _u32(s) -> Optional[int]:
    return int(s, 16) if isinstance(s, str) and s.startswith("0x") else None


def inputs(game):
    """The chunk data ranges a walk stops at: the data buffer and the last load's output buffer."""
    return [(mm.DATA_BUF, mm.DATA_BUF_END)] + ([tuple(game.out_buffer)] if game.out_buffer[1] else [])


# -- the recorded replay ----------------------------------------------------------------------
def _anim(ch, float_model):
    from harness.checks import parse_reference
    return parse_reference(ch, float_model)


def load(game, ch, record=False):
    """The chunk loaded: (entries, None), or with record a fresh load (never the restored snapshot)
    with ConvLCNum2ALCNum recorded: (entries, its recording)."""
    if not record:
        return game.load(ch.data), None
    keep = game.load_once
    game.load_once = False
    try:
        with game.m.hooks.add("record") as rec:
            entries = game.load(ch.data)
    finally:
        game.load_once = keep
    return entries, rec


def record_controllers(game, ch, ctx, m, record_load=False):
    """SetAnmCtrlWork of the mismatch's (shrunk) time, recorded; returns (rec, address, track, T,
    local, the load's recording or None)."""
    anim = _anim(ch, ctx.float_model)
    # DECISION: the mismatch's own time (one SetAnmCtrlWork from the reset work): a shrunk case
    # fails in the same field, not necessarily at this time
    t = int(m["time"])
    track = int(m["track"])
    entries, loaded = load(game, ch, record_load)
    entry = entries_by_record([x.record for x in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    if entry is None:
        raise NoProvenance(f"track {track}: no table entry")
    game.new_anm()
    work, coord = game.work(entry.ctrl)
    game.reset_work(work)
    game.poison_scratch()
    addr = coord + mm.COORD_LOCALTP if m["field"] == "localtp" else mm.SCRATCH + word_offset("controllers", m["field"])
    with game.m.hooks.add("record") as rec:
        game.call(SET_WORK, mm.ANM, work, t & 0xFFFFFFFF)
    return rec, addr, track, min(t, anim.last), False, loaded


def record_playback(game, ch, ctx, m, record_load=False):
    """The mismatch's (shrunk) steps, the last _AnimateForward recorded."""
    anim = _anim(ch, ctx.float_model)
    c = m.get("context") or {}
    # DECISION: the mismatch's own step list, which makes its word again; a shrunk list fails in
    # the same field, not necessarily of this object at this time
    steps = [int(s) for s in (c.get("step_sizes") or ())]
    if not steps or m.get("track") is None:
        raise NoProvenance("a playback mismatch without steps or track")
    track = int(m["track"])
    off = word_offset("playback", m["field"])
    entries, loaded = load(game, ch, record_load)
    pb = game.playback(entries, ch.names, steps[0])
    entry = entries_by_record([x.record for x in anim.tracks], entries, mm.KIND_OBJECT).get(track)
    if entry is None or entry.position not in pb.coords:
        raise NoProvenance(f"track {track}: no coord")
    for s in steps[:-1]:
        game.forward(s)
    game.m.write_u16(mm.ANM + mm.ANM_FRAME_SPD, min(steps[-1] & 0xFFFFFFFF, 0xFFFF))
    with game.m.hooks.add("record") as rec:
        game.call(FORWARD, mm.ANM, steps[-1] & 0xFFFFFFFF)
    T = min(int(m["time"]) if m.get("time") is not None else game.time(), anim.last)
    return rec, pb.coords[entry.position] + off, track, T, m["field"] != "localtp", loaded


# The recorded replay of each game call a check's mismatches are traced through (Check.traced_call).
RECORDERS = {"SetAnmCtrlWork": record_controllers, "_AnimateForward": record_playback}


def traced_call(name):
    """The game call the mismatches of check `name` are traced through, None when they are not.
    DECISION: a sub-check's mismatches (multistep, an alias of controllers) have no recorded replay
    of their own: only a check's own name is traced."""
    c = next((c for c in checks.CHECKS if c.name == name), None)
    return c.traced_call if c is not None and c.traced_call in RECORDERS else None


def provenance(game, ch, ctx, m, depth=DEPTH, loads=None) -> dict:
    """The provenance of mismatch m (see the module docstring); raises NoProvenance.
    loads: a dict kept across the mismatches of one chunk (the recorded load, made once)."""
    call = traced_call(m["check"])
    if call is None:
        raise NoProvenance(f"no recorded replay for the {m['check']} check")
    fn = RECORDERS[call]
    rec, addr, track, T, local, _ = fn(game, ch, ctx, m)
    got = game.u32(addr)
    recs = [(call, rec)]
    path, end = value_path(recs, addr, got)
    if end == BEFORE:
        # DECISION: the word was only moved in the recorded call; the replay is made again with
        # the load recorded too (once per chunk: ConvLCNum2ALCNum recorded instruction by
        # instruction, some seconds of CPU on a large chunk), and the word followed back into it
        loads = {} if loads is None else loads
        rec, addr, track, T, local, loaded = fn(game, ch, ctx, m, record_load="rec" not in loads)
        loads.setdefault("rec", loaded)
        got = game.u32(addr)
        recs = [("ConvLCNum2ALCNum", loads["rec"]), (call, rec)]
        path, end = value_path(recs, addr, got)
    want = _u32(m.get("got"))
    store = rec.last_store_to(addr)
    out = {"address": f"0x{addr:08x}", "field": m["field"], "word": f"0x{got:08x}", "depth": depth,
           "lines": len(rec)}
    if want is not None and got != want:
        out["note"] = f"the replay left 0x{got:08x} at 0x{addr:08x}, not the recorded 0x{want:08x}"
    if store is None:
        raise NoProvenance(f"no recorded store wrote 0x{addr:08x} ({m['field']})")
    chain = rec.producer_chain(store, depth=depth, inputs=inputs(game))
    patterns = reference_patterns(ch, ctx.float_model, track, T, local)
    steps = chain_steps(game.m, rec, chain)
    first = first_differing(rec, chain, patterns)
    wanted = _u32(m.get("expected"))
    producer = None
    out["value_path"] = value_steps(recs, path, end)
    made = out["value_path"][-1] if out["value_path"] and end is None else None
    if first is None and wanted is not None and wanted != got:
        producer = stored_value_producer(rec, chain, got)
        if made is not None:
            # DECISION: the word's own path (its moves followed back to the arithmetic that made
            # it, in an earlier call when it was only moved in this one) names the producer
            k, i = path[-1]
            if k == len(recs) - 1 and any(s.get("line") == i for s in steps):
                producer = i
            else:
                steps.append(dict(made, depth=1, via=f"{m['field']} <- {made['call']}"))
                producer = made["line"]
        first = producer
    for s in steps:
        s["first_differs"] = first is not None and s.get("line") == first   # a leaf has no line
    out["chain"] = steps
    out["first_differs"] = None
    if first is not None:
        out["first_differs"] = next(i for i, s in enumerate(steps) if s.get("line") == first)
        if producer is not None:
            out["note"] = (out.get("note", "") + "; " if out.get("note") else "") + (
                f"the reference names every value on this chain, but stores 0x{wanted:08x} where this "
                f"step's 0x{got:08x} was stored: the step that computed it is marked")
    else:
        out["note"] = (out.get("note", "") + "; " if out.get("note") else "") + \
            "the reference names every float output on this chain (no first differing step)"
    out["origin"] = origin(steps, out["first_differs"], made)
    return out


# -- the stored word's own path: its data moves back to the arithmetic that made it --------------
BEFORE = "written before the recorded calls"
MAX_MOVES = 64
# integer and MMI moves that pass a register on unchanged (when the word is among their inputs)
INT_MOVES = frozenset(("or", "addu", "daddu", "por", "pcpyld", "pcpyud", "pcpyh", "mfhi", "mflo",
                       "mthi", "mtlo", "mfhi1", "mflo1", "mthi1", "mtlo1", "dmfc1", "dmtc1"))
LANE_BYTES = {"gpr": 8, "hi": 8, "lo": 8}      # bytes per location; others (fpr, vf lanes) hold 4


def _mnemonic(rec, ln) -> str:
    m = rec.m
    try:
        return m.decoder.rows[m.decoded(ln.pc)[0]].mnemonic
    except Exception:               # code no longer decodable at that pc
        return ""


def _holding(values, word, byte=None):
    """The (location, byte offset) of a register value among `values` that holds `word` in a
    32-bit lane, the one at byte offset `byte` first; None."""
    hits = []
    for loc, v in sorted(values.items()):
        if loc.kind not in ("gpr", "fpr", "vf", "hi", "lo"):
            continue
        for j in range(LANE_BYTES.get(loc.kind, 4) // 4):
            if (v >> (32 * j)) & 0xFFFFFFFF == word:
                hits.append((loc, 4 * j))
    if byte is not None:
        for loc, off in hits:
            at = (loc.part * 8 if loc.kind == "gpr" else 4 * loc.part if loc.kind == "vf" else 0) + off
            if at == byte:
                return loc, off
    return hits[0] if hits else None


def value_path(recs, addr, word):
    """The lines that passed `word` (at addr after the last recording) on, from its last store back
    through loads, stores and register moves, ending at the line that computed it: ([(recording
    index, line index)], None), or with a leaf (why the walk stopped) instead of None: BEFORE when
    no recorded store wrote the word. recs: [(call name, Recording)], in execution order.
    DECISION: only the word's own bits are followed (a move is a load, a store or a move whose
    input holds the word); an earlier recording is entered only when it left the same bits at the
    address, and the first line that is no move is the producer, never a copy or a load."""
    k = len(recs) - 1
    before, path = None, []
    pos = ("mem", addr & 0xFFFFFFFF, None)
    for _ in range(MAX_MOVES):
        rec = recs[k][1]
        if pos[0] == "mem":
            a = pos[1]
            i = rec.last_store_to(a, before)
            if i is None:
                if k == 0:
                    return path, BEFORE
                k, before = k - 1, None
                j = recs[k][1].last_store_to(a)
                if j is None or _stored_word(recs[k][1][j], a) != word:
                    return path, BEFORE
                continue
            ln = rec[i]
            path.append((k, i))
            st = next(((sa, w) for sa, w, _v in ln.stores if sa <= a < sa + w), None)
            if ln.hook or st is None:
                return path, f"written by hook {ln.hook}" if ln.hook else "stored by no register"
            hit = _holding(ln.reads, word, (a - st[0]) % 16)
            if hit is None:
                return path, "the store's value is in no register it read"
            pos, before = ("reg", hit[0], hit[1]), i
            continue
        loc, off = pos[1], pos[2]
        prod = rec.producers(before).get(loc)
        if prod is None:
            return path, f"{loc} held on entry to {recs[k][0]}"
        ln = rec[prod]
        path.append((k, prod))
        if ln.hook:
            return path, f"set by hook {ln.hook}"
        if ln.loads and loc in ln.writes:
            la = ln.loads[0][0]
            base = loc.part * 8 if loc.kind == "gpr" else 4 * loc.part if loc.kind == "vf" else 0
            pos, before = ("mem", la + base + off, None), prod
            continue
        if _mnemonic(rec, ln) in FLOAT_MOVES | INT_MOVES:
            hit = _holding(ln.reads, word)
            if hit is not None:
                pos, before = ("reg", hit[0], hit[1]), prod
                continue
        return path, None                       # arithmetic: the producer
    return path, f"more than {MAX_MOVES} moves"


def _stored_word(ln, a) -> Optional[int]:
    for sa, w, v in ln.stores:
        if sa <= a < sa + w and v is not None:
            return (v >> (8 * (a - sa))) & 0xFFFFFFFF
    return None


def value_steps(recs, path, end) -> List[dict]:
    """The value path as chain-like steps (call, line "call:index", pc, symbol, insn, inputs and
    outputs); the producer last, or a leaf saying why the walk stopped."""
    from eemu_ext.analysis.record import Link
    out = []
    for k, i in path:
        name, rec = recs[k]
        s = chain_steps(rec.m, rec, [Link(i, 0, None, "")])[0]
        s.update(call=name, line=f"{name}:{i}", depth=len(out))
        out.append(s)
    if end is not None:
        out.append({"depth": len(out), "via": "", "leaf": end})
    return out


def chain_steps(m, rec, chain) -> List[dict]:
    """The chain as JSON: per step pc, symbol+offset, the instruction, its inputs and outputs."""
    out = []
    for k in chain:
        s = {"depth": k.depth, "via": k.via}
        if k.index is None:
            s["leaf"] = k.leaf
            out.append(s)
            continue
        ln = rec[k.index]
        s.update(line=k.index, pc=f"0x{ln.pc:08x}", symbol=m.symbolize(ln.pc),
                 insn=(f"hook {ln.hook}" if ln.hook else m.decoder.disasm(ln.word, ln.pc, m.symbolize)),
                 inputs=[value(str(x), v) for x, v in sorted(ln.reads.items())]
                 + [value(f"[0x{a:08x}]", v) for a, _w, v in ln.loads if v is not None],
                 outputs=[value(str(x), v) for x, v in sorted(ln.writes.items())]
                 + [value(f"[0x{a:08x}]", v) for a, _w, v in ln.stores if v is not None])
        if k.leaf:
            s["leaf"] = k.leaf
        out.append(s)
    return out


def _float_outputs(ln) -> List[int]:
    return [v & 0xFFFFFFFF for x, v in ln.writes.items() if x.kind in FLOAT_KINDS]


def _wrong(ln, patterns) -> bool:
    """A line whose output the reference never names: a written register's or a stored word's
    low 32 bits that are none of the reference's patterns."""
    outs = [v & 0xFFFFFFFF for v in ln.writes.values()]
    outs += [(v >> (32 * k)) & 0xFFFFFFFF for _a, w, v in ln.stores if v is not None for k in range(max(1, w // 4))]
    return any(v not in patterns for v in outs)


# float data movement (the loads and stores are skipped by their memory access)
FLOAT_MOVES = frozenset(("mov.s", "mtc1", "mfc1", "qmtc2", "qmfc2", "ctc2", "cfc2", "vmove", "vmr32",
                         "vmfir", "vmtir", "vsqi", "vlqi", "vsqd", "vlqd"))


def _is_move(rec, ln) -> bool:
    m = rec.m
    try:
        return m.decoder.rows[m.decoded(ln.pc)[0]].mnemonic in FLOAT_MOVES
    except Exception:               # code no longer decodable at that pc: judge by the values
        return True


def first_differing(rec, chain, patterns) -> Optional[int]:
    """The recorded line index of the first differing step (module docstring), or None.

    DECISION: only the chain's wrong path is searched: from the store, the producers whose own
    output the reference never names (a correct operand's producers are not followed), so a
    value the game computes another way but to the reference's bits does not mark a step."""
    if not chain or chain[0].index is None:
        return None
    below: Dict[int, set] = {}
    for k in chain[1:]:
        if k.index is not None:
            below.setdefault(k.parent, set()).add(k.index)
    wrong, todo = {chain[0].index}, [chain[0].index]
    while todo:
        for j in below.get(todo.pop(), ()):
            if j not in wrong and _wrong(rec[j], patterns):
                wrong.add(j)
                todo.append(j)
    for i in sorted(wrong):
        ln = rec[i]
        if ln.loads or ln.hook or not ln.writes:
            continue
        outs = _float_outputs(ln)
        if not outs:
            continue
        ins = {v & 0xFFFFFFFF for v in ln.reads.values()}
        # a move passes an input on; an arithmetic row whose result equals an input (x * 1.0)
        # still computed it, where the reference may have computed it another way
        if _is_move(rec, ln) and all(v in ins for v in outs):
            continue
        if any(v not in patterns for v in outs):
            return i
    return None


def stored_value_producer(rec, chain, word) -> Optional[int]:
    """The nearest float computation on the chain (by depth) whose output is the stored word.

    DECISION: when every value on the chain is one the reference also computes, the stored word
    is still not the reference's value for that place (the mismatch says so); the instruction that
    computed it, not a move or a load passing it on, is the first differing step (a multiply by
    1.0 that the reference does as a multiply-add keeps its input's bits, yet is the change)."""
    best = None
    for k in chain:
        if k.index is None:
            continue
        ln = rec[k.index]
        if ln.loads or ln.hook or _is_move(rec, ln):
            continue
        if word in _float_outputs(ln) and (best is None or k.depth < best[0]):
            best = (k.depth, k.index)
    return None if best is None else best[1]


def origin(steps, first, made=None) -> dict:
    """The instruction a mismatch is grouped under: the first differing step, else the producer
    of the stored value (the arithmetic at the end of its value path; without one the first step
    below the store), else the store."""
    lines = [s for s in steps if "line" in s]
    if first is not None:
        pick = steps[first]
    elif made is not None:
        pick = made
    elif len(lines) > 1:
        pick = lines[1]
    else:
        pick = lines[0]
    return {"pc": pick["pc"], "symbol": pick["symbol"], "insn": pick["insn"],
            "first_differs": first is not None}


def attach(game, ch, ctx, res, per_chunk=PER_CHUNK) -> int:
    """Trace the first per_chunk traceable mismatches of a chunk record (res) in place; a
    mismatch that cannot be traced gets `provenance: {"error": why}`. Returns how many were traced."""
    n, loads = 0, {}
    for mis in res["mismatches"]:
        if n >= per_chunk:
            break
        if traced_call(mis["check"]) is None:
            continue
        n += 1
        try:
            mis["provenance"] = provenance(game, ch, ctx, mis, loads=loads)
        except NoProvenance as exc:
            mis["provenance"] = {"error": str(exc)}
        except Exception as exc:                       # a machine error on the replay: named
            mis["provenance"] = {"error": f"{type(exc).__name__}: {exc}"}
    return n


def format_chain(p: dict) -> str:
    """A provenance as annotated disassembly (the terminal's and the report's text form)."""
    if "error" in p:
        return f"no provenance: {p['error']}"
    lines = [f"{p['field']} at {p['address']} = {p['word']}"]
    for s in p.get("chain", ()):
        pad = "  " * s["depth"]
        via = f"{s['via']} <- " if s.get("via") else ""
        if "line" not in s:
            lines.append(f"{pad}{via}{s['leaf']}")
            continue
        mark = ">>" if s.get("first_differs") else "  "
        ins = ", ".join(f"{v['loc']}={v['hex']} ({v['float']})" for v in s["inputs"])
        outs = ", ".join(f"{v['loc']}={v['hex']} ({v['float']})" for v in s["outputs"])
        lines.append(f"{mark}{pad}{via}{s['pc'][2:]} {s['symbol']}  {s['insn']}   {ins or '-'} -> {outs or '-'}"
                     + (f"  {s['leaf']}" if s.get("leaf") else "")
                     + ("   <- first differs from the reference" if s.get("first_differs") else ""))
    if p.get("note"):
        lines.append(f"note: {p['note']}")
    return "\n".join(lines)
