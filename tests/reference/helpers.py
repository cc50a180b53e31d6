"""Hand-made chunks for the reference's tests (built with corpus.anime.build_anime)."""
from corpus.anime import Bits, build_anime, fobj, keyed, material_track, morph, note, obj_track, one

from reference import Animation

ONE = 0x3F800000
NEG0 = 0x80000000


def anim(frames=8, loops=False, float_model="hw", **kw):
    """An Animation from a hand-made chunk: build_anime(...) then Animation.parse(...)."""
    return Animation.parse(build_anime(object=1, frames=frames, loops=loops, **kw),
                           float_model=float_model)


def track_anim(frames=8, float_model="hw", **channels):
    """One 0x0102 record for object 3 with the given channels."""
    return anim(frames=frames, float_model=float_model, tracks=[obj_track(3, **channels)])


__all__ = ["Bits", "build_anime", "fobj", "keyed", "material_track", "morph", "note", "obj_track",
           "one", "anim", "track_anim", "ONE", "NEG0"]
