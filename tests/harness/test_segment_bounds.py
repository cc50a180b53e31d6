"""An executable may not reach into the harness's memory (checks.md §8.1, executable-abi.md §1.3:
0x01000000 and above belongs to the harness). A PT_LOAD segment that covers any of it is refused
before a call, naming both ranges (exit 2), and the readiness probe never calls it READY: its code
would otherwise run words the harness wrote there, a chunk's key values among them."""
import struct

import pytest
from elftools.elf.elffile import ELFFile

from harness import HarnessError
from harness.__main__ import main
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options


def covering_elf(path, memsz=0x01100000):
    """The stand-in with its loadable segment's p_memsz grown over the harness's structures
    (0x00100000 + 0x01100000 reaches DATA_BUF, where a chunk's sub-record bytes are copied)."""
    data = bytearray(open(DEFAULT_IMAGE, "rb").read())
    with open(DEFAULT_IMAGE, "rb") as f:
        elf = ELFFile(f)
        phoff, phentsize = elf.header.e_phoff, elf.header.e_phentsize
        i = next(i for i, s in enumerate(elf.iter_segments()) if s["p_type"] == "PT_LOAD")
    struct.pack_into("<I", data, phoff + i * phentsize + 20, memsz)
    path.write_bytes(bytes(data))
    return str(path)


def test_a_segment_over_the_harness_memory_is_refused_naming_both_ranges(tmp_path):
    bad = covering_elf(tmp_path / "covering.elf")
    with pytest.raises(HarnessError) as e:
        Game(bad)
    msg = str(e.value)
    assert "covering.elf" in msg
    assert "0x00100000-0x01200000" in msg and "0x01000000-0x02000000" in msg


def test_one_refuses_it_with_exit_2(tmp_path, capsys):
    bad = covering_elf(tmp_path / "covering.elf")
    cid = next(c for c in Options().open_corpus().chunk_ids() if c.startswith("eq077.cmp::"))
    assert main(["one", "--image", bad, "--case", cid]) == 2
    err = capsys.readouterr().err
    assert err.startswith("harness: ") and "0x01000000-0x02000000" in err


def test_the_probe_does_not_call_it_ready(tmp_path, capsys):
    bad = covering_elf(tmp_path / "covering.elf")
    assert main(["probe", "--image", bad]) == 1
    out = capsys.readouterr().out
    assert "NOT READY" in out and "0x01000000-0x02000000" in out


def test_the_harness_memory_is_refused_through_the_ram_mirrors_too():
    from harness.driver.memory_map import harness_overlap
    assert harness_overlap([(0x00100000, bytes(0x100))]) is None
    assert harness_overlap([(0x80FFF000, bytes(0x2000))]) == (0x80FFF000, 0x81001000)
    assert harness_overlap([(0xA1F00000, bytes(0x10))]) == (0xA1F00000, 0xA1F00010)
    assert harness_overlap([(0x70000000, bytes(0x4000))]) is None      # the scratchpad


def with_program_header(path, which, filesz=None, memsz=None):
    """The stand-in with the `which`-th PT_LOAD's p_filesz / p_memsz set."""
    data = bytearray(open(DEFAULT_IMAGE, "rb").read())
    with open(DEFAULT_IMAGE, "rb") as f:
        elf = ELFFile(f)
        phoff, phentsize = elf.header.e_phoff, elf.header.e_phentsize
        i = [i for i, s in enumerate(elf.iter_segments()) if s["p_type"] == "PT_LOAD"][which]
    for off, v in ((16, filesz), (20, memsz)):
        if v is not None:
            struct.pack_into("<I", data, phoff + i * phentsize + off, v)
    path.write_bytes(bytes(data))
    return str(path), i


def _main_filesz():
    with open(DEFAULT_IMAGE, "rb") as f:
        return next(s for s in ELFFile(f).iter_segments() if s["p_type"] == "PT_LOAD")["p_filesz"]


@pytest.mark.parametrize("which,filesz,memsz,named", [
    (1, 0x10, None, "at the overlay base 0x00400800 has 0x10 file bytes"),
    (1, 0x40, None, "at the overlay base 0x00400800 has 0x40 file bytes"),
    (0, None, 0x100, f"has p_filesz 0x{_main_filesz():x} > p_memsz 0x100"),
])
def test_the_probe_does_not_call_a_malformed_program_header_ready(tmp_path, capsys, which, filesz, memsz, named):
    bad, i = with_program_header(tmp_path / "bad.elf", which, filesz, memsz)
    assert main(["probe", "--image", bad]) == 1
    out = capsys.readouterr().out
    assert "NOT READY" in out and f"program header {i} " in out and named in out
