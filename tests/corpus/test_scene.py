"""The scene an anm's table is built from (anim-objects.md §2-§3, formats.md §3.4-§3.8)."""
import struct

import pytest

from corpus import CorpusError
from corpus.ccsf import CcsfFile
from corpus.objects import Scene, scene

from .ccsf_build import bone_model, ccsf, chunk, rigid_model, u32

NAMES = ["MDL_body", "MDL_leg", "OBJ_body", "OBJ_leg0", "OBJ_leg1", "CMP_a", "EFF_a", "CMP_b"]
# object indices: MDL_body 1, MDL_leg 2, OBJ_body 3, OBJ_leg0 4, OBJ_leg1 5, CMP_a 6, EFF_a 7, CMP_b 8


def clump(obj, nodes):
    return chunk(0x900, u32(obj) + struct.pack("<HH", len(nodes), 0) + u32(*nodes))


def setup_chunks():
    return [bone_model(1, [(1, 2, 3)]), rigid_model(2, 0, [(1, 1, 1)]),
            chunk(0x100, u32(3, 0, 1, 0)), chunk(0x100, u32(4, 3, 2, 0)),
            chunk(0xA00, u32(5, 3, 4)),                  # OBJ_leg1: an ExtObj copy of leg0 under the body
            clump(6, [3, 4]), chunk(0xE00, u32(7, 6)), clump(8, [5])]


def member():
    return CcsfFile(ccsf(NAMES, setup_chunks(), version=0x96), "m.cmp")


def test_obj_extobj_and_eff_chunks_give_their_own_parent_field():
    """§2.2: the parent slot reads the Obj chunk's parent (formats.md §3.4), the ExtObj chunk's
    own parent (§3.7), unresolved, and the Eff chunk's second word."""
    s = scene(member())
    assert s.parents == {3: 0, 4: 3, 5: 3, 7: 6}
    assert s.ext == {5: 4} and s.resolve(5) == 4 and s.obj_models == {3: 1, 4: 2}


def test_kinds_come_from_each_object_chunk_and_an_unknown_object_is_kind_0():
    s = scene(member())
    assert (s.kind(1), s.kind(3), s.kind(5), s.kind(6), s.kind(7)) == (0x800, 0x100, 0xA00, 0x900, 0xE00)
    assert s.kind(99) == 0 and s.effs == (7,)


def test_clumps_keep_file_order_and_a_bone_model_takes_its_clump_nodes():
    """§3.3 step 5 and WL365: a bone or skin model's node list is its clump's; rigid models have none."""
    s = scene(member())
    assert s.clumps == [(6, (3, 4)), (8, (5,))]
    assert s.mtypes == {1: 4, 2: 0} and s.model_nodes == {1: (3, 4)}


def test_the_request_form_round_trips_and_names_a_bad_field():
    s = scene(member())
    assert Scene.from_json(s.to_json()) == s
    bad = s.to_json()
    bad["parents"] = [[3, "x"]]
    with pytest.raises(ValueError, match="parents"):
        Scene.from_json(bad)


def test_a_short_extobj_chunk_is_named():
    f = CcsfFile(ccsf(NAMES, [chunk(0xA00, u32(5, 3))]), "m.cmp")
    with pytest.raises(CorpusError) as e:
        scene(f)
    assert e.value.kind == 0xA00 and "m.cmp" in str(e.value)
