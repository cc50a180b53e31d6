"""eemu_ext: the R5900 (Emotion Engine) machine. Knows nothing of animation."""
from .errors import (EmulationError, StepLimitExceeded, UnimplementedInstruction, MemoryFault, ElfError,
                     TrapError, SyscallError, DelaySlotError, MachineError)
from .machine import Machine

__all__ = ["Machine", "EmulationError", "StepLimitExceeded", "UnimplementedInstruction", "MemoryFault",
           "ElfError", "TrapError", "SyscallError", "DelaySlotError", "MachineError"]
