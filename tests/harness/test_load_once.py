"""Load once per chunk: ConvLCNum2ALCNum runs once, and every further check and speed of the
chunk starts from its restored state. --reload (and the quick profile) loads afresh every time
and requires that load to equal the restored one, byte for byte, so the shortcut checks itself."""
import pytest

from harness import HarnessError
from harness.driver import memory_map as mm
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options
from harness.profiles import profile
from harness.runners.cases.chunk import check_chunk

from .minicorpus import mini_corpus

CORPUS = mini_corpus()
LOOP, ONCE = "mini.cmp::ANM_loop", "mini.cmp::ANM_once"


@pytest.fixture
def game():
    return Game(DEFAULT_IMAGE)



def run(game, cid, prof):
    return check_chunk(game, CORPUS.chunk(cid), Options().context(cid), prof)


def test_a_chunk_is_compiled_once_and_restored_for_every_further_check(game):
    res = run(game, LOOP, profile("nightly"))
    c = res["counters"]
    assert c["loads fresh"] == 1 and c["loads restored"] >= 4, c
    assert "loads reloaded" not in c
    assert {f"playbacks at {s}" for s in (256, 100, 384, 700)} <= set(c), "all four speeds played"


def test_the_restored_load_gives_the_results_of_fresh_loads(game):
    """The same chunk, the same seed: records identical with and without the shortcut."""
    prof = profile("nightly")
    fast = [run(game, cid, prof) for cid in (LOOP, ONCE)]
    slow_game = Game(DEFAULT_IMAGE)
    slow_game.load_once = False
    slow = [run(slow_game, cid, prof) for cid in (LOOP, ONCE)]
    for f, s in zip(fast, slow):
        assert f["error"] is None and s["error"] is None
        assert f["mismatches"] == s["mismatches"]
        strip = lambda c: {k: v for k, v in c.items() if not k.startswith("loads ")}
        assert strip(f["counters"]) == strip(s["counters"]) and f["quirks"] == s["quirks"]
    assert slow[0]["counters"]["loads fresh"] > 1 and "loads restored" not in slow[0]["counters"]


def test_reload_verifies_every_load_against_the_restored_state(game):
    res = run(game, LOOP, profile("quick"))          # the quick profile reloads
    assert res["error"] is None and res["mismatches"] == []
    assert res["counters"]["loads reloaded"] >= 4 and "loads restored" not in res["counters"]


def test_a_restored_state_that_differs_from_a_fresh_load_is_reported(game):
    """Corrupt one byte of the snapshot (a word of the output buffer): the reloaded chunk's
    fresh load disagrees with it, and the error names the address and both bytes."""
    chunk = CORPUS.chunk(LOOP).data
    game.reload = True
    game.load(chunk)
    _, snap, _ = game._loaded
    out = game.out_buffer[0]
    page, off = out >> 12, out & 0xFFF
    data = bytearray(snap.pages[page])
    data[off] ^= 0x40
    snap.pages[page] = bytes(data)
    with pytest.raises(HarnessError) as e:
        game.load(chunk)
    msg = str(e.value)
    assert "load once" in msg and f"0x{out:08x}" in msg and "fresh" in msg and "restored" in msg


def test_without_reload_the_restore_is_trusted(game):
    chunk = CORPUS.chunk(LOOP).data
    first = game.load(chunk)
    calls = game.calls
    again = game.load(chunk)
    assert game.calls == calls, "ConvLCNum2ALCNum did not run again"
    assert again == first and game.loads["restored"] == 1
    assert game.u32(mm.NUM) == len(first)


def test_reload_from_the_command_line(capsys):
    from harness.__main__ import main
    rc = main(["one", "--case", "xp_flag.cmp::ANM_xpflnut0", "--profile", "nightly", "--reload",
               "--check", "playback", "--json"])
    assert rc == 0
    out = capsys.readouterr().out
    assert '"loads reloaded": 3' in out, out[:400]


def test_the_games_static_data_is_restored_with_the_load(game):
    """The retail `main` is one writable, executable section: the game's data and bss sit
    beside its text. A value the game keeps there (a stand-in stub's call counter) is part of
    the restored state; only the functions' pages are left out of the snapshot."""
    at = game.img.symbols["stub_calls"]
    assert not any(lo <= at < hi for lo, hi in game.img.code), "data is not code"
    text = game.img.symbols["_AnimateForward__5ccAnmFv"] if "_AnimateForward__5ccAnmFv" in game.img.symbols \
        else next(a for a, n, _ in game.img._funcs if n)
    assert any(lo <= text < hi for lo, hi in game.img.code), "a function is code"
    ch = CORPUS.chunk(LOOP)
    game.load(ch.data)
    before = game.u32(at)
    game.m.write_u32(at, before ^ 0x5A5A5A5A)        # what one playback leaves behind
    game.load(ch.data)
    assert game.loads["restored"] == 1 and game.u32(at) == before
