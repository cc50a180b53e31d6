"""eemu_ext: the R5900 (Emotion Engine) machine. Knows nothing of animation.

Modules: ``machine`` (Machine: state, calls, hooks, the run loop), ``engine`` (basic blocks ->
compiled Python), ``decode`` (our decoder in front of capstone), ``isa`` (the instruction table:
integer, cop1, vu0, mmi rows), ``memory`` (RAM, mirrors, scratchpad, VU0 memory), ``elf`` (images and
symbols), ``layout`` (the retail layout: main, overlays, window, symbol sources), ``sidecar``
(a stripped volume's ``.syms``), ``overlays`` (``DATA/<NAME>.PRG``), ``errors``, ``testing`` (run_words, asm), ``bench`` (`make bench`), ``disasm``
(`python -m eemu_ext disasm ELF [SYMBOL|ADDR]`).
"""
from .errors import (EmulationError, StepLimitExceeded, UnimplementedInstruction, MemoryFault, ElfError,
                     TrapError, SyscallError, DelaySlotError, MachineError)
from .machine import Machine

__all__ = ["Machine", "EmulationError", "StepLimitExceeded", "UnimplementedInstruction", "MemoryFault",
           "ElfError", "TrapError", "SyscallError", "DelaySlotError", "MachineError"]
