"""The anm-object driver calls (harness/driver/objects.py) on the stand-in, against a scene small
enough to work out by hand from docs/spec/anim-objects.md: a body with three legs (one an Obj, two
ExtObj copies of it), a wing with a skin model made for the clip, an eye the clip leaves unnamed,
an effect and a material."""
import os
import struct

import pytest

from corpus.anime import build_anime, fobj, keyed, material_track, note, obj_track
from harness import HarnessError
from harness.driver import objects as ob
from harness.driver.game import Game
from harness.options import ROOT

BLANK, BODY, LEG0, LEG1, LEG2, WING, EYE, EFF, CMP, MDL_BODY, MDL_LEG, MDL_SKIN, MAT, EFF1 = range(14)
ANM_TP = 0x3F000000                                   # 0.5
ANM_MATRIX = ob.IDENTITY[:12] + (0x41200000, 0, 0, ob.ONE)   # a translation by 10 along x


def f(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def scene():
    kinds = {BODY: ob.KIND_OBJ, LEG0: ob.KIND_OBJ, LEG1: ob.KIND_EXT, LEG2: ob.KIND_EXT,
             WING: ob.KIND_OBJ, EYE: ob.KIND_OBJ, EFF: ob.KIND_EFF, CMP: ob.KIND_CLUMP,
             MDL_BODY: ob.KIND_MODEL, MDL_LEG: ob.KIND_MODEL, MDL_SKIN: ob.KIND_MODEL, MAT: 0x0200,
             EFF1: ob.KIND_EXT}
    return ob.Scene(kinds, 14,
                    objs={BODY: (0, MDL_BODY), LEG0: (BODY, MDL_LEG), WING: (BODY, MDL_SKIN), EYE: (BODY, 0)},
                    ext={LEG1: (BODY, LEG0), LEG2: (BODY, LEG0), EFF1: (LEG0, EFF)}, effs={EFF: BODY},
                    clumps=[(CMP, [BODY, LEG0, EYE])],
                    models={MDL_BODY: (0, []), MDL_LEG: (0, []), MDL_SKIN: (4, [BODY, LEG0, EYE])})


def chunk():
    tracks = [obj_track(BODY, pos=(1, 0, 0), scale=(2, 2, 2)), obj_track(LEG0, pos=(0, 2, 0)),
              obj_track(LEG1, pos=(0, 0, 4), target=LEG0), obj_track(LEG2, pos=(8, 0, 0), alpha=0.25, target=LEG0),
              obj_track(WING, pos=(0, 16, 0))]
    return build_anime(object=50, frames=4, loops=True, tracks=tracks,
                       materials=[material_track(MAT, u=0.5)], notes=[note(1, 7, 0, EFF), note(2, 7, 1, EFF1)])


@pytest.fixture
def objects():
    g = Game(os.path.join(ROOT, "standin", "standin.elf"), "hw")
    return ob.Objects(g)


def test_make_anime_index_lists_each_named_chunk_once_with_the_parent_slot_of_its_own_parent_field(objects):
    index = objects.make_anime_index(chunk(), scene())
    assert index.objects == [BODY, LEG0, LEG1, LEG2, WING, MAT, EFF, EFF1]
    assert index.count == 8
    assert index.kinds == [0x100, 0x100, 0xA00, 0xA00, 0x100, 0x200, 0xE00, 0xA00]
    assert index.parents == [-1, 0, 0, 0, 0, -1, 0, 1]


def test_set_anm_gives_a_node_to_the_last_entry_that_claims_it_and_makes_objects_for_the_rest(objects):
    objects.make_anime_index(chunk(), scene())
    t = objects.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    node, made, anm = (lambda o: ("node", o)), (lambda j: ("made", j)), ("anm",)
    assert [e[:3] for e in t.entries] == [
        (node(BODY), 0x100, 6), (made(0), 0x100, 7), (made(1), 0x100, 7), (node(LEG0), 0x100, 6),
        (made(2), 0x100, 7), (("instance", MAT), 0x200, 0), (("instance", EFF), 0xE00, 1),
        (("instance", EFF), 0xE00, 6)]
    assert t.inits == [(0, LEG0), (1, LEG0), (2, WING)]
    assert t.parents == [anm, node(BODY), node(BODY), node(BODY), node(BODY), None, None, made(0)]
    assert t.claims == []
    assert t.node_tables[MDL_SKIN] == (0x40, [node(BODY), node(LEG0), ("none",)])
    assert t.node_tables[MDL_LEG] == (0, None)


def test_draw_draws_the_flag_4_entries_in_index_order_with_the_anm_transparency(objects):
    objects.make_anime_index(chunk(), scene())
    objects.set_anm(anm_tp=ANM_TP)
    got = [(d.kind, d.identity, d.tp) for d in objects.draw()]
    assert got == [(0x100, ("node", BODY), ANM_TP), (0x100, ("made", 0), ANM_TP), (0x100, ("made", 1), ANM_TP),
                   (0x100, ("node", LEG0), ANM_TP), (0x100, ("made", 2), ANM_TP), (0xE00, ("instance", EFF), None)]


def test_world_matrix_is_parent_times_local_down_the_chain_and_alpha_is_localtp_times_the_anm_s(objects):
    """The body scaled by 2 under the anm's translation: a child's offset doubles, its parent's
    translation adds; composed the other way the anm's translation would double instead."""
    objects.make_anime_index(chunk(), scene())
    objects.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    objects.start_playback(256)
    objects.forward(256)
    got = {w.identity: (w.world[12:15], w.alpha) for w in objects.draw_world()}
    body = (11.0, 0.0, 0.0)
    assert got == {
        ("node", BODY): (tuple(map(f, body)), ANM_TP),
        ("made", 0): (tuple(map(f, (11.0, 4.0, 0.0))), ANM_TP),
        ("made", 1): (tuple(map(f, (11.0, 0.0, 8.0))), ANM_TP),
        ("node", LEG0): (tuple(map(f, (27.0, 0.0, 0.0))), f(0.125)),
        ("made", 2): (tuple(map(f, (11.0, 32.0, 0.0))), ANM_TP)}


def test_delete_anm_index_frees_the_made_objects_then_the_entries_and_no_clump_node(objects):
    objects.make_anime_index(chunk(), scene())
    objects.set_anm()
    frees = objects.delete_anm_index()
    assert frees.calls == [("__dl__FPv", ("made", 0)), ("__dl__FPv", ("made", 1)), ("__dl__FPv", ("made", 2)),
                           ("ccFree__FPv", ("entries",))]
    assert frees.anm_index == 0


def test_float_set_evaluates_a_compiled_transparency_channel(objects):
    index = objects.make_anime_index(chunk(), scene())
    ch = objects.alpha_channel(index.ctrls[3])
    assert ch and objects.float_set(ch, [0, 255, 256, 0x80000000]) == [f(0.25)] * 4
    assert objects.alpha_channel(index.ctrls[0]) == 0


@pytest.fixture(params=["python", "native"])
def objects_on(request, monkeypatch):
    """Objects on each engine, the native one compiled at once (its batch runs in C)."""
    from eemu_ext.engines.native.build import compiler
    if request.param == "native" and compiler() is None:
        pytest.skip("no host C compiler: the native engine cannot run here")
    monkeypatch.setenv("EEMU_ENGINE", request.param)
    monkeypatch.setenv("EEMU_COMPILE_AFTER", "0")
    return ob.Objects(Game(os.path.join(ROOT, "standin", "standin.elf"), "hw"))


def test_play_is_forward_then_draw_world_at_every_step_in_one_batch(objects_on):
    """Objects.play(dt, n): the same times, return values, identities, world and alpha words as
    forward(dt) and draw_world() called step by step, on a looping clip past its end, on every
    engine (the native one does the work between the calls in C)."""
    objects = objects_on
    tracks = [obj_track(BODY, pos=keyed((0, (1, 0, 0)), (4, (9, 0, 0))), scale=(2, 2, 2)),
              obj_track(LEG0, pos=(0, 2, 0)), obj_track(WING, pos=(0, 16, 0), alpha=keyed((0, 1.0), (4, 0.5)))]
    objects.make_anime_index(build_anime(object=50, frames=4, loops=True, tracks=tracks), scene())
    objects.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    objects.start_playback(384)
    want = []
    for _ in range(12):
        t, ret = objects.forward(384)
        want.append(([t, ret], [(w.identity, w.world, w.alpha) for w in objects.draw_world()]))
    objects.start_playback(384)
    forward, draws = objects.play(384, 12)
    assert forward == [f for f, _ in want]
    assert draws.calls() == [c for _, c in want]
    assert all(len(calls) == 3 for _, calls in want)          # every drawn object, every step
    assert len({c[1] for _, calls in want for c in calls}) > 4 and len({c[2] for _, calls in want for c in calls}) > 2


def test_a_table_kept_after_set_anm_and_restored_plays_as_a_freshly_built_one(objects):
    """keep() after SetAnm, a playback, restore(): the next playback gives what it gives on a
    freshly built table; a fresh build from the restored state passes same_as(), and a state
    that differs by one word does not."""
    tracks = [obj_track(BODY, pos=keyed((0, (1, 0, 0)), (4, (9, 0, 0))), scale=(2, 2, 2)),
              obj_track(WING, pos=(0, 16, 0), alpha=keyed((0, 1.0), (4, 0.5)))]
    data = build_anime(object=50, frames=4, loops=True, tracks=tracks, fobjs=[fobj(2, LEG0, pos=(3, 0, 0))])
    objects.make_anime_index(data, scene())
    objects.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    kept = objects.keep()
    heap = objects.g.heap.ptr
    objects.start_playback(256)
    objects.play(256, 9)
    objects.restore(kept)
    assert objects.g.heap.ptr == heap                     # the works' allocations are undone too
    objects.start_playback(384)
    again = objects.play(384, 9)
    objects.restore(kept)
    fresh = ob.Objects(objects.g)
    fresh.make_anime_index(data, scene())
    fresh.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    fresh.same_as(kept)
    fresh.start_playback(384)
    want = fresh.play(384, 9)
    assert again[0] == want[0] and again[1].calls() == want[1].calls()
    objects.restore(kept)
    objects.g.m.write_u32(objects.table().addresses[("made", 0)] + ob.OBJ_LOCAL + 48, 0x3F800000)
    with pytest.raises(HarnessError, match="one table for every playback"):
        objects.same_as(kept)


def test_the_object_hooks_are_installed_once_per_machine_and_follow_the_last_driver_made(objects):
    """ObjectHooks: a second driver on the same machine takes the hooks the first installed
    (no hook goes in or out), so that the first is no longer hooked and ccObj::Init reaches the
    second; a hook another party puts at one of their addresses makes the next driver install
    them afresh."""
    m = objects.g.m
    handles = dict(m.hooks._handles)
    second = ob.Objects(objects.g)
    assert dict(m.hooks._handles) == handles
    assert second.hooked() and not objects.hooked()
    second.make_anime_index(chunk(), scene())
    second.set_anm(anm_matrix=ANM_MATRIX, anm_tp=ANM_TP)
    assert second.inits and not objects.inits
    m.hooks.add("tap", addr=second.sym[ob.MODEL_DRAW])
    assert not second.hooked()
    third = ob.Objects(objects.g)
    assert third.hooked() and m.hooks.taps[third.sym[ob.MODEL_DRAW]] is third._model_calls
