"""A content-addressed cache of shared libraries built from C with the host's C compiler.

``BuildCache(root, flags).library(name, texts)`` writes the texts (C sources and headers) into a
fresh directory under ``root``, compiles the ``.c`` files into ``lib.so``, records the library's
SHA-256 in ``lib.so.sha256`` beside it and renames the directory to ``<name>-<key>`` (atomic: a
concurrent process never sees half a build). The key hashes the texts, the flags and the
compiler's version, unless the caller gives a cheaper one that determines them.

Every load checks the library against its recorded checksum first: a library that is truncated,
altered or has no checksum is never handed to the dynamic loader (a truncated ``lib.so`` mapped
into a process dies of SIGBUS, not an exception). It is set aside and built again.

Every failure of the host (no compiler, a compiler error or timeout, a cache directory that cannot
be written) is a ``BuildError`` naming the compiler or the path; nothing here raises anything
else. The module knows nothing of what it builds and imports nothing but the standard library.

The machine (eemu_ext/engines/native/build.py) and the reference (reference/cbuild.py) both build through
it: one cache format and one behaviour, and neither package imports the other's code.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from typing import Dict, Optional, Sequence, Union

LIBRARY = "lib.so"
CHECKSUM = "lib.so.sha256"
COMPILE_TIMEOUT = 900          # seconds; the stand-in's program compiles in about 13


class BuildError(RuntimeError):
    """The host could not build or load a library: no compiler, a compiler error, an unusable
    cache directory. Never an error of the code the library will run."""


def compiler() -> Optional[str]:
    """The host C compiler: $CC (else cc, else gcc) when it is on PATH, or None."""
    cc = os.environ.get("CC") or "cc"
    return shutil.which(cc) or (shutil.which("gcc") if not os.environ.get("CC") else None)


_VERSIONS: Dict[str, str] = {}


def compiler_version(cc: str) -> str:
    """The compiler's --version text (part of every key: a new compiler builds anew)."""
    v = _VERSIONS.get(cc)
    if v is None:
        try:
            v = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise BuildError(f"the C compiler {cc} does not run: {e}") from None
        _VERSIONS[cc] = v
    return v


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def intact(directory: str) -> bool:
    """Whether directory holds a library whose bytes match the checksum written at its build."""
    try:
        with open(os.path.join(directory, CHECKSUM), encoding="ascii") as f:
            want = f.read().strip()
        return bool(want) and _sha256(os.path.join(directory, LIBRARY)) == want
    except (OSError, ValueError):
        return False


class BuildCache:
    """Libraries under one root directory, compiled with one set of flags (see the module)."""

    def __init__(self, root: str, flags: Sequence[str], libs: Sequence[str] = (),
                 timeout: int = COMPILE_TIMEOUT):
        self.root = root
        self.flags = tuple(flags)
        self.libs = tuple(libs)
        self.timeout = timeout

    def key(self, texts: Dict[str, Union[str, bytes]], flags: Sequence[str] = (), extra: str = "") -> str:
        """The content key of a build: every text, the flags and the compiler's version."""
        h = hashlib.sha256()
        for part in (compiler_version(self._compiler()), " ".join(self.flags + tuple(flags)), extra):
            h.update(part.encode() + b"\0")
        for fn in sorted(texts):
            t = texts[fn]
            h.update(fn.encode() + b"\0" + (t.encode() if isinstance(t, str) else t) + b"\0")
        return h.hexdigest()[:24]

    def path(self, name: str, key: str) -> str:
        return os.path.join(self.root, f"{name}-{key}", LIBRARY)

    def cached(self, name: str, key: str) -> Optional[str]:
        """The path of the intact library built earlier under (name, key), else None."""
        d = os.path.dirname(self.path(name, key))
        return os.path.join(d, LIBRARY) if os.path.isdir(d) and intact(d) else None

    def library(self, name: str, texts: Dict[str, Union[str, bytes]], key: Optional[str] = None,
                flags: Sequence[str] = (), compile_only: Optional[Sequence[str]] = None) -> str:
        """The path of the intact library for these texts, built (or built again, when the cached
        one is damaged) if needed. compile_only: the .c files to compile (default: every one)."""
        if key is None:
            key = self.key(texts, flags)
        got = self.cached(name, key)
        if got is not None:
            return got
        cc = self._compiler()
        self._make_root()
        d = os.path.dirname(self.path(name, key))
        try:
            # one compile per key: a second process (another worker) waits for the first
            with open(os.path.join(self.root, f".lock-{name}-{key}"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not intact(d):
                    self._set_aside(d)
                    self._compile(cc, name, texts, flags, compile_only, d)
        except OSError as e:
            raise BuildError(f"the build cache {self.root} cannot be written ({e})") from None
        if not intact(d):
            raise BuildError(f"the library just built at {d} does not match its checksum (the cache "
                             f"{self.root} is being changed by something else)")
        return os.path.join(d, LIBRARY)

    def _compiler(self) -> str:
        cc = compiler()
        if cc is None:
            raise BuildError(f"no C compiler ({os.environ.get('CC') or 'cc'} is not on PATH)")
        return cc

    def _make_root(self) -> None:
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as e:
            raise BuildError(f"the build cache {self.root} is not a usable directory ({e})") from None
        if not os.path.isdir(self.root):
            raise BuildError(f"the build cache {self.root} is not a directory")

    def _set_aside(self, d: str) -> None:
        """Move a damaged build out of the way (a process that loaded it keeps its mapping)."""
        if os.path.lexists(d):
            trash = tempfile.mkdtemp(prefix=".damaged-", dir=self.root)
            os.rename(d, os.path.join(trash, "build"))
            shutil.rmtree(trash, ignore_errors=True)

    def _compile(self, cc, name, texts, flags, compile_only, d) -> None:
        tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=self.root)
        try:
            for fn, text in texts.items():
                with open(os.path.join(tmp, fn), "wb") as f:
                    f.write(text.encode() if isinstance(text, str) else text)
            cfiles = [fn for fn in sorted(texts) if fn.endswith(".c")] if compile_only is None else list(compile_only)
            lib = os.path.join(tmp, LIBRARY)
            cmd = [cc, *self.flags, *flags, "-I", tmp, "-o", lib, *(os.path.join(tmp, c) for c in cfiles), *self.libs]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
            except (OSError, subprocess.SubprocessError) as e:
                raise BuildError(f"building {name} with {cc} failed: {e}") from None
            if r.returncode != 0:
                raise BuildError(f"building {name} with {cc} failed:\n{r.stderr[-4000:]}")
            with open(os.path.join(tmp, CHECKSUM), "w", encoding="ascii") as f:
                f.write(_sha256(lib) + "\n")
            os.rename(tmp, d)
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
