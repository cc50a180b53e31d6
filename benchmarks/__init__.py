"""The `make bench` benchmarks, outside the packages they measure.

``machine`` (engine instructions/s against unicorn, then ``float_ops``), ``float_ops`` (float loops
and model ops per float model), ``bulk`` (machine CPU of a bulk sample per engine, then
``exhaustive_cost``), ``exhaustive_cost`` (the nightly profile against the sampled one), ``archive``
(synthesising, enumerating and parsing the corpus). Each runs as ``python -m benchmarks.<name>``.
"""
