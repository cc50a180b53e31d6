"""`harness bulk --profile-cpu`: where a run's worker time goes, split as the nightly's cost is
argued about: the machine per game function (time inside compiled code apart from the hand-overs
and call set-up around it), the chunk set-up (fresh loads, snapshot restores), the reference per
query kind, the comparison and bookkeeping, and the writing of chunk records.

Each worker times sections exclusively: a section's time stops while a section inside it runs
(the machine's calls inside a fresh load are machine time, not set-up). Sections are wrappers put
on the classes only when profiling is on, so an unprofiled run pays nothing. Each worker writes
its totals to one JSON file of the profile directory after every batch; the parent sums them.

DECISION: the profile directory travels to the workers in EEDIFF_PROFILE_CPU (forked or spawned
alike) and is not a run parameter: a profiled run resumes, and is resumed by, the same run
unprofiled.
DECISION: the sections are timed in the worker thread's CPU time (time.thread_time), not the wall
clock: on a shared machine a worker waits for a core, and wall time charged every wait to whichever
section was running (a 200-chunk nightly at --jobs 2 on two busy cores profiled 181 worker-seconds
against 64 s of user CPU for the whole run). Profiling adds two clock reads per section (a system
call, ~1.4 us each here), a few percent of the run.
"""
from __future__ import annotations

import functools
import json
import os
import time
from collections import defaultdict
from typing import Dict

ENV = "EEDIFF_PROFILE_CPU"

CLOCK = time.thread_time        # the sections' clock (the module's DECISION)
MACHINE, FRESH, RESTORE, COMPARE, WRITE = ("machine", "set-up: fresh load", "set-up: snapshot and restore",
                                           "comparison and bookkeeping", "record writing")


class Profile:
    """Exclusive section times of one process: seconds[kind], calls[kind], and per game function
    machine totals (calls, instructions, seconds, seconds inside compiled code, entries into it)."""

    def __init__(self):
        self.seconds: Dict[str, float] = defaultdict(float)
        self.calls: Dict[str, int] = defaultdict(int)
        self.machine: Dict[str, Dict[str, float]] = {}
        self._stack = []
        self._t = 0.0
        self.in_machine = False

    def enter(self, kind: str) -> None:
        now = CLOCK()
        if self._stack:
            self.seconds[self._stack[-1]] += now - self._t
        self._stack.append(kind)
        self.calls[kind] += 1
        self._t = now

    def leave(self) -> None:
        now = CLOCK()
        self.seconds[self._stack.pop()] += now - self._t
        self._t = now

    def function(self, name: str) -> Dict[str, float]:
        got = self.machine.get(name)
        if got is None:
            got = self.machine[name] = {"calls": 0, "instructions": 0, "seconds": 0.0, "c_seconds": 0.0,
                                        "c_entries": 0}
        return got

    def as_dict(self) -> dict:
        return {"seconds": dict(self.seconds), "calls": dict(self.calls), "machine": self.machine}


PROFILE = Profile()
_INSTALLED = []
# reference.objects' functions the objects and world checks ask, each a query kind of the profile
OBJECT_QUERIES = ("make_anime_index", "set_anm", "view", "pose_blocks", "world_series")


def _timed(kind, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        PROFILE.enter(kind)
        try:
            return fn(*a, **k)
        finally:
            PROFILE.leave()
    return wrapper


def _patch(owner, name, new):
    _INSTALLED.append((owner, name, owner.__dict__[name]))
    setattr(owner, name, new)


def _machine_names(m) -> Dict[int, str]:
    """Entry address -> the game function's short name, from the Game that owns machine m. The
    names follow the Game's symbols as they grow (the anm-object driver adds MakeAnimeIndex,
    SetAnm, Draw and DeleteAnmIndex to them after the Game is made)."""
    game = getattr(m, "_profile_game", None)
    if game is None:
        return {}
    names, size = getattr(m, "_profile_names", None), (len(game.sym), len(game.short))
    if names is None or m._profile_size != size:
        names = m._profile_names = {addr: game.short.get(name, name) for name, addr in game.sym.items()}
        m._profile_size = size
    return names


def _machine_call(fn):
    """Machine.call and Machine.call_each timed per game function; the time inside compiled code
    (the native engine's ee_run) is shared among a batch's calls by their instructions.

    DECISION: the engine times its compiled code on the wall clock; its CPU is taken as the same
    fraction of the call's CPU as of the call's wall time (a wait for a core falls in or out of
    compiled code as the time does)."""
    @functools.wraps(fn)
    def wrapper(m, target, *a, **k):
        if PROFILE.in_machine:                      # a call inside one already timed (a hook's, or
            return fn(m, target, *a, **k)           # call_each's one by one): the outer one counts it
        native = m.native
        c0, e0 = (native.c_seconds, native.c_runs) if native is not None else (0.0, 0)
        PROFILE.enter(MACHINE)
        PROFILE.in_machine = True
        t0, w0 = CLOCK(), time.perf_counter()
        try:
            out = fn(m, target, *a, **k)
        finally:
            spent, wall = CLOCK() - t0, time.perf_counter() - w0
            PROFILE.in_machine = False
            PROFILE.leave()
        c, e = (native.c_seconds - c0, native.c_runs - e0) if native is not None else (0.0, 0)
        c = min(spent, c * spent / wall) if wall > 0 else 0.0
        names = _machine_names(m)
        if isinstance(out, list):                   # call_each: [(v0, steps)]
            targets = target if isinstance(target, (list, tuple)) else [target] * len(out)
            steps = [n for _, n in out]
        else:
            targets, steps = [target], [m.steps]
        total = sum(steps) or 1
        for t, n in zip(targets, steps):
            addr = m.resolve(t)
            f = PROFILE.function(names.get(addr, f"0x{addr:08x}"))
            share = n / total if len(steps) > 1 else 1.0
            f["calls"] += 1
            f["instructions"] += n
            f["seconds"] += spent * share
            f["c_seconds"] += c * share
            f["c_entries"] += e * share
        return out
    return wrapper


def install(worker) -> None:
    """Put the section wrappers on the classes and on `worker` (the worker module: its
    check_record) once per process."""
    if _INSTALLED:
        return
    from eemu_ext.core.machine import Machine
    from harness.driver import game as game_mod
    from harness.runners.bulk import run
    import importlib
    import reference
    from reference import batch
    importlib.import_module("harness.checks.morph")         # loaded, so its binding is patched
    morph = importlib.import_module("reference.morph")      # the module (reference.morph is also a function)

    _patch(Machine, "call", _machine_call(Machine.call))
    _patch(Machine, "call_each", _machine_call(Machine.call_each))
    init = game_mod.Game.__init__

    @functools.wraps(init)
    def game_init(self, *a, **k):
        init(self, *a, **k)
        self.m._profile_game, self.m._profile_names = self, None
        if self.m.native is not None:
            self.m.native.timing = True
    _patch(game_mod.Game, "__init__", game_init)
    _patch(game_mod.Game, "load", _timed(RESTORE, game_mod.Game.load))
    _patch(game_mod.Game, "_load", _timed(FRESH, game_mod.Game._load))
    _patch(run.RunDir, "write_chunk", _timed(WRITE, run.RunDir.write_chunk))
    _patch(worker, "check_record", _timed(COMPARE, worker.check_record))
    for cls in (reference.Animation, batch.Playback, batch.Poses, batch.TrackKernel, batch.TrackBatch):
        for name, v in list(cls.__dict__.items()):
            if name.startswith("_"):
                continue
            if isinstance(v, classmethod):
                _patch(cls, name, classmethod(_timed(f"reference: {name}", v.__func__)))
            elif callable(v) and not isinstance(v, (type, staticmethod)):
                _patch(cls, name, _timed(f"reference: {name}", v))
    # the anm's objects: the reference's index, table, view, poses and world series (the checks
    # call them through the module, reference.objects as ref)
    objects = importlib.import_module("reference.objects")
    for name in OBJECT_QUERIES:
        _patch(objects, name, _timed(f"reference: {name}", getattr(objects, name)))
    # the checks bind the blend function by name at import (from reference import morph as ...):
    # each such binding in a loaded harness module takes the timed one
    import sys
    blend = morph.morph
    timed_blend = _timed("reference: morph (Modify)", blend)
    for mod_name, mod in list(sys.modules.items()):
        if mod_name.startswith("harness.") and mod is not None:
            for name, v in list(vars(mod).items()):
                if v is blend:
                    _patch(mod, name, timed_blend)


def uninstall() -> None:
    """Take the wrappers off again and start a new profile (a test's process goes on unprofiled)."""
    global PROFILE
    while _INSTALLED:
        owner, name, old = _INSTALLED.pop()
        setattr(owner, name, old)
    PROFILE = Profile()


def worker_started(worker) -> None:
    """In a worker (`worker` the worker module): profile when the run asked for it."""
    if os.environ.get(ENV):
        install(worker)


def dump() -> None:
    """This worker's totals so far, to its file in the profile directory."""
    where = os.environ.get(ENV)
    if not where or not _INSTALLED:
        return
    path = os.path.join(where, f"worker-{os.getpid()}.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(PROFILE.as_dict(), f)
    os.replace(tmp, path)


def collect(where: str) -> dict:
    """Every worker's totals in the profile directory, summed."""
    seconds, calls, machine = defaultdict(float), defaultdict(int), {}
    for name in sorted(os.listdir(where)):
        if not (name.startswith("worker-") and name.endswith(".json")):
            continue
        with open(os.path.join(where, name), encoding="utf-8") as f:
            got = json.load(f)
        for k, v in got["seconds"].items():
            seconds[k] += v
        for k, v in got["calls"].items():
            calls[k] += v
        for fn, row in got["machine"].items():
            into = machine.setdefault(fn, dict.fromkeys(row, 0))
            for k, v in row.items():
                into[k] += v
    return {"seconds": dict(seconds), "calls": dict(calls), "machine": machine}


def table(p: dict) -> str:
    """The profile as the closing note's table (markdown)."""
    sec, calls, mach = p["seconds"], p["calls"], p["machine"]
    total = sum(sec.values()) or 1e-9
    lines = ["| part | CPU-s | share | calls |", "|---|---:|---:|---:|"]

    def row(name, s, n=""):
        lines.append(f"| {name} | {s:.2f} | {s / total:.1%} | {n} |")
    m_all = sec.get(MACHINE, 0.0)
    row("the machine (all game calls)", m_all, f"{calls.get(MACHINE, 0):,}")
    for fn, r in sorted(mach.items(), key=lambda kv: -kv[1]["seconds"]):
        over = r["seconds"] - r["c_seconds"]
        rate = r["instructions"] / r["c_seconds"] / 1e6 if r["c_seconds"] > 0 else 0.0
        row(f"&nbsp;&nbsp;`{fn}`: in compiled code ({r['instructions']:,} instructions, {rate:.0f} M/s)",
            r["c_seconds"], f"{int(r['calls']):,}")
        row(f"&nbsp;&nbsp;`{fn}`: per-call overhead ({over / max(r['calls'], 1) * 1e6:.1f} us a call, "
            f"{r['c_entries'] / max(r['calls'], 1):.2f} entries into C a call)", over)
    for kind in (FRESH, RESTORE):
        row(kind, sec.get(kind, 0.0), f"{calls.get(kind, 0):,}")
    refs = sorted((k for k in sec if k.startswith("reference: ")), key=lambda k: -sec[k])
    row("the reference (all query kinds)", sum(sec[k] for k in refs))
    for k in refs:
        row(f"&nbsp;&nbsp;{k[len('reference: '):]}", sec[k], f"{calls.get(k, 0):,}")
    row(COMPARE, sec.get(COMPARE, 0.0), f"{calls.get(COMPARE, 0):,} chunks")
    row(WRITE, sec.get(WRITE, 0.0), f"{calls.get(WRITE, 0):,}")
    lines.append(f"| **all profiled worker time** | {total:.2f} | 100% | |")
    return "\n".join(lines)
