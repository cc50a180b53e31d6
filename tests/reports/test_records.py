"""interfaces.md §4: a run directory's records read through their declared types (reports.records):
each member's type is checked as the file is read, a bad member is one line naming the file, the
member, the chunk and the value, and what is read is the record as written, every member kept."""
import json

import pytest

from reports.load import load_run
from reports.records import ChunkRecord, ReportError, load_chunk, load_summary, read_chunk
from tests.reports.fake_run import mismatch, write_run

C = "xp_flag.cmp::ANM_xpflnut0"


def chunk_file(tmp_path, text):
    p = tmp_path / "00003.json"
    p.write_text(text if isinstance(text, str) else json.dumps(text))
    return p


@pytest.mark.parametrize("record, message", [
    ({"chunk": 5}, "member 'chunk' must be the chunk id string, found int 5"),
    ({"index": 3}, "member 'chunk' must be the chunk id string (the chunk record has none)"),
    ({"chunk": C, "index": "3"}, f"member 'index' of chunk {C} must be an int or None, found str '3'"),
    ({"chunk": C, "index": True}, f"member 'index' of chunk {C} must be an int or None, found bool True"),
    ({"chunk": C, "seconds": "1.5"}, f"member 'seconds' of chunk {C} must be an int or float, found str '1.5'"),
    ({"chunk": C, "counters": [1]}, f"member 'counters' of chunk {C} must be a dict or None, found list [1]"),
    ({"chunk": C, "mismatches": {"check": "notes"}},
     f"member 'mismatches' of chunk {C} must be a list or None, found dict {{'check': 'notes'}}"),
    ({"chunk": C, "mismatches": [7]}, f"mismatches[0] of chunk {C} must be a dict, found int 7"),
    ({"chunk": C, "mismatches": [mismatch(C, "notes", "notes", 1, 2, time="256")]},
     f"mismatches[0].time of chunk {C} must be an int or None, found str '256'"),
    ({"chunk": C, "mismatches": [mismatch(C, "notes", "notes", 1, 2, shrunk={"plan": 5})]},
     f"mismatches[0].shrunk.plan of chunk {C} must be a list, found int 5"),
    ({"chunk": C, "mismatches": [mismatch(C, 7, "notes", 1, 2)]},
     f"mismatches[0].check of chunk {C} must be a str, found int 7"),
    ({"chunk": "a\x1b[2Jb", "machine_steps": 1.5},
     "member 'machine_steps' of chunk a\\x1b[2Jb must be an int, found float 1.5"),
])
def test_a_member_of_the_wrong_type_is_one_line_naming_the_file_member_chunk_and_value(tmp_path, record, message):
    p = chunk_file(tmp_path, record)
    with pytest.raises(ReportError) as exc:
        load_chunk(p)
    assert str(exc.value) == f"{p}: {message}"
    with pytest.raises(ReportError):
        read_chunk(p)


def test_a_record_reads_as_written_every_member_kept_in_its_order(tmp_path):
    """Nothing the types do not declare is lost (a probe run's model_not_asked, a member of a later
    eediff), ints stay ints where a float may be, and a non-finite deviation (json's Infinity) reads."""
    rec = {"chunk": C, "index": 3, "seconds": 0, "counters": {"b": 1, "a": 2}, "quirks": {},
           "mismatches": [dict(mismatch(C, "playback", "rotation[0][1]", "0x1", "0x2", deviation=float("inf")),
                               later_member=[1])],
           "model_not_asked": {"world": 2}, "a_later_member": {"x": None}}
    p = chunk_file(tmp_path, rec)
    assert "Infinity" in p.read_text()
    got = read_chunk(p)
    assert json.dumps(got) == json.dumps(rec) and list(got) == list(rec)
    assert type(got["seconds"]) is int and set(ChunkRecord.__annotations__) >= {"model_answered", "model_not_asked"}


def test_a_summary_is_read_through_its_type_and_an_older_one_without_later_fields_reads(tmp_path):
    run = write_run(tmp_path, [{"chunk": C}], summary={"run_id": "r", "seconds": 3, "not_asked_of_the_model": 0})
    assert load_run(run).summary == {"run_id": "r", "seconds": 3, "not_asked_of_the_model": 0}
    (run / "summary.json").write_text(json.dumps({"run_id": "r", "chunks_done": "7"}))
    with pytest.raises(ReportError) as exc:
        load_summary(run / "summary.json")
    assert str(exc.value) == f"{run}/summary.json: member 'chunks_done' must be an int, found str '7'"
    with pytest.raises(ReportError, match="chunks_done"):
        load_run(run)
