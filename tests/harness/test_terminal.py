"""What a bulk says on the terminal: the closing block starts with the verdict and what failed,
counts the archive's chunks with the synthetic cases apart, groups the counters by check under
readable names, keeps the machine's share of the time within 0-100%, and the progress line's
ETA follows the recent rate."""
import io
import re

from harness.runners.bulk import terminal
from harness.runners.bulk.terminal import Progress, format_summary


def summary(**kw):
    s = {"run_id": "r", "status": "mismatches", "chunks_done": 4100, "chunks_total": 4100,
         "archive_chunks": {"total": 4091, "done": 4091, "failed": 1, "mismatches": 1},
         "synthetic_chunks": {"total": 9, "done": 9, "failed": 0, "mismatches": 0},
         "chunks_failed": 1, "mismatches": 1, "errors": 0, "seconds": 150.0, "chunks_per_minute": 1640,
         "counters": {"cases": 10, "steps": 7, "ends": 2, "note ends": 3, "loads fresh": 4},
         "counters_by_check": {"playback": {"steps": 7, "ends": 2}, "controllers": {"cases": 10},
                               "notes": {"note ends": 3}},
         "quirks": {"loop_resets": 5, "morph_weight_8_up": 2}, "checks": {"notes": {"chunks": 1, "chunks_failed": 1, "mismatches": 1}},
         "failing_chunks": [{"chunk": "a.cmp::ANM_x", "mismatches": 1, "error": None,
                             "first": {"check": "notes", "field": "notes", "step": 3, "expected": "0x1",
                                       "got": "0x2"}, "repro": "make one CASE=a.cmp::ANM_x"}]}
    s.update(kw)
    return s


def test_the_block_starts_with_the_verdict_then_the_failing_chunks():
    lines = format_summary(summary()).splitlines()
    assert lines[0].startswith("run r: FAIL (mismatches) (exit 1): 4,091 chunks of the archive and 9 synthetic "
                               "cases, 1 failed, 1 mismatch, 0 errors")
    assert lines[1].startswith("  failing chunks (1;") and lines[2] == "    a.cmp::ANM_x: 1 mismatch"
    assert lines[4] == "      repro: make one CASE=a.cmp::ANM_x"


def test_an_unfinished_run_says_how_many_of_each():
    first = format_summary(summary(archive_chunks={"total": 4091, "done": 3000, "failed": 1, "mismatches": 1},
                                 synthetic_chunks={"total": 9, "done": 0, "failed": 0, "mismatches": 0},
                                 status="interrupted")).splitlines()[0]
    assert "3,000/4,091 chunks of the archive and 0/9 synthetic cases" in first


def test_counters_are_grouped_by_check_under_readable_names():
    text = format_summary(summary())
    block = text.split("  compared, by check:\n", 1)[1]
    rows = re.findall(r"^    (\w+) +(.*)$", block, re.M)
    assert [c for c, _ in rows[:3]] == ["controllers", "playback", "notes"], rows
    assert dict(rows)["playback"] == "7 playback steps · 2 play-once ends"
    assert dict(rows)["notes"] == "3 play-once ends"
    assert dict(rows)["controllers"] == "10 controller cases"
    assert "other" in dict(rows) and "4 chunk loads from scratch" in dict(rows)["other"]
    quirks = next(line for line in text.splitlines() if line.startswith("  quirks exercised: "))
    assert "loop resets 5" in quirks and "morph weights of 8 and up 2" in quirks, quirks
    assert "loop_resets" not in text and "morph_weight_8_up" not in text


def test_the_machine_share_stays_within_0_and_100_percent_with_two_workers():
    """JOBS=2 on a busy machine: 176 worker-seconds, 21.7 CPU-seconds, 154.5 s in the machine.
    Before: '713% of the CPU' and 'reference + harness -132.8 s'."""
    s = summary(machine_steps=213975650, chunk_seconds=176.05, cpu_seconds=21.68, cpu_seconds_per_chunk=0.748,
                machine_cpu_seconds={"_AnimateForward": 145.3, "ConvLCNum2ALCNum": 9.2})
    text = format_summary(s)
    shares = [float(x) for x in re.findall(r"(-?\d+(?:\.\d+)?)% of", text)]
    rest = float(re.search(r"reference \+ harness (-?[\d.]+) s", text)[1])
    assert shares and all(0 <= x <= 100 for x in shares), text
    assert re.search(r"time in the machine 154\.5 s \(88% of the workers' time", text), text
    assert abs(rest - (176.05 - 154.5)) < 0.06


def test_a_machine_time_above_the_workers_time_is_held_at_100_percent_and_a_zero_rest():
    s = summary(machine_steps=1000, chunk_seconds=10.0, cpu_seconds=12.0, cpu_seconds_per_chunk=1,
                machine_cpu_seconds={"Modify": 10.4})
    text = format_summary(s)
    assert "(100% of the workers' time" in text and "reference + harness 0.0 s" in text, text
    assert "12.0 CPU-seconds (100% of it" in text


def test_the_eta_follows_the_recent_rate_not_the_warm_up(monkeypatch):
    """100 chunks of equal cost: the first took 600 s (the warm-up), then one per second. After
    50 chunks the ETA is about the 50 s left, not 50 x the average (~650 s)."""
    clock = [1000.0]
    monkeypatch.setattr(terminal.time, "time", lambda: clock[0])
    p = Progress(100, 0, io.StringIO(), chunks={i: f"m::ANM_{i}" for i in range(100)},
                 costs={f"m::ANM_{i}": 3.0 for i in range(100)})
    clock[0] += 600
    p.update(0, 0, False)
    for i in range(1, 50):
        clock[0] += 1
        p.update(i, 0, False)
    assert 45 <= p.eta_seconds() <= 55, p.eta_seconds()
    assert "ETA 0:00:5" in p.line() or "ETA 0:00:4" in p.line(), p.line()


def test_the_eta_weighs_the_chunks_left_by_their_predicted_cost(monkeypatch):
    """The most expensive chunks run first: 10 chunks of cost 10 in 100 s, then 90 of cost 1 left.
    At the recent rate of cost (1 per second) they take 90 s, not 900 s."""
    clock = [0.0]
    monkeypatch.setattr(terminal.time, "time", lambda: clock[0])
    costs = {f"c{i}": (10.0 if i < 10 else 1.0) for i in range(100)}
    p = Progress(100, 0, io.StringIO(), chunks={i: f"c{i}" for i in range(100)}, costs=costs)
    for i in range(10):
        clock[0] += 10
        p.update(i, 0, False)
    assert 80 <= p.eta_seconds() <= 100, p.eta_seconds()


def test_the_progress_line_counts_synthetic_cases_apart():
    chunks = {0: "a::ANM_x", 1: "b::ANM_y", 2: "synthetic::morph/edge", 3: "synthetic::edge/zero"}
    p = Progress(4, 0, io.StringIO(), chunks=chunks)
    p.update(0, 0, False)
    p.update(2, 0, False)
    assert p.line().startswith("[1/2] + 1/2 synthetic mismatches 0 errors 0")


def test_one_and_the_probe_name_the_engine_that_ran(capsys):
    from harness.__main__ import main
    from harness.arguments import engine_in_use
    main(["one", "--case", "xp_flag.cmp::ANM_xp_flag004", "--check", "notes"])
    one = capsys.readouterr().out
    assert one.splitlines()[-1].endswith(f"engine {engine_in_use()}"), one
    main(["probe"])
    probe = capsys.readouterr().out
    assert probe.splitlines()[0].endswith(f"(engine {engine_in_use()})"), probe[:300]


def test_the_chunk_origin_line_counts_one_mismatch_as_one():
    line = terminal.chunk_origin_lines({"archive_chunks": {"done": 2, "failed": 1, "mismatches": 1},
                                        "synthetic_chunks": {"done": 14, "failed": 0, "mismatches": 0}})[0]
    assert "(1 failed, 1 mismatch)" in line and "(0 failed, 0 mismatches:" in line


def _played(monkeypatch, costs, seconds, upto, out=None):
    """A run of chunks with these predicted costs and true seconds, one at a time, checked in
    order up to `upto`; the progress line and the true seconds left."""
    clock = [0.0]
    monkeypatch.setattr(terminal.time, "time", lambda: clock[0])
    ids = {i: (f"synthetic::morph/{i}" if costs[i] == 0 else f"m::ANM_{i}") for i in range(len(costs))}
    p = Progress(len(costs), 0, out or io.StringIO(), chunks=ids, costs={ids[i]: c for i, c in enumerate(costs)})
    for i in range(upto):
        clock[0] += seconds[i]
        p.update(i, 0, False, seconds[i])
    return p, sum(seconds[upto:]), clock


def test_the_eta_counts_each_chunks_fixed_part_the_cost_proxy_leaves_out(monkeypatch):
    """Most expensive first, each chunk 0.2 s plus its cost: a rate of cost alone predicts the
    small chunks left at a fraction of their time (the ETA that was 40-60% short)."""
    costs = [3e6 * 0.985 ** i for i in range(300)]
    seconds = [0.2 + 1e-7 * c for c in costs]
    for upto in (60, 150, 240):
        p, left, _ = _played(monkeypatch, costs, seconds, upto)
        assert abs(p.eta_seconds() - left) <= 0.15 * left, (upto, p.eta_seconds(), left)


def test_the_eta_is_not_zero_while_the_cases_built_by_code_remain(monkeypatch):
    """The synthetic cases have no proxy (cost 0) and run last: they still take their time."""
    costs = [1e6] * 20 + [0.0] * 10
    seconds = [1.0] * 20 + [2.0] * 10
    p, left, _ = _played(monkeypatch, costs, seconds, 22)
    assert left == 16.0 and 12.0 <= p.eta_seconds() <= 20.0, p.eta_seconds()
    assert "ETA 0:00:00" not in p.line()


def test_without_a_terminal_a_line_a_minute_each_with_its_elapsed_time(monkeypatch):
    """Cron or CI: at most one progress line per QUIET_EVERY seconds, and the last, each with the
    time since the start, so the log gives each ETA's error afterwards."""
    out = io.StringIO()
    costs = [1.0] * 600
    p, _, clock = _played(monkeypatch, costs, [1.0] * 600, 600, out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 600 // int(Progress.QUIET_EVERY) + 1 - (600 % Progress.QUIET_EVERY == 0), len(lines)
    assert lines[0].endswith("elapsed 0:01:00") and lines[-1].startswith("[600/600]")
    assert all(len(x) < 100 for x in lines)


def test_the_closing_block_wraps_the_ledger_and_the_quirk_classes_at_a_hundred_columns():
    """A nightly's ledger and the sample's quirk classes once made closing lines of 330 and 700
    characters in a CI log: they wrap, every item kept."""
    classes = [f"quirk_class_number_{i}" for i in range(31)]
    s = summary(ledger={f"kind {i} records": [1000 + i, 1000 + i] for i in range(12)},
                sample_quirks={"covered": classes, "missed": classes[:3]})
    text = format_summary(s)
    block = text[text.index("  ledger: "):text.index("  archive chunks")] + text[text.index("  sample meets"):]
    assert block.count("\n") >= 10 and max(len(x) for x in block.splitlines()) <= 104, block
    assert all(c in text for c in classes) and text.count("kind ") >= 12
    assert "    missed: quirk_class_number_0, quirk_class_number_1, quirk_class_number_2" in text
