"""A set-up that cannot fail silently: guard words after the output buffer, the scratch
poison, the data floor, the localtp comparison, no controller time past last, derived step budgets
with a bulk that fails fast, ccMemalign in either argument order, and the readiness probe naming
each broken stand-in build in one line. Every check is shown going red on a build or input made
to break it."""
import os
import struct

import pytest

from eemu_ext.errors import MemoryFault, StepLimitExceeded
from harness.driver import memory_map as mm
from harness.driver import stubs
from harness.driver.budgets import MARGIN, MEASURED, parse_overrides
from harness.runners.cases.chunk import check_chunk
from harness import HarnessError
from harness.runners.bulk.failfast import FailFast, signature
from harness.driver.game import CONV, SET_WORK, Game, derived_budgets
from harness.compare.keys import sample_times
from harness.runners.mutants import MUTANT_ELF_DIR, find_mutants
from harness.options import DEFAULT_IMAGE, Options
from harness.runners.probing.probe import format_report, probe
from harness.profiles import profile

from .minicorpus import mini_corpus

CORPUS = mini_corpus()
LOOP = "mini.cmp::ANM_loop"


@pytest.fixture
def game():
    return Game(DEFAULT_IMAGE)


def run(game, cid=LOOP, only=None):
    return check_chunk(game, CORPUS.chunk(cid), Options().context(cid), profile("quick"), only=only)


def nop_store(game, func, offset):
    """Replace the one `sw rt, offset(base)` in func's code by a NOP: a build that skips that store."""
    start = game.sym[func]
    size = next(s for a, s, n in game.img._funcs if a == start)
    hits = [a for a in range(start, start + size, 4)
            if (w := game.m.read_u32(a)) >> 26 == 0x2B and w & 0xFFFF == offset]
    assert len(hits) == 1, f"{func}: {len(hits)} sw ..., 0x{offset:x}(...) found"
    game.m.write_u32(hits[0], 0)


# -- guard words and the cursor bound ------------------------------------------------------------
def test_the_output_buffer_guards_hold_on_the_stand_in_and_a_clobbered_guard_is_named(game):
    game.load(CORPUS.chunk(LOOP).data)
    out, end = game.out_buffer
    assert end - out == 4 * struct.unpack_from("<I", CORPUS.chunk(LOOP).data, 16)[0] + 64
    assert 0 < game.out_high <= end - out
    assert game.words(end, mm.GUARD_WORDS) == (mm.GUARD,) * mm.GUARD_WORDS
    game.m.write_u32(end + 8, 0)                       # as a store one word past the end would
    with pytest.raises(HarnessError, match=r"output-buffer overrun: ConvLCNum2ALCNum .* guard word 2"):
        game.check_output_buffer()


def test_a_cursor_left_outside_the_buffer_is_named(game):
    game.load(CORPUS.chunk(LOOP).data)
    out, end = game.out_buffer
    game.m.write_u32(mm.DATAPTR, end + 4)
    with pytest.raises(HarnessError, match="left its cursor at"):
        game.check_output_buffer()


# -- the scratch poison --------------------------------------------------------------------------
def test_every_compared_scratch_word_is_written_so_none_reads_as_the_poison(game):
    entries = game.load(CORPUS.chunk(LOOP).data)
    game.new_anm()
    work, _ = game.work(next(e.ctrl for e in entries if e.kind == mm.KIND_OBJECT))
    assert mm.POISON not in game.step(work, 300).words()


def test_a_build_that_skips_the_transparency_store_reads_the_poison_and_fails(game):
    nop_store(game, SET_WORK, mm.SCRATCH_ALPHA)
    entries = game.load(CORPUS.chunk(LOOP).data)
    game.new_anm()
    work, _ = game.work(next(e.ctrl for e in entries if e.kind == mm.KIND_OBJECT))
    assert game.step(work, 300).alpha == mm.POISON    # not the previous call's value
    fields = {m["field"] for m in run(game, only=["controllers"])["mismatches"]}
    assert "transparency" in fields


# -- localtp -------------------------------------------------------------------------------------
def test_localtp_is_compared_and_a_build_that_skips_its_store_fails(game):
    res = run(game, only=["controllers", "playback"])
    assert res["mismatches"] == [] and res["counters"]["localtp cases"] > 0
    nop_store(game, SET_WORK, mm.COORD_LOCALTP)
    bad = run(game, only=["controllers", "playback"])["mismatches"]
    assert {m["check"] for m in bad if m["field"] == "localtp"} == {"controllers", "playback"}


# -- the data floor in the harness ----------------------------------------------------------------
def test_the_harness_machine_faults_on_data_below_the_lowest_segment(game):
    assert game.m.data_floor == min(v for v, d in game.img.segments if d) == 0x00100000
    game.m.write_u32(game.sym["ccSys"], 0)              # a null ccSys: the scratch pointer read at +0x25C
    entries = game.load(CORPUS.chunk(LOOP).data)
    game.m.write_u32(game.sym["ccSys"], 0)
    game.new_anm()
    work, _ = game.work(next(e.ctrl for e in entries if e.kind == mm.KIND_OBJECT))
    game.m.write_u32(game.sym["ccSys"], 0)
    with pytest.raises(MemoryFault, match=r"at 0x0000025c \(below the data floor 0x00100000\) at pc 0x[0-9a-f]{8} "
                                          r"\(SetAnmCtrlWork"):
        game.set_work(work, 1)


# -- times never past last ------------------------------------------------------------------------
def test_controller_times_stop_at_last_and_a_one_frame_chunk_is_evaluated_at_0_only():
    import random
    rec = CORPUS.chunk(LOOP)
    from reference import Animation
    anim = Animation.parse(rec.data, names=rec.names, ext=rec.ext)
    ts = sample_times(anim.tracks[0].record, anim.last, random.Random(1), 6, -1)
    assert ts and max(ts) == anim.last
    assert sample_times(anim.tracks[0].record, 0, random.Random(1), 6, -1) == [0]


# -- step budgets and fail-fast --------------------------------------------------------------------
def test_budgets_derive_from_measured_need_and_can_be_overridden():
    b = derived_budgets()
    assert b[CONV] == MARGIN * MEASURED["ConvLCNum2ALCNum"] < 2_000_000_000
    assert derived_budgets({"SetAnmCtrlWork": 1234})[SET_WORK] == 1234
    assert parse_overrides(["Modify=0x100"]) == {"Modify": 256}
    with pytest.raises(HarnessError, match="not a function the harness calls"):
        derived_budgets({"Nope": 1})


def test_a_bulk_stops_after_k_chunks_failing_alike_and_says_where():
    starved = Game(DEFAULT_IMAGE, budgets={"ConvLCNum2ALCNum": 2000})
    errors = []
    for cid in CORPUS.chunk_ids():
        res = run(starved, cid, only=["controllers"])
        errors.append(res["error"])
        with pytest.raises(StepLimitExceeded):
            starved.load(CORPUS.chunk(cid).data)
    assert all(e and e["type"] == "StepLimitExceeded" for e in errors)
    ff = FailFast(3)
    stops = [ff.observe(errors[0], f"chunk{i}") for i in range(3)]
    assert stops[:2] == [None, None] and stops[2] is not None
    assert "3 chunks in a row failed with StepLimitExceeded at pcs in " in stops[2]
    fine = FailFast(3)                                  # the same chunks with the derived budget
    assert all(fine.observe(run(Game(DEFAULT_IMAGE), cid)["error"]) is None for cid in CORPUS.chunk_ids())


def test_fail_fast_needs_the_same_error_at_the_same_pc_in_a_row():
    a = {"type": "MemoryFault", "message": "memory fault ... at pc 0x00101234 (f): lw"}
    b = {"type": "MemoryFault", "message": "memory fault ... at pc 0x00105678 (g): lw"}
    ff = FailFast(2)
    assert [ff.observe(e) for e in (a, b, a, None, a)] == [None] * 5    # broken runs never stop
    assert ff.observe(a) is not None
    assert signature(a) == ("MemoryFault", "pc 0x00101234") and signature(None) is None


# -- the allocator stubs and the note hook ----------------------------------------------------------
@pytest.mark.parametrize("a0, a1, want", [(0x60, 16, (0x60, 16)), (16, 0x60, (0x60, 16)),
                                           (0x40, 0x80, (0x80, 0x40)), (0x64, 0x30, (0x64, 16))])
def test_ccmemalign_allocates_the_larger_argument_aligned_to_the_power_of_two(a0, a1, want):
    assert stubs.memalign(a0, a1) == want


def test_the_note_hook_records_a0_to_a3_and_flags_an_a0_outside_the_heap(game):
    class M:
        def __init__(self, args):
            self._a = args
        def args(self, n):
            return self._a[:n]
    game.heap.alloc(64)
    game._note_hook(M([mm.SCRATCH, 1, 2, 3]))
    assert game.note_calls[-1] == (mm.SCRATCH, 1, 2, 3)
    assert game.note_flags and "0x01010000, not a heap block" in game.note_flags[0]


# -- the probe ---------------------------------------------------------------------------------------
def test_the_probe_on_the_stand_in_is_ready_with_its_call_tree_and_allocator_log():
    r = probe(DEFAULT_IMAGE, CORPUS)
    text = format_report(r)
    assert r.ready and r.findings == [], text
    assert "verdict: READY (0 warnings)" in text
    assert "  ConvLCNum2ALCNum x" in text and "ccMalloc__FUi" in text and "allocator log (" in text
    assert r.forward == ("step", 100) and r.high_water and r.allocs


PROBE_MUTANTS = [m for m in find_mutants() if m.catches == "probe"]


def test_five_probe_mutants_exist():
    assert {m.finding for m in PROBE_MUTANTS} == {"null call", "unknown field", "ccMemalign order",
                                                  "output overrun", "_AnimateForward"}


@pytest.mark.parametrize("mut", PROBE_MUTANTS, ids=lambda m: m.name)
def test_the_probe_names_each_broken_build_in_one_line(mut):
    if not os.path.isfile(mut.elf):
        pytest.skip(f"{mut.elf} not built: needs gcc-mipsel-linux-gnu (make mutant-elfs)")
    r = probe(mut.elf, CORPUS)
    lines = [f.line() for f in r.findings if f.kind == mut.finding]
    assert lines, format_report(r)
    assert all("\n" not in l for l in lines)
    assert r.ready == (mut.finding in ("ccMemalign order", "_AnimateForward"))


def test_a_memalign_align_first_build_still_passes_the_checks_with_the_robust_stub():
    elf = os.path.join(MUTANT_ELF_DIR, "probe-memalign_align_first.elf")
    if not os.path.isfile(elf):
        pytest.skip(f"{elf} not built: needs gcc-mipsel-linux-gnu (make mutant-elfs)")
    res = run(Game(elf), only=["controllers", "playback"])
    assert res["error"] is None and res["mismatches"] == []
