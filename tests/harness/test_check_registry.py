"""A check is one object (harness/checks/__init__.py): adding one means adding one module whose
CHECK the registry finds, and its names to the vocabulary (ground/vocabulary.py). Here a toy check,
the frame counter after each _AnimateForward against the reference's, is registered the way a module
of harness/checks is, with a query kind of its own ("toy": its queries, comparison, built-in answer
and answer structure), and goes through everything that runs a check: the `--check` pool, an
in-process bulk, shrinking, the replay command, the report, a truth export, check-truth and a
model run. Its broken variant (a reference one frame tick ahead after a first step, on steps of
any size but 0) must show red at every stage: a mismatch in the run and its report, shrunk to two
smaller steps whose repro replays the mismatch, a check-truth mismatch whose repro is check-truth;
a model answering so is caught in a model run."""
import json
import os
import shlex
import sys
from typing import Annotated

import msgspec
import pytest

from ground import vocabulary
from harness import checks
from harness.__main__ import main
from harness.compare.mismatch import record
from harness.options import Options
from harness.runners.bulk import command as bulk, selection

from .minicorpus import mini_corpus

STEPS = [256, 256, 256, 256]


class ToyAnswer(msgspec.Struct):
    """The toy's answer to a "toy" query: the frame counter after each of its steps."""
    forward: list[Annotated[int, msgspec.Meta(ge=0, le=0xFFFFFFFF)]]

    @classmethod
    def fit(cls, q, a):
        if len(a["forward"]) != len(q["steps"]):
            raise ValueError(f"forward: expected {len(q['steps'])} frame counters, got {len(a['forward'])}")


def toy_check(broken=False):
    def applies(case):
        return case.anim.frames >= 1 and bool(case.anim.tracks)

    def query(game, ch, steps):
        game.playback(game.load(ch.data), ch.names, steps[0] if steps else 256)
        return {"kind": "toy", "steps": list(steps), "game": {"forward": [int(game.forward(s)[0]) for s in steps]}}

    def queries(game, ch, _anim, _prof, _r):
        return [query(game, ch, STEPS)]

    def answer(anim, q):
        steps = q["steps"]
        ref = anim.playback(steps)
        return {"forward": [ref.forwards[i].time + (1 if broken and i and min(steps[:i + 1]) > 0 else 0)
                            for i in range(len(steps))]}

    def compare(q, a, ctx, tally, _anim):
        for i, (got, want) in enumerate(zip(q["game"]["forward"], a["forward"])):
            tally.count("toy steps")
            if int(got) != int(want):
                tally.fail(record(ctx, "toy", "frame counter", int(want), int(got), step=i, floats=False,
                                  context={"step_sizes": list(q["steps"])}))
                return False
        return True

    def replay(case, steps):
        q = query(case.game, case.ch, steps)
        checks.answered(compare, q, answer(case.anim, q), case.ctx, case.tally, case.anim)

    def replayed(m):
        c = m.get("context") or {}
        return (list(c["step_sizes"]), {}) if "step_sizes" in c else None

    kinds = (checks.QueryKind("toy", compare, answer, ToyAnswer),)
    return checks.Check("toy", order=99, kinds=("fobj",), applies=applies, run=checks.queries_run(queries, kinds),
                        replay=checks.Replay("steps", replayed, replay,
                                             queries=lambda game, ch, _anim, steps, _exact_local: [query(game, ch, steps)]),
                        queries=queries, query_kinds=kinds)


def register(monkeypatch, broken):
    """The toy added as a new check is: its module's CHECK (as discover() finds it), its name and
    query kind in the vocabulary (not CHECK_NAMES, which reports bind when first imported)."""
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS + (toy_check(broken),))
    monkeypatch.setattr(vocabulary, "CHECKS", vocabulary.CHECKS + ("toy",))
    monkeypatch.setattr(vocabulary, "QUERY_KINDS", dict(vocabulary.QUERY_KINDS, toy="toy"))
    monkeypatch.setattr(Options, "open_corpus", lambda self: mini_corpus())


@pytest.fixture(params=[False, True], ids=["sound", "broken"])
def toy(request, monkeypatch):
    register(monkeypatch, request.param)
    return request.param


@pytest.fixture
def sound_toy(monkeypatch):
    register(monkeypatch, False)


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


def test_the_registry_refuses_a_check_or_a_query_kind_the_vocabulary_does_not_name(toy, monkeypatch):
    checks.spoken(checks.CHECKS)                # the toy as a new check is added: the vocabulary names it
    monkeypatch.setattr(vocabulary, "QUERY_KINDS", {k: c for k, c in vocabulary.QUERY_KINDS.items() if k != "toy"})
    with pytest.raises(ImportError, match="check toy declares the query kind 'toy', which ground/vocabulary.py"):
        checks.spoken(checks.CHECKS)
    monkeypatch.setattr(vocabulary, "CHECKS", vocabulary.CHECKS[:-1])
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


def test_the_toy_checks_queries_go_to_a_truth_file_and_check_truth_judges_them(toy, tmp_path, monkeypatch, capsys):
    import corpus
    from harness.checks import parse_reference
    from harness.truth import fileformat
    # check-truth opens the archive the file names itself: here the mini corpus
    monkeypatch.setattr(corpus, "open_corpus", lambda data=None, disc=None: mini_corpus())
    path = str(tmp_path / "truth.jsonl")
    assert main(["truth", "--check", "toy", "--seed", "4", "--profile", "quick", "--n", "10", "--out", path]) == 0
    _, lines = fileformat.read(path)
    lines = list(lines)
    assert [(x["chunk"], x["checks"]) for x in lines] == [("mini.cmp::ANM_once", ["toy"])]
    (q,) = lines[0]["queries"]
    # the game's words: its frame counters after each step, which a sound reference agrees with
    ref = parse_reference(mini_corpus().chunk("mini.cmp::ANM_once"), "hw").playback(STEPS)
    assert (q["kind"], q["steps"]) == ("toy", STEPS) and q["game"]["forward"] == [f.time for f in ref.forwards]
    capsys.readouterr()
    status = main(["check-truth", path, "--json", str(tmp_path / "m.jsonl")])
    out = capsys.readouterr().out
    found = [json.loads(x) for x in open(tmp_path / "m.jsonl", encoding="utf-8")]
    assert "1 chunk, 1 query compared (toy 1)" in out, out
    if not toy:
        assert status == 0 and found == [], out
        return
    assert status == 1 and found, out
    m = found[0]
    assert (m["check"], m["field"], m["step"], m["got"] + 1) == ("toy", "frame counter", 1, m["expected"])
    words = shlex.split(m["repro"])
    assert words[:4] == [".venv/bin/python", "-m", "harness", "check-truth"], words
    assert words[words.index("--check") + 1] == "toy" and words[words.index("--case") + 1] == "mini.cmp::ANM_once"
    assert main(words[3:]) == 1                       # the repro shows the mismatch again
    assert "frame counter" in capsys.readouterr().out


# a model written from scratch that answers the toy's queries (docs/truth.md §2's protocol); with
# --wrong one frame tick ahead after a first step, on steps of any size but 0 (the broken toy's)
TOY_MODEL = '''
import base64, json, sys
from reference import Animation
wrong = "--wrong" in sys.argv[1:]
for line in sys.stdin:
    req = json.loads(line)
    anim = Animation.parse(base64.b64decode(req["anime"]), ext={o: t for o, t in req["ext"]} or None,
                           float_model=req["float_model"])
    if any(q["kind"] != "toy" for q in req["queries"]):
        print(json.dumps({"chunk": req["chunk"], "error": "this model answers toy queries only"}), flush=True)
        continue
    answers = []
    for q in req["queries"]:
        steps = q["steps"]
        ahead = lambda k: 1 if wrong and k and min(steps[:k + 1]) > 0 else 0
        answers.append({"i": q["i"], "kind": "toy",
                        "forward": [f.time + ahead(k) for k, f in enumerate(anim.playback(steps).forwards)]})
    print(json.dumps({"chunk": req["chunk"], "answers": answers}), flush=True)
'''


def test_a_model_answering_the_toys_queries_gives_the_in_process_records_and_a_wrong_one_is_caught(
        sound_toy, tmp_path, capsys):
    from harness.runners.truth_runs.volumes import run_records
    prog = tmp_path / "toy_model.py"
    prog.write_text(TOY_MODEL)
    model = f"{shlex.quote(sys.executable)} {shlex.quote(str(prog))}"

    def run(name, **kw):
        opts = Options(seed=4, profile="quick", n=10, jobs=1, runs=str(tmp_path / "runs"), out=str(tmp_path / name),
                       checks=["toy"], **kw)
        return bulk.run_bulk(opts), run_records(str(tmp_path / name))

    s_in, inproc = run("inproc")
    s_model, served = run("served", model=model)
    s_wrong, wrong = run("wrong", model=model + " --wrong")
    out = capsys.readouterr()
    assert s_in == s_model == 0, out.out + out.err
    assert set(served) == set(inproc) and "mini.cmp::ANM_once" in served
    for c in inproc:                                   # the same record, but the model's seconds
        assert {k: v for k, v in served[c].items() if k != "model_seconds"} == inproc[c], c
    assert served["mini.cmp::ANM_once"]["checks"] == ["toy"]
    assert served["mini.cmp::ANM_once"]["counters"]["toy steps"] == len(STEPS)
    assert s_wrong == 1
    m = wrong["mini.cmp::ANM_once"]["mismatches"][0]
    assert (m["check"], m["field"], m["step"], m["answered_by"]) == ("toy", "frame counter", 1, "model")
    assert m["got"] + 1 == m["expected"]
    shrunk = m["shrunk"]                               # shrunk through the model, as in process
    assert len(shrunk["steps"]) == 2 and all(0 < x <= 256 for x in shrunk["steps"]), shrunk
    words = shlex.split(shrunk["repro"])
    assert words[3] == "replay" and words[words.index("--model") + 1] == model + " --wrong", words
    assert main(words[3:]) == 1                       # the shrunk repro replays the model's mismatch
    assert "replay toy: 1 mismatch" in capsys.readouterr().out


def test_a_declared_query_kind_without_its_answer_structure_is_an_import_error(sound_toy, monkeypatch):
    import dataclasses
    from harness.truth import answers, check, queries
    toy = checks.get("toy")
    assert check.comparisons()["toy"] is toy.query_kinds[0].compare and queries.exporters()["toy"] is toy.queries
    assert answers.current()["toy"].__struct_config__.tag == "toy" and queries.kinds_of("toy") == ("toy",)
    bare = dataclasses.replace(toy, query_kinds=(dataclasses.replace(toy.query_kinds[0], structure=None),))
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS[:-1] + (bare,))
    with pytest.raises(ImportError, match="'toy'"):
        answers.current()
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS[:-1] + (dataclasses.replace(toy, query_kinds=()),))
    with pytest.raises(ImportError, match="toy"):                     # the vocabulary's kind compared by no one
        check.comparisons()
