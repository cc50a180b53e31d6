"""Each volume's row (corpus/volumes.py, volumes.md §1) with the structure offsets the harness touches
(executable-abi.md §5), and the volume an executable's overlay window names. The driver takes a
stripped volume's gp from here; harness/volume.py resolves and confirms the volume of a run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional

from corpus.volumes import ROWS, VolumeRow
from harness.driver import memory_map as mm

# The structure offsets of executable-abi.md §5 the harness touches, by the memory map's names: the
# fields' offsets only (not the sizes the harness allocates, nor kind values or its own addresses).
_NOT_OFFSETS = ("INDEX_KIND_OBJ", "INDEX_KIND_LIGHT", "SCRATCH_END", "MATERIAL_BLOCK")
_OFFSETS = {name: getattr(mm, name) for name in dir(mm)
            if name.startswith(("ANM_", "READER_", "CHUNK_", "COORD_", "SCRATCH_", "MORPHER_", "MODEL_", "INDEX_",
                                "MATERIAL_", "MATCHUNK_", "MODIFYMAT_", "CHUNKINDEX_", "MODELCHUNK_", "MMAT_", "PARAM_"))
            and not name.endswith(("_SIZE", "_BYTES")) and name not in _NOT_OFFSETS
            and isinstance(getattr(mm, name), int)}
_OFFSETS["SYS_SCRATCH_PTR"] = mm.SYS_SCRATCH_PTR


@dataclass(frozen=True)
class Volume:
    """A volume's row (corpus/volumes.py: key, name, boot, gp, window, heap, category_fd, cate_cd_ofs,
    data_bytes, records, gcmn_bytes, gcmn_fnv ..., read as the volume's own attributes) and its
    structure offsets."""
    row: VolumeRow
    # DECISION: every volume's structure offsets equal Infection's until its code says otherwise:
    # volumes.md §4 reports no shift in ccAnm's structures, and OUT's and QUA's are to be confirmed
    # from their code (the probe's "structure offsets" line, harness/runners/probing/probe_fields.py).
    offsets: Dict[str, int] = field(default_factory=lambda: dict(_OFFSETS), compare=False, hash=False)

    def __getattr__(self, name):
        if name.startswith("__") or name == "row":
            raise AttributeError(name)
        return getattr(self.row, name)

    @property
    def label(self) -> str:
        return f"{self.key.upper()} ({self.name}, {self.boot})"


VOLUMES = tuple(Volume(row) for row in ROWS)


def from_executable(img) -> Optional[Volume]:
    """The volume whose overlay window the executable's overlay sections sit at, or None.
    DECISION: the window base tells the four apart (volumes.md §1: each volume's differs) and a
    stand-in built at a volume's row keeps it; gp and main's size are the stand-in's own."""
    lay = getattr(img, "layout", None)
    ovl = lay.overlays() if lay is not None else []
    if not ovl:
        return None
    base = ovl[0].addr
    return next((v for v in VOLUMES if v.window == base), None)


def gp_of(img) -> int:
    """The executable's gp: `.reginfo` or `_gp` as the loader read it, else (0: a stripped volume that
    keeps neither) the gp of the volume its overlay window names (volumes.md §1, §7.1), else 0."""
    if img.gp:
        return img.gp
    v = from_executable(img)
    return v.gp if v is not None else 0
