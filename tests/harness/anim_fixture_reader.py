"""A reader of the users' animation fixture, written from docs/spec/fixtures.md §1 alone (nothing
of eediff imported): every line parsed back by its kind's encodings, and the reader's minimum counts.

    read(text) -> [(kind, member, anime, fields...)], raising FixtureFormatError naming the line
    minimum_counts_missed(records) -> the §1.1 minimums not met, as text
"""
import re

BITS8 = re.compile(r"[0-9a-f]{8}\Z")
BITS4 = re.compile(r"[0-9a-f]{4}\Z")
HEX = re.compile(r"[0-9a-f]+\Z")
DEC = re.compile(r"-?[0-9]+\Z")
HASH = re.compile(r"[0-9a-f]{16}\Z")
MEMBER = re.compile(r"[a-z0-9_]+\.[a-z0-9]+\Z")


class FixtureFormatError(ValueError):
    pass


def _dec(w, where):
    if not DEC.match(w):
        raise FixtureFormatError(f"{where}: {w!r} is not a decimal integer")
    return int(w)


def _hex(w, where):
    if not HEX.match(w):
        raise FixtureFormatError(f"{where}: {w!r} is not lower-case hex")
    return int(w, 16)


def _bits(w, where, rx=BITS8):
    if not rx.match(w):
        raise FixtureFormatError(f"{where}: {w!r} is not a bit pattern of {4 if rx is BITS4 else 8} hex digits")
    return int(w, 16)


def _float(w, where):
    try:
        return float(w)
    except ValueError:
        raise FixtureFormatError(f"{where}: {w!r} is not a decimal float") from None


def _pairs(words, where, left, right):
    out = []
    for w in words:
        a, colon, b = w.partition(":")
        if not colon:
            raise FixtureFormatError(f"{where}: {w!r} is not a pair A:B")
        out.append((left(a, where), right(b, where)))
    return out


def _line(kind, f, where):
    """The fields after KIND MEMBER ANIME, parsed as §1.2-§1.7 say."""
    if kind == "pose":
        if len(f) < 19:
            raise FixtureFormatError(f"{where}: a pose line has 22 fields, this one {len(f) + 3}")
        return ([_dec(w, where) for w in f[:3]] + [_bits(w, where) for w in f[3:10]]
                + [_float(w, where) for w in f[10:19]])
    if kind == "morph":
        if len(f) < 2:
            raise FixtureFormatError(f"{where}: a morph line needs MORPHER FRAME")
        return [_dec(f[0], where), _dec(f[1], where), _pairs(f[2:], where, _dec, _bits)]
    if kind == "blend":
        if len(f) != 4 or not HASH.match(f[3]):
            raise FixtureFormatError(f"{where}: a blend line is MORPHER FRAME MMAT HASH (16 hex digits)")
        return [_dec(w, where) for w in f[:3]] + [int(f[3], 16)]
    if kind == "forward":
        if len(f) < 2:
            raise FixtureFormatError(f"{where}: a forward line needs SPEED STEPS")
        speed, n = _dec(f[0], where), _dec(f[1], where)
        if len(f) != 2 + n:
            raise FixtureFormatError(f"{where}: STEPS says {n} times, the line has {len(f) - 2}")
        return [speed, n, [_hex(w, where) for w in f[2:]]]
    if kind == "uv":
        if len(f) != 6:
            raise FixtureFormatError(f"{where}: a uv line is MATERIAL TICKS U V u v")
        return [_dec(f[0], where), _dec(f[1], where), _bits(f[2], where), _bits(f[3], where),
                _bits(f[4], where, BITS4), _bits(f[5], where, BITS4)]
    if kind == "notes":
        if len(f) < 4 or f[3] not in ("0", "1"):
            raise FixtureFormatError(f"{where}: a notes line is TICKS STEP TICKS2 ENDED(0/1) EVENT:PARAM...")
        return [_hex(f[0], where), _hex(f[1], where), _hex(f[2], where), int(f[3]),
                _pairs(f[4:], where, _hex, _hex)]
    raise FixtureFormatError(f"{where}: unknown kind {kind!r}")


def read(text, name="anim_fixture.txt"):
    if not text.isascii():
        raise FixtureFormatError(f"{name}: not plain ASCII")
    if "\r" in text:
        raise FixtureFormatError(f"{name}: line ends other than \\n")
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        where = f"{name}:{n}"
        words = line.split()
        if len(words) < 3:
            raise FixtureFormatError(f"{where}: a record starts KIND MEMBER ANIME")
        kind, member, anime = words[:3]
        if not MEMBER.match(member) or not anime.startswith("ANM_"):
            raise FixtureFormatError(f"{where}: {member!r} {anime!r} is not a member and an Anime name")
        if kind in ("morph", "notes") and len(words) == (5 if kind == "morph" else 7) and not line.endswith(" "):
            raise FixtureFormatError(f"{where}: a {kind} line with an empty list ends in a space")
        out.append((kind, member, anime, *_line(kind, words[3:], where)))
    return out


def minimum_counts_missed(records):
    """§1.1: pose > 300, morph > 10, blend >= 4, forward > 10, uv >= 10, notes >= 300 lines with
    >= 100 notes in all."""
    count = {}
    for r in records:
        count[r[0]] = count.get(r[0], 0) + 1
    notes = sum(len(r[-1]) for r in records if r[0] == "notes")
    missed = []
    for kind, low in (("pose", 301), ("morph", 11), ("blend", 4), ("forward", 11), ("uv", 10), ("notes", 300)):
        if count.get(kind, 0) < low:
            missed.append(f"{kind} {count.get(kind, 0)} < {low}")
    if notes < 100:
        missed.append(f"notes in all {notes} < 100")
    return missed
