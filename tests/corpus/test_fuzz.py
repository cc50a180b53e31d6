"""Fuzzing: mutated members and chunks (bit flips, truncation, bad size fields) raise only
CorpusError, never another exception, and never hang."""
import random
import signal
import struct
import time

import pytest

from corpus import CorpusError
from corpus.anime import parse_anime
from corpus.ccsf import CcsfFile
from corpus.databin import inflate_member, scan_members


class BytesArc:
    def __init__(self, data):
        self.data, self.path, self.base = data, "<fuzz>", 0

    def __len__(self):
        return len(self.data)

    def read(self, off, n):
        return self.data[off:off + n] if 0 <= off <= len(self.data) else b""


def mutate(b: bytes, r: random.Random, words_at=()) -> bytes:
    """One of: bit flips, truncation, a bad size/count field, a random word, a spliced duplicate."""
    b = bytearray(b)
    k = r.random()
    if k < 0.35 or len(b) < 24:
        for _ in range(r.randint(1, 4)):
            i = r.randrange(len(b))
            b[i] ^= 1 << r.randrange(8)
    elif k < 0.5:
        del b[r.randrange(len(b)):]
    elif k < 0.8:
        offs = list(words_at) or [4 * r.randrange(len(b) // 4)]
        o = r.choice(offs) + r.choice((0, 4))
        if o + 4 <= len(b):
            v = r.choice((0, 1, 2, 3, 0xFFFF, 0xFFFFFFFF, 0x7FFFFFFF, r.getrandbits(32), r.randint(0, 64)))
            struct.pack_into("<I", b, o, v)
    elif k < 0.9:
        o = 4 * r.randrange(len(b) // 4)
        struct.pack_into("<I", b, o, r.getrandbits(32))
    else:
        i = r.randrange(len(b))
        j = r.randrange(len(b))
        b[i:i] = b[j:j + r.randint(1, 64)]
    return bytes(b)


def headers_of_anime(b):
    """Offsets of the chunk header and of every sub-record header (so size fields get hit often)."""
    out = [0, 12, 16]
    p = 20
    while p + 8 <= len(b):
        out.append(p)
        n = struct.unpack_from("<I", b, p + 4)[0]
        p += 8 + 4 * n
    return out


def exercise_member(data):
    f = CcsfFile(data, member="fuzz.cmp")
    f.names, f.ext, f.objs, f.clumps, f.materials, f.morphers
    for m in f.model_list:
        for mm in m.mmats[:2]:
            mm.positions
    for off, length, obj in f.anime_chunks:
        parse_anime(f.anime_bytes(off, length), ext=f.ext, where="fuzz")


def run(cases, fn, budget):
    """Run fn on each case; only CorpusError may escape; a SIGALRM guard catches hangs."""
    def alarm(*_):
        raise TimeoutError("fuzz case hung")
    old = signal.signal(signal.SIGALRM, alarm)
    errors = ok = 0
    try:
        for i, case in enumerate(cases):
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                fn(case)
                ok += 1
            except CorpusError as e:
                assert e.member is not None or e.kind is not None
                errors += 1
            except Exception as e:  # noqa: BLE001 - the point of the test
                pytest.fail(f"case {i}: {type(e).__name__}: {e}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return ok, errors


def chunk_cases(corpus, n, seed):
    r = random.Random(f"{seed}:chunks")
    chunks = [corpus.chunk(c).data for c in corpus.chunk_ids()]
    heads = [headers_of_anime(c) for c in chunks]
    for i in range(n):
        j = r.randrange(len(chunks))
        yield mutate(chunks[j], r, heads[j])


def member_cases(corpus, n, seed):
    r = random.Random(f"{seed}:members")
    names = [m.name for m in corpus.members]
    datas = {nm: corpus.member_bytes(nm) for nm in names}
    small = sorted(names, key=lambda nm: len(datas[nm]))[:12]
    for i in range(n):
        d = datas[r.choice(small)]
        offs = [0, 4, 44, 64, 68, 72] + [4 * r.randrange(len(d) // 4) for _ in range(4)]
        yield mutate(d, r, offs)


def gzip_cases(corpus, n, seed):
    r = random.Random(f"{seed}:gzip")
    ms = sorted(corpus.members, key=lambda m: m.span)[:8]
    raws = [corpus.arc.read(m.offset, m.span) for m in ms]
    for i in range(n):
        raw = raws[r.randrange(len(raws))]
        k = r.random()
        if k < 0.6:
            yield mutate(raw, r, [0, 4, len(raw) - 8])
        else:   # damage the deflate data or the trailer only
            b = bytearray(raw)
            i = r.randrange(10, len(b))
            b[i] ^= 1 << r.randrange(8)
            yield bytes(b)


def inflate_one(raw):
    arc = BytesArc(raw + bytes(-len(raw) % 2048))
    ms = scan_members(arc)
    for m in ms[:2]:
        d = inflate_member(arc, m)
        if len(d) < 200_000:
            exercise_member(d)


def test_fuzz_10000(small_corpus):
    t = time.time()
    a = run(chunk_cases(small_corpus, 8000, 1), lambda b: parse_anime(b, where="fuzz"), 5)
    b = run(member_cases(small_corpus, 1500, 1), exercise_member, 10)
    c = run(gzip_cases(small_corpus, 700, 1), inflate_one, 10)
    total = sum(a) + sum(b) + sum(c)
    assert total >= 10_000
    assert a[1] > 1000 and b[1] > 100 and c[1] > 100       # the mutations do reach the error paths
    assert time.time() - t < 300


@pytest.mark.slow
def test_fuzz_100000(small_corpus):
    a = run(chunk_cases(small_corpus, 80_000, 2), lambda b: parse_anime(b, where="fuzz"), 5)
    b = run(member_cases(small_corpus, 15_000, 2), exercise_member, 10)
    c = run(gzip_cases(small_corpus, 5_000, 2), inflate_one, 10)
    assert sum(a) + sum(b) + sum(c) == 100_000
