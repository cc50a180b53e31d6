"""F_Obj check (new in eediff): coord poses after playback steps, persistence included (checks.md §7)."""
import math

from harness.compare.bits import f32, f32_bits, trans_add
from harness.checks.controllers import ROT_TOLERANCE, keyed_deviation
from harness.compare.mismatch import record
from harness.compare.tables import first_entry
from harness.driver import memory_map as mm

ONE = 0x3F800000


def check_fobj(game, anim, entries, names, ctx, tally, plan, a1):
    """One run of a plan with coord +0xA1 = a1 (checks.md §7.2-7.5)."""
    game.playback(entries, names, 256)
    game.give_every_entry_an_instance(entries, mm.COORD_SIZE, kind=mm.INDEX_KIND_OBJ)
    coords = {}
    for obj in sorted({r.object for r in anim.fobjs}):
        e = first_entry(entries, obj)
        if e is None:
            tally.fail(record(ctx, "fobj", "index entry", None, None, object=obj, floats=False,
                              context={"why": "no table entry for the F_Obj record's object"}))
            continue
        coord = game.u32(mm.IDX + 12 * e.position + 4)
        game.m.write_u8(coord + mm.COORD_A1, a1)
        coords[obj] = coord
    tally.count("fobj runs")
    state = {}
    time = 0
    for i, (s, restart) in enumerate(plan):
        got = game.forward(s)
        want = anim.forward(time, s)
        tally.count("fobj steps")
        where = {"plan": [list(p) for p in plan[:i + 1]], "time_before": time, "a1": a1}
        if got != (want.time, int(bool(want.ended))):
            tally.fail(record(ctx, "fobj", "frame counter", [want.time, int(bool(want.ended))], list(got),
                              step=i, time=time, floats=False, context=where))
            return False
        old = time >> 8
        if want.pose_at is not None and (want.pose_at >> 8) != old:
            f = want.pose_at >> 8
            read = 0
            for obj in coords:
                rec = anim.fobj_pose(obj, f << 8)
                if rec is not None and rec.frame > old:
                    state[obj] = rec
                    read += 1
            tally.quirk("fobj_persisted", len(state) - read)
            for obj, rec in state.items():
                compare_fobj(game, anim, coords[obj], rec, a1, ctx, tally, i, f, where)
        time = want.time
        if want.ended and not anim.loops and restart:
            game.restart()
            time = 0
            tally.count("fobj restarts")
            tally.quirk("restarts")
    return True


def compare_fobj(game, anim, coord, rec, a1, ctx, tally, step, frame, where):
    """Coord +0x40 (translation exact, 3x3), +0x88 localtp, +0xA2 bits 0-1 (checks.md §7.4)."""
    tally.count("F_Obj poses")
    words = game.coord_matrix(coord)
    def fail(field, e, g, floats=True, **kw):
        tally.fail(record(ctx, "fobj", field, e, g, object=rec.object, step=step, time=frame << 8,
                          floats=floats, context=dict(where, record_frame=rec.frame,
                                                      record=[f"0x{w:08x}" for w in rec.words]), **kw))
    exact = ee_local(anim, rec)
    for i in range(3):
        e = exact[12 + i] if exact is not None else trans_add(rec.pos[i])
        if words[12 + i] != e:
            fail(f"translation.{'xyz'[i]}", e, words[12 + i])
    if exact is not None:
        tally.count("exact F_Obj matrices")
        for c in range(3):
            for r in range(3):
                if words[4 * c + r] != exact[4 * c + r]:
                    fail(f"matrix[{r}][{c}]", exact[4 * c + r], words[4 * c + r])
    else:
        scale = [f32(w) for w in rec.scale]
        bound = ROT_TOLERANCE * max(1.0, *(abs(x) for x in scale))
        m = euler_matrix([f32(w) for w in rec.rot])
        d, r, c = keyed_deviation(words, m, scale)
        if not d <= bound:
            fail(f"matrix[{r}][{c}]", f32_bits(m[r][c] * scale[c]), words[4 * c + r], deviation=d, tolerance=bound)
    alpha = anim.fobj_localtp(rec) if hasattr(anim, "fobj_localtp") else clamp01(rec.alpha)
    got_tp = game.u32(coord + mm.COORD_LOCALTP)
    if got_tp != alpha:
        fail("localtp", alpha, got_tp)
    flags = game.m.read_u8(coord + mm.COORD_FLAGS) & 3
    want = anim.fobj_flag_bits(rec, a1) if hasattr(anim, "fobj_flag_bits") else fobj_flags(rec, a1)
    if flags != want:
        fail("flags", want, flags, floats=False)


def ee_local(anim, rec):
    """The reference's EE-arithmetic F_Obj local matrix (16 u32), when it offers one."""
    fn = getattr(anim, "fobj_local_matrix", None)
    if fn is None:
        return None
    out = fn(rec)
    if isinstance(out, (list, tuple)) and len(out) == 16 and isinstance(out[0], int):
        return out
    return None


def clamp01(bits):
    """Transparency clamped to [0, 1] (animation-semantics.md §11); fallback when the reference has none.

    DECISION: compared in EE float order (no NaN/inf: E=255 is a large number); a value below 0
    becomes +0, above 1 becomes 1.0, and anything else (-0 and denormals included) keeps its bits.
    """
    v = f32(bits)
    if v < 0.0:
        return 0
    if v > 1.0:
        return ONE
    return bits


def fobj_flags(rec, a1):
    """+0xA2 bits 0-1: bit 0 = record flags bit 0; bit 1 = 1 unless position is zero and +0xA1 bit 0.

    DECISION: "position is zero" means all three words are +0 or -0 (the exact test is [INF]).
    """
    zero = all((w & 0x7FFFFFFF) == 0 for w in rec.pos)
    bit1 = 0 if (zero and (a1 & 1)) else 1
    return (rec.flags & 1) | (bit1 << 1)


def euler_matrix(deg):
    """R = Rx*Ry*Rz (math rows) in double from degrees (animation-semantics.md §3.2)."""
    x, y, z = (math.radians(d) for d in deg)
    cx, sx, cy, sy, cz, sz = math.cos(x), math.sin(x), math.cos(y), math.sin(y), math.cos(z), math.sin(z)
    rx = [[1, 0, 0], [0, cx, -sx], [0, sx, cx]]
    ry = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]
    rz = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]
    return mul(mul(rx, ry), rz)


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
