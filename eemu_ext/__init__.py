"""eemu_ext: the R5900 (Emotion Engine) machine. Knows nothing of animation.

Sub-packages, each below the ones after it (no import goes the other way; pyproject.toml's
import-linter contract holds them so):
- ``errors``, ``eefloat`` (the EE float arithmetic) and ``memory`` (RAM, mirrors, scratchpad, VU0
  memory): modules at the bottom that every part reads;
- ``isa``: the instruction table (integer, cop1, vu0, mmi rows) and ``decode``, our decoder in front
  of capstone;
- ``engines``: what runs the code (the Python engine, the native engine and lockstep, coverage);
- ``loading``: ELF images, the retail layout, sidecars and overlays;
- ``analysis``: data flow, recordings, the disassembler (`python -m eemu_ext disasm ELF [SYMBOL|ADDR]`);
- ``core``: the Machine that puts them together, its hooks and typed memory access, ``callio`` (a
  batch's work between its calls, as data the native engine does in C), ``trace``
  (`python -m eemu_ext run`) and ``testing`` (run_words, asm).
"""
from eemu_ext.errors import (EemuError, EmulationError, EngineError, HostError, StepLimitExceeded,
                             UnimplementedInstruction, MemoryFault, ElfError, TrapError, SyscallError,
                             DelaySlotError, MachineError, LockstepMismatch)
from eemu_ext.core.machine import Machine
from eemu_ext.core.callio import CallIO

__all__ = ["Machine", "CallIO", "EemuError", "EmulationError", "EngineError", "HostError", "StepLimitExceeded",
           "UnimplementedInstruction", "MemoryFault", "ElfError", "TrapError", "SyscallError", "DelaySlotError",
           "MachineError", "LockstepMismatch"]
