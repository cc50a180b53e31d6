"""The truth file (docs/truth.md §1): JSON lines, a header, one line per chunk, a closing line.

    {"format": "eediff-truth", "version": 1, "image": {...sha256}, "data": {...sha256}, "seed": ...}
    {"chunk": "member::ANM_name", "index": 0, "queries": [...], "n_queries": 12}   one per chunk, in order
    {"end": true, "chunks": 200}

Written one chunk at a time (a run never holds more than one chunk's queries); a path ending in
`.gz` is written and read gzip-compressed. Reading checks every line as it comes and names the
file and line of anything wrong: a file is read as whole only when the header's chunk count,
the closing line's and the lines' agree, every chunk line is of its type (ChunkLine: each member's
type, every query's i and kind), every chunk id is new, each line's index is its place and its
queries are the n_queries its line says, numbered 0, 1, ... (docs/truth.md §1). A line or a
file past harness.truth.limits is refused at the limit, never held whole.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import zlib
from typing import Annotated, Literal, Optional, TypedDict

import msgspec
import orjson

from corpus.names import printable
from ground.typed import Refusal, json_text, member, path_text

from harness import HarnessError
from harness.truth import limits

FORMAT = "eediff-truth"
# version 2: each chunk line carries n_queries; a 3x3 compared within a tolerance carries its bound
# version 3: a multistep query carries the game's single-step pose (game.single)
VERSION = 3
Count = Annotated[int, msgspec.Meta(ge=0)]


class FileIdentity(TypedDict):
    """A file the truth file was made with (harness.runners.bulk.run.file_identity)."""
    path: str
    size: Count
    sha256: Digest                  # the SHA-256 form of the digest lines' (below)


class _HeaderNeeds(TypedDict):
    format: str
    version: int
    image: Optional[FileIdentity]
    data: Optional[FileIdentity]
    seed: int
    profile: str
    float_model: Literal["hw", "trunc"]
    checks: Optional[list[str]]
    chunks: Count


class Header(_HeaderNeeds, total=False):
    """Line 1 (docs/truth.md §1): what check-truth reads of it must be there and of its type; the
    rest says where the file came from."""
    disc: Optional[FileIdentity]
    n: Optional[int]
    code: str
    volume: str
    volume_name: str
    volume_from: str
    answers: Literal["sha256"]


class TruthFileError(HarnessError):
    """A truth file that cannot be read as one (named: file, line, what is wrong)."""


# -- the lines' types: each chunk line is checked against its type as it is read -------------------
class Query(TypedDict):
    """What every query of a chunk line holds (docs/truth.md §3; the rest is its kind's)."""
    i: int
    kind: str


class _Chunk(TypedDict):
    chunk: str


class ChunkLine(_Chunk, total=False):
    index: int
    n_queries: int
    queries: list[Query]


Digest = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class DigestQuery(Query):
    """A query of the digest form: its kind and i, and SHA-256 digests of what it asks and of the
    game's answers."""
    asked: Digest
    game: Digest


class DigestLine(ChunkLine, total=False):
    queries: list[DigestQuery]


def _open(path, mode, gz=None):
    if gz if gz is not None else str(path).endswith(".gz"):
        # DECISION: compresslevel 1: the words compress about 4x at the fastest level; the higher
        # levels cost several times the export's own time for a few per cent.
        return gzip.open(path, mode + "t", encoding="utf-8", compresslevel=1) if "w" in mode else \
            gzip.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


class Writer:
    """Writes a truth file atomically: to FILE.partial, renamed to FILE by close() after the
    closing line, so a killed export never leaves a file that reads as complete."""

    def __init__(self, path, header):
        self.path = str(path)
        self.tmp = self.path + ".partial"
        d = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(d, exist_ok=True)
            self.f = _open(self.tmp, "w", gz=self.path.endswith(".gz"))
        except OSError as exc:
            raise HarnessError(f"cannot write {printable(self.path)}: {exc.strerror}") from None
        self.chunks = 0
        self.f.write(dumps(header) + "\n")
        self.f.flush()

    def chunk(self, line):
        """One chunk's line (a dict, or chunk_text's JSON text), on its way to the file before the
        next is made."""
        self.f.write((line if isinstance(line, str) else chunk_text(line)) + "\n")
        self.f.flush()
        self.chunks += 1

    def close(self):
        self.f.write(dumps({"end": True, "chunks": self.chunks}) + "\n")
        self.f.close()
        os.replace(self.tmp, self.path)

    def abandon(self):
        """An export that stopped: its .partial file goes (nothing reads it)."""
        try:
            self.f.close()
        except OSError:
            pass
        try:
            os.remove(self.tmp)
        except OSError:
            pass


def chunk_text(line):
    """A chunk line's JSON text, with the count of its queries check-truth verifies (n_queries)."""
    return dumps(dict(line, n_queries=len(line.get("queries") or ())))


# -- the digest form (make volumes): each query's inputs and the game's answers as SHA-256 digests ---
DIGESTS = "sha256"          # the header's "answers" in the digest form
NOT_ASKED = ("game", "ledger")      # a query's fields that are no part of what it asks


def digest(value) -> str:
    """The SHA-256 of value's canonical JSON (sorted keys, orjson's text): two values' digests are
    equal exactly when their JSON is, which for words is their raw bits (short of a SHA-256
    collision). DECISION: orjson, not json: a chunk's world answers are some 12 MB of JSON, which the
    standard encoder takes about 0.1 s to write, half of the digest export's time."""
    return hashlib.sha256(orjson.dumps(value, option=orjson.OPT_SORT_KEYS)).hexdigest()


def digested(line):
    """A chunk line in the digest form: each query {"i", "kind", "asked": the digest of the query
    without its answers, "game": the digest of the game's answers}.
    DECISION: the digest form keeps a chunk line's shape (its queries numbered 0, 1, ... and counted
    by n_queries), so it is read and checked as a whole file is; what it drops is the words, which at
    full size run to some 12 MB a chunk (the world queries' bounds and calls), 50 GB a volume."""
    qs = [{"i": q["i"], "kind": q["kind"], "asked": digest({k: v for k, v in q.items() if k not in NOT_ASKED}),
           "game": digest(q.get("game"))} for q in line.get("queries") or ()]
    return dict(line, queries=qs)


def is_digests(header) -> bool:
    return header.get("answers") == DIGESTS


def _text_lines(f, label):
    """(line number, text) of each line of f, none longer than limits.LINE_BYTES and all of them
    together no more than limits.FILE_BYTES: a longer line is refused at the limit, never read whole."""
    n, total, chunk = 0, 0, None
    while True:
        text = f.readline(limits.LINE_BYTES + 1)
        if not text:
            return
        n += 1
        total += len(text)
        if len(text) > limits.LINE_BYTES:
            where = f" (the line after chunk {printable(chunk)})" if chunk else ""
            raise TruthFileError(f"{label}:{n}: a line longer than {limits.mib(limits.LINE_BYTES)}, the limit "
                                 f"of a truth file's line{where}")
        if total > limits.FILE_BYTES:
            raise TruthFileError(f"{label}:{n}: the file's text runs past {limits.mib(limits.FILE_BYTES)}, the "
                                 f"limit of a truth file (decompressed)")
        chunk = yield n, text


def read(path):
    """(header, iterator of chunk lines). The iterator raises TruthFileError at a malformed line,
    at a missing closing line (a cut file) and at a closing line whose count is not the file's."""
    label = printable(str(path))
    if os.path.isdir(path):
        raise TruthFileError(f"{label}: a directory, not a truth file")
    if not os.path.isfile(path):
        raise TruthFileError(f"{label}: no such file")
    try:
        f = _open(path, "r")
        text = _text_lines(f, label)
        first = next(text, (1, ""))[1]
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        raise TruthFileError(f"{label}: cannot read it ({exc})") from None
    header = _json(first, label, 1)
    check_header(header, label)

    def lines():
        n, count, seen, chunk = 1, 0, {}, None
        try:
            with f:
                while True:
                    try:
                        n, line = text.send(chunk)
                    except StopIteration:
                        break
                    obj = _json(line, label, n)
                    if obj.get("end") is True:
                        _check_end(obj, header, count, label, n)
                        if next(text, None) is not None:
                            raise TruthFileError(f"{label}:{n + 1}: a line after the closing line")
                        return
                    _check_chunk(obj, count, seen, label, n, is_digests(header))
                    seen[obj["chunk"]] = n
                    chunk = obj["chunk"]
                    count += 1
                    obj["_line"] = n
                    yield obj
        except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
            raise TruthFileError(f"{label}:{n}: cannot read on ({exc})") from None
        raise TruthFileError(f"{label}: ends after {count} chunks without its closing line "
                             f"(an export that was stopped, or a cut copy)")
    return header, lines()


def _check_end(obj, header, count, label, n):
    """The closing line's count and the header's are the chunk lines read."""
    for what, said in (("closing line", obj.get("chunks")), ("header", header.get("chunks"))):
        if said != count:
            raise TruthFileError(f"{label}:{n}: the {what} counts {printable(said)} chunks, the file holds "
                                 f"{count} (chunk lines were cut or added)")


def _check_chunk(obj, count, seen, label, n, digests=False):
    """A chunk line is whole: of its type (ChunkLine, or DigestLine in the digest form), its id new,
    its index its place, its queries the n_queries it says, numbered 0, 1, ..."""
    cid, queries = obj.get("chunk"), obj.get("queries", [])
    if not isinstance(cid, str) or not isinstance(queries, list):
        raise TruthFileError(f"{label}:{n}: not a chunk line (needs \"chunk\" and \"queries\")")
    where = f"{label}:{n}: chunk {printable(cid)}"
    try:
        msgspec.convert(obj, DigestLine if digests else ChunkLine)
    except msgspec.ValidationError as exc:
        raise TruthFileError(_invalid(where, obj, exc)) from None
    if cid in seen:
        raise TruthFileError(f"{where} is in the file twice (lines {seen[cid]} and {n})")
    if obj.get("index") != count:
        raise TruthFileError(f"{where}: its index is {printable(obj.get('index'))}, its place in the file "
                             f"{count} (a chunk line was cut, moved or repeated)")
    if obj.get("n_queries") != len(queries):
        raise TruthFileError(f"{where}: the line holds {len(queries)} queries, its n_queries says "
                             f"{printable(obj.get('n_queries'))} (queries were cut or added)")
    for k, q in enumerate(queries):
        if q["i"] != k:
            raise TruthFileError(f"{where}: query {k} is numbered {printable(q['i'])}, not {k}")


def _invalid(where, obj, exc) -> str:
    """msgspec's ValidationError of a chunk line, said of the line: the member's path
    (queries[3].kind) and the kind of the query it is in, what it must be and what it is."""
    r = Refusal(exc)
    value = member(obj, r.keys)
    query = member(obj, r.keys[:2]) if r.keys[:1] == ["queries"] else None
    kind = query.get("kind") if isinstance(query, dict) and isinstance(query.get("kind"), str) else None
    if len(r.keys) == 3 and r.keys[2] in ("asked", "game") and not r.missing:
        return (f"{where} query {r.keys[1]}: its {r.keys[2]} is {printable(str(value))[:40]}, "
                f"not a SHA-256 digest (64 hex digits)")
    text = f"{where}: {printable(path_text(r.keys)) or 'the line'}{f' (a {printable(kind)} query)' if kind else ''}: "
    text += printable(r.lowered())
    return text if r.missing else f"{text}, found {printable(json_text(value))}"


_DECODE = msgspec.json.Decoder().decode


def _json(text, label, n):
    """A line's JSON object. DECISION: msgspec decodes it (faster than json on the game's words);
    a line it refuses is read by json, which names what is wrong, and which reads the NaN and
    Infinity json writes for a non-finite float."""
    try:
        obj = _DECODE(text)
    except msgspec.DecodeError:
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise TruthFileError(f"{label}:{n}: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise TruthFileError(f"{label}:{n}: not a JSON object")
    return obj


def check_header(h, label):
    """The header is an eediff truth file's of this version (said first: another file's or version's
    header is named as such, not by its members), then of its type (Header), each bad member named."""
    if h.get("format") != FORMAT:
        raise TruthFileError(f"{label}:1: not an eediff truth file (format {printable(h.get('format'))!s}, "
                             f"expected {FORMAT})")
    if h.get("version") != VERSION:
        raise TruthFileError(f"{label}:1: truth format version {printable(h.get('version'))}; this eediff "
                             f"reads version {VERSION}")
    try:
        msgspec.convert(h, Header)
    except msgspec.ValidationError as exc:
        r = Refusal(exc)
        where = f"{label}:1: the header" + (f"'s {printable(path_text(r.keys))}" if r.keys else "")
        if r.missing:
            raise TruthFileError(f"{where} lacks {printable(r.missing)}") from None
        found = printable(json_text(member(h, r.keys)))
        if r.wanted:
            raise TruthFileError(f"{where} must be {printable(r.wanted)}, found {found}") from None
        raise TruthFileError(f"{where}: {printable(r.lowered())}" + ("" if "enum" in r.what else f", found {found}")) \
            from None
