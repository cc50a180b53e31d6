"""Inputs are bounded. A gzip bomb fails fast in bounded memory, inflation stops at the
member's ISIZE, a FIFO or a directory is refused by name, and the index cache keeps one entry per
archive."""
import os
import struct
import subprocess
import sys
import zlib

import pytest

from corpus import CorpusError, open_corpus
from corpus.databin import MAX_INFLATED

from ..harness import archives

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MEASURE = r"""
import sys, time
from corpus import open_corpus
t0 = time.time()
c = open_corpus(data=sys.argv[1], use_cache=False)
print(len(c.bad), c.bad[0]["error"] if c.bad else "", sep="\n")
print(time.time() - t0)
# VmHWM: this process's peak resident memory (ru_maxrss would carry the forking parent's over exec)
print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) // 1024)
"""


def test_a_gzip_bomb_fails_fast_with_bounded_memory(tmp_path):
    """A 1 MiB member that inflates to 1 GiB (before: 2 GiB of RAM) is a bad member, refused at
    the 64 MiB bound within seconds and well under 1 GiB of memory."""
    bomb = archives.bomb_member(str(tmp_path / "DATA.BIN"))
    assert os.path.getsize(bomb) < 2 << 20
    r = subprocess.run([sys.executable, "-c", MEASURE, bomb], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    n_bad, error, seconds, max_rss_mib = r.stdout.split("\n")[:4]
    assert n_bad == "1" and "inflates past" in error and "bomb.cmp" in error, r.stdout + r.stderr
    assert float(seconds) < 20 and int(max_rss_mib) < 400, (seconds, max_rss_mib)
    stats = subprocess.run([sys.executable, "-m", "corpus", "stats", bomb], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, env=dict(os.environ, EEDIFF_CACHE=str(tmp_path / "c")))
    assert stats.returncode == 1 and "inflates past" in stats.stdout, stats.stdout[-2000:] + stats.stderr


def _liar(path, inflated, claimed):
    data = bytes(inflated)
    body = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = body.compress(data) + body.flush()
    m = (b"\x1f\x8b\x08\x08" + bytes(4) + b"\x00\x03liar.cmp\x00" + stream
         + struct.pack("<II", zlib.crc32(data), claimed))
    path.write_bytes(m + bytes(-len(m) % 2048))
    return str(path)


def test_inflation_stops_at_the_members_isize(tmp_path):
    """A trailer claiming 16 MiB + 1 over a 32 MiB stream: inflation stops at the claim."""
    p = _liar(tmp_path / "DATA.BIN", 32 << 20, (16 << 20) + 1)
    (bad,) = open_corpus(data=p, use_cache=False).bad
    assert f"inflates past {(16 << 20) + 1} bytes" in bad["error"] and bad["member"] == "liar.cmp"


def test_inflation_stops_at_the_index_records_usize(tmp_path):
    """With the executable's tables the record's usize is the cap; a small ISIZE whose high bytes
    are zero (not located before inflating) is still checked exactly after it."""
    from corpus.databin import ArchiveBytes, inflate_member, scan_members
    p = _liar(tmp_path / "DATA.BIN", 1 << 20, 1000)
    arc = ArchiveBytes(p)
    (m,) = scan_members(arc)
    with pytest.raises(CorpusError, match="ISIZE 1000 but 1048576 bytes inflated"):
        inflate_member(arc, m)
    m.usize = 1000
    with pytest.raises(CorpusError, match="inflates past 1000 bytes"):
        inflate_member(arc, m)
    assert MAX_INFLATED == 64 << 20


def test_a_fifo_and_a_directory_are_refused_by_name(tmp_path):
    """`corpus stats FIFO` used to block forever; now it exits 2 at once, naming the file."""
    fifo = tmp_path / "DATA.BIN"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "corpus", "stats", str(fifo)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and f"{fifo} is a FIFO, not a regular file" in r.stderr, r.stderr
    with pytest.raises(CorpusError, match="is a directory, not a regular file"):
        open_corpus(data=str(tmp_path))
    h = subprocess.run([sys.executable, "-m", "harness", "bulk", "--data", str(fifo), "--n", "1"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert h.returncode == 2 and "not a regular file" in h.stderr, h.stderr


def test_the_cache_keeps_only_the_newest_index_of_an_archive(tmp_path, monkeypatch):
    """Before: one 32 MB side file per archive mtime, never pruned."""
    monkeypatch.setenv("EEDIFF_CACHE", str(tmp_path / "cache"))
    path = archives.small_archive(str(tmp_path / "DATA.BIN"), names=archives.SMALL[:2])
    other = archives.small_archive(str(tmp_path / "OTHER.BIN"), names=archives.SMALL[:1])
    open_corpus(data=other)
    for k in range(3):
        with open(path, "ab") as f:          # the archive changes: a new index each time
            f.write(bytes(2048))
        assert len(open_corpus(data=path).chunk_ids()) == 2
    files = sorted(os.listdir(tmp_path / "cache"))
    tags = {}
    for f in files:
        tags.setdefault(f.split("-")[1], []).append(f.rsplit(".", 1)[1])
    # the synthetic corpus (read to build these archives), OTHER.BIN and DATA.BIN: the newest
    # .json and .anime each, not one pair per version of DATA.BIN
    assert len(tags) == 3 and all(sorted(v) == ["anime", "json"] for v in tags.values()), files
