"""The game driver: one Machine running the executable's ccAnm functions (checks.md §8.3).

game (the `Game` object: load, new_anm, step, playback, forward, restart, modify), memory_map
(checks.md §8.1 addresses, executable-abi.md §5 offsets), stubs (the §6 stubs), budgets (the
per-function instruction budgets).
"""
