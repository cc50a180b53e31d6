"""Objects check: MakeAnimeIndex's list, count and parent slots; SetAnm's table (each entry's
identity, kind and flags, the claims cleared, the node tables, the parents, the ccObj::Init calls);
Draw's draw set with the alpha bits passed; what DeleteAnmIndex frees (anim-objects.md §2.4, §3.6
level 1, §4.3, §5.2). Everything is an integer or an identity: compared exactly.
"""
from types import SimpleNamespace

from corpus.objects import scene as scene_of, Scene as CorpusScene
from ground.vocabulary import RECORD_KINDS
from harness.checks import Check, QueryKind
from harness.compare.ledger import mark
from harness.compare.mismatch import record
from harness.driver import objects as drv
from reference import objects as ref, serve

# DECISION: the anm's transparency (+0x88) for the draw-set compare is 0.75, not 1.0, so that a
# Draw that passes a constant 1.0 instead of the anm's word is told apart.
ANM_TP = 0x3F400000
# DECISION: the anm at (10, -5, 0.5), a non-trivial root for the world matrices (checks/world.py);
# the objects check's table is built on the same anm, so that one build serves both checks.
ANM_MATRIX = (0x3F800000, 0, 0, 0, 0, 0x3F800000, 0, 0, 0, 0, 0x3F800000, 0, 0x41200000, 0xC0A00000,
              0x3F000000, 0x3F800000)
INDEX_KIND = "index entries"


def applies(case):
    """anim-objects.md §2.4: a chunk whose records name any object (anim: the reference's model or
    the parsed Anime itself, as the edge chunks' selection passes it)."""
    return bool(ref.index_objects(getattr(case.anim, "anime", case.anim)))


def scene_of_case(ch) -> CorpusScene:
    """The member's scene: the corpus index's (or the task's) when the chunk carries one, else read
    from the member file. DECISION: a synthetic case with no member file has an empty scene: every
    entry names no chunk, which SetAnm leaves without an object (flags 0)."""
    if kept_scene(ch):
        return ch.scene
    f = member_file(ch)
    return scene_of(f) if f is not None else CorpusScene()


def kept_scene(ch) -> bool:
    """Whether the chunk carries its member's scene (a corpus chunk, a task's chunk), so that
    neither the scene nor the test for a member inflates the member."""
    return isinstance(getattr(type(ch), "scene", None), property)


def member_file(ch):
    """The chunk's parsed member, or None for a case built by code (an edge chunk has none)."""
    try:
        return getattr(ch, "file", None)
    except ValueError:
        return None


def driver_scene(sc: CorpusScene, names, anime) -> drv.Scene:
    """The driver's view of a member's scene (harness/driver/objects.py), `names` the member's
    object names ({} for a case with no member). DECISION: the stream's object count covers every
    object the member names and every object the clip names, so an object named by the clip alone
    (a case built by code has no member) is an index entry with no chunk, as the reference has it."""
    names = dict(names)
    count = max([0, *names, *sc.kinds, *(o for o, _ in ref.index_objects(anime))]) + 1
    return drv.Scene(
        kinds=dict(sc.kinds), object_count=count,
        objs={o: (sc.parents.get(o, 0), m) for o, m in sc.obj_models.items()},
        ext={o: (sc.parents.get(o, 0), t) for o, t in sc.ext.items() if sc.kind(o) == drv.KIND_EXT},
        effs={o: sc.parents.get(o, 0) for o, k in sc.kinds.items() if k in (drv.KIND_PARTICLE, drv.KIND_EFF)},
        clumps=[(c, list(n)) for c, n in sc.clumps],
        models={o: (sc.mtypes.get(o, 0), list(sc.model_nodes.get(o, ()))) for o, k in sc.kinds.items()
                if k == drv.KIND_MODEL},
        names=names)


def build(case, anm_matrix=ANM_MATRIX):
    """(driver Objects, corpus scene, reference index, reference table, game's Index, game's Table)."""
    game, ch, anim = case.game, case.ch, case.anim
    sc = scene_of_case(ch)
    ob = drv.Objects(game)
    # the member's names as the corpus index keeps them (the member's index chunk is not parsed)
    names = ch.names if kept_scene(ch) or member_file(ch) is not None else {}
    got_index = ob.make_anime_index(ch.data, driver_scene(sc, names, anim.anime))
    want_index = ref.make_anime_index(anim.anime, sc)
    got_table = ob.set_anm(anm_matrix=anm_matrix, anm_tp=ANM_TP)
    return ob, sc, want_index, ref.set_anm(want_index, sc), got_index, got_table


# DECISION: one MakeAnimeIndex and SetAnm per chunk serve the objects and the world checks: the
# first of them on a chunk builds and keeps the state SetAnm left (Objects.keep); the next one on
# the same game, chunk and parse restores it (its driver's hooks still installed), and under a
# profile's reload builds afresh and requires that state to equal the kept one (Objects.same_as).
_last_build = None           # (game, chunk, parse, build(...), kept state)


def built(case):
    """build(case) and the state it kept: (driver Objects, corpus scene, reference index,
    reference table, game's Index, game's Table, kept), the game's table as SetAnm left it."""
    global _last_build
    last = _last_build
    if last is not None and last[0] is case.game and last[1] is case.ch and last[2] is case.anim \
            and last[3][0].hooked():
        b, kept = last[3], last[4]
        b[0].restore(kept)
        if case.game.reload:
            b = build(case)
            b[0].same_as(kept)
            _last_build = (case.game, case.ch, case.anim, b, kept)
        return (*b, kept)
    _last_build = None
    b = build(case)
    kept = b[0].keep()
    _last_build = (case.game, case.ch, case.anim, b, kept)
    return (*b, kept)


def table_agrees(want_index, want, got_index, got) -> bool:
    """Whether SetAnm's table is the reference's: the entries' identities, kinds and flags, the
    hung objects' parents and the index's parent slots (the world matrices are compared then)."""
    return ([(e.identity, e.kind, e.flags) for e in want.entries] == [tuple(g[:3]) for g in got.entries]
            and want.parents == got.parents and got_index.parents == [e.parent for e in want_index])


# DECISION: one playback of SetAnm's table serves the playback and the world checks of a chunk
# (issue 39: the two played the same chunk at the same speeds twice). When the world check runs
# after the playback check on the same game, chunk and parse, the playback check plays each of its
# playbacks that the world check's plan also has on SetAnm's table, as the world check plays it
# (table_playback), and reads its posed objects' words gathered after each _AnimateForward; the
# forward and the Draws are kept here for the world check of that chunk, which compares them as
# if it had played them. A playback the world check's plan has that none shared, it plays itself.
_shared = None          # (game, chunk, parse, {(speed, steps): (forward, Draws)})


def shared_playbacks(case) -> dict:
    """{(speed, steps): (forward, Draws)} played for this case's chunk on SetAnm's table by a
    check before (table_playback), handed over once: the next call on the chunk has none."""
    global _shared
    last, _shared = _shared, None
    if last is not None and last[0] is case.game and last[1] is case.ch and last[2] is case.anim:
        return last[3]
    return {}


def table_playback(case, speed, n, offsets, gathered, cleared=()):
    """The playback of n steps of `speed` on SetAnm's table as the world check plays it (from the
    state SetAnm left, restored, every step followed by a Draw), with words of the objects of
    the entries gathered(entries, works) names gathered after each _AnimateForward (entries: the
    index's, as Game.load gives them; works: the positions that get a work; it says (positions,
    [(position, offsets of its own)]): the words at `offsets` of the first positions' objects,
    then each further position's object's own words): (the entries, the address of the object
    each holds, [time, return value] per step, those words (n, words) uint32), its forward and
    Draws kept for the world check (shared_playbacks); the words at `cleared` of the first
    positions' objects are set to 0 before their works are made. None, nothing played, when
    SetAnm's table is not the reference's (the world check plays nothing then), gathered says
    None, or two of the positions named hold one object or none."""
    global _shared
    ob, _, want_index, want, got_index, got, _ = built(case)
    if not table_agrees(want_index, want, got_index, got):
        return None
    entries = ob.index_entries()
    named = gathered(entries, set(ob.work_positions()))
    if named is None:
        return None
    positions, own = named
    objects = ob.entry_objects()        # SetAnm's; InitAnmCtrlWork leaves them (start_playback checks)
    posed = [objects[p] for p in positions]
    held = posed + [objects[p] for p, _ in own]
    if len(set(held)) != len(held) or 0 in held:
        return None
    clear_words(case.game.m, posed, cleared)
    ob.start_playback(speed)
    addrs = [a + off for a in posed for off in offsets] + [objects[p] + off for p, offs in own for off in offs]
    forward, draws, words = ob.play_gathering(speed, n, addrs)
    if _shared is None or not (_shared[0] is case.game and _shared[1] is case.ch and _shared[2] is case.anim):
        _shared = (case.game, case.ch, case.anim, {})
    _shared[3][(speed, n)] = (forward, draws)
    return entries, objects, forward, words


def clear_words(m, objects, offsets):
    """The u32 words at `offsets` of each of `objects` set to 0, the others left as they are (as a
    write_u32 of 0 at each), in one machine call."""
    if offsets:
        m.zero_u32s([addr + off for addr in objects for off in offsets])


def game_view(ob, got_index, got_table) -> dict:
    """What the game left, in reference.objects.view's form: the index and SetAnm's table (read
    back already), then Draw's calls and DeleteAnmIndex's frees (run here, in that order)."""
    draws = ob.draw()
    frees = ob.delete_anm_index()
    return {"index": [[o, k, p] for o, k, p in zip(got_index.objects, got_index.kinds, got_index.parents)],
            "count": got_index.count,
            "entries": [[plain(i), k, f] for i, k, f, _tag in got_table.entries],
            "parents": [plain(p) if p is not None else None for p in got_table.parents],
            "claims": [[o, w] for o, w in got_table.claims],
            "node_tables": [[m, bool(flags & ref.MODEL_NODE_TABLE), plain(table or [])]
                            for m, (flags, table) in sorted(got_table.node_tables.items())],
            "inits": [[j, o] for j, o in got_table.inits],
            "draws": [[c.kind, plain(c.identity), c.tp] for c in draws],
            "frees": [[f, plain(i)] for f, i in frees.calls], "anm_index": frees.anm_index}


def run(case):
    ctx, tally = case.ctx, case.tally
    ob, sc, want_index, want, got_index, got, _ = built(case)
    got_view = game_view(ob, got_index, got)
    want_view = ref.view(case.anim.anime, sc, ANM_TP, want_index, want)

    def fail(field, e, g, position=None, **context):
        compare_fail(ctx, tally, want_view, field, e, g, position, **context)

    ok = compare_views(want_view, got_view, fail)
    if ok:
        for i in range(len(want_index)):
            mark(tally, INDEX_KIND, i)
    count(sc, got_view, tally, ok)


def count(sc, view, tally, compared):
    """The check's counters from the game's view (the same whether the built-in reference or a
    model answered): its index entries, draw calls and frees, and, once the reference's view
    equalled it, the named patterns it exercises."""
    if compared:
        index = [SimpleNamespace(object=o, kind=k, parent=p) for o, k, p in view["index"]]
        table = SimpleNamespace(
            entries=[SimpleNamespace(identity=tuple(i), kind=k, flags=f) for i, k, f in view["entries"]],
            node_tables={m: t for m, has_table, t in view["node_tables"] if has_table})
        count_patterns(sc, index, table, tally)
    tally.count("objects index entries", view["count"])
    tally.count("objects draw calls", len(view["draws"]))
    tally.count("objects frees", len(view["frees"]))


def compare_fail(ctx, tally, want_view, field, e, g, position=None, **context):
    """One objects mismatch: the entry's position and object named when it has one."""
    if position is not None:
        context["entry"] = position
    index = want_view["index"]
    obj = index[position][0] if position is not None and position < len(index) else None
    tally.fail(record(ctx, "objects", field, plain(e), plain(g), floats=False, object=obj, context=context))


def compare_views(want, got, fail) -> bool:
    """Compare the model's view (reference.objects.view) with the game's (game_view) exactly;
    fail(field, expected, got, position=None, **context) records one mismatch. True when the
    index agrees (a wrong list makes every later compare a consequence of it, so they are skipped)."""
    if got["count"] != want["count"] or len(got["index"]) != len(want["index"]):
        fail("index count", want["count"], got["count"])
        return False
    ok = True
    for i, (w, g) in enumerate(zip(want["index"], got["index"])):
        if w[:2] != g[:2]:
            fail("index entry", w[:2], g[:2], i)
            ok = False
        elif w[2] != g[2]:
            fail("parent slot", w[2], g[2], i)
    if not ok:
        return False
    for i, (w, g) in enumerate(zip(want["entries"], got["entries"])):
        if w != g:
            fail("entry", w, g, i)
    for i, (w, g) in enumerate(zip(want["parents"], got["parents"])):
        if w != g:
            fail("parent", w, g, i)
    if got["claims"]:
        fail("claims left", [], got["claims"])
    tables = {m: (bit, t) for m, bit, t in got["node_tables"]}
    for m, bit, table in want["node_tables"]:
        gbit, gtable = tables.get(m, (None, None))
        if gbit != bit:
            fail("model +0x24 bit 0x40", bit, gbit, model=m)
        elif bit and gtable != table:
            fail("node table", table, gtable, model=m)
    for field in ("inits", "draws", "frees", "anm_index"):
        if want[field] != got[field]:
            fail(FIELD_NAMES[field], want[field], got[field])
    return True


FIELD_NAMES = {"inits": "ccObj::Init calls", "draws": "draw set", "frees": "frees",
               "anm_index": "ccAnm +0xAC after DeleteAnmIndex"}


def count_patterns(sc, index, table, tally):
    """The counters of the named patterns of anim-objects.md §3.6 that this chunk exercises."""
    claimed = [e for e in table.entries if e.identity[0] == "node"]
    nodes = {n for _c, ns in sc.clumps for n in ns}
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
        "objects pattern: ExtObj copies under an ExtObj copy": sum(
            1 for e in index if e.kind == ref.K_EXTOBJ and e.parent >= 0 and index[e.parent].kind == ref.K_EXTOBJ),
        "objects pattern: Eff entries that lost the claim": sum(
            1 for e in table.entries if e.kind == ref.K_EFF and e.flags == ref.F_NAMED),
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


def queries(game, ch, anim, prof, _r):
    """anim-objects.md §2.4-§5.2 as a query (docs/truth.md §3, kind "objects"): the member's scene
    (each object's kind, every Obj's, ExtObj's and Eff's parent, the clumps, the models) and the
    anm's tp; the game's view of the index, SetAnm's table, Draw's calls and DeleteAnmIndex's frees."""
    from harness.checks import Case
    ob, sc, _, _, got_index, got_table = build(Case(anim, prof, game, ch))
    view = game_view(ob, got_index, got_table)
    return [{"kind": "objects", "scene": sc.to_json(), "anm_tp": ANM_TP,
             "ledger": [[INDEX_KIND, i, 1] for i in range(len(view["index"]))], "game": view}]


def compare(q, a, ctx, tally, _anim):
    """A model's view of the anm's objects (`a`) against the game's words of query `q`, as the
    check compares the reference's."""
    ok = compare_views(a, q["game"], lambda field, e, g, position=None, **kw: compare_fail(
        ctx, tally, a, field, e, g, position, **kw))
    count(CorpusScene.from_json(q["scene"]), q["game"], tally, ok)
    return ok


CHECK = Check("objects", order=6, kinds=RECORD_KINDS, applies=applies, run=run, queries=queries,
              query_kinds=(QueryKind("objects", compare, serve.objects),))
