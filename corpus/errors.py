"""CorpusError: the one exception every corpus reader raises for bad input."""
from __future__ import annotations


def _kind_text(kind):
    if kind is None:
        return None
    if isinstance(kind, int):
        return f"0x{kind:04X}"
    return str(kind)


class CorpusError(Exception):
    """Bad archive, member, CCSF chunk or Anime sub-record.

    Attributes (each may be None): ``member`` (member name or chunk id), ``offset`` (byte offset,
    inside the member's inflated bytes or inside the chunk, as the message says), ``kind`` (the
    chunk or sub-record kind, an int, or a word such as "gzip"). ``str()`` names all three.
    """

    def __init__(self, message, member=None, offset=None, kind=None):
        super().__init__(message)
        self.message = message
        self.member = member
        self.offset = offset
        self.kind = kind

    def __str__(self):
        where = []
        if self.member is not None:
            where.append(f"member {self.member}")
        if self.offset is not None:
            where.append(f"offset 0x{self.offset:X}")
        if self.kind is not None:
            where.append(f"kind {_kind_text(self.kind)}")
        from .names import printable
        return printable((", ".join(where) + ": " if where else "") + self.message)

    def __reduce__(self):
        return (CorpusError, (self.message, self.member, self.offset, self.kind))
