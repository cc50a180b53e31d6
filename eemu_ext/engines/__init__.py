"""What runs the code: ``engine`` (basic blocks -> Python source; the engines' protocol),
``python_engine`` (the compiled blocks and their run loop), ``native`` (blocks in C, lockstep, the C
build) and ``coverage`` (per-block exit counts spread over the instructions)."""
