"""Models that answer a truth file's queries (docs/truth.md §2): the built-in reference in process,
or any program speaking the protocol on stdin/stdout.

One request line per chunk, {"chunk", "anime" (base64), "ext", "float_model", "queries"}; one
answer line back, {"chunk", "answers"}. The external model is fed ahead: the next chunk's request is
written before the current answer is read, so the model computes while the harness compares.

Whatever a model does wrong is a ModelError naming the chunk and the query (kind and index): a
line that is not JSON, an answer of the wrong shape, an exit, or no answer within the timeout.
An answer line is read up to limits.ANSWER_BYTES and no further: a longer one is an error at once.
A model runs in a process group of its own, which is ended with it (on close, on a timeout, on an
error), so no child it started outlives the run.
"""
from __future__ import annotations

import base64
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time as _time
from collections import deque

import numpy as np

from corpus.names import printable

from harness import HarnessError
from harness.truth import limits

DEFAULT_TIMEOUT = 120.0        # seconds for one chunk's answers
U32 = 0xFFFFFFFF
# DECISION: an answer's array of u32 words may also be one string, "u32:" and the base64 of its
# words little-endian, in the query's shape: the built-in reference's serve answers so (JSON
# lists of ints cost it and the harness more than the model's own work); a list is as good.
PACKED = "u32:"


class ModelError(HarnessError):
    """A model's output that cannot be an answer: names the chunk, the query kind and index."""

    def __init__(self, chunk, message, query=None):
        self.chunk, self.query = chunk, query
        where = f"chunk {printable(chunk)}"
        if query is not None:
            where += f", query {printable(query.get('kind'))} #{query.get('i')}"
        super().__init__(f"model error: {where}: {message}")


def request(chunk_id, data, ext, float_model, queries):
    """The request line's object for one chunk: the queries without the game's words."""
    return {"chunk": chunk_id, "anime": base64.b64encode(data).decode("ascii"),
            "ext": sorted([int(o), int(t)] for o, t in (ext or {}).items()), "float_model": float_model,
            "queries": [bare(q) for q in queries]}


# a query's fields that are the harness's, never sent to a model: the game's words, the ledger,
# the held keys the game's poses are checked against each other at, a 3x3's bound, a world
# query's bounds
HARNESS_ONLY = ("game", "ledger", "holds", "bound", "bounds")


def bare(q):
    """Query q as a model sees it (docs/truth.md §3)."""
    return {k: v for k, v in q.items() if k not in HARNESS_ONLY}


class BuiltIn:
    """The reference, called in process (reference/serve.py's answer, as `serve` calls it)."""
    name = "the built-in reference"

    def __init__(self):
        from reference.serve import answer
        self._answer = answer
        self._pending = deque()

    def send(self, chunk_id, data, ext, float_model, queries):
        self._pending.append((chunk_id, data, ext, float_model, queries))

    def receive(self):
        chunk_id, data, ext, float_model, queries = self._pending.popleft()
        return self._answer(data, ext or {}, float_model, [bare(q) for q in queries], where=chunk_id)

    def close(self):
        return None


class TooLong:
    """What the reader thread hands on in place of an answer line longer than limits.ANSWER_BYTES."""


class ReadFailed:
    """What the reader thread hands on when reading the model's output failed (and why)."""

    def __init__(self, why):
        self.why = why


class External:
    """A program answering the protocol: its command line split as a shell would (never run by a
    shell), stdout read by a thread, stderr kept for the error messages.

    DECISION: the program is started in a session (and process group) of its own and the whole
    group is ended when the model is (close, kill): a child it forked that holds its stdout would
    otherwise outlive the run, and keep the reader waiting for an end of output that never comes."""

    def __init__(self, command, timeout=DEFAULT_TIMEOUT, cwd=None):
        self.command = command
        self.name = f"model {printable(command)}"
        self.timeout = timeout
        argv = argv_of(command)
        try:
            self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, cwd=cwd, bufsize=1 << 16,
                                      start_new_session=True)
        except OSError as exc:
            raise HarnessError(f"--model {printable(command)}: cannot start it ({exc.strerror})") from None
        self.lines = queue.Queue()
        self.err = deque(maxlen=20)
        # DECISION: requests are written by a thread of their own, so a model that stops reading
        # (hung, or answering before it reads on) can never block the harness: only the answer's
        # wait has a timeout, and the model is killed when it runs out.
        self.requests = queue.Queue()
        self.write_failed = threading.Event()
        threading.Thread(target=self._read_out, daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()
        threading.Thread(target=self._write, daemon=True).start()
        self._pending = deque()
        self.answered = 0              # answer lines read so far (a limit's error names the line)

    def _write(self):
        while True:
            data = self.requests.get()
            if data is None:
                break
            try:
                self.p.stdin.write(data)
                self.p.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.write_failed.set()
                return
        try:
            self.p.stdin.close()
        except OSError:
            pass

    def _read_out(self):
        """Each answer line onto self.lines, then None at the end of the output. A line past the
        limit is TooLong (and reading stops: the model is out of step); a failure to read is
        ReadFailed: the waiting receive() hears of either at once, never only at its timeout."""
        try:
            while True:
                line = self.p.stdout.readline(limits.ANSWER_BYTES + 1)
                if not line:
                    break
                if len(line) > limits.ANSWER_BYTES:
                    self.lines.put(TooLong())
                    return
                self.lines.put(line)
        except BaseException as exc:                 # MemoryError included
            self.lines.put(ReadFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.lines.put(None)

    def _read_err(self):
        # DECISION: stderr is read in bounded pieces too (only its last lines are kept)
        while True:
            line = self.p.stderr.readline(1 << 16)
            if not line:
                break
            self.err.append(line.decode("utf-8", "replace").rstrip("\n"))

    def _stderr_tail(self):
        tail = list(self.err)[-5:]
        return ("; its stderr ends: " + printable(" | ".join(tail))) if tail else ""

    def send(self, chunk_id, data, ext, float_model, queries):
        line = (json.dumps(request(chunk_id, data, ext, float_model, queries), separators=(",", ":"))
                + "\n").encode("utf-8")
        self._pending.append((chunk_id, queries))
        self.requests.put(line)

    def _gone(self, chunk_id, queries):
        try:
            code = self.p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None:
            self._err_reader.join(timeout=2)      # its last words (a panic's message) are read before they are told
        how = f"exited with status {code}" if code is not None else "closed its output"
        return ModelError(chunk_id, f"the model {how} before answering {_queries_text(queries)}"
                                    f"{self._stderr_tail()}", queries[0] if len(queries) == 1 else None)

    def _check_line(self, chunk_id, queries, line):
        """What the reader thread handed on, if not an answer line: the end of the output, a line
        past the limit or a failed read, each the chunk's ModelError (the model stopped)."""
        if line is None:
            raise self._gone(chunk_id, queries)
        if isinstance(line, TooLong):
            self.kill()
            raise ModelError(chunk_id, f"its answer line {self.answered} (to {_queries_text(queries)}) is longer "
                                       f"than {limits.mib(limits.ANSWER_BYTES)}, the limit of an answer line "
                                       f"(the {self.name} was stopped)")
        if isinstance(line, ReadFailed):
            self.kill()
            raise ModelError(chunk_id, f"its answer to {_queries_text(queries)} could not be read "
                                       f"({printable(line.why)}; the model was stopped)")

    def receive(self):
        chunk_id, queries = self._pending.popleft()
        try:
            line = self.lines.get(timeout=self.timeout)
            self.answered += 1
        except queue.Empty:
            self.kill()
            raise ModelError(chunk_id, f"no answer within {self.timeout:g} s to {_queries_text(queries)} "
                                       f"(the model was stopped){self._stderr_tail()}",
                             queries[0] if len(queries) == 1 else None) from None
        self._check_line(chunk_id, queries, line)
        try:
            obj = json.loads(line)
        except ValueError:
            raise ModelError(chunk_id, f"its answer line is not JSON: {printable(line[:120].decode('utf-8', 'replace'))!s}"
                                       f"{'...' if len(line) > 120 else ''}") from None
        if not isinstance(obj, dict):
            raise ModelError(chunk_id, "its answer line is not a JSON object")
        if obj.get("error") is not None:
            raise ModelError(chunk_id, f"the model answered with an error: {printable(str(obj['error'])[:300])}")
        if obj.get("chunk") != chunk_id:
            raise ModelError(chunk_id, f"the answer line is for chunk {printable(obj.get('chunk'))}, "
                                       f"not this one (answers must come in request order)")
        answers = obj.get("answers")
        if not isinstance(answers, list):
            raise ModelError(chunk_id, "the answer line has no \"answers\" list")
        return answers

    def _end_group(self):
        """End every process left in the model's group (its children, once it has exited)."""
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self):
        self._end_group()
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()

    def close(self):
        self.requests.put(None)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.kill()


def argv_of(command):
    """A --model command's words, split as a shell would (it is never run by one); a probe's
    protocol prefix (harness.truth.probes, `morph-probe:CMD`) is not one of them."""
    from harness.truth.probes import split
    command = split(command)[1]
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise HarnessError(f"--model {printable(command)}: {exc}") from None
    if not argv:
        raise HarnessError("--model: an empty command")
    return argv


def _queries_text(queries):
    if not queries:
        return "a request with no queries"
    kinds = {}
    for q in queries:
        kinds.setdefault(q.get("kind"), []).append(q.get("i"))
    parts = [f"{printable(k)} #{v[0]}" + (f"..#{v[-1]}" if len(v) > 1 else "") for k, v in kinds.items()]
    return f"its {len(queries)} queries ({', '.join(parts)})"


class Probe(External):
    """A probe speaking its own line protocol (harness.truth.probes, `morph-probe:CMD`): one
    request line per query, written ahead by the writer thread, one answer line read back per
    query, all within the chunk's timeout. It answers the kinds of probes.PREFIXES only."""

    def __init__(self, command, timeout=DEFAULT_TIMEOUT):
        from harness.truth import probes
        self.prefix, program = probes.split(command)
        self.kinds = probes.PREFIXES[self.prefix]
        self.encode, self.decode = probes.CODECS[self.prefix]
        super().__init__(program, timeout)
        self.command = command
        self.name = f"model {printable(command)} ({self.prefix}'s line protocol)"

    def send(self, chunk_id, data, ext, float_model, queries):  # noqa: ARG002  (External.send's signature: a probe reads the queries only)
        bad = [q for q in queries if q.get("kind") not in self.kinds]
        if bad:
            raise ModelError(chunk_id, f"{self.prefix} answers {', '.join(self.kinds)} queries only, not "
                                       f"{printable(bad[0].get('kind'))}", bad[0])
        self._pending.append((chunk_id, queries))
        self.requests.put("".join(self.encode(q) for q in queries).encode("ascii"))

    def receive(self):
        chunk_id, queries = self._pending.popleft()
        deadline = _time.monotonic() + self.timeout
        answers = []
        for q in queries:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - _time.monotonic()))
            except queue.Empty:
                self.kill()
                raise ModelError(chunk_id, f"no answer within {self.timeout:g} s (the probe was stopped)"
                                           f"{self._stderr_tail()}", q) from None
            self.answered += 1
            self._check_line(chunk_id, [q], line)
            try:
                answers.append(self.decode(q, line))
            except ValueError as exc:
                raise ModelError(chunk_id, str(exc), q) from None
        return answers


def external(command, timeout=DEFAULT_TIMEOUT):
    """The program of a --model: the protocol's, or a probe's under its prefix (harness.truth.probes)."""
    from harness.truth import probes
    return Probe(command, timeout) if probes.split(command)[0] else External(command, timeout)


def model(command=None, timeout=DEFAULT_TIMEOUT):
    return external(command, timeout) if command else BuiltIn()


# -- answer shapes (docs/truth.md §3) ---------------------------------------------------------------
class Shape(ValueError):
    pass


def _words(v, n=None, what="", lo=0, hi=U32):
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise Shape(f"{what}: expected a list of {n if n is not None else 'some'} words, got "
                    f"{_kind(v)}")
    for x in v:
        if type(x) is not int or not lo <= x <= hi:
            raise Shape(f"{what}: {printable(json.dumps(x))[:40]} is not a whole number {lo}..{hi}")
    return v


def _rows(v, n, width, what, lo=0, hi=U32):
    return _block(v, (n, width), what, lo, hi)


def _block(v, shape, what, lo=0, hi=U32):
    """v is an array of whole numbers lo..hi of exactly this shape (nested lists, or a numpy array
    from the built-in model). One numpy pass decides; only a bad block is walked, to name the
    first bad element."""
    shape = tuple(shape)
    if isinstance(v, str) and v.startswith(PACKED) and hi == U32 and lo == 0:
        try:
            raw = base64.b64decode(v[len(PACKED):], validate=True)
        except ValueError:
            raise Shape(f"{what}: {PACKED}... is not base64") from None
        n = int(np.prod(shape))
        if len(raw) != 4 * n:
            raise Shape(f"{what}: {PACKED}... holds {len(raw)} bytes, not the {4 * n} of "
                        f"{' x '.join(map(str, shape))} u32 words")
        return np.frombuffer(raw, dtype="<u4").astype(np.int64).reshape(shape)
    if shape[0] == 0 and (isinstance(v, list) and not v or isinstance(v, np.ndarray) and v.size == 0):
        return v
    try:
        arr = np.asarray(v)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if (arr is not None and arr.shape == shape and arr.dtype.kind in "iu"
            and (arr.size == 0 or (int(arr.min()) >= lo and int(arr.max()) <= hi))):
        return arr
    if arr is not None and 0 in shape and arr.size == 0:
        z = shape.index(0) + 1          # JSON cannot say the widths past an empty dimension
        if arr.shape[:z] == shape[:z]:
            return np.zeros(shape, dtype=np.int64)
    _walk(v, shape, what, lo, hi)
    raise Shape(f"{what}: not an array of {' x '.join(map(str, shape))} whole numbers {lo}..{hi}")


def _walk(v, shape, what, lo, hi):
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if len(shape) == 1:
        _words(v, shape[0], what, lo, hi)
        return
    if not isinstance(v, list) or len(v) != shape[0]:
        raise Shape(f"{what}: expected {shape[0]} rows, got {_kind(v)}")
    for k, row in enumerate(v):
        _walk(row, shape[1:], f"{what}[{k}]", lo, hi)


def _kind(v):
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return f"{type(v).__name__} {printable(json.dumps(v))[:40]}"


def _field(a, name, what):
    if name not in a:
        raise Shape(f"{what}: no field {name!r}")
    return a[name]


def _array(a, name, shape, lo=0, hi=U32):
    """Field `name` of answer `a` checked as a block of that shape, and kept as the numpy array
    the comparison reads (converted once)."""
    a[name] = _block(_field(a, name, name), shape, name, lo, hi)


def check_shape(q, a):
    """Raise Shape when answer `a` cannot be the answer to query `q` (a clear message: the field)."""
    if not isinstance(a, dict):
        raise Shape(f"the answer is {_kind(a)}, not a JSON object")
    if a.get("kind") != q["kind"] or a.get("i") != q["i"]:
        raise Shape(f"the answer is for query {printable(a.get('kind'))} #{printable(a.get('i'))}; answers "
                    f"come one per query, in order")
    kind = q["kind"]
    if kind == "controller":
        n = len(q["times"])
        for f, w in (("pos", 3), ("scale", 3), ("rot", 9)):
            _array(a, f, (n, w))
        _array(a, "alpha", (n,))
        _array(a, "localtp", (n,))
    elif kind == "multistep":
        for f, w in (("pos", 3), ("scale", 3), ("rot", 9)):
            _array(a, f, (w,))
        _words([_field(a, "alpha", "alpha")], 1, "alpha")
    elif kind == "light":
        _array(a, "words", (len(q["times"]), len(q["fields"])))
    elif kind == "material":
        n = len(q["times"])
        for f in ("U", "V"):
            _array(a, f, (n,))
        for f in ("u", "v"):
            _array(a, f, (n,), 0, 0xFFFF)
    elif kind == "playback":
        nt, nr, nm = len(q["tracks"]), len(q["read"]), len(q["morph_read"])
        _rows(_field(a, "forward", "forward"), q["steps"], 2, "forward")
        _array(a, "matrix", (nr, nt, 12))
        _array(a, "localtp", (nr, nt))
        morph = _field(a, "morph", "morph")
        if not isinstance(morph, list) or len(morph) != nm:
            raise Shape(f"morph: expected {nm} rows (one per morph read step), got {_kind(morph)}")
        for k, row in enumerate(morph):
            if not isinstance(row, list) or len(row) != len(q["morphers"]):
                raise Shape(f"morph[{k}]: expected {len(q['morphers'])} morphers, got {_kind(row)}")
            for j, pairs in enumerate(row):
                if not isinstance(pairs, list):
                    raise Shape(f"morph[{k}][{j}]: expected a list of [target, weight] pairs")
                for p in pairs:
                    _words(p, 2, f"morph[{k}][{j}]")
    elif kind == "notes":
        n = len(q["plan"])
        _rows(_field(a, "forward", "forward"), n, 2, "forward")
        notes = _field(a, "notes", "notes")
        if not isinstance(notes, list) or len(notes) != n:
            raise Shape(f"notes: expected {n} lists (one per step), got {_kind(notes)}")
        for k, step in enumerate(notes):
            if not isinstance(step, list):
                raise Shape(f"notes[{k}]: expected a list of notes")
            for note in step:
                _words(note, 4, f"notes[{k}]", -(1 << 31), U32)
    elif kind == "fobj":
        _rows(_field(a, "forward", "forward"), len(q["plan"]), 2, "forward")
        poses = _field(a, "poses", "poses")
        if not isinstance(poses, list) or len(poses) != len(q["read"]):
            raise Shape(f"poses: expected {len(q['read'])} rows (one per read step), got {_kind(poses)}")
        for k, ((_, objs), row) in enumerate(zip(q["read"], poses)):
            if not isinstance(row, list) or len(row) != len(objs):
                raise Shape(f"poses[{k}]: expected {len(objs)} objects, got {_kind(row)}")
            for j, p in enumerate(row):
                if p is None:
                    continue
                if not isinstance(p, dict):
                    raise Shape(f"poses[{k}][{j}]: expected an object or null")
                _words(_field(p, "matrix", f"poses[{k}][{j}]"), 12, f"poses[{k}][{j}].matrix")
                _words([_field(p, "localtp", f"poses[{k}][{j}]")], 1, f"poses[{k}][{j}].localtp")
                _words([_field(p, "flags", f"poses[{k}][{j}]")], 1, f"poses[{k}][{j}].flags", 0, 3)
    elif kind == "modify":
        _rows(_field(a, "vertices", "vertices"), len(q["base"]), 3, "vertices", -32768, 32767)
    elif kind == "objects":
        for f in OBJECTS_FIELDS:
            v = _field(a, f, f)
            if not isinstance(v, list):
                raise Shape(f"{f}: expected a list, got {_kind(v)}")
        _words([_field(a, "count", "count")], 1, "count")
        _words([_field(a, "anm_index", "anm_index")], 1, "anm_index")
    elif kind == "world":
        n = q["steps"]
        _rows(_field(a, "forward", "forward"), n, 2, "forward")
        order = _field(a, "order", "order")
        if not isinstance(order, list) or not all(isinstance(x, list) for x in order):
            raise Shape(f"order: expected a list of identities, got {_kind(order)}")
        _array(a, "world", (len(order), n, 16))
        _array(a, "alpha", (len(order), n))
        pose_at = _field(a, "pose_at", "pose_at")
        if not isinstance(pose_at, list) or len(pose_at) != n:
            raise Shape(f"pose_at: expected {n} times (or nulls), got {_kind(pose_at)}")
        if len(q["bounds"]) != len(order):
            raise Shape(f"order: {len(order)} calls, the game's Draw makes {len(q['bounds'])}")
    return a


# the list fields of an "objects" answer (reference/objects.py view, docs/truth.md §3)
OBJECTS_FIELDS = ("index", "entries", "parents", "claims", "node_tables", "inits", "draws", "frees")


def checked_answers(chunk_id, queries, answers):
    """The answers, each checked against its query's shape; a ModelError names the first bad one."""
    if len(answers) != len(queries):
        raise ModelError(chunk_id, f"{len(answers)} answers to {len(queries)} queries "
                                   f"(one answer per query, in order)")
    for q, a in zip(queries, answers):
        try:
            check_shape(q, a)
        except Shape as exc:
            raise ModelError(chunk_id, f"wrong shape: {exc}", q) from None
    return answers
