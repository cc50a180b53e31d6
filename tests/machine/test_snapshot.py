"""Memory snapshots: ``m.snapshot()`` and ``m.restore(s)`` of the regions that were written.

A harness loads a chunk once and restores that state before each further check; the shortcut is
only sound if restore brings back every byte, under both engines, whichever store wrote it.
"""
from __future__ import annotations

import pytest

from eemu_ext import Machine
from eemu_ext.errors import MemoryFault
from eemu_ext.core.machine import SENTINEL, STACK_TOP, sx32
from eemu_ext.core.testing import CODE_BASE, program, put_words

# one page each: a store of every width lands on its own page
PAGES = [0x00200000 + 0x1000 * k for k in range(8)]

STORES = [
    "sb t0, 0(a0)", "sh t0, 0(a1)", "sw t0, 0(a2)", "sd t0, 0(a3)", "sq t0, 0(t1)",
    "swl t0, 1(t2)", "sdr t0, 3(t3)", "swc1 f1, 0(t4)",
    "jr ra", "nop",
]


def _setup(m, value):
    for r, page in zip((4, 5, 6, 7, 9, 10, 11, 12), PAGES):
        m.R[r] = page + 0x40
    m.R[8] = value
    m.RH[8] = value ^ 0x5555
    m.F[1] = value & 0xFFFFFFFF
    m.R[31] = sx32(SENTINEL)
    m.R[29] = STACK_TOP


def _run(m, value):
    _setup(m, value)
    m.run(CODE_BASE)


def _machine():
    m = Machine()
    put_words(m, CODE_BASE, program(STORES))
    return m


def test_restore_undoes_every_store_width_and_nothing_else():
    m = _machine()
    _run(m, 0x1122334455667788)
    s = m.snapshot()
    before = [m.read(p, 0x1000) for p in PAGES]
    _run(m, 0x0F0E0D0C0B0A0908)
    assert [m.read(p, 0x1000) for p in PAGES] != before
    assert m.differences(s), "the second run changed memory"
    assert m.restore(s) == len(PAGES), "the eight pages the stores wrote, and only those"
    assert [m.read(p, 0x1000) for p in PAGES] == before
    assert m.differences(s) == []


def test_a_page_first_written_after_the_snapshot_is_zero_again():
    m = _machine()
    s = m.snapshot()
    _run(m, 0xDEADBEEF)
    m.write(0x00500010, b"\x01\x02")
    m.restore(s)
    assert m.read(0x00500000, 0x20) == bytes(0x20)
    assert all(m.read(p, 0x1000) == bytes(0x1000) for p in PAGES)
    assert m.differences(s) == []


def test_restore_may_go_back_past_a_later_snapshot():
    m = _machine()
    m.write(0x00300000, b"A")
    s1 = m.snapshot()
    m.write(0x00300000, b"B")
    m.write(0x00301000, b"C")
    s2 = m.snapshot()
    _run(m, 7)
    m.restore(s1)
    assert m.read(0x00300000, 1) == b"A" and m.read(0x00301000, 1) == b"\0"
    m.restore(s2)
    assert m.read(0x00300000, 1) == b"B" and m.read(0x00301000, 1) == b"C"
    assert all(m.read(p, 0x1000) == bytes(0x1000) for p in PAGES)
    m.restore(s2)                       # the same snapshot again: still exact
    assert m.differences(s2) == []


def test_differences_name_the_byte_and_both_values():
    m = _machine()
    m.write(0x00400123, b"\x11")
    s = m.snapshot()
    m.write(0x00400123, b"\x22")
    assert m.differences(s) == [(0x00400123, 0x22, 0x11)]
    m.write(0x70000004, b"\x33")        # the scratchpad is part of a snapshot too
    assert (0x70000004, 0x33, 0) in m.differences(s)


def test_code_on_a_restored_page_runs_as_restored():
    m = Machine()
    put_words(m, CODE_BASE, program(["addiu v0, zero, 1", "jr ra", "nop"]))
    s = m.snapshot()
    m.R[31], m.R[29] = sx32(SENTINEL), STACK_TOP
    m.run(CODE_BASE)
    assert m.R[2] == 1
    put_words(m, CODE_BASE, program(["addiu v0, zero, 2", "jr ra", "nop"]))
    m.R[31] = sx32(SENTINEL)
    m.run(CODE_BASE)
    assert m.R[2] == 2
    m.restore(s)
    m.R[31] = sx32(SENTINEL)
    m.run(CODE_BASE)
    assert m.R[2] == 1, "the restored code ran, not a stale translation"


def test_a_store_the_page_marks_miss_is_what_differences_find():
    """The check behind the harness's --reload: a store that escaped the page marks leaves
    memory different from the snapshot after restore, and differences() says where."""
    m = _machine()
    m.write(0x00600000, b"\0")          # a page the snapshot holds
    s = m.snapshot()
    m.mem.ram[0x00600000] = 0x7F        # a write behind the machine's back: no page mark
    m.restore(s)
    assert m.differences(s) == [(0x00600000, 0x7F, 0)]


def test_pages_left_out_keep_what_they_hold_when_restored():
    """snapshot(skip=ranges): an image's code patched after the snapshot stays patched."""
    m = _machine()
    m.write(0x00700000, b"\x01")
    s = m.snapshot(skip=[(CODE_BASE, CODE_BASE + 0x1000)])
    put_words(m, CODE_BASE, program(["nop"]))          # a patch to the code
    m.write(0x00700000, b"\x02")
    m.restore(s)
    assert m.read_u32(CODE_BASE) == 0, "the left-out page keeps the patch"
    assert m.read(0x00700000, 1) == b"\x01", "the rest is restored"
    assert m.differences(s) == []


def test_and_u8_clears_bits_as_byte_writes_do_and_restore_undoes_it():
    # the bytes span two pages written before the snapshot; and_u8 must mark both, or restore
    # would leave the cleared bits cleared
    m = _machine()
    addrs = [0x00600FFF, 0x00601000, 0x00601040]
    for a in addrs:
        m.write_u8(a, 0xFF)
    s = m.snapshot()
    m.and_u8(addrs, 0xFE)
    assert [m.read_u8(a) for a in addrs] == [0xFE] * 3 and m.read_u8(0x00601001) == 0
    assert m.restore(s) == 2
    assert [m.read_u8(a) for a in addrs] == [0xFF] * 3 and m.differences(s) == []


def test_zero_u32s_writes_as_word_writes_do_and_restore_undoes_it():
    # a word across a page boundary and words on two pages written before the snapshot: every page
    # touched is marked, or restore would leave the zeros
    m = _machine()
    addrs = [0x00600FFE, 0x70000010, 0x00601040, 0x00602000]      # (and one in the scratchpad)
    for a in addrs:
        m.write_u32(a, 0xFFFFFFFF)
    s = m.snapshot()
    m.zero_u32s(addrs)
    assert [m.read_u32(a) for a in addrs] == [0] * 4 and m.read_u8(0x00601044) == 0
    assert m.restore(s) == 3
    assert [m.read_u32(a) for a in addrs] == [0xFFFFFFFF] * 4 and m.differences(s) == []


def test_read_u16s_reads_as_read_u16_does_and_names_an_unmapped_address():
    m = _machine()
    m.write(0x00600FFF, b"\x34\x12\x78\x56")
    addrs = [0x00600FFF, 0x00601001, 0x20601001, 0x00700000]
    assert m.read_u16s(addrs) == [m.read_u16(a) for a in addrs] == [0x1234, 0x5678, 0x5678, 0]
    with pytest.raises(MemoryFault, match="0x10000000"):
        m.read_u16s([0x00600FFF, 0x10000000])
