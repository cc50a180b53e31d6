"""Options: what a run drives (image, archive, disc), how (seed, profile, float model), and validation."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, fields
from typing import List, Optional

from harness import HarnessError
from harness.compare.mismatch import CaseContext
from harness.option_table import DEFAULT_DATA, DEFAULT_IMAGE, PYTHON, ROOT, case_rows, default

RUNS = os.path.join(ROOT, "build", "runs")           # where run directories go (runners.bulk.run)


_CORPORA = {}   # (data, image, disc) -> opened corpus, shared by the Options of one process


@dataclass
class Options:
    image: str = DEFAULT_IMAGE
    data: Optional[str] = None
    disc: Optional[str] = None
    # the defaults of the Python API: the option table's (entry point "python")
    seed: int = default("--seed", PYTHON)
    profile: str = default("--profile", PYTHON)
    float_model: str = default("--float-model", PYTHON)
    n: int = default("--n", PYTHON)
    jobs: int = default("--jobs", PYTHON)
    checks: Optional[List[str]] = None
    resume: Optional[str] = None
    out: Optional[str] = None
    shrink: Optional[bool] = None      # None: shrink the first few failing chunks per worker
    fresh: bool = False
    force: bool = False                # resume a run directory despite different parameters
    allow_bad_members: bool = False    # bad archive members do not fail the run
    runs: str = RUNS
    chunk_ids: Optional[List[str]] = None
    corpus_image: Optional[str] = None   # executable for the archive's index tables (real disc)
    fail_fast: int = default("--fail-fast", PYTHON)   # stop a bulk after this many same failures in a row
    cluster: Optional[str] = None        # a Dask scheduler address, or local:N (harness/runners/bulk/cluster.py)
    shard: Optional[tuple] = None        # (k, m): check the k-th of m slices (harness/runners/bulk/shard.py)
    image_from_disc: bool = False        # image is DISC's own executable (extracted under build/disc/)
    reload: bool = False                 # --reload: every load afresh, checked against the restored one
    syms: Optional[str] = None           # the image's symbol sidecar (default: <image>.syms when it exists)
    overlay: Optional[str] = None        # --overlay NAME: the overlay made resident (DATA/NAME.PRG)
    volume: Optional[str] = None         # --volume: inf | mut | out | qua (harness/volume.py)
    confirm: tuple = ()                  # --confirm: sidecar names confirmed though carried by an untrusted pass
    model: Optional[str] = None          # --model CMD: a program in place of the built-in reference (runners/cases/model_chunk.py)
    model_timeout: float = default("--model-timeout", PYTHON)   # --model-timeout: seconds the model may take for one chunk
    _corpus: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.data is None and self.disc is None:
            self.data = DEFAULT_DATA

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_corpus"] = None
        return d

    def open_corpus(self):
        """The archive, or a HarnessError naming exactly what is missing or wrong."""
        if self._corpus is not None:
            return self._corpus
        for what, path in (("DATA", self.data), ("DISC", self.disc)):
            if path and os.path.exists(path) and not os.path.isfile(path):
                raise HarnessError(f"{what}={path}: not a regular file (a directory, FIFO or device)")
            if path and not os.path.isfile(path):
                hint = " (make corpus builds the synthetic one)" if path == DEFAULT_DATA else ""
                raise HarnessError(f"{what}={path}: no such file{hint}")
        from corpus import CorpusError, open_corpus
        key = (self.data, self.corpus_image, self.disc)
        if key in _CORPORA:
            self._corpus = _CORPORA[key]
            return self._corpus
        try:
            c = open_corpus(data=self.data, image=self.corpus_image, disc=self.disc,
                            image_symbols=self.sidecar_symbols())
            c.chunk_ids()
        except CorpusError as exc:
            raise HarnessError(f"corpus {self.data or self.disc}: {exc}") from exc
        # DECISION: an archive without Anime chunks opens; a bulk run over it compares nothing and
        # says so (status "nothing compared", exit 5) instead of failing as a usage error.
        self._corpus = _CORPORA[key] = c
        return c

    def data_path(self):
        return self.data if self.data and os.path.isfile(self.data) else None

    def sidecar_symbols(self):
        """{name: va} for the corpus image's names its symbol table may lack (its index tables): main's
        symbols in its sidecar, else its volume's categoryFDTbl and cateCDOfsTbl (volumes.md §1, §7.6);
        or None. DECISION: the sidecar's row wins over the volume's (a stand-in built at a volume's
        window keeps its tables at its own addresses), and the volume's rows count only for a volume
        the executable or GCMN.PRG named, not the default."""
        if not self.corpus_image:
            return None
        out = {}
        if os.path.abspath(self.corpus_image) == os.path.abspath(self.image):
            from harness.volume import of_options
            r = of_options(self, unloadable=True)
            if r is not None and r.how != "default":
                out.update(categoryFDTbl=r.volume.category_fd, cateCDOfsTbl=r.volume.cate_cd_ofs)
        from eemu_ext.loading.sidecar import MAIN, beside, read_sidecar
        path = self.syms or beside(self.corpus_image)
        if not path:
            return out or None
        from eemu_ext.errors import ElfError
        try:
            out.update({r.name: r.va for r in read_sidecar(path) if r.section == MAIN})
        except ElfError as exc:
            raise HarnessError(str(exc)) from exc
        return out

    def machine_args(self):
        """What load_elf takes besides the image: the sidecar and the resident overlay."""
        from harness.executable import machine_args
        return machine_args(self)

    def validate_image(self):
        """Load the executable once and check its required symbols (executable-abi.md §4, §6)."""
        if not os.path.isfile(self.image):
            raise HarnessError(f"IMAGE={self.image}: no such file")
        from harness.driver.game import Game
        try:
            return Game(self.image, self.float_model, **self.machine_args())
        except HarnessError:
            raise
        except Exception as exc:
            raise HarnessError(f"IMAGE={self.image}: {type(exc).__name__}: {exc}") from exc

    def context(self, chunk_id):
        # DECISION: a DISC run's repro names the disc alone, never the executable extracted from it
        # (a cache file that `make clean` removes, and IMAGE+DISC reads the corpus another way).
        # every option a repro names (the option table's case rows) that is one of these options
        mine = {f.name for f in fields(self)}
        return CaseContext(chunk_id, defaults={"IMAGE": self.image if self.image_from_disc else DEFAULT_IMAGE,
                                               "DATA": DEFAULT_DATA},
                           **{r.name: getattr(self, r.name) for r in case_rows() if r.name in mine})


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
