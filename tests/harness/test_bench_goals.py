"""`make bench` fails when a goal is NOT met, and never prints a negative share: a bench whose
goal misses exits 1, and a coverage cost measured below zero (noise) shows as 0%."""
from benchmarks import bulk as bench
from benchmarks import exhaustive_cost


def fake_runs(monkeypatch, native_cpu, coverage_off_cpu):
    def machine_cpu(engine, n=None, env_extra=None):
        env_extra = env_extra or {}
        cpu = coverage_off_cpu if env_extra.get("EEDIFF_CODE_COVERAGE") == "0" else 10.0
        mc = native_cpu if engine == "native" else 30.0
        return {"machine_cpu": mc, "steps": 10**8, "cpu": cpu, "mismatches": 0, "chunks": 12}
    monkeypatch.setattr(bench, "machine_cpu", machine_cpu)
    monkeypatch.setattr(exhaustive_cost, "report", lambda n: None)       # their own runs: not this test's goals
    monkeypatch.setattr(bench, "cluster_against_pool", lambda: None)
    monkeypatch.setattr(bench, "model_against_in_process", lambda: None)
    from benchmarks import goals
    monkeypatch.setattr(goals, "UNMET", [])


def test_a_goal_not_met_makes_the_bench_exit_1(monkeypatch, capsys):
    fake_runs(monkeypatch, native_cpu=3.0, coverage_off_cpu=10.0)      # native only 10x python
    assert bench.main() == 1
    out = capsys.readouterr().out
    assert "NOT met" in out and "goals NOT met: native >= 30x python" in out


def test_every_goal_met_exits_0_and_noise_is_no_negative_percentage(monkeypatch, capsys):
    fake_runs(monkeypatch, native_cpu=0.5, coverage_off_cpu=10.09)     # coverage "saves" 0.9%
    assert bench.main() == 0
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if "code coverage:" in l)
    assert "code coverage: 0.0% of the run (" in line and "within the noise" in line and "-0." not in line, line
    assert "NOT met" not in out
