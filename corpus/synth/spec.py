"""Plan records of the synthetic corpus: what each member and each Anime chunk must contain."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple


@dataclass
class ChunkSpec:
    """One Anime chunk to generate. Counts are exact; values come from rng(seed, member, name)."""
    name: str                           # "ANM_..."
    N: int
    loops: bool = False
    tracks: int = 0                     # 0x0102 records
    features: Tuple[str, ...] = ()      # role quirks the first tracks must show (content.py)
    notes: List[Tuple[int, int, int]] = field(default_factory=list)   # (frame, event, param)
    morph: Dict[int, List[int]] = field(default_factory=dict)         # morpher # -> frames
    materials: int = 0                  # 0x0202 records
    lights: List[int] = field(default_factory=list)                   # light kinds under Top 0
    ambient: List[int] = field(default_factory=list)                  # frames with an F_Ambient
    camera: List[Tuple[int, List[int]]] = field(default_factory=list) # (camera #, frames)
    fobj: List[Tuple[str, List[int]]] = field(default_factory=list)   # (object name, frames)
    ext_tracks: int = 0                 # tracks naming ExtObj objects (first ones)
    locked: bool = False                # N fixed (roles, F_Obj, cameras)
    role: Optional[str] = None


@dataclass
class MorpherSpec:
    targets: int                        # target models (mtype 0x600/0x601) paired in records
    mmats: List[int]                    # vertex count per mmat (base and targets)
    spare: int = 0                      # extra target models named by no record
    odd_scale: bool = False             # one target at a vertexScale different from the base's


@dataclass
class ModelSpec:
    layout: str                         # "rigid", "bone" (may hold skin mmats), "shadow", "empty"
    mtype: int
    flag: int = 0
    mmats: List[Tuple[str, int, int]] = field(default_factory=list)   # (kind, vertices, iNum or offsetNum)


@dataclass
class MemberSpec:
    name: str                           # "xp_flag.cmp"
    category: int
    version: int = 0x100
    mtime: int = 0
    weight: float = 1.0
    bones: int = 0                      # OBJ_ skeleton size (objects tracks animate)
    chunks: List[ChunkSpec] = field(default_factory=list)
    morphers: List[MorpherSpec] = field(default_factory=list)
    models: List[ModelSpec] = field(default_factory=list)
    materials: int = 0                  # MAT_ objects with a Material chunk
    crops: int = 0                      # of them with a non-zero crop
    textures: int = 1
    cluts: int = 0
    clumps: int = 0
    cameras: int = 0
    extobj: bool = False                # the cdogbod pattern: CMP_trall with 23 ExtObj nodes
    fobj_body: Optional[str] = None     # object name driven only by F_Obj
    extra_names: Dict[str, int] = field(default_factory=dict)   # prefix -> '#' names
    objects: Dict[str, int] = field(default_factory=dict)       # anm-object pattern -> size (objects.py)
    filler: int = 0                     # zero bytes in the big texture (inflated size tuning)
    role: bool = False

    @property
    def stem(self):
        return self.name[:-4]
