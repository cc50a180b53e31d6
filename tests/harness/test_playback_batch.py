"""checks.md §4.1, the game's side of a playback: its steps made as one batch of machine calls
(Game.play, the time words, the posed coords' words and the morphers' words gathered after each step
by a machine CallIO) give the same query words as _AnimateForward called step by step
(Game.forward) with the words read from memory between the steps: every step's frame counter and
return value, the posed coords' matrices and localtp at each step that evaluates a pose, the morph
states from frame 1. A game that stops mid-playback gives the steps before the one that stopped,
and the same error."""
import numpy as np
import pytest

from harness import EXPLAINED
from harness.checks import playback as P
from harness.driver import memory_map as mm
from harness.driver.game import FORWARD, SHORT, Game
from harness.options import DEFAULT_IMAGE, Options
from harness.runners.cases.chunk import parse_reference

from .minicorpus import mini_corpus
from .mutant_elfs import mutant_elf

MINI = mini_corpus()
SYNTH = Options().open_corpus()
# a looping chunk with a morpher, a play-once chunk, two of the synthetic corpus
CHUNKS = [(MINI, "mini.cmp::ANM_loop"), (MINI, "mini.cmp::ANM_once"),
          (SYNTH, "xp_flag.cmp::ANM_xpflnut0"), (SYNTH, "cha2body.cmp::ANM_cha2mag1")]
STEPS = {"one speed": lambda n: [256] * n, "sub-frame speed": lambda n: [100] * n,
         "mixed sizes": lambda n: ([0, 256, 700, 1, 384, 255] * n)[:n]}


def step_by_step(game, pb, posed, morphers, ref, steps):
    """playback.play as checks.md §4.1 words it: _AnimateForward one step at a time and, after a
    step that evaluates a pose, each posed coord's 16 words at +0x40 and its localtp (+0x88) read
    from memory, and from frame 1 each morpher's u16 count and that many (model, weight) pairs (at
    most 64); a step that raises ends the playback."""
    forwards, coords, states = [], {}, {}
    for i, s in enumerate(steps):
        try:
            forwards.append(game.forward(s))
        except EXPLAINED as exc:
            return forwards, coords, states, exc
        pose_at = ref.forwards[i].pose_at
        if pose_at is None:
            continue
        coords[i] = (np.array([game.words(c + mm.COORD_MATRIX, 16) for _, c in posed], dtype=np.uint32).reshape(-1, 16),
                     np.array([game.u32(c + mm.COORD_LOCALTP) for _, c in posed], dtype=np.uint32))
        if pose_at >> 8 >= 1 and morphers:
            states[i] = [(obj, morph_state(game, addr, pb.models)) for obj, addr in morphers]
    return forwards, coords, states, None


def morph_state(game, morpher, models):
    n = min(game.m.read_u16(morpher + mm.MORPHER_COUNT), 64)
    pairs = game.words(morpher + mm.MORPHER_PAIRS, 2 * n)
    return [(models.get(pairs[2 * k], pairs[2 * k]), pairs[2 * k + 1]) for k in range(n)]


def words(value):
    """A query's values with its arrays as lists (their u32 words) and its tuples as lists."""
    if isinstance(value, dict):
        return {k: words(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return {"dtype": str(value.dtype), "shape": value.shape, "words": value.tolist()}
    if isinstance(value, (list, tuple)):
        return [words(v) for v in value]
    return value


def played_both_ways(game, source, cid, steps, monkeypatch):
    """(batch, step by step): each (the query words, the error that stopped the game or None)."""
    ch = source.chunk(cid)
    anim = parse_reference(ch, game.float_model)
    out = []
    for play in (P.play, step_by_step):
        with monkeypatch.context() as mp:
            mp.setattr(P, "play", play)
            q, _, stopped = P.played(game, anim, game.load(ch.data), ch.names, steps, steps[0], True)
        out.append((words(q), stopped))
    return out


# the stand-in takes its step argument; the probe mutant adds frameSpd instead (the seed's
# reading): the batch must write frameSpd before each step as forward() does
IMAGES = ["standin", "probe-forward_adds_framespd"]


@pytest.mark.parametrize("image", IMAGES)
@pytest.mark.parametrize("steps", list(STEPS), ids=list(STEPS))
def test_a_playback_batch_gives_the_query_words_of_its_steps_one_by_one(steps, image, monkeypatch):
    game = Game(DEFAULT_IMAGE if image == "standin" else mutant_elf(image))
    morph_states = 0
    for source, cid in CHUNKS:
        n = P.bulk_steps(parse_reference(source.chunk(cid), game.float_model), 256, 400)
        (batch, stopped), (each, stopped_each) = played_both_ways(game, source, cid, STEPS[steps](n), monkeypatch)
        assert stopped is None and stopped_each is None, cid
        assert batch == each, cid
        assert len(batch["game"]["forward"]) == n and batch["read"], cid
        morph_states += sum(len(row) for row in batch["game"]["morph"])
    assert morph_states, "a chunk with morphers must be among them"


def test_a_game_that_stops_mid_playback_gives_the_steps_before_it_and_the_same_error(monkeypatch):
    """A budget for _AnimateForward that a later step needs more than the ones before it: the game
    stops at that step (StepLimitExceeded), batch or step by step alike."""
    source, cid = CHUNKS[0]
    steps = STEPS["mixed sizes"](40)
    game = Game(DEFAULT_IMAGE)
    ch = source.chunk(cid)
    game.playback(game.load(ch.data), ch.names, steps[0])
    need = []
    for s in steps:
        game.forward(s)
        need.append(game.m.steps)
    stop = next(k for k in range(3, len(steps)) if need[k] > max(need[:k]))
    starved = Game(DEFAULT_IMAGE, budgets={SHORT[FORWARD]: max(need[:stop])})
    (batch, stopped), (each, stopped_each) = played_both_ways(starved, source, cid, steps, monkeypatch)
    assert type(stopped).__name__ == type(stopped_each).__name__ == "StepLimitExceeded"
    assert str(stopped) == str(stopped_each)
    assert batch == each and len(batch["game"]["forward"]) == stop
    assert batch["read"] and max(batch["read"]) < stop
