"""reference: an independent Python model of how ccAnm plays an Anime chunk (animation-semantics.md).

It shares no code with eemu_ext or harness: its EE float arithmetic (reference.eefloat) is its own.
"""
from .animation import Animation, Pose, RefMaterial, RefTrack
from .morph import morph
from .playback import Forward, PassedNote

__all__ = ["Animation", "Pose", "RefTrack", "RefMaterial", "morph", "Forward", "PassedNote"]
