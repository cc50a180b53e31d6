"""The playback check's vectorised compare: array equality over raw u32 words and the
keyed deviations over all steps at once, with records built only for the failing entries, gives
exactly what comparing one entry at a time gives: the same mismatch records in the same order,
the same counters and quirks, the same keyed-rotation samples and worst case. Checked on the
stand-in and on mutants the playback check catches, at all four speeds, exact and toleranced."""
import os

import pytest

from harness.compare.tally import ROTATION_SAMPLES_KEPT

from harness.checks import Case, playback as P
from harness.compare.mismatch import CaseContext
from harness.compare.tally import Tally
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options
from harness.runners.cases.chunk import parse_reference
from benchmarks.shortcuts import check_playback_each

from .mutant_elfs import built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUTANTS = os.path.join(ROOT, "standin", "build", "mutants")
# mutants whose difference shows in the playback (matrices, localtp, frame counter, morph states)
IMAGES = ["standin", "swap_scale_operands", "swap_interp_operands", "play_once_returns_0",
          "morph_one_frame_late"]
N_CHUNKS = 2
CORPUS = Options().open_corpus()


def chunks():
    """The first playback chunks of the synthetic corpus, plus the mutants' named cases."""
    from harness.profiles import profile
    prof = profile("nightly")
    out = ["xp_flag.cmp::ANM_xpflnut0", "cbu3body.cmp::ANM_cbu3nut2", "b009.cmp::ANM_b009008",
           "ekx1.cmp::ANM_ekx1atc0", "cha2body.cmp::ANM_cha2mag1"]
    for cid in CORPUS.chunk_ids():
        if len(out) >= len(IMAGES) + N_CHUNKS:
            break
        ch = CORPUS.chunk(cid)
        if cid not in out and P.applies(Case(parse_reference(ch, "hw"), prof)):
            out.append(cid)
    return out


CHUNKS = chunks()


@pytest.fixture(autouse=True)
def compiled_at_once(monkeypatch):
    """DECISION: each image's program is compiled at once (EEMU_COMPILE_AFTER=0, as the machine
    tests do): a mutant's playbacks here stay under the tiering threshold in one process and
    would otherwise all run in the Python engine. The engine does not change a word the compare
    sees (tests/harness/test_lockstep_bulk.py); on play_once_returns_0 this took the test from
    71.1 to 50.2 user CPU-seconds, the gcc of its program included (measured side by side)."""
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")


def image(name):
    return DEFAULT_IMAGE if name == "standin" else built(os.path.join(MUTANTS, f"{name}.elf"))


def played(game, cid, speed, exact_local, vector, monkeypatch):
    ch = CORPUS.chunk(cid)
    anim = parse_reference(ch, game.float_model)
    tally = Tally()
    ctx = CaseContext(cid, 4, "nightly", game.float_model, image=game.image_path)
    n = P.bulk_steps(anim, speed, 400)
    check = P.check_playback if vector else check_playback_each
    ok = check(game, anim, game.load(ch.data), ch.names, ctx, tally, [speed] * n, speed, exact_local)
    return ok, tally


# DECISION: the default suite plays a mutant on every chunk of the sample but b009, which holds
# 162,588 of a mutant's 265,000 object matrices (two thirds of the test's time). The stand-in still
# plays it at all four speeds, and on the other chunks every mutant still fails, two of them past
# the mismatches a record keeps (dropped); --slow plays the mutants on b009 too.
BIG = "b009.cmp::ANM_b009008"
MUTANT_CHUNKS = [c for c in CHUNKS if c != BIG]


@pytest.mark.parametrize("name", IMAGES)
def test_the_vectorised_playback_compare_equals_the_per_entry_compare(name, monkeypatch):
    vectorised_equals_per_entry(name, CHUNKS if name == "standin" else MUTANT_CHUNKS, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("name", IMAGES[1:])
def test_the_vectorised_playback_compare_equals_the_per_entry_compare_on_every_chunk_of_the_sample(
        name, monkeypatch):
    vectorised_equals_per_entry(name, CHUNKS, monkeypatch)


def vectorised_equals_per_entry(name, chunk_ids, monkeypatch):
    compared = failing = pruned = dropped = 0
    for cid in chunk_ids:
        # a machine per chunk: a mutant may leave state that faults the next chunk (a stale
        # morpher pointer of morph_one_frame_late does), which is not the compare's business;
        # within a chunk every playback starts from the restored load
        game = Game(image(name))
        # the stand-in at all four speeds; a mutant at a dividing and a sub-frame speed
        for speed in ((256, 100, 384, 700) if name == "standin" else (256, 100)):
            for exact_local in (True, False):
                a_ok, a = played(game, cid, speed, exact_local, True, monkeypatch)
                b_ok, b = played(game, cid, speed, exact_local, False, monkeypatch)
                where = f"{name} {cid} speed {speed} exact_local {exact_local}"
                assert a_ok == b_ok, where
                assert a.mismatches == b.mismatches, where
                assert a.dropped == b.dropped and a.counters == b.counters and a.quirks == b.quirks, where
                # the vectorised path keeps only the samples a chunk record can keep
                assert a.rotation_count == b.rotation_count == len(b.rotation_samples), where
                assert a.rotation_deviation() == b.rotation_deviation() and a.worst_keyed == b.worst_keyed, where
                kept_everything = a.rotation_count <= ROTATION_SAMPLES_KEPT
                assert (a.rotation_samples == b.rotation_samples) == kept_everything or not b.rotation_samples, where
                pruned += not kept_everything
                compared += a.counters["object matrices"]
                failing += len(a.mismatches) + a.dropped
                dropped += a.dropped
    assert compared > 1000
    if name == "standin":
        assert pruned, "the sample must exercise a playback with more keyed samples than a record keeps"
    if name != "standin":
        assert failing, f"{name}: the sample must exercise the failing path"
    if name in ("swap_scale_operands", "swap_interp_operands"):
        assert dropped, f"{name}: the sample must exercise mismatches past those a record keeps"
