"""What a chunk record keeps for its report (interfaces.md §4 `draw`, harness/compare/draw.py):
nothing for a passing chunk, the names of the objects its mismatches name, and a plot for each
check x track x field among the first mismatches of a check the report details."""
from harness.compare import draw


class Chunk:
    names = {3: "OBJ_a", 4: "OBJ_b", 9: "OBJ_unused"}


def m(check, field, track=1, time=256, obj=None):
    return {"check": check, "field": field, "track": track, "time": time, "object": obj}


def test_a_passing_chunk_records_nothing_to_draw():
    assert draw.of_chunk(None, Chunk(), []) is None


def test_names_are_those_of_the_objects_the_mismatches_name():
    ms = [m("fobj", "pos.x", obj=3), m("notes", "notes", obj=4), m("fobj", "pos.y", obj=3)]
    assert draw.of_chunk(None, Chunk(), ms) == {"names": {"3": "OBJ_a", "4": "OBJ_b"}}


def test_plots_are_grouped_by_check_track_and_field_among_the_detailed_mismatches():
    """The report details the first DETAILS mismatches of each check of a chunk: a group whose
    mismatches all come later is not drawn."""
    ms = [m("playback", "matrix[0][1]", track=1, time=t) for t in range(draw.DETAILS)]
    ms += [m("playback", "matrix[0][1]", track=1, time=5000), m("playback", "translation.x", track=2),
           m("controllers", "position.x", track=2), m("notes", "notes"),
           dict(m("controllers", "position.y"), series={"t": [0], "ref": [0.0]})]    # its own series
    groups = draw.groups(ms)
    assert list(groups) == [("playback", 1, "matrix[0][1]"), ("controllers", 2, "position.x")]
    assert len(groups[("playback", 1, "matrix[0][1]")]) == draw.DETAILS + 1


def test_a_chunk_past_its_workers_plot_budget_says_so():
    assert draw.of_chunk(None, Chunk(), [m("controllers", "position.x", obj=9)], plots=False) == \
        {"names": {"9": "OBJ_unused"}, "unplotted": True}


def test_a_channel_the_model_refuses_is_a_note():
    class Anim:
        last, tracks, materials = 512, [], []
    d = draw.of_chunk(Anim(), Chunk(), [m("controllers", "position.x", track=7)])
    assert d == {"notes": ["no plot for controllers track 7 position.x: LookupError: the model has no track 7"]}
