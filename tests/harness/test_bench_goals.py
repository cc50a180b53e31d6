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


def fake_nightly(monkeypatch, wall, done=4105, total=4105, status="pass"):
    from benchmarks import goals, realtime
    steps = int(10 * realtime.PS2_RATE)                  # 10 s of the console's time
    monkeypatch.setattr(realtime, "nightly", lambda n: {"wall": wall, "summary": {
        "machine_steps": steps, "chunks_done": done, "chunks_total": total, "status": status}})
    monkeypatch.setattr(goals, "UNMET", [])
    return realtime


def test_nightly_realtime_below_1_on_the_exhaustive_nightly_is_a_goal_not_met(monkeypatch, capsys):
    realtime = fake_nightly(monkeypatch, wall=20.0)
    assert realtime.main(4091) == 1
    out = capsys.readouterr().out
    assert ": 0.50" in out and "goals NOT met: nightly_realtime >= 1.0" in out


def test_nightly_realtime_faster_than_the_console_meets_the_goal_only_when_it_passes(monkeypatch, capsys):
    realtime = fake_nightly(monkeypatch, wall=8.0)
    assert realtime.main(4091) == 0
    assert ": 1.25" in capsys.readouterr().out
    realtime = fake_nightly(monkeypatch, wall=8.0, status="fail")
    assert realtime.main(4091) == 1


def test_nightly_realtime_on_a_sample_is_printed_not_judged(monkeypatch, capsys):
    realtime = fake_nightly(monkeypatch, wall=20.0, done=114, total=114)
    assert realtime.main(100) == 0
    out = capsys.readouterr().out
    assert "judged on the exhaustive nightly only" in out and "NOT met" not in out


def fake_objects_cost(monkeypatch, with_cpu, errors=0, matrices=1000):
    from benchmarks import goals, objects_cost
    run = {"cpu": 10.0, "wall": 10.5, "chunks": 200, "mismatches": 0, "errors": 0, "world matrices": 0}
    monkeypatch.setattr(objects_cost, "measure", lambda n: {
        "all": dict(run, cpu=with_cpu, errors=errors, **{"world matrices": matrices}), "without": run})
    monkeypatch.setattr(goals, "UNMET", [])
    return objects_cost


def test_objects_cost_above_1_25_times_the_nightly_without_objects_and_world_is_a_goal_not_met(monkeypatch, capsys):
    assert fake_objects_cost(monkeypatch, with_cpu=13.0).main(200) == 1
    out = capsys.readouterr().out
    assert "1.30x CPU" in out and "goals NOT met: objects_cost <= 1.25x" in out


def test_objects_cost_within_the_goal_is_met_only_when_matrices_were_compared_without_error(monkeypatch, capsys):
    assert fake_objects_cost(monkeypatch, with_cpu=12.0).main(200) == 0
    assert "1.20x CPU" in capsys.readouterr().out
    assert fake_objects_cost(monkeypatch, with_cpu=12.0, errors=1).main(200) == 1
    assert fake_objects_cost(monkeypatch, with_cpu=10.0, matrices=0).main(200) == 1


def fake_against(monkeypatch, here_walls, earlier_walls, status="pass", done=35):
    from benchmarks import against, goals

    def rounds(walls):
        return [{"wall": w, "cpu": 2 * w, "summary": {"chunks_done": done, "chunks_total": 35, "status": status,
                                                      "machine_steps": 10}} for w in walls]
    monkeypatch.setattr(against, "against", lambda rev, n, data: {"earlier": rounds(earlier_walls),
                                                                  "here": rounds(here_walls)})
    monkeypatch.setattr(goals, "UNMET", [])
    return against


def test_against_an_earlier_tree_each_side_is_its_best_round_and_the_goal_is_the_ratio(monkeypatch, capsys):
    against = fake_against(monkeypatch, here_walls=[12.0, 10.4], earlier_walls=[30.0, 10.0])
    assert against.main([against.PIPELINE_BASE]) == 0                # 10.4 / 10.0 = 1.04 <= 1.05
    out = capsys.readouterr().out
    assert "here / earlier = 1.04x wall" in out and "goal <= 1.05x: met" in out
    against = fake_against(monkeypatch, here_walls=[10.6], earlier_walls=[10.0])
    assert against.main([against.PIPELINE_BASE]) == 1
    assert "goals NOT met: nightly within 1.05x" in capsys.readouterr().out


def test_against_a_side_that_fails_or_checks_nothing_is_no_goal_met(monkeypatch, capsys):
    against = fake_against(monkeypatch, here_walls=[1.0], earlier_walls=[10.0], status="fail")
    assert against.main([against.SPEED_BASE]) == 1                   # fast, but not a pass
    against = fake_against(monkeypatch, here_walls=[1.0], earlier_walls=[10.0], done=0)
    assert against.main([against.SPEED_BASE]) == 1
    assert "not measured: a side checked no chunk" in capsys.readouterr().out
