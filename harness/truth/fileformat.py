"""The truth file (docs/truth.md §1): JSON lines, a header, one line per chunk, a closing line.

    {"format": "eediff-truth", "version": 1, "image": {...sha256}, "data": {...sha256}, "seed": ...}
    {"chunk": "member::ANM_name", "index": 0, "queries": [...]}            one per chunk, in order
    {"end": true, "chunks": 200}

Written one chunk at a time (a run never holds more than one chunk's queries); a path ending in
`.gz` is written and read gzip-compressed. Reading checks every line as it comes and names the
file and line of anything wrong.
"""
from __future__ import annotations

import gzip
import json
import os

from corpus.names import printable

from harness import HarnessError

FORMAT = "eediff-truth"
VERSION = 1
HEADER_KEYS = ("format", "version", "image", "data", "seed", "profile", "float_model", "checks", "chunks")


class TruthFileError(HarnessError):
    """A truth file that cannot be read as one (named: file, line, what is wrong)."""


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
        """One chunk's line (a dict, or its JSON text), on its way to the file before the next is made."""
        self.f.write((line if isinstance(line, str) else dumps(line)) + "\n")
        self.f.flush()
        self.chunks += 1

    def close(self):
        self.f.write(dumps({"end": True, "chunks": self.chunks}) + "\n")
        self.f.close()
        os.replace(self.tmp, self.path)

    def abandon(self):
        try:
            self.f.close()
        except OSError:
            pass


def read(path):
    """(header, iterator of chunk lines). The iterator raises TruthFileError at a malformed line,
    at a missing closing line (a cut file) and at a closing line whose count is not the file's."""
    label = printable(str(path))
    if not os.path.isfile(path):
        raise TruthFileError(f"{label}: no such file")
    try:
        f = _open(path, "r")
        first = f.readline()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise TruthFileError(f"{label}: cannot read it ({exc})") from None
    header = _json(first, label, 1)
    check_header(header, label)

    def lines():
        n = 1
        count = 0
        try:
            with f:
                for text in f:
                    n += 1
                    obj = _json(text, label, n)
                    if obj.get("end") is True:
                        if obj.get("chunks") != count:
                            raise TruthFileError(f"{label}:{n}: the closing line counts {printable(obj.get('chunks'))} "
                                                 f"chunks, the file holds {count}")
                        if f.readline():
                            raise TruthFileError(f"{label}:{n + 1}: a line after the closing line")
                        return
                    if not isinstance(obj.get("chunk"), str) or not isinstance(obj.get("queries", []), list):
                        raise TruthFileError(f"{label}:{n}: not a chunk line (needs \"chunk\" and \"queries\")")
                    count += 1
                    obj["_line"] = n
                    yield obj
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise TruthFileError(f"{label}:{n}: cannot read on ({exc})") from None
        raise TruthFileError(f"{label}: ends after {count} chunks without its closing line "
                             f"(an export that was stopped, or a cut copy)")
    return header, lines()


def _json(text, label, n):
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise TruthFileError(f"{label}:{n}: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise TruthFileError(f"{label}:{n}: not a JSON object")
    return obj


def check_header(h, label):
    if h.get("format") != FORMAT:
        raise TruthFileError(f"{label}:1: not an eediff truth file (format {printable(h.get('format'))!s}, "
                             f"expected {FORMAT})")
    if h.get("version") != VERSION:
        raise TruthFileError(f"{label}:1: truth format version {printable(h.get('version'))}; this eediff "
                             f"reads version {VERSION}")
    missing = [k for k in HEADER_KEYS if k not in h]
    if missing:
        raise TruthFileError(f"{label}:1: the header lacks {', '.join(missing)}")
