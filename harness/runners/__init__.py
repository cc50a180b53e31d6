"""The runs around the checks, in layers: the mutant self-test (mutants) and the truth-file runs
(truth_runs) over a run of many chunks (bulk), over one chunk or case (cases) and the readiness
probe (probing)."""
