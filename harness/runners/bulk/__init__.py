"""A run of many chunks: the sample, the workers and their schedule, shards and clusters, the run directory and its summary."""
