"""The machine's error types: every way a run can stop short, each naming where and why.

Three families under ``EemuError``, told apart by type (never by a message or a module name):

* ``EmulationError``: the emulated code did it (a fault, a trap, a spent budget, an unknown
  instruction); ``pc`` is where. An error of the program under test.
* ``EngineError``: the machine itself is wrong: its two engines differ (``LockstepMismatch``), or
  an engine's own invariant broke. Never the program's fault.
* ``HostError``: the computer the machine runs on: no C compiler, a compiler failure, a build
  cache that cannot be used. Never the program's fault either.
"""


class EemuError(Exception):
    """Base of every error the R5900 machine raises."""


class EmulationError(EemuError):
    """The emulated code stopped short. ``pc`` is the faulting pc when known."""

    def __init__(self, message, pc=None):
        super().__init__(message)
        self.pc = pc


class StepLimitExceeded(EmulationError):
    """A call ran past its step budget (executable-abi.md §3.1)."""

    def __init__(self, message, pc=None, limit=None):
        super().__init__(message, pc)
        self.limit = limit


class UnimplementedInstruction(EmulationError):
    """The word at pc is not an instruction the EE has, or one the machine does not execute."""

    def __init__(self, message, pc=None, word=None):
        super().__init__(message, pc)
        self.word = word


class MemoryFault(EmulationError):
    """An access outside mapped memory, or a misaligned one (r5900.md §5.2, §10)."""

    def __init__(self, message, pc=None, address=None, size=None):
        super().__init__(message, pc)
        self.address = address
        self.size = size


class ElfError(EmulationError):
    """A bad or unsuitable ELF file, or a symbol the loaded image does not have."""


class TrapError(EmulationError):
    """A trap instruction's condition held, or ADD/ADDI/SUB/DADD/DADDI/DSUB overflowed."""


class SyscallError(EmulationError):
    """SYSCALL or BREAK with no Python handler installed (``m.hooks.add('syscall', fn)``)."""


class DelaySlotError(EmulationError):
    """A branch or jump sits in the delay slot of a taken branch (r5900.md §9)."""


class MachineError(EmulationError):
    """Anything else the machine refuses to do (e.g. VCALLMS: no micro mode)."""


class EngineError(EemuError):
    """The machine broke its own contract (not the emulated code's doing); ``pc`` where known."""

    def __init__(self, message, pc=None):
        super().__init__(message)
        self.pc = pc


class LockstepMismatch(EngineError):
    """The native and Python engines disagree on an instruction (``engine="lockstep"``): ``pc``
    is the first instruction whose effects differ, ``diffs`` lists (what, python, native)."""

    def __init__(self, message, pc=None, diffs=()):
        super().__init__(message, pc)
        self.diffs = list(diffs)


class HostError(EemuError):
    """The host failed the machine: no C compiler, a compiler error, an unusable build cache."""


class NativeUnavailable(HostError):
    """No host C compiler: the native engine cannot run here (the Python engine still can)."""


# kind names for fault(kind, msg) in instruction semantics (row.py)
KINDS = {
    "step": StepLimitExceeded, "unimplemented": UnimplementedInstruction,
    "memory": MemoryFault, "elf": ElfError, "trap": TrapError, "overflow": TrapError,
    "syscall": SyscallError, "delay": DelaySlotError, "machine": MachineError,
    "error": EmulationError,
}
