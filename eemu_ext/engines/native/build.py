"""The native engine's C builds: ground/ccache.py's content-addressed cache under build/native/.

``shared_library(name, sources)`` builds (or reuses) ``build/native/<name>-<hash>/lib.so`` and
loads it; a cached library is loaded only after its checksum matches, and a damaged one is built
again (ground/ccache.py). ``library_in_units`` links a library from objects compiled apart, each
cached by its own text (the programs, engine.py). A failure of the host (no compiler, a compiler
error, a cache directory that cannot be written) is an ``errors.HostError`` naming it, never an
error of the emulated code.
"""
from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Optional, Sequence, Tuple

from ground import ccache

from eemu_ext.errors import HostError, NativeUnavailable

HERE = os.path.dirname(os.path.abspath(__file__))
CSRC = os.path.join(HERE, "csrc")
ROOT = os.path.dirname(os.path.dirname(HERE))
CFLAGS = ("-O2", "-fPIC", "-shared", "-fwrapv", "-fno-strict-aliasing", "-w")

compiler = ccache.compiler

__all__ = ["CSRC", "CFLAGS", "NativeUnavailable", "cache_dir", "compiler", "compiler_version", "csrc",
           "cached_library", "library_in_units", "runtime_headers", "shared_library"]


def cache_dir() -> str:
    # DECISION: the cache stays the checkout's own by default (build/native). A cache shared by
    # every checkout of the machine would be as safe (content-addressed and checksummed), and
    # EEMU_NATIVE_CACHE already points checkouts at one; but a default outside the checkout would
    # make a fresh clone's `make test` reuse what other checkouts built, so its time would no
    # longer be a fresh machine's (CI's first run pays every compile).
    return os.environ.get("EEMU_NATIVE_CACHE") or os.path.join(ROOT, "build", "native")


def _cache() -> ccache.BuildCache:
    return ccache.BuildCache(cache_dir(), CFLAGS)


def compiler_version(cc: str) -> str:
    try:
        return ccache.compiler_version(cc)
    except ccache.BuildError as e:
        raise HostError(f"native engine: {e}") from None


def csrc(name: str) -> str:
    """The text of one file of eemu_ext/engines/native/csrc."""
    with open(os.path.join(CSRC, name), encoding="utf-8") as f:
        return f.read()


def runtime_headers() -> Dict[str, str]:
    """The runtime headers a translated unit includes. (eefloat.c is the float runtime's own test
    library; block code gets inline copies from eefloat.h, so it is not compiled into programs.)"""
    return {fn: csrc(fn) for fn in sorted(os.listdir(CSRC)) if fn.endswith(".h")}


def _load(path: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise HostError(f"native engine: cannot load {path} ({e})") from None


def cached_library(name: str, key: str) -> Optional[ctypes.CDLL]:
    """The intact library built earlier under (name, key), or None (none, or a damaged one)."""
    path = _cache().cached(name, key)
    return _load(path) if path is not None else None


def shared_library(name: str, sources: Dict[str, str], key_extra: str = "", key: Optional[str] = None,
                   flags: Tuple[str, ...] = (), prelude: Optional[str] = None) -> ctypes.CDLL:
    """Build (or reuse) a shared library from {filename: text}; .c files are compiled, the rest
    (headers) are written beside them. Returns the loaded library. The cache key is a hash of the
    sources, the flags and the compiler, or ``key`` when the caller has a cheaper one that
    determines the sources. prelude: a header of sources that every .c includes first; it is
    compiled with its precompiled form (precompiled_prelude) where the compiler can make one."""
    cache = _cache_with_compiler()
    try:
        if key is None:
            key = cache.key(sources, flags, key_extra)
        path = cache.cached(name, key)
        if path is None:
            path = cache.library(name, sources, key=key, flags=flags, links=_prelude_links(cache, sources, prelude, flags))
    except ccache.BuildError as e:
        raise HostError(f"native engine: {e}") from None
    return _load(path)


UNIT = "unit.c"


def library_in_units(name: str, headers: Dict[str, str], units: Sequence[str], main: str, key: str,
                     flags: Tuple[str, ...] = (), unit_flags: Tuple[str, ...] = (),
                     prelude: Optional[str] = None) -> ctypes.CDLL:
    """Build (or reuse) a shared library linked from objects: several .c units and a main one, each
    compiled apart into an object cached by its own text (ccache's ``object``: ``unit-<name>-*``
    and ``main-<name>-*``), the missing ones at once on the host's cores. A unit unchanged since an
    earlier program is not compiled again, nor a main unit every program shares. headers: the
    texts every unit includes; unit_flags: the units' flags beyond ``flags`` (main has ``flags``);
    key: the library's, which must determine every text (as ``shared_library``'s)."""
    cache = _cache_with_compiler()
    try:
        path = cache.cached(name, key)
        if path is None:
            uflags = tuple(flags) + tuple(unit_flags)
            jobs = [("unit-" + name, text, uflags) for text in units] + [("main-" + name, main, tuple(flags))]
            links = {fl: _prelude_links(cache, headers, prelude, fl) for fl in {uflags, tuple(flags)}}

            def compiled(job) -> str:
                kind, text, fl = job
                return cache.object(kind, {**headers, UNIT: text}, UNIT, fl, links[fl])
            with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
                objects = list(pool.map(compiled, jobs))
            path = cache.library(name, {}, key=key, flags=flags, objects=objects)
    except ccache.BuildError as e:
        raise HostError(f"native engine: {e}") from None
    return _load(path)


def _cache_with_compiler() -> ccache.BuildCache:
    if ccache.compiler() is None:
        raise NativeUnavailable("native engine: no host C compiler (cc or gcc) on PATH")
    return _cache()


def _prelude_links(cache: ccache.BuildCache, sources: Dict[str, str], prelude: Optional[str],
                   flags: Tuple[str, ...]) -> Dict[str, str]:
    """{"<prelude>.gch": path} of the prelude's precompiled form for a compile, or {} (no prelude,
    or none can be made)."""
    gch = precompiled_prelude(cache, sources, prelude, flags) if prelude else None
    return {prelude + ".gch": gch} if gch else {}


_NO_PRECOMPILE: Dict[Tuple[str, str], str] = {}     # (cache root, key): why it could not be built


def precompiled_prelude(cache: ccache.BuildCache, sources: Dict[str, str], prelude: str,
                        flags: Tuple[str, ...]) -> Optional[str]:
    """The path of the prelude header's precompiled form for these headers and flags (built once
    into the cache, keyed by every header's text, the flags and the compiler), or None when the
    compiler cannot make one. DECISION: without it a program is compiled from the header's text,
    as before (the same library, only slower), so a compiler that cannot precompile (or a cache
    that cannot hold the result) costs time, never a run; the failure is remembered per process
    and not retried for every program."""
    headers = {fn: t for fn, t in sources.items() if fn.endswith(".h")}
    try:
        key = (cache.root, cache.key(headers, flags, prelude))
    except ccache.BuildError:
        return None
    if key in _NO_PRECOMPILE:
        return None
    try:
        return cache.precompiled_header("prelude", headers, prelude, flags)
    except ccache.BuildError as e:
        _NO_PRECOMPILE[key] = str(e)
        return None
