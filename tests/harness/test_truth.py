"""Truth files and the model protocol (docs/truth.md), on a few chunks of the bundled synthetic corpus.

Each test is a paragraph of docs/truth.md: the file is deterministic for a seed and streams; it
asks the game exactly the queries the checks ask; the built-in reference, in process and through
`python -m reference serve`, finds nothing on it and gives the same records where there is
something; a wrong model is caught with working repros; a model that misbehaves is a clear error
naming the query; a file made with other files, or cut short, is refused.
"""
import io
import json
import os
import shlex
import subprocess
import sys

import orjson
import pytest

from ground import vocabulary
from ground.fields import Field
from harness import HarnessError
from harness.__main__ import main
from harness.options import DEFAULT_DATA, DEFAULT_IMAGE, Options
from harness.profiles import profile
from harness.runners.cases.chunk import check_chunk
from harness.runners.truth_runs import truth_export as export
from harness.truth import fileformat
from harness.runners.truth_runs.check_truth import check_truth

from .models import BAD_MODEL, CHUNKS, MISBEHAVIOURS, MODELS, NOTES_MODEL, ROOT, SERVE
ALL_CHECKS = set(vocabulary.CHECKS)


def opts_for(chunks=CHUNKS, seed=4, prof="nightly", **kw):
    return Options(seed=seed, profile=prof, chunk_ids=list(chunks), **kw)


@pytest.fixture(scope="module", autouse=True)
def compiled_at_once():
    """DECISION: every game of this module (the stand-in under hw and trunc, the mutants) runs its
    program compiled from its first instruction (EEMU_COMPILE_AFTER=0, as the machine tests and
    test_vector_compare do): each export here is shorter than the tiering threshold, so on a fresh
    checkout the module's first export ran 20 million instructions in the Python engine before it
    compiled (the 4-chunk export on an empty native cache: 37.6 -> 16.2 user CPU-s, gcc included).
    The engine changes no word a truth file holds (tests/harness/test_lockstep_bulk.py); set for
    this module alone, and the repro subprocesses it starts."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EEMU_COMPILE_AFTER", "0")
        yield


@pytest.fixture(scope="module")
def truth(compiled_at_once, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("truth") / "truth.jsonl")
    n, errors = export.export(opts_for(), path, progress=None)
    assert (n, errors) == (len(CHUNKS), 0)
    return path


def lines_of(path):
    """Every line of a truth file, parsed. (orjson: most tests here read the module's 29 MB truth
    file, 0.56 s a time against json's 0.67.)"""
    with open(path, "rb") as f:
        return [orjson.loads(x) for x in f]


def write_lines(path, lines):
    """One JSON line per object, compact as the export writes them. (orjson: 0.08 s for the
    module's truth file against 0.70 with json.dumps.)"""
    with open(path, "wb") as f:
        for obj in lines:
            f.write(orjson.dumps(obj) + b"\n")


def run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


# -- §1 the file ------------------------------------------------------------------------------------
def test_the_file_is_a_versioned_header_one_line_per_chunk_and_a_closing_line(truth):
    lines = lines_of(truth)
    head = lines[0]
    assert head["format"] == "eediff-truth" and head["version"] == 3
    assert head["seed"] == 4 and head["profile"] == "nightly" and head["float_model"] == "hw"
    assert head["image"]["sha256"] and head["data"]["sha256"] and head["chunks"] == len(CHUNKS)
    assert [x["chunk"] for x in lines[1:-1]] == CHUNKS
    assert lines[-1] == {"end": True, "chunks": len(CHUNKS)}
    assert [x["index"] for x in lines[1:-1]] == list(range(len(CHUNKS)))
    assert all(x["n_queries"] == len(x["queries"]) for x in lines[1:-1])
    kinds = {q["kind"] for x in lines[1:-1] for q in x["queries"]}
    assert kinds == {"controller", "multistep", "material", "playback", "notes", "fobj", "modify", "objects", "world"}
    for x in lines[1:-1]:
        assert [q["i"] for q in x["queries"]] == list(range(len(x["queries"])))
        for q in x["queries"]:
            # the game's words are u32 ints (never floats)
            words = json.dumps(q["game"])
            assert "." not in words and "e+" not in words


def test_the_file_is_the_same_bytes_for_a_seed_and_other_queries_for_another(truth, tmp_path):
    again = str(tmp_path / "again.jsonl")
    export.export(opts_for(), again, progress=None)
    assert open(again, "rb").read() == open(truth, "rb").read()
    other = str(tmp_path / "seed5.jsonl")
    export.export(opts_for(seed=5), other, progress=None)
    times4 = [q["times"] for x in lines_of(truth)[1:-1] for q in x["queries"] if q["kind"] == "controller"]
    times5 = [q["times"] for x in lines_of(other)[1:-1] for q in x["queries"] if q["kind"] == "controller"]
    assert times4 != times5


def test_the_export_streams_each_chunk_to_the_file_before_the_next_is_computed(tmp_path, monkeypatch):
    path = str(tmp_path / "stream.jsonl")
    seen = []
    real = export.chunk_line

    def watching(game, ch, index, *rest):
        with open(path + ".partial", encoding="utf-8") as f:
            seen.append(len(f.readlines()))          # the header and every earlier chunk
        return real(game, ch, index, *rest)
    monkeypatch.setattr(export, "chunk_line", watching)
    export.export(opts_for(CHUNKS[:3], prof="quick"), path, progress=None)
    assert seen == [1, 2, 3]
    assert not os.path.exists(path + ".partial") and len(lines_of(path)) == 5


def test_an_export_without_a_terminal_shows_bulks_progress_line_with_its_time(tmp_path):
    """A long export (a cron job's) says how far it is, as bulk does: chunks done, errors, ETA, elapsed."""
    import io
    out = io.StringIO()
    export.export(opts_for(CHUNKS[:2], prof="quick"), str(tmp_path / "t.jsonl"), progress=out)
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("truth: [2/2] errors 0 ") and " elapsed 0:00:" in last, out.getvalue()
    assert "\r" not in out.getvalue()


def test_the_truth_asks_the_game_exactly_the_queries_the_checks_ask(truth, monkeypatch):
    """Every counter both count (cases, steps, matrices, notes, poses, blends...) is the same, and
    both compare a controller with the one comparison, controllers.pose_failures."""
    from harness.checks import controllers
    opts = opts_for()
    corpus, game = opts.open_corpus(), opts.validate_image()
    shared_names = set()
    compared = {"in process": set(), "truth": set()}
    real = controllers.pose_failures
    for cid in CHUNKS:
        monkeypatch.setattr(controllers, "pose_failures", lambda *a, **k: compared["in process"].add(a[2]) or real(*a, **k))
        res = check_chunk(game, corpus.chunk(cid), opts.context(cid), profile("nightly"))
        monkeypatch.setattr(controllers, "pose_failures", lambda *a, **k: compared["truth"].add(a[2]) or real(*a, **k))
        status, s = check_truth(truth, case=cid, out=io.StringIO())
        assert status == 0
        shared = set(res["counters"]) & set(s["counters"])
        assert {k: res["counters"][k] for k in shared} == {k: s["counters"][k] for k in shared}, cid
        shared_names |= shared
    assert {"cases", "multistep checks", "material cases", "steps", "object matrices", "morph states",
            "note steps", "notes delivered", "F_Obj poses", "morph vertices"} <= shared_names
    assert compared["in process"] == compared["truth"] and "keyed" in compared["truth"], compared


# -- §2 check-truth with the reference --------------------------------------------------------------
def test_the_builtin_reference_compares_every_query_and_finds_no_mismatch(truth, capsys):
    status, out, err = run(["check-truth", truth], capsys)
    assert status == 0, out + err
    assert "PASS (exit 0)" in out and "0 mismatches" in out
    status, s = check_truth(truth, out=io.StringIO())
    assert set(s["by_check"]) == ALL_CHECKS and s["chunks"] == len(CHUNKS)
    assert s["queries"] == sum(len(x["queries"]) for x in lines_of(truth)[1:-1])


def test_serve_answers_the_protocol_end_to_end_with_no_mismatch(truth, capsys):
    status, out, err = run(["check-truth", truth, "--model", SERVE], capsys)
    assert status == 0, out + err
    assert "model " in out and "PASS (exit 0)" in out


def broken(truth, tmp_path, name="broken.jsonl"):
    """The truth file with words changed in the first query of every kind in each chunk: the
    game's answers made wrong."""
    lines = lines_of(truth)
    for x in lines[1:-1]:
        done = set()
        for q in x["queries"]:
            for name, mutate in MUTATIONS.items():
                if name not in done and mutate(q):
                    done.add(name)
                    break
    path = str(tmp_path / name)
    write_lines(path, lines)
    return path


def _flip_pos(q):
    if q["kind"] == "controller" and q["game"].get("pos"):
        q["game"]["pos"][-1][2] ^= 1 << 4
        return True


def _flip_multistep(q):
    if q["kind"] == "multistep":
        q["game"]["alpha"] ^= 1
        return True


def _flip_material(q):
    if q["kind"] == "material" and q["game"].get("u"):
        q["game"]["u"][0] ^= 1
        q["game"]["U"][-1] ^= 1 << 22
        return True


def _flip_playback(q):
    if q["kind"] == "playback" and q["game"]["matrix"] and q["tracks"]:
        g = q["game"]
        g["matrix"][1][0][10] ^= 1                    # a translation word: always exact
        g["localtp"][2][0] ^= 1 << 20
        for j, r in enumerate(q["rotation"]):         # a keyed 3x3 element far beyond its bound
            if r == "keyed":
                g["matrix"][3][j][4] ^= 1 << 30
        if g["morph"] and g["morph"][0] and g["morph"][0][0]:
            g["morph"][0][0][0][1] ^= 1
        return True


def _flip_notes(q):
    if q["kind"] == "notes":
        for step in q["game"]["notes"]:
            if step:
                step[0][1] ^= 1
                return True


def _flip_fobj(q):
    if q["kind"] == "fobj" and q["game"]["poses"]:
        q["game"]["poses"][0][0]["matrix"][0] ^= 1
        return True


def _flip_modify(q):
    if q["kind"] == "modify":
        q["game"]["vertices"][0][1] ^= 1
        return True


def _flip_objects(q):
    if q["kind"] == "objects" and q["game"]["index"]:
        q["game"]["index"][-1][2] ^= 1 << 8              # the last entry's parent slot
        return True


def _flip_world(q):
    calls = q["game"]["calls"] if q["kind"] == "world" else None
    if calls and len(calls) > 1 and calls[0] and calls[1]:
        calls[0][0][2] ^= 1                             # the first call's alpha
        calls[1][0][1][12] ^= 1 << 30                   # a translation word far beyond any bound
        return True


MUTATIONS = {"controllers": _flip_pos, "multistep": _flip_multistep, "materials": _flip_material,
             "playback": _flip_playback, "notes": _flip_notes, "fobj": _flip_fobj, "morph": _flip_modify,
             "objects": _flip_objects, "world": _flip_world}


def test_every_compare_goes_red_on_a_game_word_made_wrong(truth, tmp_path):
    path = broken(truth, tmp_path)
    json_out = str(tmp_path / "records.jsonl")
    status, s = check_truth(path, out=io.StringIO(), json_out=json_out)
    records = [json.loads(x) for x in open(json_out)]
    # past 200 a chunk's mismatches are counted, not recorded (as in a bulk's chunk records)
    assert status == 1 and s["mismatches"] == len(records) + s["dropped_mismatches"]
    # every field text the records hold is one Field's text (ground/fields.py)
    assert all(str(Field.parse(m["field"])) == m["field"] for m in records)
    fields = {(m["check"], Field.parse(m["field"]).name) for m in records}
    assert {("controllers", "position"), ("multistep", "transparency"), ("materials", "u"),
            ("materials", "U"), ("playback", "translation"), ("playback", "localtp"),
            ("playback", "matrix"), ("playback", "morph state"), ("notes", "notes"),
            ("fobj", "matrix"), ("morph", "vertex"), ("objects", "parent slot"), ("world", "alpha"),
            ("world", "world")} <= fields
    keyed = [m for m in records if m["check"] == "playback" and Field.parse(m["field"]).name == "matrix"]
    assert keyed and all(m["deviation"] > m["tolerance"] for m in keyed)
    # a controller record carries what the in-process check's does: the keys around its pose time,
    # and the first of a track the reference's series for a plot
    pos = [m for m in records if m["check"] == "controllers" and m["field"].startswith("position")]
    assert pos and all({"keys", "pose_time"} <= set(m["context"]) for m in pos)
    assert all(m["series"]["label"] == m["field"] and m["series"]["game_t"] for m in pos)
    # a record is a mismatch record of interfaces.md §4, with its repro
    for m in records:
        assert {"chunk", "check", "field", "expected", "got", "seed", "repro", "context"} <= set(m)
        assert m["repro"].startswith(".venv/bin/python -m harness check-truth ")


def test_a_keyed_rotation_within_its_tolerance_passes_and_one_beyond_it_fails(truth, tmp_path):
    lines = lines_of(truth)
    q = next(q for x in lines[1:-1] for q in x["queries"] if q["kind"] == "controller" and q["rotation"] == "keyed")
    cid = next(x["chunk"] for x in lines[1:-1] if q in x["queries"])
    q["game"]["rot"][0][0] += 1                      # 1 ulp: inside 1e-5
    path = str(tmp_path / "ulp.jsonl")
    write_lines(path, lines)
    assert check_truth(path, case=cid, check="controllers", out=io.StringIO())[0] == 0
    q["game"]["rot"][0][0] += 1 << 18                 # 2^18 ulps: far outside
    write_lines(path, lines)
    status, s = check_truth(path, case=cid, check="controllers", out=io.StringIO())
    assert status == 1 and s["mismatches"] == 1


def test_a_controller_the_game_did_not_compile_is_a_mismatch(truth, tmp_path):
    lines = lines_of(truth)
    q = next(q for x in lines[1:-1] for q in x["queries"] if q["kind"] == "controller")
    q["times"], q["game"] = [], {"compiled": False}
    path = str(tmp_path / "none.jsonl")
    write_lines(path, lines)
    out = io.StringIO()
    status, s = check_truth(path, check="controllers", out=out)
    assert status == 1 and s["mismatches"] == 1 and "| controller" in out.getvalue()


@pytest.mark.parametrize("how", ["packed", "plain"])
def test_in_process_and_serve_give_identical_records(truth, tmp_path, how):
    """serve writes u32 arrays packed (u32:base64) by default, as lists of ints with --plain."""
    path = broken(truth, tmp_path)
    here, there = str(tmp_path / "here.jsonl"), str(tmp_path / "there.jsonl")
    s1 = check_truth(path, out=io.StringIO(), json_out=here)[1]
    s2 = check_truth(path, model_cmd=SERVE + (" --plain" if how == "plain" else ""), out=io.StringIO(),
                     json_out=there)[1]
    strip = lambda f: [{k: v for k, v in json.loads(x).items() if k not in ("repro", "answered_by")} for x in open(f)]
    a, b = strip(here), strip(there)
    assert a and a == b
    # the same records, each saying whose answer it holds: the built-in reference's, or a model's
    who = lambda f: {json.loads(x).get("answered_by") for x in open(f)}
    assert who(here) == {None} and who(there) == {"model"}
    assert s1["counters"] == s2["counters"] and s1["mismatches"] == s2["mismatches"]


def test_a_packed_array_of_the_wrong_size_or_not_base64_is_a_wrong_shape():
    from harness.truth.protocol import Shape, check_shape
    q = {"kind": "controller", "i": 0, "rotation": "exact", "times": [1, 2]}
    good = {"i": 0, "kind": "controller", "pos": "u32:" + "A" * 32, "scale": [[0] * 3] * 2,
            "rot": [[0] * 9] * 2, "alpha": [0, 0], "localtp": [0, 0]}
    check_shape(q, dict(good))
    with pytest.raises(Shape, match="pos: u32:... holds 18 bytes, not the 24 of 2 x 3 u32 words"):
        check_shape(q, dict(good, pos="u32:" + "A" * 24))
    with pytest.raises(Shape, match="pos: u32:... is not base64"):
        check_shape(q, dict(good, pos="u32:" + "*" * 32))


# -- §6 models written elsewhere ---------------------------------------------------------------------
def test_a_model_written_from_scratch_answers_the_f_note_queries(truth, capsys):
    status, out, err = run(["check-truth", truth, "--check", "notes", "--model", NOTES_MODEL], capsys)
    assert status == 0, out + err
    assert "notes 2" in out


def test_a_deliberately_wrong_model_shows_mismatches_whose_repros_work(truth, capsys):
    status, out, err = run(["check-truth", truth, "--check", "notes", "--model", NOTES_MODEL + " --wrong"], capsys)
    assert status == 1 and "MISMATCHES (exit 1)" in out
    assert "\n  model " in out and "\n  reference " not in out        # whose answer it is, said so
    repros = [line.split("repro", 1)[1].strip() for line in out.splitlines() if line.strip().startswith("repro")]
    assert repros
    first = repros[0]
    assert "--model" in first and "--wrong" in first and "--case" in first
    words = shlex.split(first)
    assert words[:4] == [".venv/bin/python", "-m", "harness", "check-truth"]
    done = subprocess.run([sys.executable] + words[1:], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "| notes" in done.stdout and "1 mismatch" in done.stdout and "--wrong" in done.stdout


# -- §4 a model that misbehaves ----------------------------------------------------------------------
@pytest.mark.parametrize("mode, says", MISBEHAVIOURS)
def test_a_model_that_misbehaves_is_an_error_naming_the_chunk_and_query(truth, capsys, mode, says):
    status, out, err = run(["check-truth", truth, "--model", f"{BAD_MODEL} {mode}", "--timeout", "3"], capsys)
    assert status == 1, out + err
    assert "PASS" not in out and "MODEL ERROR (exit 1)" in err
    assert f"model error: chunk {CHUNKS[0]}" in err or (mode == "order" and "model error: chunk" in err)
    assert says in err, err
    if mode == "crash":
        assert "controller #0.." in err and "model: giving up" in err


# -- refusals ----------------------------------------------------------------------------------------
def test_a_file_made_with_another_executable_or_archive_is_refused(truth, tmp_path, capsys):
    stripped = os.path.join(ROOT, "standin", "standin-stripped.elf")
    status, out, err = run(["check-truth", truth, "--image", stripped], capsys)
    assert status == 2 and "made with the executable" in err and "standin-stripped.elf has sha256" in err
    lines = lines_of(truth)
    lines[0]["data"]["sha256"] = "0" * 64
    path = str(tmp_path / "otherdata.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and "made with the archive" in err and "give --data the archive" in err
    status, out, err = run(["check-truth", truth, "--image", DEFAULT_IMAGE, "--data", DEFAULT_DATA], capsys)
    assert status == 0


def test_a_cut_or_malformed_file_is_refused_naming_the_file_and_line(truth, tmp_path, capsys):
    text = open(truth, encoding="utf-8").read().splitlines()
    cut = str(tmp_path / "cut.jsonl")
    open(cut, "w").write("\n".join(text[:-1]) + "\n")
    status, out, err = run(["check-truth", cut], capsys)
    assert status == 2 and "without its closing line" in err and "PASS" not in out
    bad = str(tmp_path / "bad.jsonl")
    open(bad, "w").write("\n".join(text[:2] + ["{not json"] + text[2:]) + "\n")
    status, out, err = run(["check-truth", bad], capsys)
    assert status == 2 and "bad.jsonl:3: not JSON" in err
    other = str(tmp_path / "other.jsonl")
    open(other, "w").write(json.dumps({"format": "something else"}) + "\n")
    status, out, err = run(["check-truth", other], capsys)
    assert status == 2 and "other.jsonl:1: not an eediff truth file" in err


HEADER_FAULTS = [
    (lambda h: h.pop("seed"), "the header lacks seed"),
    (lambda h: h.__setitem__("chunks", -1), "the header's chunks: expected int >= 0, found -1"),
    (lambda h: h["image"].__setitem__("sha256", "zz"), "the header's image.sha256: expected str matching"),
    (lambda h: h.__setitem__("float_model", "fast"), "the header's float_model: invalid enum value 'fast'"),
    (lambda h: h.__setitem__("checks", "notes"), "the header's checks must be array | null, found \"notes\""),
    (lambda h: h["image"].pop("size"), "the header's image lacks size"),
]


@pytest.mark.parametrize("k", range(len(HEADER_FAULTS)))
def test_a_header_member_missing_or_of_the_wrong_type_is_refused_naming_it(truth, tmp_path, capsys, k):
    """docs/truth.md §1.1: the header's members, each of its type; a bad one is named, on line 1."""
    fault, says = HEADER_FAULTS[k]
    lines = lines_of(truth)
    fault(lines[0])
    path = str(tmp_path / "header.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and f"header.jsonl:1: {says}" in err and "PASS" not in out, err


def test_nothing_compared_exits_5_and_an_export_error_exits_1(truth, tmp_path, capsys):
    status, out, err = run(["check-truth", truth, "--case", "no.cmp::ANM_such"], capsys)
    assert status == 5 and "NOTHING COMPARED (exit 5)" in out
    lines = lines_of(truth)
    lines[1]["error"] = {"type": "StepLimitExceeded", "message": "budget spent", "check": "playback"}
    path = str(tmp_path / "error.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 1 and f"error in {CHUNKS[0]} (check playback)" in err


def test_a_gzip_file_reads_as_the_plain_one(truth, tmp_path):
    gz = str(tmp_path / "t.jsonl.gz")
    export.export(opts_for(CHUNKS[:1], prof="quick"), gz, progress=None)
    plain = str(tmp_path / "t.jsonl")
    export.export(opts_for(CHUNKS[:1], prof="quick"), plain, progress=None)
    h1, l1 = fileformat.read(gz)
    h2, l2 = fileformat.read(plain)
    assert h1 == h2 and [dict(x, _line=0) for x in l1] == [dict(x, _line=0) for x in l2]
    assert os.path.getsize(gz) < os.path.getsize(plain)


def test_the_worked_example_in_docs_truth_md_is_the_model_the_tests_run():
    doc = open(os.path.join(ROOT, "docs", "truth.md"), encoding="utf-8").read()
    source = open(os.path.join(MODELS, "notes_model.py"), encoding="utf-8").read()
    assert "```python\n" + source.rstrip("\n") + "\n```" in doc


def test_what_the_game_never_compiled_is_a_mismatch_of_its_own(truth, tmp_path):
    lines = lines_of(truth)
    for x in lines[1:-1]:
        for q in x["queries"]:
            g = q["game"]
            if q["kind"] == "playback":
                g["unposed"], g["morphers_without_instance"] = [0], [99]
            elif q["kind"] == "fobj":
                g["objects_without_entry"] = [98]
            elif q["kind"] == "material":
                q.update(times=[], game={"compiled": False})
    path = str(tmp_path / "uncompiled.jsonl")
    write_lines(path, lines)
    json_out = str(tmp_path / "records.jsonl")
    status, s = check_truth(path, out=io.StringIO(), json_out=json_out)
    fields = {(m["check"], m["field"]) for m in map(json.loads, open(json_out))}
    assert status == 1 and {("playback", "instance"), ("playback", "morpher instance"), ("fobj", "index entry"),
                            ("materials", "material controller")} <= fields


def test_a_model_that_answers_with_an_error_line_is_named(truth, capsys):
    status, out, err = run(["check-truth", truth, "--model", NOTES_MODEL], capsys)
    assert status == 1 and "PASS" not in out
    assert (f"model error: chunk {CHUNKS[0]}: the model answered with an error: this model answers notes "
            f"queries only") in err


def test_a_closing_line_that_miscounts_or_a_chunk_not_in_the_archive_is_refused(truth, tmp_path, capsys):
    lines = lines_of(truth)
    lines[-1]["chunks"] += 1
    path = str(tmp_path / "miscount.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and "the closing line counts 5 chunks, the file holds 4" in err
    lines = lines_of(truth)
    lines[2]["chunk"] = "gone.cmp::ANM_\x1b[2Jgone"
    path = str(tmp_path / "gone.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and "gone.jsonl:3: chunk gone.cmp::ANM_\\x1b[2Jgone is not in" in err


@pytest.mark.parametrize("mutant, cases, check", [
    ("note_time_own_frame", ["ctu1body.cmp::ANM_ctu1atc1", "egn1.cmp::ANM_egn1atc0"], "notes"),
    ("controller_alpha_clamped", ["xd013.cmp::ANM_xd013000"], "controllers"),
], ids=["note-time-own-frame", "controller-alpha-clamped"])
def test_a_truth_file_of_a_broken_game_fails_the_reference_on_the_check_that_catches_it(tmp_path, mutant,
                                                                                         cases, check):
    """A stand-in mutant (standin/mutants/*.patch) is a game made wrong in one place: its truth file,
    checked with the built-in reference, fails on the check its header names (the same mutants
    tests/harness/test_pipeline.py runs through bulk)."""
    from tests.harness.test_pipeline import require_built
    elf = os.path.join(ROOT, "standin", "build", "mutants", f"{mutant}.elf")
    require_built([elf])
    path = str(tmp_path / f"{mutant}.jsonl")
    export.export(opts_for(cases, image=elf), path, progress=None)
    json_out = str(tmp_path / "records.jsonl")
    status, s = check_truth(path, image=elf, out=io.StringIO(), json_out=json_out)
    checks = {m["check"] for m in map(json.loads, open(json_out))}
    assert status == 1 and check in checks, (status, checks)
    with pytest.raises(HarnessError, match="made with the executable"):   # it is not the stand-in's
        check_truth(path, out=io.StringIO())


def test_a_repeated_noteprocess_that_hands_on_another_list_is_a_mismatch_of_the_game_against_itself(truth, tmp_path):
    # checks.md §6.2: NoteProcess called again on a step hands on the same notes; no model needed
    lines = lines_of(truth)
    changed = 0
    for x in lines[1:-1]:
        for q in x["queries"]:
            if q["kind"] == "notes":
                assert q["game"]["repeated"], "NoteProcess is called again every fifth step"
                i, again = next((i, a) for i, a in q["game"]["repeated"] if q["game"]["notes"][i])
                again[0][0] ^= 1
                changed += 1
    path = str(tmp_path / "repeated.jsonl")
    write_lines(path, lines)
    status, s = check_truth(path, check="notes", out=io.StringIO(), json_out=str(tmp_path / "m.jsonl"))
    fields = [json.loads(x)["field"] for x in open(tmp_path / "m.jsonl")]
    assert changed and status == 1 and fields == ["repeated NoteProcess"] * changed
    assert s["counters"]["repeated NoteProcess"] > 0


# -- hostile inputs: the bound is the game's side's -------------------------------------------------
def test_a_model_cannot_widen_its_own_bound_with_a_huge_scale_or_keys_it_claims(truth, tmp_path):
    """Every 3x3 compared within a tolerance is ~1% wrong in the model's answers, which claim a scale
    of 1e38 and 2^20 keys passed: the bound is the export's (the chunk's keys and scale), so each is
    a mismatch, its tolerance the formula's at the chunk's own keys."""
    json_out = str(tmp_path / "widen.jsonl")
    status, s = check_truth(truth, model_cmd=f"{BAD_MODEL} widen", out=io.StringIO(), json_out=json_out)
    records = [json.loads(x) for x in open(json_out)]
    checks = {m["check"] for m in records}
    # a multistep query is the game against itself (checks.md §2.3): no answer of a model is judged there
    assert status == 1 and {"controllers", "playback"} <= checks and "multistep" not in checks, checks
    assert all(m["tolerance"] < 1e-3 for m in records if m.get("tolerance") is not None)
    lines = lines_of(truth)
    keyed = [q for x in lines[1:-1] for q in x["queries"] if q["kind"] == "controller" and q["rotation"] == "keyed"]
    assert keyed and all(len(q["bound"]["passed"]) == len(q["times"]) for q in keyed)


# -- hostile inputs: a truth file is whole ----------------------------------------------------------
def test_a_file_with_its_last_chunk_cut_and_its_closing_line_adjusted_is_refused(truth, tmp_path, capsys):
    lines = lines_of(truth)
    lines = lines[:-2] + [{"end": True, "chunks": len(CHUNKS) - 1}]
    path = str(tmp_path / "cutlast.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and f"the header counts {len(CHUNKS)} chunks, the file holds {len(CHUNKS) - 1}" in err
    assert "PASS" not in out


def test_a_chunk_line_with_a_query_removed_is_refused(truth, tmp_path, capsys):
    for where in (-1, 0):
        lines = lines_of(truth)
        del lines[2]["queries"][where]
        for k, q in enumerate(lines[2]["queries"]):
            q["i"] = k                                    # renumbered: only the count tells
        path = str(tmp_path / "fewer.jsonl")
        write_lines(path, lines)
        status, out, err = run(["check-truth", path], capsys)
        n = len(lines[2]["queries"])
        assert status == 2 and f"fewer.jsonl:3: chunk {CHUNKS[1]}: the line holds {n} queries, its n_queries says {n + 1}" in err


def test_a_repeated_chunk_line_is_refused_even_with_its_counts_adjusted(truth, tmp_path, capsys):
    lines = lines_of(truth)
    lines = lines[:3] + [dict(lines[2], index=2)] + [dict(x, index=x["index"] + 1) for x in lines[3:-1]]
    lines = [dict(lines[0], chunks=len(CHUNKS) + 1)] + lines[1:] + [{"end": True, "chunks": len(CHUNKS) + 1}]
    path = str(tmp_path / "twice.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and f"twice.jsonl:4: chunk {CHUNKS[1]} is in the file twice (lines 3 and 4)" in err
    lines = lines_of(truth)
    lines[2], lines[3] = lines[3], lines[2]
    path = str(tmp_path / "moved.jsonl")
    write_lines(path, lines)
    status, out, err = run(["check-truth", path], capsys)
    assert status == 2 and "its index is 2, its place in the file 1" in err


# -- hostile inputs: outputs refused before anything is written --------------------------------------
def test_check_truth_refuses_an_output_that_is_its_input_a_directory_or_unwritable_before_writing(
        truth, tmp_path, capsys):
    copy = str(tmp_path / "t.jsonl")
    data = open(truth, "rb").read()
    open(copy, "wb").write(data)
    for out_path, says in ((copy, "that is an input of this command"),
                           (str(tmp_path / "." / "t.jsonl"), "that is an input of this command"),
                           (str(tmp_path), "a directory, not a file"),
                           (str(tmp_path / "t.jsonl" / "m.jsonl"), "cannot write there")):
        status, out, err = run(["check-truth", copy, "--json", out_path], capsys)
        assert status == 2 and says in err and "Traceback" not in err, (out_path, err)
        assert open(copy, "rb").read() == data, "the truth file is untouched"
    status, out, err = run(["check-truth", str(tmp_path)], capsys)
    assert status == 2 and "a directory, not a truth file" in err and "Traceback" not in err


def test_truth_refuses_an_out_that_is_a_directory_or_an_input_and_leaves_nothing_behind(tmp_path, capsys):
    d = tmp_path / "dir"
    d.mkdir()
    status, out, err = run(["truth", "--chunks", CHUNKS[0], "--profile", "quick", "--out", str(d)], capsys)
    assert status == 2 and "a directory, not a file" in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["dir"] and not os.listdir(d)
    status, out, err = run(["truth", "--chunks", CHUNKS[0], "--profile", "quick", "--out", DEFAULT_DATA], capsys)
    assert status == 2 and "that is an input of this command" in err


# -- hostile inputs: nothing read whole past its limit ---------------------------------------------
def test_a_model_answer_line_past_the_limit_is_an_error_at_once_not_a_wait(truth, capsys, monkeypatch):
    import time
    from harness.truth import limits
    monkeypatch.setattr(limits, "ANSWER_BYTES", 1 << 20)
    t0 = time.time()
    status, out, err = run(["check-truth", truth, "--model", f"{BAD_MODEL} longline", "--timeout", "60"], capsys)
    assert status == 1 and "MODEL ERROR (exit 1)" in err and time.time() - t0 < 30
    assert f"model error: chunk {CHUNKS[0]}: its answer line 1 (to its" in err
    assert "is longer than 1 MiB, the limit of an answer line (the model " in err and "longline was stopped)" in err


def test_a_truth_file_line_or_a_gzip_bomb_past_the_limit_is_refused_naming_the_line(truth, tmp_path, capsys,
                                                                                  monkeypatch):
    import gzip
    from harness.truth import limits
    head, first = open(truth, encoding="utf-8").readlines()[:2]
    # a limit just above the real lines (whole MiB), and a line four times that, with no newline
    limit = ((max(len(head.encode()), len(first.encode())) >> 20) + 1) << 20
    monkeypatch.setattr(limits, "LINE_BYTES", limit)
    bomb = str(tmp_path / "bomb.jsonl.gz")
    with gzip.open(bomb, "wt", encoding="utf-8") as f:
        f.write(head + first)
        for _ in range(4 * limit >> 16):
            f.write(" " * (1 << 16))
    status, out, err = run(["check-truth", bomb], capsys)
    assert status == 2 and "Traceback" not in err
    assert (f"bomb.jsonl.gz:3: a line longer than {limits.mib(limit)}, the limit of a truth file's line (the line "
            f"after chunk {CHUNKS[0]})") in err
    monkeypatch.undo()
    monkeypatch.setattr(limits, "FILE_BYTES", 1 << 19)
    assert os.path.getsize(truth) > 1 << 19
    status, out, err = run(["check-truth", truth], capsys)
    assert status == 2 and "the file's text runs past 0.5 MiB, the limit of a truth file (decompressed)" in err


# -- hostile inputs: a model's children end with it -------------------------------------------------
def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_child_a_model_forked_is_ended_with_the_model(truth, tmp_path):
    pidfile = str(tmp_path / "child.pid")
    status, s = check_truth(truth, model_cmd=f"{BAD_MODEL} fork {shlex.quote(pidfile)}", check="notes",
                            out=io.StringIO())
    left = children_left(pidfile)
    assert status == 0 and not left, "the model's child outlived the run"


def children_left(pidfile):
    """The pids in pidfile still running after up to 5 s (each then ended, so none leaks here)."""
    import time
    pids = [int(x) for x in open(pidfile).read().split()]
    assert pids, "the model forked no child"
    deadline = time.time() + 5
    while any(alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    for p in left:
        os.kill(p, 9)
    return left


def test_under_first_contact_a_model_cannot_widen_the_bound_of_a_plain_3x3_either(tmp_path):
    """The first-contact profile compares every 3x3 within the bound: its non-keyed tracks' bound is
    the export's scale and no keys, whatever the model claims."""
    path = str(tmp_path / "fc.jsonl")
    export.export(opts_for(["e011.cmp::ANM_e011002"], prof="first-contact", float_model="trunc"), path,
                  progress=None)
    pb = [q for x in lines_of(path)[1:-1] for q in x["queries"] if q["kind"] == "playback"]
    plain = {q["tracks"][j] for q in pb for j in q["tolerance"] if q["rotation"][j] != "keyed"}
    assert plain, "the chunk has non-keyed tracks compared within the bound"
    json_out = str(tmp_path / "m.jsonl")
    status, s = check_truth(path, model_cmd=f"{BAD_MODEL} widen", check="playback", out=io.StringIO(),
                            json_out=json_out)
    hit = {m["track"] for m in map(json.loads, open(json_out)) if m["field"].startswith("matrix")}
    assert status == 1 and plain <= hit, (plain, hit)
