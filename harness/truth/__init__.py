"""Truth files: the game's answers as data (docs/truth.md), and any model checked against them.

`export` runs the game's functions over a selection of chunks and streams what they computed;
`fileformat` writes and reads the JSON-lines file; `protocol` talks to a model (the built-in
reference in process, or an external program over stdin/stdout); `answers` declares each query
kind's answer as a typed structure its line decodes into; `check` compares a model's
answers with the game's words as mismatch records; `cli` is `python -m harness truth|check-truth`.
"""
