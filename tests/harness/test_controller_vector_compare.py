"""The controllers check's batched form: the reset/step pairs of a track in one machine batch, the
reference at all its times in one call (Animation.poses) and the compare over arrays, with records
built only for the failing times, gives exactly what comparing one time at a time gives: the same
mismatch records in the same order, the same counters and quirks, the same keyed-rotation samples
and worst case. Checked on the stand-in and on mutants the controllers check catches."""
import os

import pytest

from harness.checks import controllers as C
from harness.compare.mismatch import CaseContext
from harness.compare.tally import Tally
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options
from harness.profiles import profile, rng
from harness.runners.cases.chunk import parse_reference
from benchmarks.shortcuts import compare_times_each

from .mutant_elfs import built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MUTANTS = os.path.join(ROOT, "standin", "build", "mutants")
IMAGES = ["standin", "frac_reciprocal", "euler_interp", "rot_per_key_matrix", "controller_alpha_clamped",
          "one_instance_per_object"]
CHUNKS = ["cbu3body.cmp::ANM_cbu3nut2", "town01.cmp::ANM_sr1fla1_a", "cha2body.cmp::ANM_cha2mag1",
          "eldl.cmp::ANM_eldlmag0", "chgate.cmp::ANM_chgate002"]
CORPUS = Options().open_corpus()


def image(name):
    return DEFAULT_IMAGE if name == "standin" else built(os.path.join(MUTANTS, f"{name}.elf"))


def checked(game, cid, vector, monkeypatch):
    ch = CORPUS.chunk(cid)
    anim = parse_reference(ch, game.float_model)
    tally = Tally()
    ctx = CaseContext(cid, 4, "nightly", game.float_model, image=game.image_path)
    C.check_tracks(game, anim, game.load(ch.data), ctx, tally, profile("nightly"), rng(4, cid, "controllers"),
                   compare=None if vector else compare_times_each)
    return tally


@pytest.mark.parametrize("name", IMAGES)
def test_the_batched_controller_compare_equals_the_per_time_compare(name, monkeypatch):
    cases = failing = 0
    for cid in CHUNKS:
        game = Game(image(name))
        a = checked(game, cid, True, monkeypatch)
        b = checked(game, cid, False, monkeypatch)
        assert a.mismatches == b.mismatches, cid
        assert a.dropped == b.dropped and a.counters == b.counters and a.quirks == b.quirks, cid
        assert a.rotation_count == b.rotation_count, cid
        assert a.rotation_deviation() == b.rotation_deviation() and a.worst_keyed == b.worst_keyed, cid
        assert a.ledger == b.ledger, cid
        cases += a.counters["cases"]
        failing += len(a.mismatches) + a.dropped
    assert cases > 500
    if name == "standin":
        assert failing == 0
    else:
        assert failing, f"{name}: the sample must exercise the failing path"
