"""The machine itself: ``machine`` (Machine: state, memory, symbols, calls), ``hooks`` (m.hooks),
``memory_access`` (typed reads and writes), ``trace`` (`python -m eemu_ext run`) and ``testing``
(run_words, asm for per-instruction tests)."""
