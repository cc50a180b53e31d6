"""eemu_ext: the R5900 (Emotion Engine) machine. Knows nothing of animation.

Modules: ``machine`` (Machine: state, memory, symbols, calls), ``hooks`` (m.hooks), ``python_engine``
(the Python engine: compiled blocks and their run loop), ``engine`` (basic blocks -> Python source;
the engines' protocol), ``native`` (the native engine, lockstep, the C build cache), ``decode`` (our
decoder in front of capstone), ``isa`` (the instruction table: integer, cop1, vu0, mmi rows),
``memory`` (RAM, mirrors, scratchpad, VU0 memory), ``elf`` (images and symbols), ``layout`` (the retail layout: main, overlays,
window, symbol sources), ``sidecar`` (a stripped volume's ``.syms``), ``overlays`` (``DATA/<NAME>.PRG``), ``errors``,
``record`` (recordings), ``testing`` (run_words, asm), ``disasm``
(`python -m eemu_ext disasm ELF [SYMBOL|ADDR]`).
"""
from .errors import (EemuError, EmulationError, EngineError, HostError, StepLimitExceeded, UnimplementedInstruction,
                     MemoryFault, ElfError, TrapError, SyscallError, DelaySlotError, MachineError, LockstepMismatch)
from .machine import Machine

__all__ = ["Machine", "EemuError", "EmulationError", "EngineError", "HostError", "StepLimitExceeded",
           "UnimplementedInstruction", "MemoryFault", "ElfError", "TrapError", "SyscallError", "DelaySlotError",
           "MachineError", "LockstepMismatch"]
