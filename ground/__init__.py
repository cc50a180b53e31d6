"""The ground floor: facts and plumbing every package of eediff shares, below all of them.

Constants and plumbing only, never arithmetic of the game: the exit statuses (``exits``), the
check names and record kinds (``vocabulary``), an atomic file write (``files``) and the build cache
of shared libraries built from C (``ccache``). It imports nothing of ours (import-linter's
contract in pyproject.toml); every other package may import it (docs/interfaces.md).
"""
