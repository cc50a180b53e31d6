"""`python -m reference show`: print what the reference computes for one chunk at one time.

    python -m reference show CHUNKFILE --time T [--step S] [--names 3=OBJ_a,4=OBJ_b] [--float-model trunc]
    python -m reference show [--data DATA.BIN] --case member::ANM_name --time T   (default: the bundled build/synth/DATA.BIN)
    python -m reference serve      the built-in reference as a model: docs/truth.md's protocol on stdin/stdout

CHUNKFILE holds the raw chunk bytes from its 0x0700 header. The report lists every track's pose
(raw bits and decimal), the local matrix, the materials' U/V, the step that reaches T (forward)
with the notes it hands on, the morph state and the F_Obj poses: what a reviewer runs when
reading a mismatch.
"""
from __future__ import annotations

import argparse
import os
import json
import sys

from .animation import Animation
from .eefloat import bits_to_double


def _b(x: int) -> str:
    return f"0x{x:08x}"


def _d(x: int) -> str:
    return f"{bits_to_double(x):.9g}"


def _vec(words) -> str:
    return " ".join(_b(w) for w in words) + "   (" + ", ".join(_d(w) for w in words) + ")"


def _parse_names(text):
    if not text:
        return {}
    if text.lstrip().startswith("{") or text.endswith(".json"):
        raw = json.loads(text) if text.lstrip().startswith("{") else json.load(open(text))
        return {int(k, 0) if isinstance(k, str) else int(k): v for k, v in raw.items()}
    out = {}
    for part in text.split(","):
        k, _, v = part.partition("=")
        out[int(k, 0)] = v
    return out


BUNDLED_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "synth", "DATA.BIN")


def load(args):
    """(chunk bytes, names, ext, label) from a chunk file or from --data/--case."""
    if args.data and not args.case:
        raise SystemExit("reference show: --data needs --case member::ANM_name")
    if args.case:
        # DECISION: as every other command, --case reads the bundled synthetic corpus unless
        # --data (or $EEDIFF_DATA) names another archive
        args.data = args.data or os.environ.get("EEDIFF_DATA") or BUNDLED_DATA
        from corpus import CorpusError, open_corpus
        try:
            ch = open_corpus(data=args.data).chunk(args.case)
        except (CorpusError, KeyError, OSError) as e:
            raise SystemExit(f"reference show: cannot read {args.case} from {args.data}: {e}")
        return ch.data, dict(ch.names), dict(ch.ext), ch.id
    if not args.chunkfile:
        raise SystemExit("reference show: give a CHUNKFILE, or --data DATA.BIN --case member::ANM_name")
    try:
        data = open(args.chunkfile, "rb").read()
    except OSError as e:
        raise SystemExit(f"reference show: cannot read {args.chunkfile}: {e}")
    return data, _parse_names(args.names), {}, args.chunkfile


def show(args, out=None):
    out = out or sys.stdout
    data, names, ext, label = load(args)
    names.update(_parse_names(args.names) if (args.data and args.names) else {})
    from corpus import CorpusError
    try:
        a = Animation.parse(data, names=names, ext=ext, float_model=args.float_model, where=label)
    except CorpusError as e:
        raise SystemExit(f"reference show: {e}")
    T = args.time & 0xFFFFFFFF
    Tc = a.clamp(T)
    w = out.write
    w(f"{label}: ANM object {a.name(a.anime.object)}, N = {a.frames}, "
      f"{'loops' if a.loops else 'plays once'}, last = {a.last}, float model {a.float_model}\n")
    w(f"time {T} (frame {T >> 8} + {T & 0xFF}); evaluated at min(T, last) = {Tc}\n\n")

    w(f"tracks ({len(a.tracks)}):\n")
    for tr in a.tracks:
        if args.track is not None and tr.index != args.track:
            continue
        p = a.pose(tr, T)
        tgt = "" if tr.target == tr.object else f" -> target {a.name(tr.target)}"
        w(f"  [{tr.index}] object {a.name(tr.object)}{tgt}  flags 0x{tr.record.flags:x}\n")
        w(f"      pos    {_vec(p.pos)}\n")
        w(f"      scale  {_vec(p.scale)}\n")
        w(f"      alpha  {_vec((p.alpha,))}\n")
        kind = {0: "absent", 1: "single-value", 2: "keyed"}[p.rot_kind]
        w(f"      rot    {kind}" + (f", passed = {p.passed}" if p.rot_keyed else "") + "\n")
        if p.rot is not None:
            w(f"             words {' '.join(_b(x) for x in p.rot)}\n")
        for r in range(3):
            w("             [" + "  ".join(f"{p.rot_matrix[r][c]: .9f}" for c in range(3)) + "]\n")
        L = a.local_matrix(tr, T)
        if p.rot_keyed:
            w("      local  (float64, rows)\n")
            for r in range(4):
                w("             [" + "  ".join(f"{L[r][c]: .9g}" for c in range(4)) + "]\n")
        else:
            w("      local  (EE bits, column-major)\n")
            for c in range(4):
                w(f"             col{c} {' '.join(_b(x) for x in L[4 * c:4 * c + 4])}\n")
    if a.materials:
        w(f"\nmaterials ({len(a.materials)}):\n")
        for m in a.materials:
            U, V = a.uv(m, T)
            u, v = a.material_offsets(m, T, 0, 0)
            w(f"  [{m.index}] material {a.name(m.material)}  U {_b(U)} ({_d(U)})  V {_b(V)} ({_d(V)})"
              f"  u16 (crop 0) 0x{u:04x} 0x{v:04x}\n")

    step = args.step & 0xFFFFFFFF
    start = (T - step) & 0xFFFFFFFF if T >= step else 0
    f = a.forward(start, step)
    w(f"\nstep {step} from time {start}: time -> {f.time}, pose_at {f.pose_at}, returns {f.ret}"
      + (", loop reset" if f.looped else "")
      + (f", reads frames {f.read[0] + 1}..{f.read[1]}" if f.read else ", reads nothing") + "\n")
    notes = a.passed_notes(start, step)
    w(f"notes handed on ({len(notes)}), delivery order:\n")
    for n in notes:
        w(f"  frame {n.frame}: event 0x{n.event:x} param 0x{n.param:x} time {n.time} object {a.name(n.object)}\n")

    frame = Tc >> 8
    mw = a.morph_weights(frame)
    w(f"\nmorph state at frame {frame} ({len(a.morphs)} morphers):\n")
    for mph in a.morphs:
        pairs = mw.get(mph)
        txt = "none" if pairs is None else ", ".join(f"{a.name(t)} x {_b(wt)} ({_d(wt)})" for t, wt in pairs)
        w(f"  {a.name(mph)}: {txt}\n")
    fo = a.obj_poses_at(T)
    if a.fobjs:
        w(f"\nF_Obj poses at frame {frame}:\n")
        for obj, rec in sorted(fo.items()):
            w(f"  {a.name(obj)}: record of frame {rec.frame}  pos {_vec(rec.pos)}  rot {_vec(rec.rot)}"
              f"  scale {_vec(rec.scale)}  localtp {_b(a.fobj_localtp(rec))}  flags 0x{rec.flags:x}\n")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m reference", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("show", help="print a chunk's poses, notes and morph state at a time")
    s.add_argument("chunkfile", nargs="?", help="raw chunk bytes from the 0x0700 header")
    s.add_argument("--time", type=lambda x: int(x, 0), required=True, help="time in ticks (256 per frame)")
    s.add_argument("--step", type=lambda x: int(x, 0), default=256,
                   help="the step that arrives at --time, for forward and notes (default 256)")
    s.add_argument("--names", help="object names: 3=OBJ_a,4=OBJ_b or a JSON object/file")
    s.add_argument("--data", help="DATA.BIN (with --case; default $EEDIFF_DATA, else the bundled build/synth/DATA.BIN)")
    s.add_argument("--case", help="chunk id member::ANM_name (with --data)")
    s.add_argument("--track", type=int, help="only this track index")
    s.add_argument("--float-model", choices=("hw", "trunc"), default="hw")
    b = sub.add_parser("bench", help="time pose() on a typical track (keyed position and rotation)")
    b.add_argument("--keys", type=int, default=30)
    b.add_argument("--poses", type=int, default=3000)
    b.add_argument("--float-model", choices=("hw", "trunc"), default="hw")
    sv = sub.add_parser("serve", help="answer the model protocol of docs/truth.md on stdin/stdout, one JSON line each")
    sv.add_argument("--plain", action="store_true",
                    help="every word array as a JSON list of ints (default: u32 arrays packed, u32:base64)")
    args = p.parse_args(argv)
    if args.cmd == "serve":
        from .serve import serve
        return serve(packed=not args.plain)
    if args.cmd == "bench":
        return bench(args)
    return show(args)


def bench(args, out=None):
    """µs per pose() for one track with keyed position and rotation and a constant scale."""
    import random
    import time
    from corpus.anime import build_anime, keyed, obj_track, one
    rng = random.Random("reference-bench")
    n = args.keys
    frames = 4 * n
    pos = keyed(*[(4 * i, rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(0, 90)) for i in range(n)])
    rot = keyed(*[(4 * i, rng.uniform(-180, 180), rng.uniform(-90, 90), rng.uniform(-180, 180)) for i in range(n)])
    a = Animation.parse(build_anime(object=1, frames=frames, tracks=[obj_track(2, pos=pos, rot=rot,
                        scale=one(1.0, 1.0, 1.0))]), float_model=args.float_model)
    t0 = time.perf_counter()
    a.pose(0, 0)
    compile_s = time.perf_counter() - t0
    times = [rng.randint(0, a.last) for _ in range(args.poses)]
    t0 = time.perf_counter()
    for T in times:
        a.pose(0, T)
    dt = time.perf_counter() - t0
    (out or sys.stdout).write(f"{args.float_model}: compile {1e3 * compile_s:.1f} ms for {n} keys; "
                              f"{1e6 * dt / len(times):.1f} µs per pose over {len(times)} random times\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
