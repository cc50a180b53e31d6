"""MakeAnimeIndex, SetAnm, Draw and DeleteAnmIndex as the reference models them (anim-objects.md §2-§5)."""
from corpus.anime import build_anime, fobj, keyed, material_track, note, obj_track, one, parse_anime
from corpus.objects import Scene
from reference import eefloat
from reference import objects as O
from reference.rotation import IDENTITY16, mul_matrix

# objects: 3 body, 4 leg, 5 leg copy (ExtObj of 4 under 3), 6 sword (in no clump), 7 eff,
# 8 material, 9 bone model, 10 model, 11 body copy (ExtObj of 3)


def scene(**kw):
    s = Scene(kinds={3: 0x100, 4: 0x100, 5: 0xA00, 6: 0x100, 7: 0xE00, 8: 0x200, 9: 0x800, 10: 0x800,
                     11: 0xA00, 20: 0x900},
              parents={3: 0, 4: 3, 5: 11, 6: 3, 7: 0, 11: 0}, obj_models={3: 9, 4: 10, 6: 10},
              ext={5: 4, 11: 3}, clumps=[(20, (3, 4))], mtypes={9: 4, 10: 0},
              model_nodes={9: (3, 4)}, effs=(7,))
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def anime(*tracks, notes=(), fobjs=(), materials=()):
    return parse_anime(build_anime(object=1, frames=4, tracks=list(tracks), notes=list(notes),
                                   fobjs=list(fobjs), materials=list(materials)))


def test_index_lists_each_object_once_in_first_named_order_and_extobj_copies_apart():
    """§2.2 item 1: a note and a material name their object once; an ExtObj copy is its own entry;
    the lc order is the order records are first met, file order."""
    a = anime(obj_track(3, pos=one(1, 2, 3)), obj_track(5, pos=one(0, 0, 0)), materials=[material_track(8, u=one(0.5))],
              notes=[note(1, 1, 0, 3), note(2, 1, 0, 7)])
    idx = O.make_anime_index(a, scene())
    assert [(e.object, e.kind) for e in idx] == [(3, 0x100), (5, 0xA00), (8, 0x200), (7, 0xE00)]


def test_parent_slot_is_the_parents_entry_position_or_minus_one():
    """§2.2 item 2: the slot names the entry of the chunk's parent; -1 when the clip does not name
    the parent or there is none; the ExtObj's own parent field is read, not its target's."""
    a = anime(obj_track(4, pos=one(0, 0, 0)), obj_track(3, pos=one(0, 0, 0)), obj_track(5, pos=one(0, 0, 0)),
              obj_track(6, pos=one(0, 0, 0)))
    idx = O.make_anime_index(a, scene())
    assert [e.parent for e in idx] == [1, -1, -1, 1]       # 5's parent is 11, which the clip does not name


def test_last_entry_wins_a_node_and_a_made_copy_hangs_under_its_own_parent():
    """§3.3 steps 2-4, 6: two entries name leg 4 (itself and the copy 5): the copy, later, takes
    the clump node; the leg's own entry gets a made ccObj; the sword in no clump is made too."""
    a = anime(obj_track(3, pos=one(0, 0, 0)), obj_track(4, pos=one(0, 0, 0)), obj_track(11, pos=one(0, 0, 0)),
              obj_track(5, pos=one(0, 0, 0)), obj_track(6, pos=one(0, 0, 0)))
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    assert [(e.identity, e.kind, e.flags) for e in t.entries] == [
        (("made", 0), 0x100, 7),          # the body: its node went to the later copy 11
        (("made", 1), 0x100, 7),          # the leg: its node went to the later copy 5
        (("node", 3), 0x100, 6), (("node", 4), 0x100, 6), (("made", 2), 0x100, 7)]
    assert t.inits == [3, 4, 6]
    assert t.parents == [("anm",), ("made", 0), ("anm",), ("node", 3), ("made", 0)]


def test_bone_model_of_a_made_object_gets_a_node_table_of_the_claiming_entries():
    """§3.3 step 5: the made body (model 9, mtype 4) gets a table: node 3 → the claim of 3 (the
    last entry naming it), node 4 → none (no entry claims it); model 9 is marked 0x40."""
    a = anime(obj_track(3, pos=one(0, 0, 0)), obj_track(11, pos=one(0, 0, 0)))
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    assert t.node_tables == {9: (("node", 3), ("none",))}


def test_draw_set_is_flag_4_entries_of_obj_and_eff_in_index_order_with_the_anms_alpha():
    """§4.2: kinds 0x100 (with ccAnm +0x88 as it is) and 0xE00; a material draws nothing."""
    a = anime(obj_track(3, pos=one(0, 0, 0)), materials=[material_track(8, u=one(0.5))],
              fobjs=[fobj(1, 7)])
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    assert [(e.identity, e.flags) for e in t.entries] == [(("node", 3), 6), (("instance", 8), 0),
                                                          (("instance", 7), 6)]   # the eff's ccEffObj
    assert O.draw_set(t, 0x3F000000) == [(0x100, ("node", 3), 0x3F000000), (0xE00, ("instance", 7), None)]


def test_delete_frees_made_objects_never_a_clump_node():
    """§5.2: the frees are the flags-7 objects; a clump node (flags 6) is never freed."""
    a = anime(obj_track(3, pos=one(0, 0, 0)), obj_track(6, pos=one(0, 0, 0)))
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    assert [e.identity for e in t.entries] == [("node", 3), ("made", 0)]
    assert O.delete_frees(t) == [("__dl__FPv", ("made", 0)), ("ccFree__FPv", ("entries",))]


def test_chain_composes_parent_then_local_in_ee_arithmetic():
    """§4.2 (_SetLWMatrix): a child's matrix is sceVu0MulMatrix(parent's, local), down to the anm;
    ccModel::Draw gets f_mul(localtp, the anm's tp)."""
    o = eefloat.ops("hw")
    a = anime(obj_track(3, pos=one(0, 0, 0)), obj_track(6, pos=one(0, 0, 0)))
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    two = list(IDENTITY16)
    two[0] = two[5] = 0x40000000
    move = list(IDENTITY16)
    move[12] = 0x3F800000
    anm = list(IDENTITY16)
    anm[13] = 0x40400000
    calls = O.world_draws(t, {("node", 3): two, ("made", 0): move}, {("made", 0): 0x3F000000}, anm,
                          0x3F400000, o)
    (b, wb, ab), (s_, ws, as_) = calls
    assert (b, s_) == (("node", 3), ("made", 0))
    assert wb == mul_matrix(anm, two, o) and ws == mul_matrix(wb, move, o)
    assert ws[12] == 0x40000000 and ws[13] == 0x40400000   # x = 2·1, y = 3
    assert (ab, as_) == (0x3F400000, 0x3EC00000)          # 1 x 0.75, 0.5 x 0.75


def test_batched_chain_equals_the_step_by_step_one_under_both_float_models():
    """world_series over n steps is world_draws at each step, bit for bit (kernel and Python)."""
    import numpy as np
    from reference import kernels as K
    a = anime(obj_track(3, pos=one(0, 0, 0)), obj_track(6, pos=one(0, 0, 0)))
    t = O.set_anm(O.make_anime_index(a, scene()), scene())
    rng = np.random.default_rng(5)
    n = 6
    L = {("node", 3): rng.integers(0x3D000000, 0x40800000, (n, 16), dtype=np.uint32),
         ("made", 0): rng.integers(0xBD000000, 0xC0800000, (n, 16), dtype=np.uint32)}
    tps = {("made", 0): rng.integers(0x3E000000, 0x3F800000, n, dtype=np.uint32)}
    anm = [int(x) for x in rng.integers(0x3E000000, 0x40000000, 16)]
    for model in ("hw", "trunc"):
        o = eefloat.ops(model)
        for kern in (None, K.native()):
            got = O.world_series(t, L, tps, anm, 0x3F400000, n, model, kern, o)
            for k in range(n):
                want = O.world_draws(t, {i: [int(x) for x in v[k]] for i, v in L.items()},
                                     {i: int(v[k]) for i, v in tps.items()}, anm, 0x3F400000, o)
                assert [(i, tuple(int(x) for x in w[k]), int(al[k])) for i, w, al in got] == want


def test_an_effect_goes_to_the_last_entry_naming_it_and_the_loser_keeps_flags_1():
    """§3.3 step 2 (last entry wins) for an Eff: the ccEffObj's claimant is drawn and hung (6)."""
    sc = scene()
    sc.kinds[12], sc.ext[12], sc.parents[12] = 0xA00, 7, 0
    a = anime(fobjs=[fobj(1, 7), fobj(1, 12)])
    t = O.set_anm(O.make_anime_index(a, sc), sc)
    assert [(e.identity, e.kind, e.flags) for e in t.entries] == [(("instance", 7), 0xE00, 1),
                                                                  (("instance", 7), 0xE00, 6)]
    assert O.draw_set(t, 0x3F800000) == [(0xE00, ("instance", 7), None)]


def test_world_series_composes_down_each_chain_parents_first_and_cuts_a_parent_cycle_at_the_anm():
    """A chain three deep, a cycle (A under B under A) met first through C under A, and an object
    straight under the anm: each world is its parent's ⊗ its local, the cycle closed at the anm
    where the walk from the first drawn object meets it again (B = anm ⊗ L_B, A = B ⊗ L_A)."""
    import numpy as np
    from reference import kernels as K
    A, B, C, D = ("made", 0), ("made", 1), ("made", 2), ("node", 5)
    entries = [O.Entry(x, 0x100, O.F_MADE) for x in (C, A, B, D)]
    t = O.Table(entries, [None] * 4, [], {}, models={x: 10 for x in (A, B, C, D)},
                hung={A: B, B: A, C: A, D: O.ANM})
    rng = np.random.default_rng(9)
    n = 5
    L = {x: rng.integers(0x3D000000, 0x40800000, (n, 16), dtype=np.uint32) for x in (A, B, C, D)}
    anm = [int(x) for x in rng.integers(0x3E000000, 0x40000000, 16)]
    for model in ("hw", "trunc"):
        o = eefloat.ops(model)
        for kern in (None, K.native()):
            got = {i: w for i, w, _ in O.world_series(t, L, {}, anm, 0x3F400000, n, model, kern, o)}
            assert list(got) == [C, A, B, D]
            for k in range(n):
                loc = {x: tuple(int(v) for v in L[x][k]) for x in L}
                wb = mul_matrix(anm, loc[B], o)
                wa = mul_matrix(wb, loc[A], o)
                want = {B: wb, A: wa, C: mul_matrix(wa, loc[C], o), D: mul_matrix(anm, loc[D], o)}
                assert {x: tuple(int(v) for v in got[x][k]) for x in got} == want


def test_several_playbacks_posed_in_one_batch_are_each_playback_posed_alone():
    """pose_playbacks: the steps of several playbacks (each from time 0 on the table SetAnm left)
    are the rows of one batch, and each playback's rows are what pose_series gives it alone:
    the works' local matrices and localtps, an F_Obj pose held until the object's work next
    evaluates, and nothing held from one playback into the next."""
    from reference import Animation
    data = build_anime(object=1, frames=6, loops=True,
                       tracks=[obj_track(3, pos=keyed((0, 0, 0, 0), (5, 4, 2, 1)), rot=keyed((0, 0, 0, 0), (5, 1, 2, 3))),
                               obj_track(4, pos=one(1, 2, 3), alpha=keyed((0, 1), (4, 0.25)))],
                       fobjs=[fobj(2, 4, pos=(7, 7, 7)), fobj(3, 6, pos=(1, 2, 3), alpha=0.5)])
    anim = Animation.parse(data, ext={5: 4, 11: 3})
    sc = scene()
    index = O.make_anime_index(anim.anime, sc)
    table = O.set_anm(index, sc)
    playbacks = [(0x3F800000, 9), (0x40400000, 5), (0x3F000000, 11)]     # 1, 3 and 0.5 frames a step
    runs, L, A, keyed_ = O.pose_playbacks(anim, index, table, playbacks)
    assert sum(len(r) for r in runs) == sum(n for _, n in playbacks)
    base = 0
    for (speed, n), fws in zip(playbacks, runs):
        one_fws, one_L, one_A, one_keyed = O.pose_series(anim, index, table, speed, n)
        assert [(f.time, f.pose_at) for f in fws] == [(f.time, f.pose_at) for f in one_fws]
        assert set(one_L) == set(L) and one_keyed == keyed_
        for ident in L:
            assert (L[ident][base:base + n] == one_L[ident]).all(), (speed, ident)
            assert (A[ident][base:base + n] == one_A[ident]).all(), (speed, ident)
        base += n
    assert keyed_ and any((A[i] != 0x3F800000).any() for i in A)          # keyed rotation, a non-1 localtp


def test_a_keyed_tracks_local_words_are_its_double_local_matrix_rounded_to_single_column_major():
    """pose_blocks' keyed_words: each keyed track's local matrix is animation.local_doubles's
    (math orientation) rounded to single, word 4c + r holding element (r, c), over rotations of
    every magnitude and scale and position words that are signed zeros or E = 255 patterns."""
    import numpy as np
    from types import SimpleNamespace
    from reference.animation import local_doubles
    rng = np.random.default_rng(4)
    for _ in range(100):
        n, ntr = int(rng.integers(1, 30)), int(rng.integers(1, 6))
        rot = rng.standard_normal((n, ntr, 3, 3)) * np.exp(rng.standard_normal((n, ntr, 3, 3)) * 20)
        chan = rng.integers(0, 2 ** 32, (n, ntr, 7), dtype=np.uint64).astype(np.uint32)
        chan[rng.random(chan.shape) < 0.1] = 0x80000000
        chan[rng.random(chan.shape) < 0.05] = 0x7F800001
        k = sorted(set(rng.integers(0, ntr, int(rng.integers(1, ntr + 1))).tolist()))
        d = local_doubles(rot[:, k].reshape(-1, 3, 3), chan[:, k, 3:6], chan[:, k, 0:3])
        with np.errstate(over="ignore"):
            want = d.swapaxes(1, 2).reshape(n, len(k), 16).astype(np.float32).view(np.uint32)
            got = O.keyed_words(SimpleNamespace(rot=rot, chan=chan), k)
        assert np.array_equal(want, got)


def _world_level_by_level(t, L, anm, n, model, kern):
    """world_series' words as the reference composed them before one kernel call did every chain:
    the walk from each drawn object in index order (a cycle cut where it closes, at the anm), then
    one sceVu0MulMatrix batch (kernels.mul_matrices) per object, parents first."""
    import numpy as np
    out, up = {O.ANM: np.tile(np.asarray(anm, dtype=np.uint32), (n, 1))}, {}

    def walk(obj):              # up the chain to a composed object, the anm, nothing or a cycle
        path = [obj]
        while path[-1] not in up and path[-1] not in out and t.hung.get(path[-1]) not in (None, *path):
            path.append(t.hung[path[-1]])
        if path[-1] in up or path[-1] in out:
            path.pop()
        for k in range(len(path) - 1, -1, -1):
            top = t.hung.get(path[k])
            up[path[k]] = path[k + 1] if k + 1 < len(path) else O.ANM if top in path else top

    def local(obj):
        if obj[0] in ("node", "made"):
            return L[obj] if obj in L else np.tile(np.asarray(IDENTITY16, dtype=np.uint32), (n, 1))
        return np.zeros((n, 16), dtype=np.uint32)

    drawn = [i for kind, i, _ in O.draw_set(t, 0x3F800000) if kind == 0x100 and t.models.get(i, 0)]
    for obj in drawn:
        walk(obj)
    for obj, parent in up.items():
        out[obj] = local(obj) if parent is None else kern.mul_matrices(model, out[parent], local(obj))
    return {i: out[i] for i in drawn}


def test_one_kernel_call_per_series_gives_the_words_of_one_batch_per_object_on_random_tables():
    """Every chain composed in one kernel call (kernels.world_series) is, word for word, the
    object-by-object composition, on 400 random tables per float model: made objects, clump nodes
    and other chunks' instances (a zeroed local), posed or at Init's identity, hung under one
    another, under the anm, on nothing, or in cycles, drawn or not, over 0 to 7 steps."""
    import numpy as np
    from reference import kernels as K
    kern = K.native()
    assert kern is not None, "the compiled kernels did not build"
    for model in ("hw", "trunc"):
        o = eefloat.ops(model)
        rng = np.random.default_rng(39 if model == "hw" else 40)
        for _ in range(400):
            m, n = int(rng.integers(1, 13)), int(rng.integers(0, 8))
            ids = [(("made", "node", "instance")[int(rng.integers(0, 3))], j) for j in range(m)]
            hung = {}
            for x in ids:
                r = rng.random()
                if r < 0.6:
                    hung[x] = ids[int(rng.integers(0, m))]
                elif r < 0.85:
                    hung[x] = O.ANM
            entries = [O.Entry(x, 0x100 if rng.random() < 0.9 else 0xE00,
                               O.F_MADE if rng.random() < 0.8 else O.F_NAMED) for x in ids]
            t = O.Table(entries, [None] * m, [], {}, models={x: int(rng.integers(0, 3)) for x in ids}, hung=hung)
            L = {x: rng.integers(0, 1 << 32, (n, 16), dtype=np.uint64).astype(np.uint32)
                 for x in ids if rng.random() < 0.7}
            anm = [int(x) for x in rng.integers(0x3E000000, 0x40000000, 16)]
            got = {i: w for i, w, _ in O.world_series(t, L, {}, anm, 0x3F400000, n, model, kern, o)}
            want = _world_level_by_level(t, L, anm, n, model, kern)
            assert list(got) == list(want)
            for i in want:
                assert got[i].shape == (n, 16) and np.array_equal(got[i], want[i]), (model, i)


def test_the_series_kernel_refuses_a_parent_listed_after_its_child_and_locals_of_another_length():
    import numpy as np
    import pytest
    from reference import kernels as K
    kern = K.native()
    assert kern is not None, "the compiled kernels did not build"
    anm = np.zeros((3, 16), dtype=np.uint32)
    with pytest.raises(ValueError, match="parent after its child"):
        kern.world_series("hw", anm, [2, 0], [np.zeros((3, 16), dtype=np.uint32)] * 2)
    with pytest.raises(ValueError, match="local words"):
        kern.world_series("hw", anm, [0], [np.zeros((2, 16), dtype=np.uint32)])
