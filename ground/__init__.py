"""The ground floor: facts and plumbing every package of eediff shares, below all of them.

Constants and plumbing only, never arithmetic of the game: the exit statuses (``exits``), the
check names and record kinds (``vocabulary``), a mismatch record's field (``fields``), the numbers
of the keyed-rotation bound and the f32 ulp (``bounds``), an atomic file write (``files``), what a
typed decode refused, said by its path (``typed``), and the build cache of shared libraries built
from C (``ccache``). It imports nothing of ours (import-linter's
contract in pyproject.toml); every other package may import it (docs/interfaces.md).
"""
