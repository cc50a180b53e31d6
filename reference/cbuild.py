"""Build the reference's C kernels with the host C compiler and cache the shared library.

`build(sources, libname)` compiles reference/csrc/<sources> into
build/reference/<libname>-<hash>/lib.so, the hash covering every source text, the flags and the
compiler's version, and returns the path. A cached library is reused; a build is written to a
temporary name and renamed, so concurrent workers never load a half-written file.

This is the reference's own build step: it shares nothing with eemu_ext's (the reference imports
nothing of the machine).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from typing import Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(HERE, "csrc")
ROOT = os.path.dirname(HERE)
# DECISION: -ffp-contract=off so that no a*b+c becomes a fused multiply-add: the keyed rotation's
# double arithmetic must round exactly as the Python model's does. -fno-fast-math keeps IEEE
# semantics explicit whatever the compiler's defaults.
FLAGS = ("-O2", "-std=gnu11", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")


class BuildError(RuntimeError):
    """The C compiler is missing or rejected the kernels."""


def compiler() -> Optional[str]:
    """The C compiler to use ($CC, else cc), or None when it is not on PATH."""
    cc = os.environ.get("CC") or "cc"
    return shutil.which(cc)


def cache_dir() -> str:
    return os.environ.get("EEDIFF_REFERENCE_CACHE") or os.path.join(ROOT, "build", "reference")


def _version(cc: str) -> str:
    try:
        r = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
        return r.stdout.splitlines()[0] if r.stdout else cc
    except (OSError, subprocess.SubprocessError) as e:
        raise BuildError(f"the C compiler {cc} does not run: {e}") from None


def build(sources: Sequence[str], libname: str, csrc: str = CSRC) -> str:
    """The path of the cached shared library for <csrc>/<sources> (default reference/csrc); builds
    it if needed."""
    cc = compiler()
    if cc is None:
        raise BuildError(f"no C compiler ({os.environ.get('CC') or 'cc'} is not on PATH)")
    texts = {}
    for name in sorted(set(os.listdir(csrc))):
        if name.endswith((".c", ".h")):
            with open(os.path.join(csrc, name), "rb") as f:
                texts[name] = f.read()
    missing = [s for s in sources if s not in texts]
    if missing:
        raise BuildError(f"kernel sources missing from {csrc}: {missing}")
    h = hashlib.sha256()
    for name, text in sorted(texts.items()):
        h.update(name.encode() + b"\0" + text + b"\0")
    h.update(" ".join(FLAGS).encode() + b"\0" + _version(cc).encode())
    out_dir = os.path.join(cache_dir(), f"{libname}-{h.hexdigest()[:16]}")
    lib = os.path.join(out_dir, "lib.so")
    if os.path.exists(lib):
        return lib
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    cmd = [cc, *FLAGS, "-I", csrc, "-o", tmp, *(os.path.join(csrc, s) for s in sources), "-lm"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        os.unlink(tmp)
        raise BuildError(f"building the reference kernels with {cc} failed: {e}") from None
    if r.returncode != 0:
        os.unlink(tmp)
        raise BuildError(f"building the reference kernels with {cc} failed:\n{r.stderr[-4000:]}")
    os.replace(tmp, lib)
    return lib
