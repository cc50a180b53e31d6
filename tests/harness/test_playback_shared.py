"""The playback and the world checks of a chunk play it once (harness/checks/objects.py
table_playback): when the world check runs after the playback check on the same chunk, the
playback check reads every posed track's coord words off the playback of SetAnm's table at each
speed the world check's plan also has, and the world check compares that playback's Draws as its
own. Each compares exactly what it compares playing on its own: the same query words, the same
records. A chunk's morphers' states are read off the same playback, from the objects their
entries hold on SetAnm's table. A chunk with a posed track whose entry gets no work on SetAnm's
table is played on the loaded entries as before; a playback check without the world check after
it never plays SetAnm's table."""
import pytest

from harness.checks import Case, objects as O, playback as P, world as W
from harness.driver.game import Game
from harness.options import Options
from harness.profiles import profile
from harness.runners.cases.chunk import check_chunk, parse_reference
from harness.runners.truth_runs.volumes import ASIDE

from .test_playback_batch import words

pytest.importorskip("eemu_ext")

OPTS = Options(seed=4, profile="nightly")
CORPUS = OPTS.open_corpus()
COVERED = "cha2body.cmp::ANM_cha2mag1"
MORPHS = "xp_flag.cmp::ANM_xpflnut0"          # morph records: morph states read off the morphers
WITHOUT_WORK = "xd101.cmp::ANM_xd101002"      # two posed tracks' entries get no work on SetAnm's table
CHECKS = ["playback", "world"]


@pytest.fixture(scope="module")
def game():
    return Game(OPTS.image, OPTS.float_model)


def spied(monkeypatch):
    """Count the playbacks of SetAnm's table the playback check shared and the world check's own."""
    seen = {"shared": 0, "world's own": 0}
    share, own = O.table_playback, W.game_series

    def table_playback(*a, **k):
        got = share(*a, **k)
        seen["shared"] += got is not None
        return got

    def game_series(*a, **k):
        seen["world's own"] += 1
        return own(*a, **k)
    monkeypatch.setattr(O, "table_playback", table_playback)
    monkeypatch.setattr(W, "game_series", game_series)
    return seen


def record(cid, prof, only=CHECKS, speed=None):
    """The chunk's record (without timings) on a game of its own (a chunk's first load is fresh)."""
    res = check_chunk(Game(OPTS.image, OPTS.float_model), CORPUS.chunk(cid), OPTS.context(cid), prof, only=only,
                      speed=speed)
    return {k: v for k, v in res.items() if k not in ASIDE}


@pytest.mark.parametrize("cid, shared", [(COVERED, 4), (MORPHS, 4), (WITHOUT_WORK, 0)])
def test_one_playback_gives_both_checks_the_records_of_their_own_playbacks(monkeypatch, cid, shared):
    with monkeypatch.context() as mp:
        mp.setattr(P, "world_plan", lambda case: [])             # each check plays on its own
        alone = record(cid, profile("nightly"))
    seen = spied(monkeypatch)
    together = record(cid, profile("nightly"))
    assert together == alone
    assert not together["mismatches"] and not together["error"]
    # the nightly plays the four speeds in both checks: all shared, or none
    assert seen == {"shared": shared, "world's own": 4 - shared}


def test_under_a_reload_profile_the_shared_playback_starts_from_the_table_built_afresh(monkeypatch):
    """The quick profile (reload) at one given speed: both checks' plans are that speed."""
    with monkeypatch.context() as mp:
        mp.setattr(P, "world_plan", lambda case: [])
        alone = record(COVERED, profile("quick"), speed=384)
    seen = spied(monkeypatch)
    assert record(COVERED, profile("quick"), speed=384) == alone
    assert seen == {"shared": 1, "world's own": 0}


def test_the_playback_check_without_the_world_check_after_it_plays_no_table(monkeypatch):
    seen = spied(monkeypatch)
    res = record(COVERED, profile("nightly"), only=["playback"])
    assert res["counters"]["playbacks"] == 4 and not res["mismatches"]
    assert seen == {"shared": 0, "world's own": 0}


@pytest.mark.parametrize("cid", [COVERED, MORPHS])
@pytest.mark.parametrize("speed", [256, 100, 384, 700])
def test_the_query_read_off_the_table_is_the_query_played_on_the_loaded_entries(game, speed, cid):
    """Every step's frame counter and return value, every posed track's 12 words and localtp at
    every step that evaluates a pose, every morpher's state from frame 1 (its targets named by
    their objects), the unposed records: the same words either way."""
    ch = CORPUS.chunk(cid)
    anim = parse_reference(ch, game.float_model)
    prof = profile("nightly")
    n = P.bulk_steps(anim, speed, prof.playback_max_steps)
    case = Case(anim, prof, game, ch, later=("world",))
    table = P.on_table(case, speed, n)
    assert table is not None
    shared, _, _ = P.played(game, anim, game.load(ch.data), ch.names, [speed] * n, speed, True, table)
    own, _, _ = P.played(game, anim, game.load(ch.data), ch.names, [speed] * n, speed, True)
    assert words(shared) == words(own)
    assert len(own["tracks"]) and len(own["read"])
    if cid == MORPHS:
        states = [pairs for row in own["game"]["morph"] for pairs in row]
        assert own["morphers"] and any(states)
        assert all(isinstance(target, int) and target < 0x10000 for pairs in states for target, _ in pairs)


def test_a_morph_state_the_game_gets_wrong_fails_as_on_the_loaded_entries(monkeypatch):
    """A mutant whose F_Morpher records take effect one frame late: the morph states read off the
    shared playback fail the playback check with the records of the loaded entries' playback."""
    alone, together, seen = mutant_alone_and_together(monkeypatch, "morph_one_frame_late", MORPHS)
    assert seen["shared"] == 4
    assert [m for m in alone[0] if m["field"] == "morph state"]
    assert together == alone


def test_a_word_the_game_leaves_unwritten_reads_as_on_the_loaded_entries(monkeypatch):
    """A fresh coord is zeros where SetAnm's ccObj is the identity: the shared playback zeroes the
    posed objects' compared words first, so a game that leaves them unwritten (a mutant that does
    not evaluate the end step: on this chunk the first step at speed 700 is the end step) fails
    the playback check as it does on the loaded entries."""
    alone, together, seen = mutant_alone_and_together(monkeypatch, "end_step_not_evaluated",
                                                      "top000.cmp::ANM_top000004")
    assert seen["shared"] == 4 and alone[0]
    assert together == alone


def mutant_alone_and_together(monkeypatch, mutant, cid):
    """The playback check's mismatches and counters on `cid` under the mutant's executable, each
    check playing on its own, then sharing the playback of SetAnm's table; and the spied plays."""
    from .mutant_elfs import mutant_elf
    elf = mutant_elf(mutant)

    def run():
        res = check_chunk(Game(elf, "hw"), CORPUS.chunk(cid), OPTS.context(cid), profile("nightly"), only=CHECKS)
        return [m for m in res["mismatches"] if m["check"] == "playback"], res["counters_by_check"]["playback"]
    with monkeypatch.context() as mp:
        mp.setattr(P, "world_plan", lambda case: [])
        alone = run()
    seen = spied(monkeypatch)
    return alone, run(), seen
