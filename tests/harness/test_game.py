"""The harness driving the stand-in on hand-built chunks: clean runs agree with the reference, and
every check notices a corrupted game-side result (checks.md §2-§7), named by field and raw bits."""
import pytest

from harness.checks import morph as check_morph
from harness.checks import playback as check_playback
from harness.runners.cases.chunk import check_chunk
from harness.driver import memory_map as mm
from harness.driver.game import Game, batch_steps
from harness.options import DEFAULT_IMAGE, Options
from harness.profiles import profile

from .minicorpus import mini_corpus

CORPUS = mini_corpus()
LOOP, ONCE = "mini.cmp::ANM_loop", "mini.cmp::ANM_once"


@pytest.fixture(scope="module", params=["hw", "trunc"])
def game(request):
    return Game(DEFAULT_IMAGE, request.param)


def run(game, cid, only=None, prof="quick"):
    opts = Options(float_model=game.float_model)
    return check_chunk(game, CORPUS.chunk(cid), opts.context(cid), profile(prof), only=only)


def test_every_check_agrees_with_the_reference_on_hand_built_chunks(game):
    """A loop with back-in-time, shared-frame and past-the-end keys, keyed and >180 deg rotations,
    a material, notes and morphs; a play-once chunk with F_Obj records: all exact (checks.md §3)."""
    loop, once = run(game, LOOP), run(game, ONCE)
    for res in (loop, once):
        assert res["error"] is None and res["mismatches"] == [], res["mismatches"][:2] or res["error"]
    c = loop["counters"]
    assert c["cases"] > 10 and c["keyed rotations"] > 0 and c["single-value rotations"] > 0
    assert c["material cases"] > 0 and c["multistep checks"] == 3 and c["morph cases"] >= 1
    assert c["object matrices"] > 0 and c["morph states"] > 0 and c["notes delivered"] > 0
    assert set(loop["checks"]) >= {"controllers", "multistep", "materials", "playback", "notes", "morph"}
    assert once["counters"]["F_Obj poses"] > 0 and once["counters"]["note restarts"] > 0
    q = loop["quirks"]
    assert q["keys_back_in_time"] and q["shared_frame_keys"] and q["keys_past_end"] and q["frame0_notes"]


def corrupt(monkeypatch, game, method, change):
    real = getattr(game, method)
    monkeypatch.setattr(game, method, lambda *a, **k: change(real(*a, **k)))


def flip(words, i=0):
    w = list(words)
    w[i] ^= 1
    return tuple(w)


def test_a_one_ulp_position_error_is_a_controller_mismatch(game, monkeypatch):
    def flip_x(result):            # position.x (scratch word 0) one ulp off at every time
        words, localtp = result
        words = words.copy()
        words[:, 0] ^= 1
        return words, localtp
    corrupt(monkeypatch, game, "step_times", flip_x)
    res = run(game, LOOP, only=["controllers"])
    m = res["mismatches"][0]
    assert (m["check"], m["field"], m["ulp"]) == ("controllers", "position.x", 1)
    assert int(m["expected"], 16) ^ int(m["got"], 16) == 1 and "harness one --case mini.cmp::ANM_loop" in m["repro"]
    s = m["series"]      # the reference channel over [0, last] and the game's sampled values
    assert s["label"] == "position.x" and len(s["t"]) == len(s["ref"]) >= 64
    assert len(s["game_t"]) == len(s["game"]) > 1 and m["time"] in s["game_t"]


def test_a_step_split_that_lands_elsewhere_is_a_multistep_mismatch(game, monkeypatch):
    """checks.md §2.3: several steps must land bit-identically where one does."""
    real = game.set_work_each

    def set_work_each(work, deltas):     # the second step one tick short
        deltas = list(deltas)
        if len(deltas) > 1:
            deltas[1] -= 1
        return real(work, deltas)
    monkeypatch.setattr(game, "set_work_each", set_work_each)
    res = run(game, LOOP, only=["controllers"])
    checks = {m["check"] for m in res["mismatches"]}
    assert checks == {"multistep"}, res["mismatches"][:2]


def test_a_wrong_texture_offset_is_a_material_mismatch(game, monkeypatch):
    corrupt(monkeypatch, game, "material_uv", lambda uv: ((uv[0] + 1) & 0xFFFF, uv[1]))
    res = run(game, LOOP, only=["materials"])
    assert {(m["check"], m["field"]) for m in res["mismatches"]} == {("materials", "u")}


def test_a_wrong_matrix_or_frame_counter_is_a_playback_mismatch(game, monkeypatch):
    real = check_playback.play

    def flip13(*args):               # translation.y of the first track one ulp off at every read
        forwards, coords, states, stopped = real(*args)
        for i, (W, A) in coords.items():
            W = W.copy()
            W[0, 13] ^= 1
            coords[i] = W, A
        return forwards, coords, states, stopped
    monkeypatch.setattr(check_playback, "play", flip13)
    res = run(game, LOOP, only=["playback"])
    assert res["mismatches"][0]["field"] == "translation.y"
    monkeypatch.undo()
    corrupt(monkeypatch, game, "play", lambda r: ([(t + 1, v) for t, v in r[0]], *r[1:]))   # the steps' batch
    res = run(game, LOOP, only=["playback"])
    # each playback (one per speed) stops at its first step
    assert [(m["field"], m["step"]) for m in res["mismatches"]] == [("frame counter", 0)] * res["counters"]["playbacks"]


def test_note_list_in_file_order_instead_of_reverse_is_a_note_mismatch(game, monkeypatch):
    """animation-semantics.md §10.4: delivery is in reverse file order."""
    corrupt(monkeypatch, game, "note_process", lambda ns: list(reversed(ns)))
    res = run(game, LOOP, only=["notes"])
    assert res["mismatches"] and {m["field"] for m in res["mismatches"]} == {"notes"}


def test_a_wrong_blend_is_a_morph_mismatch(game, monkeypatch):
    corrupt(monkeypatch, game, "modify", lambda vs: [(x, y, z + 1) for x, y, z in vs])
    res = run(game, LOOP, only=["morph"])
    assert res["mismatches"][0]["field"] == "vertex[0].z"


def test_a_wrong_fobj_pose_is_an_fobj_mismatch(game, monkeypatch):
    corrupt(monkeypatch, game, "coord_matrix", lambda w: flip(w, 0))
    res = run(game, ONCE, only=["fobj"])
    assert res["mismatches"] and res["mismatches"][0]["field"] == "matrix[0][0]"


def test_an_emulation_error_becomes_the_chunk_error_not_a_crash(game, monkeypatch):
    from eemu_ext import MemoryFault

    def boom(*a, **k):
        raise MemoryFault("load from 0x00000004 at pc 0x00100000")
    monkeypatch.setattr(game, "forward", boom)
    monkeypatch.setattr(game, "call_each", boom)          # a playback's steps run as one batch
    res = run(game, LOOP, only=["playback"])
    assert res["error"]["type"] == "MemoryFault" and res["error"]["check"] == "playback"


@pytest.mark.parametrize("steps", [[384] * 20, [256, 100, 0, 700, 384, 256, 1, 255] * 3,
                                   [256, 100, 0, 700, 384, 256, 1, 255] * 3 + [3]],
                         ids=["one speed", "repeating sizes", "sizes that do not repeat"])
def test_a_playback_batch_answers_as_its_steps_one_by_one(game, steps):
    """Game.play: every step's time and return value, and the words gathered after it, as
    forward() step by step with the words read between the steps."""
    ch = CORPUS.chunk(LOOP)
    pb = game.playback(game.load(ch.data), ch.names, steps[0])
    addrs = [c + mm.COORD_MATRIX + 4 * k for c in pb.coords.values() for k in range(16)]
    addrs += [c + mm.COORD_LOCALTP for c in pb.coords.values()] + [mm.ANM + mm.ANM_FRAME_SPD]
    one_by_one, read = [], []
    for s in steps:
        one_by_one.append(game.forward(s))
        read.append([game.u32(a) for a in addrs])
    assert game.playback(game.load(ch.data), ch.names, steps[0]).coords == pb.coords
    forwards, words, stopped = game.play(steps, addrs)
    assert stopped is None and forwards == one_by_one and words.tolist() == read


def test_a_step_the_game_cannot_finish_is_the_chunk_error_after_the_steps_before_it_are_counted(game, monkeypatch):
    from eemu_ext import MemoryFault
    real = game.play

    def stops_after_four(steps, gather=()):       # the batch stopped at its fifth step
        forwards, words, _ = real(steps, gather)
        return forwards[:4], words[:4], MemoryFault("load from 0x00000004 at pc 0x00100000")
    monkeypatch.setattr(game, "play", stops_after_four)
    res = run(game, LOOP, only=["playback"])
    assert res["error"]["type"] == "MemoryFault" and res["error"]["check"] == "playback"
    assert res["counters"]["steps"] == 4 and res["mismatches"] == []


def test_synthetic_blends_match_the_reference_exactly(game):
    """checks.md §5.2: fixed edge cases, Generator A and a slice of Generator B, exact."""
    from harness.compare.mismatch import CaseContext
    from harness.compare.tally import Tally
    from reference import morph
    t = Tally()
    cases = check_morph.edge_cases() + check_morph.generator_a(count=3) + check_morph.generator_b()[:20]
    check_morph.run_cases(game, cases, CaseContext("synthetic::morph", 9), t,
                          lambda b, s, tg: morph(b, s, tg, float_model=game.float_model))
    assert t.mismatches == [] and t.counters["morph cases"] == len(cases)
    assert t.quirks["morph_wrap"] and t.quirks["morph_saturation"] and t.quirks["morph_negative_weight"]


def test_a_blend_mismatch_names_the_vertex_inputs_base_targets_scales_and_weights(game):
    from harness.compare.mismatch import CaseContext
    from harness.compare.tally import Tally
    from reference import morph
    t = Tally()
    cases = check_morph.edge_cases()[:1]
    check_morph.run_cases(game, cases, CaseContext("synthetic::morph", 9), t,      # a blend one off in y
                          lambda b, s, tg: [(x, y + 1, z) for x, y, z in morph(b, s, tg, float_model=game.float_model)])
    m = t.mismatches[0]
    assert m["field"] == "vertex[0].y" and m["context"]["base"] == list(cases[0].base[0])
    assert m["context"]["targets"] == [{"position": list(pos[0]), "scale": f"0x{sc:08x}", "weight": f"0x{w:08x}"}
                                       for pos, sc, w in cases[0].targets]


def test_a_chunk_checks_the_same_alone_or_after_another_chunk(game):
    """Every random choice comes from (seed, chunk, check) and the harness re-initialises what it
    uses, so a chunk's result does not depend on the worker split (checks.md §1)."""
    fresh = Game(DEFAULT_IMAGE, game.float_model)
    run(game, LOOP, prof="nightly")
    after = run(game, ONCE, prof="nightly")
    alone = run(fresh, ONCE, prof="nightly")
    keep = ("counters", "quirks", "mismatches", "checks", "rotation_deviation", "machine_steps")
    assert {k: after[k] for k in keep} == {k: alone[k] for k in keep}


def test_a_sampled_second_record_of_an_object_pairs_with_its_own_table_entry(game):
    """checks.md §1: records of one object are told apart by table position, also when the track
    sample (max_tracks) leaves the first record out (regression: xd040.cmp::ANM_xd040002)."""
    import random
    from corpus.anime import build_anime, obj_track, one
    from harness.checks import controllers as check_controllers
    from harness.runners.cases.chunk import parse_reference
    from harness.compare.mismatch import CaseContext
    from harness.compare.tally import Tally
    from .minicorpus import MiniChunk
    data = build_anime(object=7, frames=4, loops=False,
                       tracks=[obj_track(5, pos=one(1., 2., 3.)), obj_track(6, pos=one(4., 5., 6.)),
                               obj_track(5, pos=one(7., 8., 9.))])
    ch = MiniChunk("mini.cmp", "ANM_twice", data)
    anim = parse_reference(ch, game.float_model)

    class PickLast(random.Random):
        def sample(self, population, k):
            return list(population)[-k:]
    t = Tally()
    check_controllers.check_tracks(game, anim, game.load(data), CaseContext(ch.id, 1), t,
                                   profile("quick", max_tracks=1), PickLast(1))
    assert t.mismatches == [] and t.counters["cases"] > 0


def test_heap_exhaustion_inside_the_game_is_the_chunks_error(game, monkeypatch):
    """checks.md §8.2: the bump allocator stops the run with "heap exhausted" at HEAP_END."""
    monkeypatch.setattr(game.heap, "end", game.heap.start + 0x200)
    res = run(game, LOOP, only=["playback"])
    assert res["error"]["type"] == "HeapExhausted" and "heap exhausted" in res["error"]["message"]


def test_a_restart_resets_every_work_in_one_batch_and_names_a_game_that_relinks_them(game):
    """checks.md §6.2 step 9: ResetAnmCtrlWork on every work of the list at anm +0x104 (linked
    through work +0). The works are walked once, then reset in one batch; a ResetAnmCtrlWork that
    changed the links would have met other works one by one, so it is an error naming the function."""
    from harness import HarnessError
    from harness.driver.game import RESET_WORK
    ch = CORPUS.chunk(ONCE)
    entries = game.load(ch.data)
    game.playback(entries, ch.names, 256)
    works = game.works()
    assert len(works) > 1
    seen = []
    game.m.hooks.add("address", lambda m: seen.append(m.args(2)[1]), game.sym[RESET_WORK])
    try:
        game.restart()
        assert seen == works
        game.m.hooks.add("address", lambda m: m.write_u32(m.args(2)[1], 0), game.sym[RESET_WORK])   # unlinks the rest
        with pytest.raises(HarnessError, match="ResetAnmCtrlWork changed the work list"):
            game.restart()
    finally:
        game.m.hooks.remove(game.sym[RESET_WORK])


def test_a_mixed_batch_counts_each_functions_steps_and_its_largest_call():
    """Game.call_each's steps and max_steps per function, of a batch whose calls alternate functions."""
    assert batch_steps(["R", "S"] * 3 + ["R"], [1, 10, 2, 30, 1, 20, 5]) == {"R": (9, 5), "S": (60, 30)}
    assert batch_steps(["R", "S", "S"], [1, 2, 3]) == {"R": (1, 1), "S": (5, 3)}
    assert batch_steps(["R", "S", "T", "S", "R"], [1, 2, 3, 4, 5]) == {"R": (6, 5), "S": (6, 4), "T": (3, 3)}
    assert batch_steps(["R", "S"] * 4, [4, 5, 6]) == {"R": (10, 6), "S": (5, 5)}     # a batch that stopped
    assert batch_steps(["R", "S"], []) == {}
