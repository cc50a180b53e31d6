"""Unit tests of the harness's own pieces (no emulator needed): allocator, bits, records, sampling, runs."""
import json
import os
import random

import pytest

from harness.driver import memory_map as mm
from harness.runners.bulk import selection
from harness.driver import stubs
from harness.compare.bits import f32_bits, trans_add, ulp
from harness.checks.morph import MINUS_1_8192, NEG_ZERO, edge_cases, generator_a, generator_b
from harness import HarnessError
from harness.driver.stubs import HeapExhausted
from harness.driver.game import REQUIRED, Game
from harness.compare.keys import boundary_times, sample_times
from harness.compare.mismatch import CaseContext, record
from harness.runners.mutants import parse_patch
from harness.profiles import rng
from harness.runners.bulk.run import RunDir
from harness.compare.steps import note_plan, note_step
from harness.runners.cases.suites import unmet
from harness.compare.tables import entries_by_record
from harness.driver.game import Entry
from corpus.records import ABSENT1, ABSENT3, Controller, Track

from .fakes import FakeMachine


def test_bump_allocator_is_16_aligned_and_zero_filled():
    """executable-abi.md §6: blocks 16-aligned, zero-filled, advance by (n + 15) & ~15."""
    m = FakeMachine()
    heap = stubs.Heap(m)
    m.write(mm.HEAP, b"\xff" * 64)
    a = heap.alloc(5)
    b = heap.alloc(17)
    assert a == mm.HEAP and b == mm.HEAP + 16 and heap.ptr == mm.HEAP + 48
    assert m.read(a, 5) == bytes(5) and m.read(b, 17) == bytes(17)
    heap.reset()
    assert heap.alloc(0) == mm.HEAP


def test_a_staged_layout_leaves_memory_as_alloc_and_word_by_word_writes_do():
    """stubs.Staged: the same blocks at the same addresses, zeroed, the words written into them,
    the bytes beyond a block's size (up to the next 16) left as they were, and a write outside
    the blocks made at once; one write of the blocks at commit."""
    def layout(m, heap, a, w32, write):
        x = a(5, "x")
        w32(x, 0x11223344)
        y = a(0x24, "y")
        write(y + 0x20, b"\xab\xcd")
        w32(mm.STREAM, y)                               # outside the blocks
        z = a(8, "z")
        w32(z + 4, 0xDEADBEEF)
        return x, y, z

    mems = []
    for staged in (False, True):
        m = FakeMachine()
        heap = stubs.Heap(m)
        m.write(mm.HEAP, bytes(range(1, 129)))
        if staged:
            st = stubs.Staged(m, heap)
            got = layout(m, heap, st.alloc, st.write_u32, st.write)
            assert m.read_u32(mm.STREAM) == got[1] and m.read(got[0], 4) == bytes([1, 2, 3, 4])
            st.commit()
        else:
            got = layout(m, heap, heap.alloc, m.write_u32, m.write)
        mems.append((got, heap.ptr, m.read(mm.HEAP, 128), m.read_u32(mm.STREAM)))
    assert mems[0] == mems[1]
    assert mems[1][2][5:16] == bytes(range(6, 17))      # x's 5 bytes, then what was there


def test_heap_exhausted_names_the_caller_and_the_limit():
    m = FakeMachine()
    heap = stubs.Heap(m, start=0x1000, end=0x1040)
    heap.alloc(0x30)
    with pytest.raises(HeapExhausted, match=r"heap exhausted: ccMalloc__FUi asked for 32 bytes"):
        heap.alloc(32, who="ccMalloc__FUi")


def test_stubs_are_hooked_by_symbol_address_with_their_size_argument():
    """executable-abi.md §6: GetWork takes a1 as the size, ccMemalign a0, OpenData sets +0x24/+0x28."""
    syms = {name: 0x1000 + 0x10 * i for i, name in enumerate(stubs.STUB_SYMBOLS)}
    m = FakeMachine()
    heap = stubs.Heap(m)
    stubs.install(m, heap, syms)
    assert m.call_hook(syms["ccMalloc__FUi"], 20) == mm.HEAP
    assert m.call_hook(syms["GetWork__16ccDrawPacketCtrlFi"], 0xDEAD, 40) == mm.HEAP + 32
    assert heap.ptr == mm.HEAP + 32 + 48
    assert m.call_hook(syms["ccFree__FPv"], mm.HEAP) == 0
    m.call_hook(syms["OpenData__14ccRingBufferThFPv"], 0x5000, 0x6000)
    assert m.read_u32(0x5024) == 0x6000 and m.read_u32(0x5028) == mm.HEAP_END


def test_game_names_every_missing_symbol():
    syms = {name: 0x1000 + 4 * i for i, name in enumerate(REQUIRED) if name not in ("ccSys", "__nw__FUi")}
    with pytest.raises(HarnessError) as e:
        Game("x.elf", machine=FakeMachine(syms))
    assert "ccSys" in str(e.value) and "__nw__FUi" in str(e.value) and "x.elf" in str(e.value)


def test_game_wires_ccsys_to_the_scratch_area():
    """checks.md §8.1: *ccSys := SYS and SYS + 0x25C := SCRATCH before any call."""
    syms = {name: 0x1000 + 4 * i for i, name in enumerate(REQUIRED)}
    m = FakeMachine(syms)
    Game("x.elf", machine=m)
    assert m.read_u32(syms["ccSys"]) == mm.SYS
    assert m.read_u32(mm.SYS + 0x25C) == mm.SCRATCH
    assert mm.NOTE_FUNC in m.hooks


def test_note_hook_records_event_param_time_and_instance_object():
    """checks.md §6.1 step 3: (u32 +4, +8, +0xC, inst[u32 +0x10] or -1); returns 0."""
    syms = {name: 0x1000 + 4 * i for i, name in enumerate(REQUIRED)}
    m = FakeMachine(syms)
    g = Game("x.elf", machine=m)
    g.inst = {0x7000: 12}
    for addr, coord in ((0x6000, 0x7000), (0x6100, 0x7100)):
        m.write(addr, bytes(24))
        m.write_u32(addr + 4, 0x8005)
        m.write_u32(addr + 8, 1)
        m.write_u32(addr + 12, 5)
        m.write_u32(addr + 16, coord)
        assert m.call_hook(mm.NOTE_FUNC, addr) == 0
    assert g.notes == [(0x8005, 1, 5, 12), (0x8005, 1, 5, -1)]


def test_ulp_distance_on_raw_patterns():
    assert ulp(0x3F800000, 0x3F800001) == 1
    assert ulp(0x00000000, 0x80000000) == 0
    assert ulp(0x00000001, 0x80000001) == 2
    assert trans_add(0x80000000) == 0 and trans_add(0x00000005) == 0 and trans_add(0xBF800000) == 0xBF800000


def test_mismatch_record_has_every_interface_field_and_a_repro():
    """interfaces.md §4: the Mismatch object; repro is the direct `harness one --case ... --seed ...` command."""
    ctx = CaseContext("xp_flag.cmp::ANM_xpflnut0", 7, "quick", "trunc")
    r = record(ctx, "controllers", "position.x", 0x3F800000, 0x3F800001, object=3, track=0, time=256)
    for key in ("chunk", "check", "object", "track", "time", "step", "field", "expected", "got", "ulp",
                "deviation", "tolerance", "seed", "repro", "context"):
        assert key in r
    assert r["expected"] == "0x3f800000" and r["got"] == "0x3f800001" and r["ulp"] == 1
    assert r["repro"] == (".venv/bin/python -m harness one --case xp_flag.cmp::ANM_xpflnut0 --seed 7 "
                          "--check controllers --profile quick --float-model trunc --time 256")
    json.dumps(r)


def _track(keys_pos=(), rot=ABSENT3):
    pos = Controller(2, 3, keys=tuple((f, (0, 0, 0)) for f in keys_pos)) if keys_pos else ABSENT3
    return Track(0, 1, 1, 0, pos, rot, ABSENT3, ABSENT1, 0, 0)


def test_sampled_times_include_every_key_boundary_plus_minus_one_tick():
    """checks.md §2.1 step 4.3 plus every key boundary +-1 (inside [1, last]); never past
    last, so a one-frame chunk (last = 0) is evaluated at 0 only."""
    tr = _track(keys_pos=(0, 3, 3, 2, 40))   # back in time, shared frame, past the end (N = 10)
    ts = sample_times(tr, 9 * 256, random.Random(1), 6, -1)
    for t in (1, 3 * 256 - 1, 3 * 256, 3 * 256 + 1, 2 * 256 - 1, 2 * 256 + 1, 9 * 256):
        assert t in ts
    assert all(1 <= t <= 9 * 256 for t in ts) and ts == sorted(set(ts))
    assert boundary_times(tr, 9 * 256) >= {767, 768, 769}
    assert sample_times(tr, 0, random.Random(1), 6, -1) == [0]


def test_every_random_choice_comes_from_seed_chunk_and_check():
    a = [rng(4, "m::ANM_a", "notes").random() for _ in range(3)]
    b = [rng(4, "m::ANM_a", "notes").random() for _ in range(3)]
    c = [rng(4, "m::ANM_b", "notes").random() for _ in range(3)]
    assert a == b and a != c


def test_note_step_generator_covers_every_row_of_its_table():
    """checks.md §6.3: zero, one frame, inside a frame, several frames (+r), large, past the end."""
    r = random.Random(7)
    last = 29 * 256
    steps = [note_step(r, last) for _ in range(2000)]
    assert 0 in steps and 256 in steps
    assert any(1 <= s <= 600 and s != 256 for s in steps)
    assert any(s % 256 == 0 and 512 <= s <= 3072 for s in steps)
    assert any(s % 256 and 512 < s < 3328 for s in steps)
    assert any(s > 2 * last for s in steps)
    assert note_plan(random.Random(3), 30, 5) == note_plan(random.Random(3), 30, 5)


def test_quick_test_finds_word_aligned_record_headers_only():
    hdr = b"\x00\x07\xcc\xcc" + bytes(16)
    aligned = hdr + b"\x02\x01\xcc\xcc" + bytes(4)
    misaligned = hdr + b"\x00\x02\x01\xcc\xcc" + bytes(3)
    assert selection.has_record(aligned, "object")
    assert not selection.has_record(misaligned, "object")
    assert selection.checkable(aligned)


def test_bulk_sample_is_seeded_and_n_at_least_pool_means_all():
    ids = [f"m::ANM_{i}" for i in range(50)]
    assert selection.sample(ids, 50, 4) == ids and selection.sample(ids, 4091, 4) == ids
    s = selection.sample(ids, 10, 4)
    assert len(s) == 10 and s == selection.sample(ids, 10, 4) and s == [i for i in ids if i in s]
    assert s != selection.sample(ids, 10, 5)


def test_run_dir_writes_chunks_atomically_sums_counters_and_resumes(tmp_path):
    """interfaces.md §4: params.json, chunks/<index:05d>.json, summary.json; latest symlink; resume."""
    params = {"seed": 4, "profile": "quick", "float_model": "hw", "n": 3, "chunks": ["a", "b", "c"],
              "image": {"sha256": "x"}, "data": {"sha256": "y"}}
    rd = RunDir.create(params, runs=str(tmp_path))
    assert os.path.realpath(tmp_path / "latest") == rd.path
    rd.write_chunk({"chunk": "a", "index": 0, "seconds": 1.0, "counters": {"cases": 3},
                    "quirks": {"loop resets": 1}, "mismatches": [], "error": None})
    rd.write_chunk({"chunk": "c", "index": 2, "seconds": 1.0, "counters": {"cases": 2, "failures": 1},
                    "quirks": {}, "mismatches": [{"check": "notes"}], "error": None,
                    "worst_keyed_rotation": {"d": 2e-6, "bound": 1e-5, "chunk": "c", "track": 0, "time": 9}})
    assert rd.done_indices() == {0, 2}
    assert not [p for p in os.listdir(rd.chunks_dir) if ".tmp" in p]
    assert RunDir.find_resumable(params, runs=str(tmp_path)).path == rd.path
    s = rd.summarize(10.0)
    assert s["counters"]["cases"] == 5 and s["mismatches"] == 1 and s["chunks_failed"] == 1
    assert s["complete"] is False and s["chunks_done"] == 2 and s["worst_keyed_rotation"]["d"] == 2e-6
    rd.write_chunk({"chunk": "b", "index": 1, "seconds": 1.0, "counters": {}, "quirks": {},
                    "mismatches": [], "error": {"type": "MemoryFault", "message": "x"}})
    s = rd.summarize(12.0)
    assert s["complete"] and s["errors"] == 1
    assert RunDir.find_resumable(params, runs=str(tmp_path)) is None


def test_mutant_patch_header_is_parsed_and_checked(tmp_path):
    p = tmp_path / "swap_mul.patch"
    p.write_text("# Catches: materials\n# Why: U x 4096 operands swapped\n"
                 "# Cases: xdl_load.cmp::ANM_xdl_lod0, xdl_load.cmp::ANM_xdl_lod1\n--- a/x\n+++ b/x\n")
    mut = parse_patch(str(p))
    assert (mut.name, mut.catches) == ("swap_mul", "materials")
    assert mut.cases == ["xdl_load.cmp::ANM_xdl_lod0", "xdl_load.cmp::ANM_xdl_lod1"]
    bad = tmp_path / "bad.patch"
    bad.write_text("# Catches: everything\n")
    with pytest.raises(HarnessError, match="Catches"):
        parse_patch(str(bad))


def test_synthetic_morph_generators_are_seeded_and_cover_the_edge_weights():
    """checks.md §5.2: Generator A with -0 and -1/8192 weights; Generator B 300 morphers."""
    a = generator_a()
    assert [c.targets for c in a] == [c.targets for c in generator_a()]
    weights = {w for c in a for _, _, w in c.targets}
    assert NEG_ZERO in weights and MINUS_1_8192 in weights
    assert all(len(c.base) == 40 and len(c.targets) == 3 for c in a)
    b = generator_b()
    assert len(b) == 300 and all(1 <= len(c.base) <= 12 and 1 <= len(c.targets) <= 4 for c in b)
    assert all(-32768 <= x <= 32767 for c in b for _, ps, _ in [(0, c.base, 0)] for p in ps for x in p)
    assert {c.label for c in edge_cases()} >= {"wrap", "saturate"}
    assert f32_bits(-0.0) == NEG_ZERO


def test_records_pair_with_table_entries_by_object_then_occurrence():
    """checks.md §1: key on the record's own object; two records of one object by table position."""
    e = [Entry(0, 5, 0x100, 0x0102), Entry(1, 7, 0, None), Entry(2, 5, 0x200, 0x0102), Entry(3, 9, 0x300, 0x0202)]
    recs = [Track(0, 5, 5, 0, ABSENT3, ABSENT3, ABSENT3, ABSENT1, 0, 0),
            Track(1, 5, 5, 0, ABSENT3, ABSENT3, ABSENT3, ABSENT1, 0, 0),
            Track(2, 9, 9, 0, ABSENT3, ABSENT3, ABSENT3, ABSENT1, 0, 0)]
    got = entries_by_record(recs, e, 0x0102)
    assert got[0].ctrl == 0x100 and got[1].ctrl == 0x200 and 2 not in got


def test_suite_thresholds_report_what_is_unmet():
    assert unmet({"failures": 0, "morph cases": 3}, "morph") == []
    assert unmet({"failures": 1, "morph cases": 2}, "morph") == ["failures = 1, must be == 0",
                                                                "morph cases = 2, must be > 2"]


def test_f32_array_reads_every_word_as_f32_does():
    """EE float reads E=0 as a signed zero and E=255 as an ordinary number (ee-float.md): the
    vectorised read equals f32 word for word, as raw float64 bits, in any array shape."""
    import numpy as np
    from harness.compare.bits import f32, f32_array
    rng = np.random.default_rng(12)
    w = rng.integers(0, 2 ** 32, 50_000, dtype=np.uint64).astype(np.uint32)
    w[:10] = [0, 0x80000000, 0x007FFFFF, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0xFFFFFFFF,
              0x00800000, 0x3F800000]
    want = np.array([f32(int(x)) for x in w])
    assert np.array_equal(f32_array(w).view(np.uint64), want.view(np.uint64))
    assert np.array_equal(f32_array(w[:60].reshape(3, 4, 5)).reshape(-1).view(np.uint64), want[:60].view(np.uint64))
