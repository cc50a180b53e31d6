"""Any record shape interfaces.md §4 allows (and some it does not) renders: no exception, the
mismatch's detail is in the page, and the embedded pages decode to the same HTML (Hypothesis)."""
from hypothesis import HealthCheck, given, settings, strategies as st

import reports
from tests.reports.fake_run import mismatch, write_run
from tests.reports.htmltree import embedded, parse

u32 = st.integers(0, 0xFFFFFFFF)
hexbits = u32.map(lambda v: f"0x{v:08x}")
scalar = st.one_of(hexbits, u32, st.integers(-2**31, -1), st.none(), st.booleans(),
                   st.text(max_size=12), st.floats(allow_nan=True))
value = st.one_of(scalar, st.lists(st.one_of(scalar, st.lists(scalar, max_size=4)), max_size=6))
fields = st.sampled_from(["position.x", "rotation[1][2]", "frame counter", "return value", "notes",
                          "u", "V", "vertex[3].y", "morph state", "transparency", "<odd>"])
checks = st.sampled_from(["controllers", "materials", "multistep", "playback", "notes", "morph",
                          "fobj"])


@st.composite
def records(draw):
    m = mismatch("fz.cmp::ANM_fuzz", draw(checks), draw(fields), draw(value), draw(value),
                 track=draw(st.one_of(st.none(), st.integers(0, 50))),
                 time=draw(st.one_of(st.none(), st.integers(0, 2**32 - 1))),
                 step=draw(st.one_of(st.none(), st.integers(0, 400))),
                 ulp=draw(st.one_of(st.none(), st.integers(0, 2**32))),
                 deviation=draw(st.one_of(st.none(), st.floats(0, 1))),
                 tolerance=draw(st.one_of(st.none(), st.floats(0, 1))),
                 context=draw(st.dictionaries(st.text(max_size=8), value, max_size=3)))
    if draw(st.booleans()):
        n = draw(st.integers(0, 5))
        m["series"] = {"label": "x", "t": list(range(n)),
                       "ref": draw(st.lists(st.floats(-1e30, 1e30), min_size=n, max_size=n)),
                       "game_t": [0] * min(n, 1), "game": [draw(st.floats())] * min(n, 1)}
    if draw(st.booleans()):
        m["shrunk"] = {"steps": draw(st.lists(st.integers(0, 5000), max_size=4)),
                       "repro": "python -m harness replay", "original_length": 9}
    return m


# a chunk record's draw (harness/compare/draw.py): absent (None here), or a dict, well formed or with
# any JSON shape in its members (a draw that is not a dict is a one-line error: tests/reports/test_render.py)
series_entry = st.fixed_dictionaries({"check": checks, "track": st.one_of(st.none(), st.integers(0, 50)),
                                      "field": fields, "t": st.lists(st.integers(0, 5000), max_size=5),
                                      "ref": st.lists(st.floats(-1e30, 1e30), max_size=5)})
drawings = st.one_of(st.none(), st.dictionaries(
    st.sampled_from(["names", "series", "notes", "unplotted"]),
    st.one_of(value, st.lists(series_entry, max_size=3),
              st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 9).map(str)), scalar, max_size=3))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ms=st.lists(records(), min_size=1, max_size=4), drawn=drawings)
def test_any_record_renders(tmp_path_factory, ms, drawn):
    record = {"chunk": "fz.cmp::ANM_fuzz", "mismatches": ms}
    if drawn is not None:
        record["draw"] = drawn
    run = write_run(tmp_path_factory.mktemp("fz"), [record])
    doc = parse(reports.render(run).read_text())
    data, items = embedded(doc)
    assert data["count"] == len(items) == len(ms)
    for i, m in enumerate(ms):
        d = doc.by_id(f"m{i}")
        assert d is not None and d.find("div", cls="repro") is not None
        assert m["field"] in d.text()
        assert parse(items[i][4]).by_id(f"m{i}").text() == d.text()
