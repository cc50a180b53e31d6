"""An executable's native program in the disk cache (eemu_ext/build/native) before a test's
subprocesses run it.

A program in the cache runs at once in every later process; one that is not runs in the Python
engine until the process has executed COMPILE_AFTER instructions of it, which a short bulk, a repro
or a make command never does: on a fresh checkout each such subprocess ran its chunks in the
Python engine (a quick bulk of 3 chunks: 26.2 user CPU-s) where the compiled program takes 3.4,
after one gcc of 9.3. The engine changes no word a check compares (tests/harness/test_lockstep_bulk.py).
"""
import os

from eemu_ext.engines.native.build import compiler
from harness.driver.game import Game
from harness.options import DEFAULT_IMAGE, Options


def compiled(image=DEFAULT_IMAGE, float_model="hw"):
    """Build (or find) the native program of `image` under `float_model` in the disk cache, by
    loading one chunk of the synthetic corpus with the program compiled at once."""
    # DECISION: without a host C compiler there is no native engine: the subprocesses run in the
    # Python engine as they would anyway, and there is nothing to build.
    if compiler() is None:
        return
    before = os.environ.get("EEMU_COMPILE_AFTER")
    os.environ["EEMU_COMPILE_AFTER"] = "0"
    try:
        corpus = Options().open_corpus()
        chunk = corpus.chunk(next(iter(corpus.chunk_ids())))
        Game(image, float_model).load(chunk.data)
    finally:
        if before is None:
            del os.environ["EEMU_COMPILE_AFTER"]
        else:
            os.environ["EEMU_COMPILE_AFTER"] = before
