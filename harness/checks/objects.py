"""Objects check: MakeAnimeIndex's list, count and parent slots; SetAnm's table (each entry's
identity, kind and flags, the claims cleared, the node tables, the parents, the ccObj::Init calls);
Draw's draw set with the alpha bits passed; what DeleteAnmIndex frees (anim-objects.md §2.4, §3.6
level 1, §4.3, §5.2). Everything is an integer or an identity: compared exactly.
"""
from corpus.objects import scene as scene_of, Scene as CorpusScene
from harness.checks import Check
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.driver import objects as drv
from reference import objects as ref

# DECISION: the anm's transparency (+0x88) for the draw-set compare is 0.75, not 1.0, so that a
# Draw that passes a constant 1.0 instead of the anm's word is told apart.
ANM_TP = 0x3F400000
INDEX_KIND = "index entries"


def applies(case):
    """anim-objects.md §2.4: a chunk whose records name any object (anim: the reference's model or
    the parsed Anime itself, as the edge chunks' selection passes it)."""
    return bool(ref.index_objects(getattr(case.anim, "anime", case.anim)))


def scene_of_case(ch) -> CorpusScene:
    """The member's scene. DECISION: a synthetic case with no member file has an empty scene: every
    entry names no chunk, which SetAnm leaves without an object (flags 0)."""
    f = getattr(ch, "file", None)
    return scene_of(f) if f is not None else CorpusScene()


def driver_scene(sc: CorpusScene, f) -> drv.Scene:
    """The driver's view of a member's scene (harness/driver/objects.py)."""
    names = dict(f.names) if f is not None else {}
    count = max([0, *names, *sc.kinds]) + 1
    return drv.Scene(
        kinds=dict(sc.kinds), object_count=count,
        objs={o: (sc.parents.get(o, 0), m) for o, m in sc.obj_models.items()},
        ext={o: (sc.parents.get(o, 0), t) for o, t in sc.ext.items() if sc.kind(o) == drv.KIND_EXT},
        effs={o: sc.parents.get(o, 0) for o, k in sc.kinds.items() if k in (drv.KIND_PARTICLE, drv.KIND_EFF)},
        clumps=[(c, list(n)) for c, n in sc.clumps],
        models={o: (sc.mtypes.get(o, 0), list(sc.model_nodes.get(o, ()))) for o, k in sc.kinds.items()
                if k == drv.KIND_MODEL},
        names=names)


def build(case, anm_matrix=drv.IDENTITY):
    """(driver Objects, corpus scene, reference index, reference table, game's Index, game's Table)."""
    game, ch, anim = case.game, case.ch, case.anim
    sc = scene_of_case(ch)
    ob = drv.Objects(game)
    got_index = ob.make_anime_index(ch.data, driver_scene(sc, getattr(ch, "file", None)))
    want_index = ref.make_anime_index(anim.anime, sc)
    got_table = ob.set_anm(anm_matrix=anm_matrix, anm_tp=ANM_TP)
    return ob, sc, want_index, ref.set_anm(want_index, sc), got_index, got_table


def run(case):
    ctx, tally = case.ctx, case.tally
    ob, sc, want_index, want, got_index, got = build(case)

    def fail(field, e, g, position=None, **context):
        if position is not None:
            context["entry"] = position
        tally.fail(record(ctx, "objects", field, plain(e), plain(g), floats=False,
                          object=want_index[position].object if position is not None and position < len(want_index)
                          else None, context=context))

    ok = compare_index(want_index, got_index, fail)
    tally.count("objects index entries", len(want_index))
    if not ok:
        return                      # a wrong list makes every later compare a consequence of it
    compare_table(want, got, fail)
    want_draws = ref.draw_set(want, ANM_TP)
    got_draws = [(c.kind, c.identity, c.tp) for c in ob.draw()]
    if got_draws != want_draws:
        fail("draw set", want_draws, got_draws)
    tally.count("objects draw calls", len(want_draws))
    frees = ob.delete_anm_index()
    want_frees = ref.delete_frees(want)
    if frees.calls != want_frees:
        fail("frees", want_frees, frees.calls)
    if frees.anm_index != 0:
        fail("ccAnm +0xAC after DeleteAnmIndex", 0, frees.anm_index)
    tally.count("objects frees", len(want_frees))
    count_patterns(sc, want_index, want, tally)
    for i in range(len(want_index)):
        mark(tally, INDEX_KIND, i)


def compare_index(want, got, fail) -> bool:
    """§2.4: the list (object and own kind per entry), the count at +0x20, every parent slot."""
    ok = True
    if got.count != len(want) or len(got.objects) != len(want):
        fail("index count", len(want), got.count)
        ok = False
    for i, (w, o, k) in enumerate(zip(want, got.objects, got.kinds)):
        if (w.object, w.kind) != (o, k):
            fail("index entry", [w.object, w.kind], [o, k], i)
            ok = False
    for i, (w, p) in enumerate(zip(want, got.parents)):
        if w.parent != p:
            fail("parent slot", w.parent, p, i)
    return ok


def compare_table(want, got, fail):
    """§3.6 level 1: per entry (+0x04 identity, +0x08, +0x0A) and its object's +0x80; no claim left;
    each model's node table and bit 0x40; the ccObj::Init calls in order."""
    for i, (w, g) in enumerate(zip(want.entries, got.entries)):
        if (w.identity, w.kind, w.flags) != tuple(g[:3]):
            fail("entry", [w.identity, w.kind, w.flags], list(g[:3]), i)
    if len(got.entries) != len(want.entries):
        fail("entries", len(want.entries), len(got.entries))
    for i, (w, g) in enumerate(zip(want.parents, got.parents)):
        if w != g:
            fail("parent", w, g, i)
    if got.claims:
        fail("claims left", [], got.claims)
    for model, (flags, table) in sorted(got.node_tables.items()):
        w = want.node_tables.get(model)
        if bool(flags & ref.MODEL_NODE_TABLE) != (w is not None):
            fail("model +0x24 bit 0x40", w is not None, bool(flags & ref.MODEL_NODE_TABLE), model=model)
        if w is not None and tuple(table or ()) != w:
            fail("node table", list(w), table, model=model)
    want_inits = list(enumerate(want.inits))
    if [tuple(x) for x in got.inits] != want_inits:
        fail("ccObj::Init calls", want_inits, got.inits)


def count_patterns(sc, index, table, tally):
    """The counters of the named patterns of anim-objects.md §3.6 that this chunk exercises."""
    claimed = [e for e in table.entries if e.identity[0] == "node"]
    nodes = {n for _c, ns in sc.clumps for n in ns}
    drawn = {e.identity for e in table.entries if e.flags & ref.F_DRAW}
    named = {ref.external(sc, e.object) for e in index}
    counts = {
        "objects pattern: last entry wins a node": sum(
            1 for i, e in enumerate(index) if table.entries[i].flags == ref.F_MADE
            and ref.external(sc, e.object) in nodes),
        "objects pattern: ExtObj copies drawn": sum(1 for i, e in enumerate(index)
                                            if e.kind == ref.K_EXTOBJ and table.entries[i].flags & ref.F_DRAW),
        "objects pattern: clump nodes no clip entry names": sum(1 for n in nodes if n not in named),
        "objects pattern: made objects in no clump": sum(1 for i, e in enumerate(index) if table.entries[i].flags == ref.F_MADE
                                                 and ref.external(sc, e.object) not in nodes),
        "objects pattern: bone or skin node tables": len(table.node_tables),
        "objects pattern: node tables over 49 nodes": sum(1 for t in table.node_tables.values() if len(t) >= 49),
        "objects pattern: nodes with a model left unnamed": sum(
            1 for n in nodes if n not in named and sc.obj_models.get(n) and sc.kind(sc.obj_models[n]) == ref.K_MODEL),
        "objects pattern: models no clip names": sum(1 for m, k in sc.kinds.items() if k == ref.K_MODEL
                                             and not any(table.models.get(x) == m for x in drawn)),
        "objects pattern: Eff entries": sum(1 for e in table.entries if e.kind == ref.K_EFF),
        "objects pattern: clump nodes drawn": len(claimed),
    }
    for k, v in counts.items():
        if v:
            tally.count(k, v)


def plain(v):
    """Identities (tuples) and lists of them as JSON lists."""
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    return v


CHECK = Check("objects", order=6, kinds=("object", "material", "morph", "note", "fobj"), applies=applies,
              run=run)
