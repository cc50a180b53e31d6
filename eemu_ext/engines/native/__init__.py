"""The native engine: the instruction table's compiled semantics (Row.c), translated per basic block
into C, compiled once per executable with the host's C compiler and run on the machine's own state."""
