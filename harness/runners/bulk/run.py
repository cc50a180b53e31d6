"""Run directories (interfaces.md §4): params.json, chunks/<index>.json written atomically, summary.json."""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from pathlib import Path

from reports.records import ReportError, load_chunk, load_summary, read_chunk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))   # harness/runners/bulk/ -> the checkout
from harness.options import RUNS  # noqa: E402  (run directories live under build/runs)


def file_identity(path):
    if not path:
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"path": os.path.abspath(path), "size": os.path.getsize(path), "sha256": h.hexdigest()}


def params_key(p):
    """The parameters that make two runs the same run (for automatic resume)."""
    keep = {name: get(p) for name, get in RESUME_PARAMS.items()}     # every one of them (defined below)
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:10]


def code_version():
    """A short hash of the harness, reference and corpus sources: a run resumes only on the same code."""
    h = hashlib.sha256()
    for pkg in ("harness", "reference", "corpus"):
        d = os.path.join(ROOT, pkg)
        for dirpath, _, files in sorted(os.walk(d)):
            for name in sorted(files):
                if name.endswith(".py"):
                    with open(os.path.join(dirpath, name), "rb") as f:
                        h.update(name.encode() + f.read())
    return h.hexdigest()[:12]


class RunDirError(OSError):
    """A run directory that cannot be written (full disk, read-only, no permission): one line."""

    def __str__(self):
        return f"cannot write {self.filename}: {self.strerror}"


class RunDirInvalid(ValueError):
    """A run directory whose params.json is not a run's (does not parse, wrong shape): one line
    naming the file, the field and the value."""


def refuse_foreign(path):
    """RunDirInvalid when `path` is a directory with something in it but no params.json: files of
    someone else's that a run would overwrite (its summary.json, chunks/00000.json...)."""
    try:
        names = os.listdir(path)
    except OSError:
        return                      # none yet (or not a directory: creating it names the problem)
    if names and "params.json" not in names:
        raise RunDirInvalid(f"{path}: not empty and not a run directory (no params.json); refusing to write "
                            f"into it: give a new or empty directory")


class RunDirBusy(RuntimeError):
    """Another process holds the run directory's lock (a bulk writing it)."""


def read_params(path):
    """params.json as a dict, or RunDirInvalid naming the file, the field and the value."""
    try:
        p = read_json(path)
    except json.JSONDecodeError as e:
        raise RunDirInvalid(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except UnicodeDecodeError as e:
        raise RunDirInvalid(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    if not isinstance(p, dict):
        raise RunDirInvalid(f"{path}: expected a JSON object, found {type(p).__name__}")
    chunks = p.get("chunks")
    if chunks is not None and not (isinstance(chunks, list) and all(isinstance(c, str) for c in chunks)):
        raise RunDirInvalid(f"{path}: field 'chunks' must be a list of chunk ids, found "
                            f"{type(chunks).__name__} {str(chunks)[:60]!r}")
    sh = p.get("shard")
    if sh is not None and not (isinstance(sh, dict) and isinstance(sh.get("indices"), list)
                               and len(sh["indices"]) == len(chunks or ())
                               and all(isinstance(i, int) for i in sh["indices"])):
        raise RunDirInvalid(f"{path}: field 'shard' must hold one integer index per chunk, found "
                            f"{str(sh)[:60]!r}")
    return p


# DECISION: chunk records are written atomically (a temp file renamed into place) but made durable
# in batches: one syncfs(2) of their file system per SYNC_EVERY records a process writes, and one
# before summary.json says a run is complete. A crash of the process loses nothing (the page cache
# has every renamed record); a crash of the machine may leave the last batch's records empty or
# torn, which done_indices() finds (they do not parse) and removes, so a resume checks those
# chunks again. A full disk fails the write itself (ext4 and xfs reserve the blocks at write());
# an error that only writeback meets is reported by syncfs, naming the directory.
SYNC_EVERY = 256
_unsynced = []         # the directories of the records written since the last sync


def write_json(path, obj, durable=True):
    """Write `obj` to `path` atomically; on any OSError remove the temp file and raise RunDirError.
    durable=False: leave the fsync to the next batch (see SYNC_EVERY)."""
    tmp = f"{path}.tmp{os.getpid()}"
    text = json.dumps(obj, indent=1, sort_keys=False)
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
        if not durable:
            _unsynced.append(os.path.dirname(path))
            if len(_unsynced) >= SYNC_EVERY:
                sync_records()
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise RunDirError(exc.errno, exc.strerror or str(exc), path) from None


# The parameters that must match for a run to be resumed (`--resume`, `--out`): name -> getter.
RESUME_PARAMS = {
    "seed": lambda p: p.get("seed"), "profile": lambda p: p.get("profile"),
    "float model": lambda p: p.get("float_model"), "checks": lambda p: p.get("checks"),
    "n": lambda p: p.get("n"),
    "executable sha256": lambda p: (p.get("image") or {}).get("sha256"),
    "data sha256": lambda p: (p.get("data") or {}).get("sha256"),
    "disc sha256": lambda p: (p.get("disc") or {}).get("sha256"),
    "code version": lambda p: p.get("code"),
    "chunks": lambda p: p.get("chunks"),
    "shard": lambda p: ("{k}/{m}".format(**p["shard"]) if p.get("shard") else None),
    # who answers and what the game's side is: the model command in place of the reference, the
    # symbol sidecar, the resident overlay and its .PRG, the engines compared in lockstep, and the
    # executable whose index tables read the archive.
    # DECISION: the engine counts only as lockstep or not: native and python must agree bit for bit
    # (lockstep is the check that they do), so a run may go on under the other; lockstep checks more.
    # The model's timeout is not identity: it changes when a model is given up on, not its answers.
    "model": lambda p: p.get("model"),
    "sidecar sha256": lambda p: (p.get("syms") or {}).get("sha256"),
    "overlay": lambda p: p.get("overlay"),
    "overlay sha256": lambda p: (p.get("overlay_prg") or {}).get("sha256"),
    "engine lockstep": lambda p: p.get("lockstep"),
    "corpus image sha256": lambda p: (p.get("corpus_image") or {}).get("sha256"),
    "volume": lambda p: p.get("volume"),
}


def param_differences(old, new, ignore=()):
    """['seed: run 4, now 7', ...]: the resume parameters where two runs' params differ."""
    out = []
    for name, get in RESUME_PARAMS.items():
        if name in ignore:
            continue
        a, b = get(old), get(new)
        if a != b:
            if name == "chunks":
                a, b = f"{len(a or [])} ids", f"{len(b or [])} ids" + (" (other ids)" if len(a or []) == len(b or []) else "")
            out.append(f"{name}: run {a}, now {b}")
    return out


def sync_records():
    """Make every record written so far durable: one syncfs of each directory's file system (an
    error there is a RunDirError naming the directory)."""
    dirs = sorted(set(_unsynced))
    _unsynced.clear()
    for d in dirs:
        _syncfs(d)


def _syncfs(directory):
    import ctypes
    import errno as _errno
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as exc:
        raise RunDirError(exc.errno, exc.strerror or str(exc), directory) from None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        syncfs = getattr(libc, "syncfs", None)
        if syncfs is None:                # not Linux: flush everything, errors unseen
            os.sync()
            return
        if syncfs(fd) != 0:
            e = ctypes.get_errno() or _errno.EIO
            raise RunDirError(e, os.strerror(e), directory)
    finally:
        os.close(fd)


MUTANT_ELFS = os.path.join(ROOT, "standin", "build", "mutants")


def is_mutant_run(params) -> bool:
    """A run of a stand-in mutant (standin/build/mutants/*.elf)."""
    image = (params.get("image") or {}).get("path") if isinstance(params.get("image"), dict) else params.get("image")
    return bool(image) and os.path.abspath(str(image)).startswith(MUTANT_ELFS + os.sep)


def moves_latest(params) -> bool:
    """Whether a run becomes build/runs/latest.

    DECISION: build/runs/latest names the newest run of the built-in reference on a real
    executable (the stand-in, the user's game). An experiment never moves it: a stand-in mutant's
    run, and a run with MODEL= (another program in place of the reference), so `make report`
    and `harness coverage` keep acting on the last run that matters after one is tried (the
    experiment's own directory, or OUT=, still reaches it)."""
    return not is_mutant_run(params) and not params.get("model")


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_summary(path, missing=None):
    """A run's summary.json read and checked against its type (reports.records.Summary): `missing`
    when there is none, RunDirInvalid naming the file and the member when it does not read as one."""
    if not os.path.isfile(path):
        return missing
    try:
        return load_summary(path)
    except ReportError as exc:
        raise RunDirInvalid(str(exc)) from None


def chunk_record(path, load=read_chunk):
    """A chunk record read and validated by the record schema (reports.records: load_chunk fills
    its optional members, read_chunk keeps it as written); a bad one is RunDirInvalid naming the
    file, the member and the chunk."""
    try:
        return load(Path(path))
    except ReportError as exc:
        raise RunDirInvalid(str(exc)) from None


def status(s):
    """The verdict of a summary: one rule, kept in reports.summary (the report shows the same)."""
    from reports.summary import status as verdict
    return verdict(s)


_HELD = {}             # run directory -> the fd of its lock, for the run directories this process holds


class RunDir:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.chunks_dir = os.path.join(self.path, "chunks")

    @classmethod
    def create(cls, params, runs=RUNS):
        key = params_key(params)
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        run_id = f"{stamp}-{key}"
        path = os.path.join(runs, run_id)
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(runs, f"{run_id}.{n}")
        os.makedirs(os.path.join(path, "chunks"))
        params = dict(params, run_id=os.path.basename(path), key=key)
        rd = cls(path)
        write_json(os.path.join(path, "params.json"), params)
        if moves_latest(params):
            rd.link_latest(runs)
        return rd

    @classmethod
    def create_at(cls, path, params):
        """A run directory at an explicit path (`--out`); resumes it when it already has params.
        A directory that holds files but no params.json is refused untouched (refuse_foreign)."""
        rd = cls(path)
        if os.path.isfile(rd.params_path):
            return rd
        refuse_foreign(path)
        os.makedirs(rd.chunks_dir, exist_ok=True)
        params = dict(params, run_id=os.path.basename(rd.path), key=params_key(params))
        write_json(rd.params_path, params)
        return rd

    @classmethod
    def find_resumable(cls, params, runs=RUNS):
        """The newest incomplete run with identical parameters, or None."""
        if not os.path.isdir(runs):
            return None
        key = params_key(params)
        for name in sorted(os.listdir(runs), reverse=True):
            rd = cls(os.path.join(runs, name))
            if name == "latest" or not os.path.isfile(rd.params_path):
                continue
            try:
                p = rd.params()
            except (OSError, ValueError):
                continue
            if p.get("key") == key and not rd.is_complete():
                return rd
        return None

    @property
    def params_path(self):
        return os.path.join(self.path, "params.json")

    def params(self):
        return read_params(self.params_path)

    def hold(self):
        """Take the run directory's lock (flock of RUN/.lock) for this process's life: one bulk at
        a time writes a run directory. RunDirBusy when another process holds it."""
        import fcntl
        if self.path in _HELD:
            return                        # this process holds it already (a bulk run again in-process)
        path = os.path.join(self.path, ".lock")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise RunDirError(exc.errno, exc.strerror or str(exc), path) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirBusy(f"{self.path} is being written by another bulk (its lock {path} is held); "
                             f"wait for that run to end, or give another --out") from None
        _HELD[self.path] = fd

    def release(self):
        fd = _HELD.pop(self.path, None)
        if fd is not None:
            os.close(fd)

    def lock(self):
        """hold() for the length of a with-block."""
        from contextlib import contextmanager

        @contextmanager
        def held():
            self.hold()
            try:
                yield self
            finally:
                self.release()
        return held()

    def selection(self):
        """{record index: chunk id} of the run's selection (reports.load.selection_of)."""
        from reports.load import selection_of
        return selection_of(self.params()) or {}

    def strays(self):
        """[(file name, why)] of the whole records of no selected chunk: named, never counted."""
        from reports.load import stray
        sel = self.selection()
        out = []
        for name in sorted(os.listdir(self.chunks_dir)):
            if name.endswith(".json"):
                try:
                    rec = read_json(os.path.join(self.chunks_dir, name))
                except (OSError, ValueError, UnicodeDecodeError):
                    continue
                why = stray(name, rec, sel) if isinstance(rec, dict) else "not a JSON object"
                if why:
                    out.append((name, why))
        return out

    def link_latest(self, runs=None):
        runs = runs or os.path.dirname(self.path)
        link = os.path.join(runs, "latest")
        tmp = f"{link}.tmp{os.getpid()}"
        try:
            os.symlink(os.path.basename(self.path), tmp)
            os.replace(tmp, link)
        except OSError:
            pass

    def chunk_path(self, index):
        return os.path.join(self.chunks_dir, f"{index:05d}.json")

    def done_indices(self, remove_torn=True):
        """The selected indices with a whole record of their own chunk. A record that does not
        parse (torn by a machine crash before its batch was synced) is removed: its chunk is
        checked again (remove_torn=False: left alone, for a directory that is only read). A
        record of no selected chunk is not counted (strays() names it)."""
        from reports.load import stray
        sel = self.selection()
        out = set()
        for name in os.listdir(self.chunks_dir):
            if name.endswith(".json") and name[:5].isdigit():
                path = os.path.join(self.chunks_dir, name)
                try:
                    rec = read_json(path)
                    whole = isinstance(rec, dict)
                except (OSError, ValueError, UnicodeDecodeError):
                    whole = False
                if whole:
                    if not stray(name, rec, sel):
                        out.add(int(name[:5]))
                elif remove_torn:
                    try:
                        os.unlink(path)
                    except OSError:
                        pass
        return out

    def remove_temp_files(self):
        """Remove the temp files of chunk records whose writer was stopped mid-write."""
        try:
            names = os.listdir(self.chunks_dir)
        except OSError:
            return
        for name in names:
            if ".json.tmp" in name:
                try:
                    os.unlink(os.path.join(self.chunks_dir, name))
                except OSError:
                    pass

    def write_chunk(self, res):
        write_json(self.chunk_path(res["index"]), res, durable=False)

    def results(self):
        """The records of the selected chunks (a record of no selected chunk is left out)."""
        from reports.load import stray
        sel = self.selection()
        for name in sorted(os.listdir(self.chunks_dir)):
            if name.endswith(".json"):
                rec = chunk_record(os.path.join(self.chunks_dir, name), load_chunk)
                if not stray(name, rec, sel):
                    yield rec

    def is_complete(self):
        s = os.path.join(self.path, "summary.json")
        if not os.path.isfile(s):
            return False
        return bool(read_summary(s, {}).get("complete"))

    def summarize(self, seconds=None, interrupted=False):
        """summary.json from params.json and the chunk records (reports.summary.summarize, the one
        summariser the report uses too): write it and return it. seconds: the run's wall time."""
        from reports.summary import summarize
        results = list(self.results())
        summary = summarize(self.params(), results, seconds=seconds, interrupted=interrupted)
        from harness.runners.bulk.schedule import write_timings
        write_timings(self.path, {str(r["chunk"]): r.get("seconds", 0.0) or 0.0 for r in results})
        _unsynced.append(self.chunks_dir)   # every worker's records are on disk before the summary
        sync_records()
        write_json(os.path.join(self.path, "summary.json"), summary)
        return summary
