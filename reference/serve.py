"""The built-in reference as a model: the answers of docs/truth.md's protocol, in process or over stdio.

    python -m reference serve        one JSON object a line on stdin, one answer line on stdout

A request is one chunk and its queries: {"chunk": id, "anime": base64 of the Anime chunk from its
0x0700 header, "ext": [[object, target], ...], "float_model": "hw"|"trunc", "queries": [...]}.
The answer line is {"chunk": id, "answers": [...]}, one answer per query in the same order, each
{"i": the query's i, "kind": its kind, ...the fields of docs/truth.md §3}, every word a u32 int.

`answer(data, ext, float_model, queries)` is what both paths run: the harness calls it in process
(`python -m harness check-truth FILE`) and `serve` calls it for each line, so the two give the same
answers by construction and a test compares them through the pipe. It reads nothing but the
request: no archive, no executable, nothing of the harness (interfaces.md §3).
"""
from __future__ import annotations

import base64
import json
import sys
from typing import Dict, List

import numpy as np

from corpus.objects import Scene

from .animation import Animation
from .morph import morph
from .objects import make_anime_index, pose_series, set_anm, view, world_series

PROTOCOL = "eediff-model"
VERSION = 1
M32 = 0xFFFFFFFF
NINE = [0, 1, 2, 4, 5, 6, 8, 9, 10]      # word 4c+r of a column-major 4x4, c-major
NINE_AND_T = NINE + [12, 13, 14]         # ... and its translation


class BadRequest(ValueError):
    """A request this model cannot read (named in the error line it answers with)."""


def f32_words(x) -> np.ndarray:
    """Doubles rounded to the nearest f32, as u32 patterns (a keyed rotation's R·S elements)."""
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float32).view(np.uint32)


def ee_doubles(words) -> np.ndarray:
    """The EE values of u32 patterns as doubles: E = 0 is a signed zero, E = 255 an ordinary
    number (2^128 times the significand), as reference.eefloat.bits_to_double reads one word."""
    w = np.asarray(words, dtype=np.uint32)
    e = (w >> 23) & 0xFF
    if ((e != 0) & (e != 0xFF)).all():
        return w.view(np.float32).astype(np.float64)     # every word a normal IEEE single: the same number
    frac = 1.0 + (w & 0x7FFFFF).astype(np.float64) / 8388608.0
    mag = np.where(e == 0, 0.0, np.ldexp(frac, e.astype(np.int64) - 127))
    return np.where(w >> 31 == 1, -mag, mag)


def trans_add(words: np.ndarray) -> np.ndarray:
    """f_add(+0, p) of each word: a zero-exponent word becomes +0 (animation-semantics.md §4)."""
    w = np.asarray(words, dtype=np.uint32)
    return np.where((w >> 23) & 0xFF == 0, 0, w).astype(np.uint32)


def _rotation9(P, n: int) -> np.ndarray:
    """(n, 9) rotation words in c-major scratch order: a keyed rotation's double matrix rounded to
    f32, else the single-value rotation's own words."""
    if P.rot_keyed:
        return f32_words(np.asarray(P.rot_matrix).swapaxes(1, 2).reshape(n, 9))
    return np.tile(np.asarray(P.rot, dtype=np.uint32), (n, 1))


def controller(anim: Animation, q, double: bool = False) -> dict:
    """The pose at each time. double: a keyed rotation's R also in double, c-major (`rot_r`, never
    sent: the in-process harness measures the keyed statistics from it, docs/truth.md §5)."""
    tr = anim.tracks[q["track"]]
    times = [int(t) & M32 for t in q["times"]]
    n = len(times)
    P = anim.poses(tr, times)
    # numpy arrays: the harness takes them as they are in process; serve writes them as lists
    out = {"pos": P.pos, "scale": P.scale, "rot": _rotation9(P, n), "alpha": P.alpha, "localtp": P.alpha}
    if P.rot_keyed:
        out["passed"] = np.asarray(P.passed)
        if double:
            out["rot_r"] = np.asarray(P.rot_matrix, dtype=np.float64).swapaxes(1, 2).reshape(n, 9)
    return out


def multistep(anim: Animation, q) -> dict:
    """The pose after SetAnmCtrlWork by each delta in turn: the pose at their sum (checks.md §2.3)."""
    t = sum(int(d) for d in q["deltas"]) & M32
    one = controller(anim, {"track": q["track"], "times": [t]})
    return {k: np.asarray(v)[0].tolist() for k, v in one.items() if k != "localtp"}


def light(anim: Animation, q) -> dict:
    """The direct light's words at each time, those of `fields` (docs/lights.md)."""
    fields = [int(j) for j in q["fields"]]
    rows = [anim.light_words(int(q["light"]), int(t)) for t in q["times"]]
    return {"words": np.array([[w[j] for j in fields] for w in rows], dtype=np.uint32).reshape(len(rows), len(fields))}


def material(anim: Animation, q) -> dict:
    mt = anim.materials[q["track"]]
    cu, cv = q["crop"]
    out = {"U": [], "V": [], "u": [], "v": []}
    for t in q["times"]:
        U, V = anim.uv(mt, int(t))
        u, v = anim.material_offsets(mt, int(t), cu, cv)
        out["U"].append(U)
        out["V"].append(V)
        out["u"].append(u)
        out["v"].append(v)
    return out


def playback(anim: Animation, q, ref=None, products=False) -> dict:
    """Steps of q["speed"] from time 0: every step's (time, return value); at each step of
    q["read"] every track's matrix (12 words) and localtp, and the scale and keys passed of the
    tracks of q["tolerance"] (whose 3x3 is compared within a bound); at each step of
    q["morph_read"] every morpher's (target, weight) pairs. Arrays, as the caller in process
    keeps them (dumps lists them).

    In process only: ref, the Playback of the query's steps when the caller has it (the
    harness's, whose tracks it evaluated already); products, also "rs": the tolerance tracks' R·S
    at each read step in double, c-major (nr, len(tolerance), 9), the 3x3 the words round."""
    ref = ref if ref is not None else anim.playback([int(q["speed"])] * int(q["steps"]))
    forward = [[f.time, f.ret] for f in ref.forwards]
    tracks = [anim.tracks[i] for i in q["tracks"]]
    tb = ref.tracks(tracks) if tracks and len(ref.evaluated) else None
    rows = []
    last_row = None
    for i in q["read"]:
        last_row = ref.row.get(i, last_row)     # a step that evaluates nothing leaves the last pose
        rows.append(last_row)
    nt, nr = len(tracks), len(rows)
    keyed = np.array([tr.keyed_rotation for tr in tracks], dtype=bool)
    nk = int(keyed.sum())
    tol = np.asarray(q.get("tolerance", []), dtype=np.int64)           # the 3x3s within a bound
    mats = np.zeros((nr, nt, 12), dtype=np.uint32)
    tps = np.zeros((nr, nt), dtype=np.uint32)
    scales = np.zeros((nr, tol.size, 3), dtype=np.uint32)
    rs = np.zeros((nr, tol.size, 9)) if products else None
    passed = np.zeros((nr, tol.size), dtype=np.int64)
    have = [r for r, k in enumerate(rows) if tb is not None and k is not None]
    if have and nt:
        at = np.array([rows[r] for r in have])
        nh = len(have)
        if at[-1] == nh - 1 and (np.diff(at) == 1).all():
            at = slice(0, nh)                  # the first rows in order (a playback's reads): views
        chan = tb.chan[at]                                              # (nh, nt, 7)
        # every track's local words, a keyed rotation's (which has none) then given its R·S and position
        m = tb.local[at][:, :, NINE_AND_T].astype(np.uint32, copy=False)
        prod = None                             # the tolerance tracks' R·S in double, c-major
        if products and tol.size:
            R = tb.rot[at][:, tol]                                      # (nh, ntol, 3, 3), R[r][c]
            for jj in np.flatnonzero(~keyed[tol]):                      # a constant rotation
                R[:, jj] = ref.poses(tracks[tol[jj]]).rot_matrix
            prod = (R * ee_doubles(chan[:, tol, 3:6])[:, :, None, :]).swapaxes(2, 3).reshape(nh, tol.size, 9)
            if nh == nr:
                rs = prod
            else:
                rs[have] = prod
        if nk:
            at_tol = {int(j): jj for jj, j in enumerate(tol)}
            kt = np.flatnonzero(keyed)
            if prod is not None and all(int(j) in at_tol for j in kt):
                m[:, keyed, :9] = f32_words(prod[:, [at_tol[int(j)] for j in kt]])
            else:
                M = tb.rot[at][:, keyed]                                # (nh, nk, 3, 3)
                sc = ee_doubles(chan[:, keyed, 3:6])                     # (nh, nk, 3)
                m[:, keyed, :9] = f32_words((M.swapaxes(2, 3) * sc[:, :, :, None]).reshape(nh, nk, 9))
            m[:, keyed, 9:12] = trans_add(chan[:, keyed, 0:3])
        if tol.size:
            scales[have] = chan[:, tol, 3:6]
            passed[have] = np.where(keyed[tol][None, :], tb.passed[at][:, tol], 0)
        if nh == nr and isinstance(at, slice):
            mats, tps = m, chan[:, :, 6]
        else:
            mats[have] = m
            tps[have] = chan[:, :, 6]
    morphs = []
    looped, looped_before = False, {}
    for i, f in enumerate(ref.forwards if q["morph_read"] else ()):
        looped_before[i] = looped
        looped = looped or f.looped
    for i in q["morph_read"]:
        f = ref.forwards[i]
        frame = (f.pose_at if f.pose_at is not None else f.time) >> 8
        w = anim.morph_weights(frame, after_loop=looped_before.get(i, False))
        morphs.append([[[t, wt] for t, wt in w.get(obj, ())] for obj in q["morphers"]])
    out = {"forward": forward, "matrix": mats, "localtp": tps, "scale": scales, "passed": passed, "morph": morphs}
    if products:
        out["rs"] = rs
    return out


def notes(anim: Animation, q) -> dict:
    time = 0
    forward, delivered = [], []
    for s, restart in q["plan"]:
        f = anim.forward(time, int(s))
        forward.append([f.time, f.ret])
        delivered.append([[n.event, n.param, n.time, n.object] for n in anim.passed_notes(time, int(s))])
        time = anim.time_after(f, bool(restart))
    return {"forward": forward, "notes": delivered}


def fobj(anim: Animation, q) -> dict:
    """The plan's steps; at each read step (a step into another frame) the pose in force of each
    listed object: the last F_Obj record read for it, which persists (animation-semantics.md §11)."""
    time = 0
    forward = []
    state: Dict[int, object] = {}
    objects = sorted({r.object for r in anim.fobjs})
    poses_at = {}
    for i, (s, restart) in enumerate(q["plan"]):
        f = anim.forward(time, int(s))
        forward.append([f.time, f.ret])
        read = anim.fobj_poses_read(time, f, objects)
        if read is not None:
            state.update(read)
            poses_at[i] = dict(state)
        time = anim.time_after(f, bool(restart))
    a1 = int(q["a1"])
    read = []
    for i, objs in q["read"]:
        at = poses_at.get(i, {})
        row = []
        for obj in objs:
            rec = at.get(obj)
            if rec is None:
                row.append(None)
                continue
            L = anim.fobj_local_matrix(rec)
            row.append({"matrix": [L[j] for j in NINE_AND_T], "localtp": anim.fobj_localtp(rec),
                        "flags": anim.fobj_flag_bits(rec, a1)})
        read.append(row)
    return {"forward": forward, "poses": read}


def modify(q, float_model: str) -> dict:
    targets = [([tuple(p) for p in t["positions"]], int(t["scale"]), int(t["weight"])) for t in q["targets"]]
    out = morph([tuple(p) for p in q["base"]], int(q["base_scale"]), targets, float_model=float_model)
    return {"vertices": [list(v) for v in out]}


def objects(anim: Animation, q) -> dict:
    """MakeAnimeIndex, SetAnm, Draw and DeleteAnmIndex on the query's scene (reference/objects.py)."""
    try:
        scene = Scene.from_json(q["scene"], where=f"query {q.get('i')}: scene")
        tp = int(q["anm_tp"]) & M32
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(f"query {q.get('i')}: {exc}") from None
    return view(anim.anime, scene, tp)


def world(anim: Animation, q) -> dict:
    """Every ccModel::Draw call's world matrix and alpha after every step of one playback
    (reference/objects.py world_series), and the frame counter."""
    try:
        scene = Scene.from_json(q["scene"], where=f"query {q.get('i')}: scene")
        speed, n, tp = int(q["speed"]), int(q["steps"]), int(q["anm_tp"]) & M32
        anm = [int(w) & M32 for w in q["anm_matrix"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(f"query {q.get('i')}: {exc}") from None
    index = make_anime_index(anim.anime, scene)
    table = set_anm(index, scene)
    fws, locals_, tps, _keyed = pose_series(anim, index, table, speed, n)
    calls = world_series(table, locals_, tps, anm, tp, n, anim.float_model, anim.kernels, anim.ops)
    return {"forward": [[f.time, int(bool(f.ended))] for f in fws], "pose_at": [f.pose_at for f in fws],
            "order": [list(i) for i, _, _ in calls], "world": np.array([W for _, W, _ in calls], dtype=np.uint32)
            .reshape(len(calls), n, 16), "alpha": np.array([A for _, _, A in calls], dtype=np.uint32).reshape(len(calls), n)}


# the query kinds this model answers, each by its function here, in the order of ground/vocabulary.py's
# QUERY_KINDS (the built-in checks' kinds). DECISION: a kind the vocabulary gains with a check module
# that declares its own built-in answer (harness/checks QueryKind) is answered in process by that
# declaration, never here: the reference answers what it models, and a request of another kind
# is a BadRequest naming it, as a model's error line (tests/test_ground.py holds every vocabulary
# kind to an answer, here or declared).
ANSWERS = {"controller": controller, "multistep": multistep, "light": light, "material": material,
           "playback": playback, "notes": notes, "modify": modify, "fobj": fobj, "objects": objects, "world": world}
KINDS = tuple(ANSWERS)


def answer(data: bytes, ext, float_model: str, queries: List[dict], where=None) -> List[dict]:
    """One answer per query, in order (docs/truth.md §3)."""
    anim = None
    out = []
    for q in queries:
        kind = q.get("kind")
        if kind not in KINDS:
            raise BadRequest(f"query {q.get('i')}: unknown kind {kind!r}")
        if kind == "modify":
            body = modify(q, float_model)
        else:
            if anim is None:
                anim = Animation.parse(data, ext=ext or None, float_model=float_model, where=where)
            body = ANSWERS[kind](anim, q)
        out.append({"i": q.get("i"), "kind": kind, **body})
    return out


def request_answer(msg: dict) -> dict:
    """The answer line of one request line (already parsed)."""
    try:
        data = base64.b64decode(msg["anime"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(f"'anime' is not base64 chunk bytes ({exc})") from None
    ext = {int(o): int(t) for o, t in (msg.get("ext") or [])}
    answers = answer(data, ext, msg.get("float_model", "hw"), msg.get("queries") or [], where=msg.get("chunk"))
    return {"chunk": msg.get("chunk"), "answers": answers}


PACKED = "u32:"      # docs/truth.md §2: a u32 array as base64 of its little-endian words


def _listed(obj):
    """JSON for the numpy arrays of the answers: their lists of ints."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.integer):
        return int(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _packed(obj):
    """JSON for the numpy arrays of the answers: a u32 array packed (PACKED), others as lists."""
    if isinstance(obj, np.ndarray) and obj.dtype == np.uint32:
        return PACKED + base64.b64encode(np.ascontiguousarray(obj, dtype="<u4").tobytes()).decode("ascii")
    return _listed(obj)


def dumps(reply, packed=True) -> str:
    """An answer line's JSON text: the u32 arrays packed, or (packed=False) every array as a list."""
    return json.dumps(reply, separators=(",", ":"), default=_packed if packed else _listed)


def serve(stdin=None, stdout=None, packed=True) -> int:
    """Answer request lines until end of input. A request it cannot answer gets an error line
    ({"chunk": ..., "error": "..."}), which the harness reports naming the chunk."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    for line in stdin:
        if not line.strip():
            continue
        msg = None
        try:
            msg = json.loads(line)
            reply = request_answer(msg)
        except Exception as exc:      # the harness names the chunk; this process keeps serving
            chunk = msg.get("chunk") if isinstance(msg, dict) else None
            reply = {"chunk": chunk, "error": f"{type(exc).__name__}: {exc}"}
        stdout.write(dumps(reply, packed) + "\n")
        stdout.flush()
    return 0
