"""Per-chunk differential checks over a seeded sample of the corpus (checks.md §2-§7).

`pytest tests/differential -k notes` runs only the note checks; `--chunks N`, `--seed`, `--profile`
and `--float-model` choose how much and how; `--image/--data/--disc` point at the real files.
"""
import pytest

from harness.runners.cases.chunk import check_chunk
from tests.differential.failure import error_failure, mismatch_failure


def run_check(check, chunk_id, opts, corpus, game, prof):
    ch = corpus.chunk(chunk_id)
    res = check_chunk(game, ch, opts.context(chunk_id), prof, only=[check])
    if res["error"]:
        raise error_failure(f"{chunk_id} {check}", res["error"], res["repro"])
    if res["mismatches"]:
        raise mismatch_failure(f"{chunk_id} {check}", res["mismatches"],
                               len(res["mismatches"]) + res.get("dropped_mismatches", 0), res["repro"])
    return res


@pytest.mark.controllers
def test_controllers(chunk_id, opts, corpus, game, prof):
    """checks.md §2.1 and §2.3: object records at sampled times and key boundaries; multi-step."""
    res = run_check("controllers", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("cases", 0) + res["counters"].get("no controller", 0) > 0


@pytest.mark.materials
def test_materials(chunk_id, opts, corpus, game, prof):
    """checks.md §2.2: U, V and the ccMaterial u, v with random crops, exactly."""
    res = run_check("materials", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("material cases", 0) > 0


@pytest.mark.playback
def test_playback(chunk_id, opts, corpus, game, prof):
    """checks.md §4: frame counter, return value, object matrices, morph states per step."""
    res = run_check("playback", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("steps", 0) > 0


@pytest.mark.notes
def test_notes(chunk_id, opts, corpus, game, prof):
    """checks.md §6: delivered note lists over generated steps, restarts, repeated NoteProcess."""
    res = run_check("notes", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("note steps", 0) > 0


@pytest.mark.morph
def test_morph(chunk_id, opts, corpus, game, prof):
    """checks.md §5.1: ccMorpher::Modify on the member's base and target models, exactly."""
    res = run_check("morph", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("morph cases", 0) > 0, f"no Modify case could be built: {res['counters']}"


@pytest.mark.fobj
def test_fobj(chunk_id, opts, corpus, game, prof):
    """checks.md §7: F_Obj poses after playback steps, persistence included."""
    res = run_check("fobj", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("F_Obj poses", 0) > 0


@pytest.mark.objects
def test_objects(chunk_id, opts, corpus, game, prof):
    """anim-objects.md §2.4, §3.6 level 1, §4.3, §5.2: the index and its parent slots, SetAnm's
    table, the draw set and DeleteAnmIndex's frees, exactly."""
    res = run_check("objects", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("objects index entries", 0) > 0


@pytest.mark.world
def test_world(chunk_id, opts, corpus, game, prof):
    """anim-objects.md §3.6 level 2: every drawn object's world matrix and alpha after Draw, at
    every playback step."""
    res = run_check("world", chunk_id, opts, corpus, game, prof)
    assert res["counters"].get("world steps", 0) > 0
