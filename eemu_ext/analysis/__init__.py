"""What the instruction table tells about code, beside running it: ``dataflow`` (each row's reads and
writes), ``record`` (recordings and the data flow back) and ``disasm`` (`python -m eemu_ext disasm`)."""
