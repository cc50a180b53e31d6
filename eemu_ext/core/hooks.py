"""Python code the machine runs at chosen moments: one registry, in the spirit of unicorn's hook_add.

``h = m.hooks.add(kind, fn, addr)`` installs a hook and returns its handle; ``h.remove()`` (or
``m.hooks.remove(h)``, or for an address hook ``m.hooks.remove(addr)``) takes it out again, and a
handle is a context manager that removes its hook on exit. The kinds:

* ``"address"``: ``fn(m)`` runs instead of the code at ``addr`` (an address or a symbol): the
  stubs of executable-abi.md §6. An int result becomes v0 (sign-extended); execution continues at
  ra. One hook per address: a new one replaces the old.
* ``"tap"``: no fn; the function at ``addr`` is replaced by nothing (v0 and every other register
  left as they are, one unit counted, execution continues at ra), and each call appends the
  tuple (a0, a1, a2, a3, $f12, $f13, $f14, $f15), as u32 words, to the handle's ``calls`` (also
  what ``with`` gives). The native engine taps in C, without entering Python (under lockstep
  both engines take the Python path). One hook per address, as for ``"address"``.
* ``"bump"``: an allocator, served without entering Python where the engine can: ``fn(m)`` is
  the allocator as an ``"address"`` hook (the Python engine runs it, and the native engine when
  it cannot serve a call), and ``heap`` is the bump heap it allocates from: an object with
  ``ptr``, ``end`` and ``high_water`` (addresses) and ``bumped(addr, args, ra, block)``, which is
  told of every allocation the native engine served, in order. ``size`` is the rule: 0 or 1, the
  argument that is the size; ``"memalign"``, the larger of a0 and a1 aligned to the smaller that
  is a power of two up to 4096. Either way the size rounds up to 16 bytes, the block starts at
  ``ptr`` aligned (16 unless memalign says more), its n bytes are zeroed and v0 is its address;
  ``args`` is (a0,) for rule 0 and (a0, a1) otherwise. ``fn`` must do exactly that (lockstep runs
  it in both engines' place). One heap per machine.
* ``"step"``: ``fn(m, pc)`` before every unit (an instruction, or a branch with its delay slot);
  runs go unit by unit in the Python engine while one is installed.
* ``"syscall"``: ``fn(m, kind, code)`` at SYSCALL or BREAK (kind ``"syscall"`` or ``"break"``);
  without one they raise SyscallError.
* ``"record"``: no fn; the handle's ``recording`` (also what ``with`` gives) is a
  record.Recording of every instruction the runs execute, with the values it read and wrote.
  Recordings nest; the innermost records.

Example::

    with m.hooks.add("record") as rec:
        m.hooks.add("address", lambda m: 0, "free")
        m.call("Modify", obj)
    print(rec.format())
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from eemu_ext.errors import EmulationError, SyscallError

KINDS = ("address", "tap", "bump", "step", "syscall", "record")
BUMP_RULES = (0, 1, "memalign")
M32 = 0xFFFFFFFF


def _sx32(v: int) -> int:
    v &= M32
    return v | 0xFFFFFFFF00000000 if v & 0x80000000 else v


class Hook:
    """The handle of one installed hook (Hooks.add)."""

    def __init__(self, hooks: "Hooks", kind: str, fn, addr: Optional[int]):
        self.hooks, self.kind, self.fn, self.addr = hooks, kind, fn, addr
        self._calls = None

    @property
    def recording(self):
        return self.fn if self.kind == "record" else None

    @property
    def calls(self):
        """A tap hook's calls: [(a0, a1, a2, a3, $f12, $f13, $f14, $f15)] in call order."""
        return self._calls

    def remove(self) -> None:
        self.hooks.remove(self)

    def __enter__(self):
        return self.calls if self.kind == "tap" else self.fn

    def __exit__(self, *exc) -> None:
        self.remove()

    def __repr__(self):
        at = f" at 0x{self.addr:08x}" if self.addr is not None else ""
        return f"<{self.kind} hook{at}>"


class Hooks:
    """The hooks of one machine (see the module docstring)."""

    def __init__(self, m):
        self.m = m
        self.at: Dict[int, Callable] = {}          # address -> fn: the engines' view
        self.pages = set()                          # the 4 KiB pages of hooked addresses
        self._handles: Dict[int, Hook] = {}
        self.steps: List[Callable] = []
        self.syscalls: List[Callable] = []
        self.recordings: List[object] = []
        self.taps: Dict[int, list] = {}             # tap address -> its calls (the engines append)
        self.bumps: Dict[int, object] = {}          # bump address -> its size rule (BUMP_RULES)
        self.heap = None                            # the bump hooks' heap

    def add(self, kind: str, fn=None, addr=None, heap=None, size=None) -> Hook:
        if kind not in KINDS:
            raise ValueError(f"hook kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if kind == "bump":
            if not callable(fn) or addr is None or heap is None or size not in BUMP_RULES:
                raise ValueError("a bump hook needs fn, an address, a heap and a size rule "
                                 f"({', '.join(map(repr, BUMP_RULES))})")
            if self.bumps and heap is not self.heap:
                raise ValueError("a machine's bump hooks share one heap")
            h = self._at(kind, fn, addr)
            self.bumps[h.addr] = size
            self.heap = heap
            self.m.hooks_changed(h.addr)
            return h
        if kind == "record":
            from eemu_ext.analysis.record import Recording
            h = Hook(self, kind, fn if fn is not None else Recording(self.m), None)
            self.recordings.append(h.fn)
            return h
        if kind == "tap":
            if addr is None:
                raise ValueError("a tap hook needs an address or a symbol")
            calls: list = []

            def tap(m):
                calls.append(tuple(m.R[4 + k] & M32 for k in range(4)) + tuple(m.f_bits(12 + k) for k in range(4)))
            h = self._at(kind, tap, addr)
            self.taps[h.addr] = h._calls = calls
            self.m.hooks_changed(h.addr)
            return h
        if not callable(fn):
            raise TypeError(f"a {kind} hook needs a callable, not {fn!r}")
        if kind == "address":
            if addr is None:
                raise ValueError("an address hook needs an address or a symbol")
            h = self._at(kind, fn, addr)
            self.m.hooks_changed(h.addr)
            return h
        h = Hook(self, kind, fn, None)
        (self.steps if kind == "step" else self.syscalls).append(fn)
        return h

    def _at(self, kind, fn, addr) -> Hook:
        a = self.m.resolve(addr)
        h = Hook(self, kind, fn, a)
        self.at[a] = fn
        self._handles[a] = h
        self.taps.pop(a, None)                      # a new hook replaces a tap there
        self.bumps.pop(a, None)
        self.pages.add((a & 0x1FFFFFFF) >> 12)
        return h

    def remove(self, hook) -> None:
        """Take out a hook: its handle, or for an address hook the address or symbol."""
        if not isinstance(hook, Hook):
            hook = self._handles.get(self.m.resolve(hook))
            if hook is None:
                return
        if hook.kind in ("address", "tap", "bump"):
            if self._handles.get(hook.addr) is not hook:
                return                                # replaced since: the new one stays
            del self.at[hook.addr], self._handles[hook.addr]
            self.taps.pop(hook.addr, None)
            self.bumps.pop(hook.addr, None)
            if not self.bumps:
                self.heap = None
            self.m.hooks_changed(hook.addr)           # (its page still counts as hooked here)
            self.pages = {(a & 0x1FFFFFFF) >> 12 for a in self.at}
            return
        store = {"step": self.steps, "syscall": self.syscalls, "record": self.recordings}[hook.kind]
        for i in range(len(store) - 1, -1, -1):
            if store[i] is hook.fn:
                del store[i]
                break

    @property
    def recording(self):
        """The innermost active recording, or None."""
        return self.recordings[-1] if self.recordings else None

    @property
    def watching(self) -> bool:
        """Whether runs go unit by unit in Python (a step hook or a recording is installed)."""
        return bool(self.steps or self.recordings)

    # -- what the engines call -------------------------------------------------------------------
    def run_at(self, addr: int) -> int:
        """Run the hook at addr in place of the code there; returns the pc to continue at (ra)."""
        m = self.m
        m.pc = addr
        try:
            r = self.at[addr](m)
        except Exception as e:
            if not isinstance(e, EmulationError):
                e._eemu_passthrough = True      # the hook's own error: re-raised unchanged
            raise
        if r is not None:
            m.R[2] = _sx32(int(r))
        return m.R[31] & M32

    def step(self, pc: int) -> None:
        m = self.m
        for fn in self.steps:
            m.pc = pc
            fn(m, pc)

    def syscall(self, kind: str, pc: int, code: int) -> None:
        """SYSCALL or BREAK at pc: the syscall hooks, in order, or SyscallError without one."""
        m = self.m
        if not self.syscalls:
            raise SyscallError(f"{kind.upper()} (code 0x{code:x}) at pc 0x{pc:08x} ({m.symbolize(pc)}) and no "
                               f"handler installed (m.hooks.add('syscall', fn))", pc)
        for fn in self.syscalls:
            m.pc = pc
            try:
                fn(m, kind, code)
            except Exception as e:
                if not isinstance(e, EmulationError):
                    e._eemu_passthrough = True
                raise
