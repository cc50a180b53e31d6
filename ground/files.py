"""Files written whole or not at all."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Type


def write_atomic(path: Path, write: Callable[[Path], object], error: Type[Exception] = OSError) -> None:
    """write(tmp) then rename over path; a failed write (full disk, read-only directory) leaves
    no temp file and raises ``error`` naming the file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        tmp.replace(path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise error(f"cannot write {path}: {exc.strerror or exc}") from None
