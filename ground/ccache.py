"""A content-addressed cache of shared libraries built from C with the host's C compiler.

``BuildCache(root, flags).library(name, texts)`` writes the texts (C sources and headers) into a
fresh directory under ``root``, compiles the ``.c`` files into ``lib.so``, records the library's
SHA-256 in ``lib.so.sha256`` beside it and renames the directory to ``<name>-<key>`` (atomic: a
concurrent process never sees half a build). The key hashes the texts, the flags and the
compiler's version, unless the caller gives a cheaper one that determines them.

Every load checks the library against its recorded checksum first: a library that is truncated,
altered or has no checksum is never handed to the dynamic loader (a truncated ``lib.so`` mapped
into a process dies of SIGBUS, not an exception). It is set aside and built again.

``precompiled_header(name, texts, header)`` builds the compiler's precompiled form of one
header (gcc's ``<header>.gch``) the same way, keyed by the texts, the flags and the compiler;
``library(..., links={"<header>.gch": path})`` puts it beside the header for one compile. gcc
uses it only where it matches the compile's flags and falls back to the header's text otherwise:
either way the same library, only the parse of the headers is saved.

``object(name, texts, source)`` compiles one unit to an object file the same way (keyed by its
texts, the flags and the compiler), and ``library(..., objects=[path, ...])`` links such objects
in: a program built in units recompiles only the units whose text changed.

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
OBJECT = "unit.o"
CHECKSUM = LIBRARY + ".sha256"        # beside every build output: <output>.sha256
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


def intact(directory: str, output: str = LIBRARY) -> bool:
    """Whether directory holds a build output (the library) whose bytes match the checksum
    written at its build."""
    try:
        with open(os.path.join(directory, output + ".sha256"), encoding="ascii") as f:
            want = f.read().strip()
        return bool(want) and _sha256(os.path.join(directory, output)) == want
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
                flags: Sequence[str] = (), compile_only: Optional[Sequence[str]] = None,
                links: Optional[Dict[str, str]] = None, objects: Sequence[str] = ()) -> str:
        """The path of the intact library for these texts, built (or built again, when the cached
        one is damaged) if needed. compile_only: the .c files to compile (default: every one).
        links: {filename: path} of files built earlier (a precompiled header) to place beside the
        texts for the compile; they must not change what is built, so they are not in the key.
        objects: paths of object files built earlier (``object``) linked in; they are not in the
        key either, so with objects the caller gives a key that determines them."""
        if key is None:
            if objects:
                raise BuildError(f"building {name}: a library linked from objects needs the caller's key")
            key = self.key(texts, flags)
        cfiles = [fn for fn in sorted(texts) if fn.endswith(".c")] if compile_only is None else list(compile_only)

        def command(tmp, out):
            return [self._compiler(), *self.flags, *flags, "-I", tmp, "-o", out, *(os.path.join(tmp, c) for c in cfiles),
                    *objects, *self.libs]
        return self._built(name, key, LIBRARY, texts, command, links or {})

    def object(self, name: str, texts: Dict[str, Union[str, bytes]], source: str, flags: Sequence[str] = (),
               links: Optional[Dict[str, str]] = None) -> str:
        """The path of the intact object file (``unit.o``, compiled with -c) of texts[source], built
        once under ``<name>-<key>``; the key hashes the texts, the flags and the compiler, so an
        unchanged unit of a changed program is not compiled again. links: as in ``library``."""
        key = self.key(texts, flags, extra=f"object {source}")

        def command(tmp, out):
            return [self._compiler(), *self.flags, *flags, "-c", "-I", tmp, "-o", out, os.path.join(tmp, source)]
        return self._built(name, key, OBJECT, texts, command, links or {})

    def precompiled_header(self, name: str, texts: Dict[str, Union[str, bytes]], header: str,
                           flags: Sequence[str] = ()) -> str:
        """The path of the intact precompiled form of texts[header] (``<header>.gch``, made with
        the cache's flags and these), built once under ``<name>-<key>``; the key hashes the texts,
        the flags and the compiler, so a changed header is a new one."""
        key = self.key(texts, flags, extra=f"precompiled {header}")

        def command(tmp, out):
            return [self._compiler(), *self.flags, *flags, "-I", tmp, "-x", "c-header", "-o", out, os.path.join(tmp, header)]
        return self._built(name, key, header + ".gch", texts, command, {})

    def _built(self, name, key, output, texts, command, links) -> str:
        """The path of output under <name>-<key>: the intact one built earlier, or built now by
        command(tmp, out) in a fresh directory renamed into place (see the module)."""
        d = os.path.join(self.root, f"{name}-{key}")
        if os.path.isdir(d) and intact(d, output):
            return os.path.join(d, output)
        self._make_root()
        try:
            # one compile per key: a second process (another worker) waits for the first
            with open(os.path.join(self.root, f".lock-{name}-{key}"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not intact(d, output):
                    self._set_aside(d)
                    self._compile(name, texts, command, output, links, d)
        except OSError as e:
            raise BuildError(f"the build cache {self.root} cannot be written ({e})") from None
        if not intact(d, output):
            raise BuildError(f"the {output} just built at {d} does not match its checksum (the cache "
                             f"{self.root} is being changed by something else)")
        return os.path.join(d, output)

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

    def _compile(self, name, texts, command, output, links, d) -> None:
        tmp = tempfile.mkdtemp(prefix=f".{name}-", dir=self.root)
        try:
            for fn, text in texts.items():
                with open(os.path.join(tmp, fn), "wb") as f:
                    f.write(text.encode() if isinstance(text, str) else text)
            for fn, path in links.items():
                os.symlink(path, os.path.join(tmp, fn))
            out = os.path.join(tmp, output)
            cmd = command(tmp, out)
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
            except (OSError, subprocess.SubprocessError) as e:
                raise BuildError(f"building {name} with {cmd[0]} failed: {e}") from None
            if r.returncode != 0:
                raise BuildError(f"building {name} with {cmd[0]} failed:\n{r.stderr[-4000:]}")
            for fn in links:                # the build directory holds only what it was built from
                os.unlink(os.path.join(tmp, fn))
            with open(os.path.join(tmp, output + ".sha256"), "w", encoding="ascii") as f:
                f.write(_sha256(out) + "\n")
            os.rename(tmp, d)
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
