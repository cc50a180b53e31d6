"""The executable of a disc image: extracted once to build/disc/ so the machine can load it by path."""
import hashlib
import os

from .errors import HarnessError
from .options import ROOT


def disc_executable(disc, out_dir=os.path.join(ROOT, "build", "disc")):
    """Path of the disc's boot executable (SYSTEM.CNF BOOT2, else SLUS_202.67), extracted on first use.

    DECISION: with DISC and no IMAGE the harness drives the disc's own executable, so a disc run
    needs no other file; IMAGE still wins when given.
    """
    from corpus import CorpusError
    from corpus.archive import find_on_disc
    if not os.path.isfile(disc):
        raise HarnessError(f"DISC={disc}: no such file")
    try:
        _, _, exe = find_on_disc(disc)
    except CorpusError as exc:
        raise HarnessError(f"DISC={disc}: {exc}") from exc
    if not exe:
        raise HarnessError(f"DISC={disc}: no executable found (SYSTEM.CNF BOOT2 or SLUS_202.67)")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"SLUS_202.67.{hashlib.sha256(exe).hexdigest()[:12]}.elf")
    if not os.path.isfile(path):
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(exe)
        os.replace(tmp, path)
    return path
