"""The answer of each query kind (docs/truth.md §3), one typed structure per kind.

A model's answer line is decoded into these in one step (msgspec, answer_line()): the line's JSON
is read straight into its kind's fields (the kind picked by the answer's "kind"), each of its
type, every word a whole number in its range, a field missing or of another type named with its
path. What a type cannot say, the sizes the query fixes (so many times, steps, tracks, read
steps), the kind's fit() checks, turning each array of words into the numpy array the comparison
reads. The built-in reference's answers, numpy arrays in the same process, go through fit()
alone. A wrong answer is a Shape naming the field.
"""
from __future__ import annotations

import base64
import functools
import json
from typing import Annotated, Any, Optional, TypedDict, Union

import msgspec
import numpy as np

from corpus.names import printable
from ground import vocabulary

U32 = 0xFFFFFFFF
# DECISION: an answer's array of u32 words may also be one string, "u32:" and the base64 of its
# words little-endian, in the query's shape: the built-in reference's serve answers so (JSON
# lists of ints cost it and the harness more than the model's own work); a list is as good.
PACKED = "u32:"

Word = Annotated[int, msgspec.Meta(ge=0, le=U32)]
U16 = Annotated[int, msgspec.Meta(ge=0, le=0xFFFF)]
S16 = Annotated[int, msgspec.Meta(ge=-32768, le=32767)]
NoteWord = Annotated[int, msgspec.Meta(ge=-(1 << 31), le=U32)]     # an F_Note's object may be -1
Flags = Annotated[int, msgspec.Meta(ge=0, le=3)]
# an array of u32 words: nested lists, or PACKED
Words1 = Union[str, list[Word]]
Words2 = Union[str, list[list[Word]]]
Words3 = Union[str, list[list[list[Word]]]]


class Shape(ValueError):
    pass


class Answer(msgspec.Struct, tag_field="kind"):
    """What every answer holds: the query's i (and, as the tag that picks the kind's structure,
    its kind).

    DECISION: the built-in reference's answers (numpy arrays in the same process, never JSON) are
    not typed again: they go through their kind's fit() alone, whose one numpy pass per array
    checks the words' range as the types do."""
    i: int

    @classmethod
    def fit(cls, q, a: dict) -> None:
        """Raise Shape when answer `a`'s sizes are not those query `q` asks for."""
        raise NotImplementedError(cls.__name__)


class Controller(Answer, tag="controller"):
    pos: Words2
    scale: Words2
    rot: Words2
    alpha: Words1
    localtp: Words1

    @classmethod
    def fit(cls, q, a):
        n = len(q["times"])
        for f, w in (("pos", 3), ("scale", 3), ("rot", 9)):
            _array(a, f, (n, w))
        _array(a, "alpha", (n,))
        _array(a, "localtp", (n,))


class Multistep(Answer, tag="multistep"):
    pos: Words1
    scale: Words1
    rot: Words1
    alpha: Word

    @classmethod
    def fit(cls, q, a):     # noqa: ARG003  (one pose, whatever the query)
        for f, w in (("pos", 3), ("scale", 3), ("rot", 9)):
            _array(a, f, (w,))
        _words([_field(a, "alpha", "alpha")], 1, "alpha")


class Light(Answer, tag="light"):
    words: Words2

    @classmethod
    def fit(cls, q, a):
        _array(a, "words", (len(q["times"]), len(q["fields"])))


class Material(Answer, tag="material"):
    U: Words1
    V: Words1
    u: list[U16]
    v: list[U16]

    @classmethod
    def fit(cls, q, a):
        n = len(q["times"])
        for f in ("U", "V"):
            _array(a, f, (n,))
        for f in ("u", "v"):
            _array(a, f, (n,), 0, 0xFFFF)


class Playback(Answer, tag="playback"):
    forward: Words2
    matrix: Words3
    localtp: Words2
    morph: list[list[list[list[Word]]]]          # [read step][morpher][[target, weight word], ...]

    @classmethod
    def fit(cls, q, a):
        nt, nr, nm = len(q["tracks"]), len(q["read"]), len(q["morph_read"])
        _rows(_field(a, "forward", "forward"), q["steps"], 2, "forward")
        _array(a, "matrix", (nr, nt, 12))
        _array(a, "localtp", (nr, nt))
        morph = _field(a, "morph", "morph")
        if not isinstance(morph, list) or len(morph) != nm:
            raise Shape(f"morph: expected {nm} rows (one per morph read step), got {_kind(morph)}")
        for k, row in enumerate(morph):
            if not isinstance(row, list) or len(row) != len(q["morphers"]):
                raise Shape(f"morph[{k}]: expected {len(q['morphers'])} morphers, got {_kind(row)}")
            for j, pairs in enumerate(row):
                if not isinstance(pairs, list):
                    raise Shape(f"morph[{k}][{j}]: expected a list of [target, weight] pairs")
                for p in pairs:
                    _words(p, 2, f"morph[{k}][{j}]")


class Notes(Answer, tag="notes"):
    forward: Words2
    notes: list[list[list[NoteWord]]]            # [step][note][event, param, time, object]

    @classmethod
    def fit(cls, q, a):
        n = len(q["plan"])
        _rows(_field(a, "forward", "forward"), n, 2, "forward")
        notes = _field(a, "notes", "notes")
        if not isinstance(notes, list) or len(notes) != n:
            raise Shape(f"notes: expected {n} lists (one per step), got {_kind(notes)}")
        for k, step in enumerate(notes):
            if not isinstance(step, list):
                raise Shape(f"notes[{k}]: expected a list of notes")
            for note in step:
                _words(note, 4, f"notes[{k}]", -(1 << 31), U32)


class Pose(TypedDict):
    """An F_Obj pose in force (a dict, as the comparison reads it)."""
    matrix: list[Word]
    localtp: Word
    flags: Flags


class Fobj(Answer, tag="fobj"):
    forward: Words2
    poses: list[list[Optional[Pose]]]            # [read entry][object]: a pose, or null

    @classmethod
    def fit(cls, q, a):
        _rows(_field(a, "forward", "forward"), len(q["plan"]), 2, "forward")
        poses = _field(a, "poses", "poses")
        if not isinstance(poses, list) or len(poses) != len(q["read"]):
            raise Shape(f"poses: expected {len(q['read'])} rows (one per read step), got {_kind(poses)}")
        for k, ((_, objs), row) in enumerate(zip(q["read"], poses)):
            if not isinstance(row, list) or len(row) != len(objs):
                raise Shape(f"poses[{k}]: expected {len(objs)} objects, got {_kind(row)}")
            for j, p in enumerate(row):
                if p is None:
                    continue
                if not isinstance(p, dict):
                    raise Shape(f"poses[{k}][{j}]: expected an object or null")
                _words(_field(p, "matrix", f"poses[{k}][{j}]"), 12, f"poses[{k}][{j}].matrix")
                _words([_field(p, "localtp", f"poses[{k}][{j}]")], 1, f"poses[{k}][{j}].localtp")
                _words([_field(p, "flags", f"poses[{k}][{j}]")], 1, f"poses[{k}][{j}].flags", 0, 3)


class Modify(Answer, tag="modify"):
    vertices: list[list[S16]]

    @classmethod
    def fit(cls, q, a):
        _rows(_field(a, "vertices", "vertices"), len(q["base"]), 3, "vertices", -32768, 32767)


class Objects(Answer, tag="objects"):
    """reference/objects.py view (docs/truth.md §3): OBJECTS_FIELDS, count and anm_index."""
    index: list
    entries: list
    parents: list
    claims: list
    node_tables: list
    inits: list
    draws: list
    frees: list
    count: Word
    anm_index: Word

    @classmethod
    def fit(cls, q, a):     # noqa: ARG003  (the lists' lengths are the model's answer)
        for f in OBJECTS_FIELDS:
            v = _field(a, f, f)
            if not isinstance(v, list):
                raise Shape(f"{f}: expected a list, got {_kind(v)}")
        _words([_field(a, "count", "count")], 1, "count")
        _words([_field(a, "anm_index", "anm_index")], 1, "anm_index")


class World(Answer, tag="world"):
    forward: Words2
    order: list[list]                            # an identity per call
    world: Words3
    alpha: Words2
    pose_at: list[Optional[int]]                 # per step: the time the works evaluate, or null

    @classmethod
    def fit(cls, q, a):
        n = q["steps"]
        _rows(_field(a, "forward", "forward"), n, 2, "forward")
        order = _field(a, "order", "order")
        if not isinstance(order, list) or not all(isinstance(x, list) for x in order):
            raise Shape(f"order: expected a list of identities, got {_kind(order)}")
        _array(a, "world", (len(order), n, 16))
        _array(a, "alpha", (len(order), n))
        pose_at = _field(a, "pose_at", "pose_at")
        if not isinstance(pose_at, list) or len(pose_at) != n:
            raise Shape(f"pose_at: expected {n} times (or nulls), got {_kind(pose_at)}")
        if len(q["bounds"]) != len(order):
            raise Shape(f"order: {len(order)} calls, the game's Draw makes {len(q['bounds'])}")


# the list fields of an "objects" answer (reference/objects.py view, docs/truth.md §3)
OBJECTS_FIELDS = ("index", "entries", "parents", "claims", "node_tables", "inits", "draws", "frees")

# the structures of this module, one per query kind of the checks that declare theirs here (not
# in their QueryKind): taken once, before any structure is made from a declaration
BUILT_IN = {cls.__struct_config__.tag: cls for cls in Answer.__subclasses__()}


def structures(kinds, declared=None) -> dict:
    """query kind -> its answer's structure, for each of `kinds`: this module's (BUILT_IN) and one
    made from each structure a check declares (`declared`: kind -> its QueryKind's structure). A
    kind without one (or with two), or a structure of no kind, is an ImportError naming it."""
    declared = declared or {}
    twice = sorted(set(declared) & set(BUILT_IN))
    out = dict(BUILT_IN, **{k: declared_structure(k, struct) for k, struct in declared.items()})
    if twice or set(out) != set(kinds):
        raise ImportError(f"harness.truth.answers: the query kinds {sorted(set(kinds) ^ set(out)) + twice} have no "
                          f"answer structure (or two), or are no query kind (ground.vocabulary.QUERY_KINDS)")
    return out


@functools.lru_cache(maxsize=None)
def declared_structure(kind, struct):
    """The answer structure of query kind `kind` made from the Struct a check declares (checks.QueryKind):
    its fields after "i", tagged `kind`; its fit(q, a) is the Struct's own (none: the types say all),
    a ValueError it raises a Shape.
    DECISION: a check declares a plain Struct of its answer's fields, never a subclass of Answer:
    harness/checks imports nothing of harness/truth (an import contract), so the tagged structure
    the answer line decodes into is made here from it (msgspec.defstruct), once per kind."""
    fields = []
    for f in msgspec.structs.fields(struct):
        if f.default is not msgspec.NODEFAULT:
            fields.append((f.name, f.type, f.default))
        elif f.default_factory is not msgspec.NODEFAULT:
            fields.append((f.name, f.type, msgspec.field(default_factory=f.default_factory)))
        else:
            fields.append((f.name, f.type))
    own = getattr(struct, "fit", None)

    def fit(_cls, q, a):
        if own is None:
            return
        try:
            own(q, a)
        except Shape:
            raise
        except ValueError as exc:
            raise Shape(str(exc)) from None
    return msgspec.defstruct(struct.__name__, fields, bases=(Answer,), tag=kind, module=struct.__module__,
                             namespace={"fit": classmethod(fit)})


def current() -> dict:
    """query kind -> answer structure, of the query kinds as they are now (ground/vocabulary.py's
    QUERY_KINDS, the checks' declarations, harness/checks); made again only when either changes."""
    from harness import checks
    key = (checks.CHECKS, vocabulary.QUERY_KINDS, tuple(vocabulary.QUERY_KINDS.items()))
    if _CURRENT and all(a is b for a, b in zip(_CURRENT[0][:2], key[:2])) and _CURRENT[0][2] == key[2]:
        return _CURRENT[1]
    out = structures(vocabulary.QUERY_KINDS, {k: kind.structure for k, (_, kind) in checks.query_kinds().items()
                                              if kind.structure is not None})
    _CURRENT[:] = [key, out]
    return out


_CURRENT = []                   # [the key current() made its table for, the table]
current()                       # at import: a query kind without its structure is an ImportError


def answer_line(structures_=None):
    """The decoder of a model's answer line for one chunk, {"chunk", "answers"} or {"chunk",
    "error"}: each answer read straight into its kind's structure (picked by "kind"), of the query
    kinds as they are now (current()) unless given."""
    return _decoder(tuple((structures_ or current()).values()))


@functools.lru_cache(maxsize=None)
def _decoder(structs):
    any_answer = Union[structs]                  # the kind's structure, picked by "kind"
    line = msgspec.defstruct("AnswerLine", [("chunk", Any, None), ("answers", Optional[list[any_answer]], None),
                                            ("error", Any, None)])
    return msgspec.json.Decoder(line)


def as_dict(a: Answer) -> dict:
    """A decoded answer as the dict the comparison reads: {"i", "kind", ...its fields}."""
    return {"i": a.i, "kind": type(a).__struct_config__.tag,
            **{f: getattr(a, f) for f in a.__struct_fields__ if f != "i"}}


def check_shape(q, a):
    """Answer `a` to query `q` (a decoded Answer, or the dict of the built-in reference) as the
    dict the comparison reads, its arrays numpy; Shape when it cannot be the answer to q (a clear
    message: the field)."""
    if isinstance(a, Answer):
        a = as_dict(a)
    same_query(q, a)
    current()[q["kind"]].fit(q, a)
    return a


def same_query(q, a) -> None:
    """Shape unless `a` is an object answering query q (its kind and i)."""
    if not isinstance(a, dict):
        raise Shape(f"the answer is {_kind(a)}, not a JSON object")
    if a.get("kind") != q["kind"] or a.get("i") != q["i"]:
        raise Shape(f"the answer is for query {printable(a.get('kind'))} #{printable(a.get('i'))}; answers "
                    f"come one per query, in order")


# -- the sizes and words of an array -------------------------------------------------------------------
def _words(v, n=None, what="", lo=0, hi=U32):
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise Shape(f"{what}: expected a list of {n if n is not None else 'some'} words, got "
                    f"{_kind(v)}")
    for x in v:
        if type(x) is not int or not lo <= x <= hi:
            raise Shape(f"{what}: {printable(json.dumps(x))[:40]} is not a whole number {lo}..{hi}")
    return v


def _rows(v, n, width, what, lo=0, hi=U32):
    return _block(v, (n, width), what, lo, hi)


def _block(v, shape, what, lo=0, hi=U32):
    """v is an array of whole numbers lo..hi of exactly this shape (nested lists, or a numpy array
    from the built-in model). One numpy pass decides; only a bad block is walked, to name the
    first bad element."""
    shape = tuple(shape)
    if isinstance(v, str) and v.startswith(PACKED) and hi == U32 and lo == 0:
        try:
            raw = base64.b64decode(v[len(PACKED):], validate=True)
        except ValueError:
            raise Shape(f"{what}: {PACKED}... is not base64") from None
        n = int(np.prod(shape))
        if len(raw) != 4 * n:
            raise Shape(f"{what}: {PACKED}... holds {len(raw)} bytes, not the {4 * n} of "
                        f"{' x '.join(map(str, shape))} u32 words")
        return np.frombuffer(raw, dtype="<u4").astype(np.int64).reshape(shape)
    if shape[0] == 0 and (isinstance(v, list) and not v or isinstance(v, np.ndarray) and v.size == 0):
        return v
    try:
        arr = np.asarray(v)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if (arr is not None and arr.shape == shape and arr.dtype.kind in "iu"
            and (arr.size == 0 or (int(arr.min()) >= lo and int(arr.max()) <= hi))):
        return arr
    if arr is not None and 0 in shape and arr.size == 0:
        z = shape.index(0) + 1          # JSON cannot say the widths past an empty dimension
        if arr.shape[:z] == shape[:z]:
            return np.zeros(shape, dtype=np.int64)
    _walk(v, shape, what, lo, hi)
    raise Shape(f"{what}: not an array of {' x '.join(map(str, shape))} whole numbers {lo}..{hi}")


def _walk(v, shape, what, lo, hi):
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if len(shape) == 1:
        _words(v, shape[0], what, lo, hi)
        return
    if not isinstance(v, list) or len(v) != shape[0]:
        raise Shape(f"{what}: expected {shape[0]} rows, got {_kind(v)}")
    for k, row in enumerate(v):
        _walk(row, shape[1:], f"{what}[{k}]", lo, hi)


def _kind(v):
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return f"{type(v).__name__} {printable(json.dumps(v))[:40]}"


def _field(a, name, what):
    if name not in a:
        raise Shape(f"{what}: no field {name!r}")
    return a[name]


def _array(a, name, shape, lo=0, hi=U32):
    """Field `name` of answer `a` checked as a block of that shape, and kept as the numpy array
    the comparison reads (converted once)."""
    a[name] = _block(_field(a, name, name), shape, name, lo, hi)
