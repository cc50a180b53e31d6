"""The runners around the checks: one chunk (chunk), a bulk run (bulk, selection, shard, cluster,
failfast, run, merge), replay of a shrunk input (replay), the readiness probe (probe, staged),
the named suites (suites, suite_runs, morph_pseudo) and the mutant self-test (mutants)."""
