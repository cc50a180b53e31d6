"""corpus: DATA.BIN / CCSF / Anime chunk parsing, and the synthetic corpus generator."""
from .errors import CorpusError


def open_corpus(data=None, image=None, disc=None, **kw):
    """Open an archive (DATA.BIN path, optional executable, or an ISO 9660 image): see corpus.archive."""
    from .archive import open_corpus as _open
    return _open(data=data, image=image, disc=disc, **kw)


__all__ = ["CorpusError", "open_corpus"]
