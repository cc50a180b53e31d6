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

import msgspec

from corpus.names import printable
from ground.typed import Refusal, json_text, member, path_text

from harness import HarnessError
from harness.truth import limits
from harness.truth.answers import Shape, answer_line, check_shape, same_query

DEFAULT_TIMEOUT = 120.0        # seconds for one chunk's answers


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
    """The reference, called in process (reference/serve.py's answer, as `serve` calls it); a query
    of a kind serve does not answer (a check's own, harness/checks QueryKind) is answered by its
    kind's declared answer on the chunk's parse."""
    name = "the built-in reference"

    def __init__(self):
        from reference.serve import KINDS, answer
        self._answer, self._served = answer, KINDS
        self._pending = deque()

    def send(self, chunk_id, data, ext, float_model, queries):
        self._pending.append((chunk_id, data, ext, float_model, queries))

    def receive(self):
        chunk_id, data, ext, float_model, queries = self._pending.popleft()
        asked = [bare(q) for q in queries]
        served = [q for q in asked if q["kind"] in self._served]
        out = iter(self._answer(data, ext or {}, float_model, served, where=chunk_id) if served else ())
        if len(served) == len(asked):
            return list(out)
        from harness import checks
        from reference import Animation
        declared = checks.query_kinds()
        # DECISION: the chunk parsed as reference/serve.py parses a request's (no names), so a
        # declared kind is answered in process from what a model would be sent
        anim = Animation.parse(data, ext=ext or None, float_model=float_model, where=chunk_id)
        answers = []
        for q in asked:
            if q["kind"] in self._served:
                answers.append(next(out))
                continue
            if q["kind"] not in declared:
                raise ModelError(chunk_id, f"no answer to a query of kind {printable(q['kind'])}: neither "
                                           f"reference/serve.py nor a check declares it", q)
            answers.append({"i": q.get("i"), "kind": q["kind"], **declared[q["kind"]][1].answer(anim, q)})
        return answers

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
        return decoded(chunk_id, queries, line)

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


def checked_answers(chunk_id, queries, answers):
    """The answers (decoded, harness.truth.answers, or the built-in reference's dicts), each checked
    against its query's shape, as the dicts the comparison reads; a ModelError names the first bad
    one."""
    _count(chunk_id, queries, answers)
    out = []
    for q, a in zip(queries, answers):
        try:
            out.append(check_shape(q, a))
        except Shape as exc:
            raise ModelError(chunk_id, f"wrong shape: {exc}", q) from None
    return out


def decoded(chunk_id, queries, line):
    """The answers of a model's answer line (bytes) to the chunk's queries, decoded and typed in one
    step (harness.truth.answers.answer_line()); a ModelError names what is wrong: the line, or the
    first answer of the wrong type with its query (kind and index) and the field's path."""
    try:
        obj = answer_line().decode(line)
    except msgspec.ValidationError as exc:
        raise _invalid(chunk_id, queries, line, exc) from None
    except msgspec.DecodeError:
        raise ModelError(chunk_id, f"its answer line is not JSON: {printable(line[:120].decode('utf-8', 'replace'))!s}"
                                   f"{'...' if len(line) > 120 else ''}") from None
    return _line_answers(chunk_id, {"chunk": obj.chunk, "answers": obj.answers, "error": obj.error})


def _count(chunk_id, queries, answers):
    if len(answers) != len(queries):
        raise ModelError(chunk_id, f"{len(answers)} answers to {len(queries)} queries "
                                   f"(one answer per query, in order)")


def _invalid(chunk_id, queries, line, exc):
    """The ModelError of an answer line that is JSON but not of the answers' types (msgspec's
    ValidationError, with its path): the line's own faults first, as receive() names them, then
    the answer's query (kind and index), the field's path in the answer and what is wrong."""
    answers = _line_answers(chunk_id, json.loads(line))
    _count(chunk_id, queries, answers)
    r = Refusal(exc)
    if len(r.keys) < 2 or r.keys[0] != "answers":
        return ModelError(chunk_id, f"the answer line: {printable(path_text(r.keys)) or 'itself'}: "
                                    f"{printable(r.lowered())}")
    k, inside = r.keys[1], r.keys[2:]
    q, a = queries[k], answers[k]
    try:
        same_query(q, a)
    except Shape as e:
        return ModelError(chunk_id, f"wrong shape: {e}", q)
    field = printable(path_text(inside))
    if r.missing:
        return ModelError(chunk_id, f"wrong shape: {field or r.missing}: no field {r.missing!r}", q)
    return ModelError(chunk_id, f"wrong shape: {field or 'the answer'}: {printable(r.lowered())}, "
                                f"found {printable(json_text(member(a, inside)))}", q)


def _line_answers(chunk_id, obj):
    """The answers of a model's line (a JSON value): a ModelError when it is not an object, says
    an error, is for another chunk or holds no answers list."""
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

