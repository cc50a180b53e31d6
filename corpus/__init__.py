"""corpus: DATA.BIN / CCSF / Anime chunk parsing, and the synthetic corpus generator."""
