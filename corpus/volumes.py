"""The four volumes' rows (volumes.md §1): each disc's executable addresses and archive figures.

One table for both sides: the synthetic corpus takes a volume's archive size and record count from it
(corpus synth --volume), the harness its gp, overlay window, heap and index tables (harness/volume.py).
It lives here because the corpus imports nothing of the harness.
"""
from __future__ import annotations

from typing import NamedTuple


class VolumeRow(NamedTuple):
    key: str                 # 'inf' | 'mut' | 'out' | 'qua'
    name: str                # 'Infection', ...
    boot: str                # the boot executable's name on the disc
    main_size: int
    gp: int
    window: int              # the overlay window's base
    heap: int                # the heap section's address
    category_fd: int         # categoryFDTbl
    cate_cd_ofs: int         # cateCDOfsTbl
    data_bytes: int          # DATA.BIN's size
    records: int             # DATA.BIN's records
    gcmn_bytes: int
    gcmn_fnv: int


ROWS = (
    VolumeRow("inf", "Infection", "SLUS_202.67", 0x278880, 0x0037FAF0, 0x00400800, 0x00730600, 0x002FB750,
              0x002FB7A0, 136_665_088, 1023, 3_121_280, 0x9349383E707E0CAD),
    VolumeRow("mut", "Mutation", "SLUS_205.62", 0x28B800, 0x00392A70, 0x00413800, 0x00774B00, 0x00310FD0,
              0x00311020, 138_172_416, 1031, 3_322_624, 0x5FB23BA6C8723733),
    VolumeRow("out", "Outbreak", "SLUS_205.63", 0x286B80, 0x0038DDF0, 0x0040F200, 0x00773780, 0x00308700,
              0x00308750, 142_372_864, 1072, 3_335_680, 0xE10AF1CFB5772638),
    VolumeRow("qua", "Quarantine", "SLUS_205.64", 0x179480, 0x00280770, 0x00301B00, 0x00670300, 0x001FC680,
              0x001FC6D0, 142_372_864, 1072, 3_377_280, 0x97A39D715E01020F),
)
BY_KEY = {r.key: r for r in ROWS}
