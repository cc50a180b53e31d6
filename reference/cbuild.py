"""Build the reference's C kernels with the host C compiler and cache the shared library.

`build(sources, libname)` compiles reference/csrc/<sources> into
build/reference/<libname>-<hash>/lib.so through ground/ccache.py (the hash covers every source text of the
directory, the flags and the compiler's version) and returns the path. A cached library is used
only when it matches the checksum written at its build; a damaged one is built again.

This is the reference's own build step on the ground floor's build cache (ground/ccache.py, the
machine's too): plumbing is shared, arithmetic is not, and the reference imports nothing of the
machine.
"""
from __future__ import annotations

import os
from typing import Sequence

from ground.ccache import BuildCache, BuildError, compiler

__all__ = ["BuildError", "CSRC", "FLAGS", "build", "cache_dir", "compiler"]

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(HERE, "csrc")
ROOT = os.path.dirname(HERE)
# DECISION: -ffp-contract=off so that no a*b+c becomes a fused multiply-add: the keyed rotation's
# double arithmetic must round exactly as the Python model's does. -fno-fast-math keeps IEEE
# semantics explicit whatever the compiler's defaults.
FLAGS = ("-O2", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")
BUILD_TIMEOUT = 300


def cache_dir() -> str:
    return os.environ.get("EEDIFF_REFERENCE_CACHE") or os.path.join(ROOT, "build", "reference")


def build(sources: Sequence[str], libname: str, csrc: str = CSRC) -> str:
    """The path of the cached shared library for <csrc>/<sources> (default reference/csrc); builds
    it if needed."""
    if compiler() is None:
        raise BuildError(f"no C compiler ({os.environ.get('CC') or 'cc'} is not on PATH)")
    texts = {}
    for name in sorted(set(os.listdir(csrc))):
        if name.endswith((".c", ".h")):
            with open(os.path.join(csrc, name), "rb") as f:
                texts[name] = f.read()
    missing = [s for s in sources if s not in texts]
    if missing:
        raise BuildError(f"kernel sources missing from {csrc}: {missing}")
    cache = BuildCache(cache_dir(), FLAGS, libs=("-lm",), timeout=BUILD_TIMEOUT)
    return cache.library(libname, texts, compile_only=list(sources))
