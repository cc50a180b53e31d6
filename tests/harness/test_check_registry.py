"""A check is one object (harness/checks/__init__.py): adding one means adding one module whose
CHECK the registry finds. Here a toy check, the frame counter after each _AnimateForward against
the reference's, is registered the way a module of harness/checks is, and goes through everything
that runs a check: the `--check` pool, an in-process bulk, shrinking, the replay command and the
report. Its broken variant (a reference one frame tick ahead after a first step, on steps of
any size but 0) must show red at every stage: a mismatch in the run and its report, shrunk to two
smaller steps whose repro replays the mismatch."""
import json
import os
import shlex

import pytest

from harness import checks
from harness.__main__ import main
from harness.compare.mismatch import record
from harness.options import Options
from harness.runners.bulk import command as bulk, selection

from .minicorpus import mini_corpus

STEPS = [256, 256, 256, 256]


def toy_check(broken=False):
    def applies(case):
        return case.anim.frames >= 1 and bool(case.anim.tracks)

    def play(case, steps):
        game = case.game
        game.playback(game.load(case.ch.data), case.ch.names, steps[0] if steps else 256)
        ref = case.anim.playback(steps)
        for i, s in enumerate(steps):
            got = game.forward(s)[0]
            want = ref.forwards[i].time + (1 if broken and i and min(steps[:i + 1]) > 0 else 0)
            case.tally.count("toy steps")
            if got != want:
                case.tally.fail(record(case.ctx, "toy", "frame counter", want, got, step=i, floats=False,
                                       context={"step_sizes": list(steps)}))
                return

    def replayed(m):
        c = m.get("context") or {}
        return (list(c["step_sizes"]), {}) if "step_sizes" in c else None

    return checks.Check("toy", order=99, kinds=("fobj",), applies=applies, run=lambda case: play(case, STEPS),
                        replay=checks.Replay("steps", replayed, play))


@pytest.fixture(params=[False, True], ids=["sound", "broken"])
def toy(request, monkeypatch):
    check = toy_check(broken=request.param)
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS + (check,))   # as discover() finds a module's CHECK
    monkeypatch.setattr(Options, "open_corpus", lambda self: mini_corpus())
    return request.param


def test_a_check_module_is_all_the_registry_needs_and_its_order_is_its_place_in_the_run(tmp_path, monkeypatch):
    pkg = tmp_path / "more_checks"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for module, name, order in (("a_late", "late", 7), ("b_early", "early", 1)):
        (pkg / f"{module}.py").write_text(
            "from harness.checks import Check\n"
            f"CHECK = Check({name!r}, order={order}, kinds=('object',), applies=lambda case: True,\n"
            f"              run=lambda case: None, aliases=({name + '-too'!r},))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = checks.discover("more_checks", [str(pkg)])
    assert [c.name for c in found] == ["early", "late"]
    monkeypatch.setattr(checks, "CHECKS", found)
    assert checks.names() == ("early", "early-too", "late", "late-too")
    assert checks.resolve("late-too").name == "late" and checks.aliases() == {"early-too", "late-too"}
    with pytest.raises(KeyError, match="no check named 'controllers'"):
        checks.get("controllers")


def test_the_registry_knows_the_toy_by_its_name_only_once_registered(toy):
    assert checks.get("toy").name == checks.resolve("toy").name == "toy"
    assert "toy" in checks.names() and "toy" in checks.replayable()
    assert checks.get("toy").order > max(c.order for c in checks.CHECKS if c.name != "toy")


def test_the_toy_check_selects_the_chunks_with_the_records_it_needs(toy):
    corpus = mini_corpus()
    assert selection.kinds_for(["toy"]) == ["fobj"]
    assert selection.pool(corpus, selection.kinds_for(["toy"])) == ["mini.cmp::ANM_once"]   # ANM_loop has no F_Obj


def test_the_toy_check_runs_in_a_bulk_shrinks_replays_and_shows_in_the_report(toy, tmp_path, capsys):
    opts = Options(seed=4, profile="quick", n=10, jobs=1, runs=str(tmp_path), checks=["toy"])
    rc = bulk.run_bulk(opts, ["test"])
    out = capsys.readouterr()
    run = os.path.realpath(tmp_path / "latest")
    s = json.load(open(os.path.join(run, "summary.json")))
    records = [json.load(open(os.path.join(run, "chunks", f))) for f in sorted(os.listdir(os.path.join(run, "chunks")))]
    archive = [r for r in records if r["chunk"].startswith("mini.cmp::")]
    assert [(r["chunk"], r["checks"]) for r in archive] == [("mini.cmp::ANM_once", ["toy"])]
    assert s["counters"]["toy steps"] >= len(STEPS) * len(archive)
    from reports import render
    html = open(render(run)).read()
    if not toy:
        assert rc == 0 and s["mismatches"] == 0, out.out + out.err
        assert '<span class="mc">toy</span>' not in html        # no mismatch row of the toy check
        return
    assert rc == 1 and s["mismatches"] >= len(archive), out.out + out.err
    m = next(m for m in archive[0]["mismatches"] if m["check"] == "toy")
    assert (m["field"], m["step"], m["got"] + 1) == ("frame counter", 1, m["expected"])
    shrunk = m["shrunk"]
    assert len(shrunk["steps"]) == 2 and all(0 < x <= 256 for x in shrunk["steps"]), shrunk
    assert shrunk["original_length"] == len(STEPS) and shrunk["steps"] != STEPS[:2], shrunk
    assert '<span class="mc">toy</span>' in html and shrunk["repro"] in html
    words = shlex.split(shrunk["repro"])
    assert words[:5] == [".venv/bin/python", "-m", "harness", "replay", "--case"], words
    assert main(words[3:]) == 1                       # the shrunk repro replays the mismatch
    assert "replay toy: 1 mismatch" in capsys.readouterr().out


def test_the_packages_outside_the_harness_take_the_check_names_from_the_ground_floor():
    # the pytest plugin loads before the harness, and reports may not import it: both read the
    # vocabulary the registry is held to, no list of their own
    import eediff_pytest
    from ground import vocabulary
    from reports import coverage, summary
    assert eediff_pytest.CHECK_WORDS is vocabulary.CHECKS
    assert coverage.CHECKS is summary.CHECKS is vocabulary.CHECK_NAMES
    assert vocabulary.CHECKS == tuple(c.name for c in checks.CHECKS)
    assert vocabulary.CHECK_NAMES == checks.names() and set(vocabulary.ALIASES) == checks.aliases()


def test_the_registry_refuses_a_check_the_vocabulary_does_not_name(toy):
    with pytest.raises(ImportError, match=r"the checks controllers, .*, world, toy are not ground/vocabulary.py's"):
        checks.spoken(checks.CHECKS)


def test_the_registry_refuses_checks_out_of_the_vocabularys_run_order():
    with pytest.raises(ImportError, match="the checks materials, controllers,"):
        checks.spoken((checks.CHECKS[1], checks.CHECKS[0]) + checks.CHECKS[2:])


def test_the_registry_refuses_an_alias_or_a_record_kind_the_vocabulary_does_not_have():
    import dataclasses
    first, rest = checks.CHECKS[0], checks.CHECKS[1:]
    with pytest.raises(ImportError, match="aliases .*'multistep'.*'running'"):
        checks.spoken((dataclasses.replace(first, aliases=first.aliases + ("running",)),) + rest)
    with pytest.raises(ImportError, match="check controllers needs record kind\\(s\\) light not in"):
        checks.spoken((dataclasses.replace(first, kinds=("object", "light")),) + rest)
    checks.spoken(checks.CHECKS)            # the registry as it is speaks it
