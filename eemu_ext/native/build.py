"""Compile C into a shared library with the host's C compiler, cached by content.

``shared_library(name, sources)`` writes the sources into ``build/native/<name>-<hash>/`` (the hash
covers every source, the compiler flags and the compiler's version) and builds ``lib.so`` there
once; later calls, in this process or another, load the cached file. Compiling is the expensive
part (about a second per few hundred blocks), so a cache hit must never recompile.
"""
from __future__ import annotations

import ctypes
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from typing import Dict, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(HERE, "csrc")
ROOT = os.path.dirname(os.path.dirname(HERE))
CFLAGS = ("-O2", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing", "-w")


class NativeUnavailable(RuntimeError):
    """No host C compiler: the native engine cannot run here (the Python engine still can)."""


def compiler() -> Optional[str]:
    cc = os.environ.get("CC") or "cc"
    return shutil.which(cc) or shutil.which("gcc")


_VERSIONS: Dict[str, str] = {}


def _version(cc: str) -> str:
    v = _VERSIONS.get(cc)
    if v is None:
        try:
            v = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60).stdout
        except OSError:
            v = ""
        _VERSIONS[cc] = v
    return v


def cache_dir() -> str:
    return os.environ.get("EEMU_NATIVE_CACHE") or os.path.join(ROOT, "build", "native")


def csrc(name: str) -> str:
    """The text of one file of eemu_ext/native/csrc."""
    with open(os.path.join(CSRC, name), encoding="utf-8") as f:
        return f.read()


def cached_library(name: str, key: str) -> Optional[ctypes.CDLL]:
    """The library built earlier under (name, key), or None."""
    lib = os.path.join(cache_dir(), f"{name}-{key}", "lib.so")
    return ctypes.CDLL(lib) if os.path.exists(lib) else None


def shared_library(name: str, sources: Dict[str, str], key_extra: str = "", key: Optional[str] = None,
                   flags: Tuple[str, ...] = ()) -> ctypes.CDLL:
    """Build (or reuse) a shared library from {filename: text}; .c files are compiled, the rest
    (headers) are written beside them. Returns the loaded library. The cache key is a hash of the
    sources, the flags and the compiler, or ``key`` when the caller has a cheaper one that
    determines the sources."""
    cc = compiler()
    if cc is None:
        raise NativeUnavailable("no host C compiler (cc or gcc) on PATH")
    if key is None:
        h = hashlib.sha256()
        for part in (_version(cc), " ".join(CFLAGS + tuple(flags)), key_extra):
            h.update(part.encode())
            h.update(b"\0")
        for fn in sorted(sources):
            h.update(fn.encode())
            h.update(b"\0")
            h.update(sources[fn].encode())
            h.update(b"\0")
        key = h.hexdigest()[:24]
    d = os.path.join(cache_dir(), f"{name}-{key}")
    lib = os.path.join(d, "lib.so")
    if not os.path.exists(lib):
        os.makedirs(cache_dir(), exist_ok=True)
        # one compile per key: a second process (a bulk run's other worker) waits for the first
        with open(os.path.join(cache_dir(), f".lock-{name}-{key}"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(lib):
                _compile(cc, name, sources, flags, d)
    return ctypes.CDLL(lib)


def _compile(cc, name, sources, flags, d):
    """Compile into a fresh directory and rename it to d (atomic; a lost race is harmless)."""
    tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=cache_dir())
    try:
        for fn, text in sources.items():
            with open(os.path.join(tmp, fn), "w", encoding="utf-8") as f:
                f.write(text)
        cfiles = [os.path.join(tmp, fn) for fn in sorted(sources) if fn.endswith(".c")]
        r = subprocess.run([cc, *CFLAGS, *flags, "-I", tmp, "-o", os.path.join(tmp, "lib.so"), *cfiles],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"native build of {name} failed ({cc}):\n{r.stderr[-4000:]}")
        try:
            os.rename(tmp, d)          # atomic: another process may have won the race
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
