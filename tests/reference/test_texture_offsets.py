"""Texture offsets, animation-semantics.md §6: U/V controllers and the ccMaterial u/v with crops."""
import pytest

from reference.animation import texture_offset
from reference import eefloat as F

from .helpers import Bits, anim, keyed, material_track, one


@pytest.mark.parametrize("model", ["hw", "trunc"])
def test_offsets_with_crops_wrap_in_16_bits(model):
    """§6: u = (s16(f_to_int(U × 4096)) − s16(cropU)) & 0xFFFF (4096.0 as ft: exact)."""
    o = F.ops(model)
    assert texture_offset(0x3F000000, 0, o) == 2048                  # 0.5 -> 2048
    assert texture_offset(0xBF800000, 0x1000, o) == 0xE000           # −4096 − 4096
    assert texture_offset(0x41200000, 0x8000, o) == 0x2000           # 10.0 -> 40960 -> s16 −24576; + 32768
    assert texture_offset(0x40E00000, 0xA000, o) == 0xD000           # 28672 + 24576 = 53248
    assert texture_offset(0, 0xFFFF, o) == 0x0001                    # 0 − (−1)
    assert texture_offset(0x3F7FFFFF, 0, o) == 4095                  # truncation


def test_uv_keyed_one_value_and_absent():
    """§6: U and V from the record's controllers at min(T, last); an absent controller is +0."""
    a = anim(frames=5, materials=[material_track(40, u=keyed((0, 0.0), (4, 1.0)), v=one(-0.25)),
                                  material_track(41, v=keyed((0, Bits(0x80000000)), (2, 2.0)))])
    assert a.uv(40, 512) == (0x3F000000, 0xBE800000)
    assert a.uv(40, 9999) == (0x3F800000, 0xBE800000)                # clamped to last = 1024
    assert a.uv(41, 256) == (0, 0x3F800000)
    assert a.material_offsets(40, 512, 0x0100, 0xFF00) == (2048 - 256, (-1024 + 256) & 0xFFFF)
    assert a.uv(a.materials[1], 256) == a.uv(41, 256)


def test_first_record_of_a_material_is_used():
    """formats.md §4.6: when an animation has several records for one material, the first is used."""
    a = anim(frames=5, materials=[material_track(40, u=one(1.0)), material_track(40, u=one(2.0))])
    assert a.uv(40, 0) == (0x3F800000, 0)
    assert len(a.materials) == 2 and a.uv(a.materials[1], 0) == (0x40000000, 0)
