"""Keyed controllers and keyed rotations set up by the compiled kernels (FloatController.compiled,
animation-semantics.md §2.2; KeyedRotation.compiled, §3.1 and §3.4-§3.6) equal the Python set-up
field for field, doubles as raw 64-bit words: on the keyed channels of corpus chunks, and on
hand-made keys (one key, a key at frame 0, keys back in time, a held key after a turn, a hold
with no turn before it), under both float models. A planted error in either kernel is caught."""
import random
import struct

import pytest

from reference import Animation
from reference.eefloat import ops
from reference.controllers import FloatController
from reference.kernels import ctrl_struct
from reference.rotation import KeyedRotation

from .kernel_support import compiled_kernels, planted_kernels
from .test_corpus_sweep import open_data

FIELDS = [f for f in KeyedRotation.__slots__ if f != "_ops"]
D = {0: 0, 45: 0x42340000, 90: 0x42B40000, -30: 0xC1F00000, 200: 0x43480000}

HAND_MADE = {
    "one key at frame 0": [(0, (D[45], 0, 0))],
    "one key later": [(5, (0, D[90], 0))],
    "turns": [(0, (0, 0, 0)), (4, (D[90], 0, 0)), (9, (D[90], D[45], D[-30])), (12, (D[200], 0, D[45]))],
    "key back in time": [(0, (0, 0, 0)), (8, (D[45], 0, 0)), (3, (D[90], 0, 0)), (10, (0, D[45], 0))],
    "held after a turn": [(0, (0, 0, 0)), (4, (D[90], 0, 0)), (7, (D[90], 0, 0)), (9, (0, D[45], 0))],
    "held without a turn": [(0, (D[45], 0, 0)), (4, (D[45], 0, 0)), (7, (D[45], 0, 0))],
}


def raw(x):
    if isinstance(x, (tuple, list)):
        return tuple(raw(y) for y in x)
    return struct.pack("<d", x) if isinstance(x, float) else x


def same_setup(py, c, where):
    for f in FIELDS:
        assert raw(getattr(py, f)) == raw(getattr(c, f)), (where, f)


@pytest.fixture(scope="module")
def kern():
    return compiled_kernels()


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_hand_made_keys_set_up_alike(kern, model):
    for name, keys in HAND_MADE.items():
        frames = max(f for f, _ in keys) + 6
        py = KeyedRotation(keys, frames, ops(model))
        same_setup(py, KeyedRotation.compiled(keys, frames, ops(model), kern, model), name)
    assert KeyedRotation(HAND_MADE["held after a turn"], 15, ops(model)).holds()


def keyed_records(request, n_chunks):
    c = open_data(request)
    seed = request.config.getoption("--seed")
    ids = random.Random(f"{seed}:keyed-setup").sample(c.chunk_ids(), min(n_chunks, len(c.chunk_ids())))
    for cid in ids:
        ch = c.chunk(cid)
        a = Animation.parse(ch.data, names=ch.names, ext=ch.ext, where=ch.id, native=False)
        for tr in a.tracks:
            if tr.record.rot.kind == 2:
                yield cid, a.frames, tr.record


def same_controller(py, c, where):
    for f in ("width", "base", "segments", "_cum", "_acc"):
        assert getattr(py, f) == getattr(c, f), (where, f)
    # the kernels' own arrays are what the batched evaluation is given
    a, b = ctrl_struct(py, []), ctrl_struct(c, [])
    assert (a.nseg, a.width) == (b.nseg, b.width), where


ONE, HALF, NEG = 0x3F800000, 0x3F000000, 0xC0200000
CONTROLLERS = {
    "one key at frame 0": ([(0, (ONE,))], 1),
    "first key later": ([(3, (ONE, HALF, NEG)), (8, (HALF, NEG, 0x80000000))], 3),
    "key back in time": ([(0, (0,)), (9, (ONE,)), (4, (NEG,)), (12, (HALF,))], 1),
    "zero and negative zero": ([(2, (0x80000000, 0, 0x00000001)), (5, (0, 0x80000000, 0x00400000))], 3),
}


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_hand_made_controllers_set_up_alike(kern, model):
    for name, (keys, width) in CONTROLLERS.items():
        frames = max(f for f, _ in keys) + 4
        same_controller(FloatController(keys, width, frames, ops(model)),
                        FloatController.compiled(keys, width, frames, ops(model), kern, model), name)


def test_corpus_keyed_controllers_set_up_alike(request, kern):
    c = open_data(request)
    seed = request.config.getoption("--seed")
    n = 0
    for cid in random.Random(f"{seed}:controller-setup").sample(c.chunk_ids(), min(60, len(c.chunk_ids()))):
        ch = c.chunk(cid)
        a = Animation.parse(ch.data, names=ch.names, ext=ch.ext, where=ch.id, native=False)
        ctrls = [x for tr in a.tracks for x in (tr.record.pos, tr.record.scale, tr.record.alpha)]
        ctrls += [x for m in a.materials for x in (m.record.u, m.record.v)]
        for ctrl in ctrls:
            if ctrl.kind == 2:
                for model in ("hw", "trunc"):
                    same_controller(FloatController(ctrl.keys, ctrl.width, a.frames, ops(model)),
                                    FloatController.compiled(ctrl.keys, ctrl.width, a.frames, ops(model),
                                                             kern, model), (cid, model))
                    n += 1
    assert n > 100, n


def test_a_planted_wrong_controller_setup_is_caught(tmp_path, kern):
    """A delta's operands swapped (f_sub is not symmetric): the agreement goes red."""
    bad = planted_kernels(tmp_path, [("kernels.c", "delta[ns * w + k] = f_sub(model, val[i * w + k], prev[k]);",
                                      "delta[ns * w + k] = f_sub(model, prev[k], val[i * w + k]);")])
    with pytest.raises(AssertionError):
        for name, (keys, width) in CONTROLLERS.items():
            frames = max(f for f, _ in keys) + 4
            same_controller(FloatController(keys, width, frames, ops("hw")),
                            FloatController.compiled(keys, width, frames, ops("hw"), bad, "hw"), name)


def test_corpus_keyed_rotations_set_up_alike(request, kern):
    n = 0
    for model in ("hw", "trunc"):
        for cid, frames, rec in keyed_records(request, 60):
            keys = rec.rot.keys
            same_setup(KeyedRotation(keys, frames, ops(model)),
                       KeyedRotation.compiled(keys, frames, ops(model), kern, model), (cid, rec.index, model))
            n += 1
    assert n > 100, n


def test_a_planted_wrong_setup_is_caught(request, tmp_path, kern):
    """The second prefix sum one unit long (so a held key's time moves): the agreement goes red."""
    bad = planted_kernels(tmp_path, [("kernels.c", "        c += dur[k];\n        cum[k] = c;",
                                      "        c += dur[k] + (k == 1);\n        cum[k] = c;")])
    with pytest.raises(AssertionError):
        for name, keys in HAND_MADE.items():
            frames = max(f for f, _ in keys) + 6
            same_setup(KeyedRotation(keys, frames, ops("hw")),
                       KeyedRotation.compiled(keys, frames, ops("hw"), bad, "hw"), name)


def test_the_setup_kernels_refuse_what_they_cannot_hold(kern):
    """No keys, a value wider than the kernel's 4 words, or a key of the wrong width: a ValueError
    naming the shape, never a read or write past an array."""
    with pytest.raises(ValueError, match="1 or more keys of 1 to 4 words"):
        kern.ctrl_compile("hw", [], 1, 10)
    with pytest.raises(ValueError, match="1 or more keys of 1 to 4 words"):
        kern.ctrl_compile("hw", [(0, (ONE,) * 5)], 5, 10)
    with pytest.raises(ValueError, match="expected 6 words"):
        kern.ctrl_compile("hw", [(0, (ONE, ONE, ONE)), (4, (ONE,))], 3, 10)
    with pytest.raises(ValueError, match="at least one key"):
        kern.keyed_compile("hw", [], 10)
    with pytest.raises(ValueError, match="expected 6 words"):
        kern.keyed_compile("hw", [(0, (0, 0, 0)), (3, (0,))], 10)
