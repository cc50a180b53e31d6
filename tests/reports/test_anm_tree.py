"""A failing chunk's object tree (anim-objects.md §3): the entries, what each holds, and whom it
hangs under, drawn from the chunk record's draw.objects alone."""
import reports
from tests.reports.fake_run import mismatch, write_run


def rows():
    return [{"entry": 0, "object": 3, "name": "OBJ_body", "holds": ["node", 3], "kind": 256, "flags": 6,
             "parent": ["anm"]},
            {"entry": 1, "object": 4, "name": "OBJ_<leg>", "holds": ["made", 0], "kind": 256, "flags": 7,
             "parent": ["node", 3]},
            {"entry": 2, "object": 8, "name": "MAT_a", "holds": ["instance", 8], "kind": 512, "flags": 0,
             "parent": None}]


def test_the_tree_nests_each_entry_under_its_parent_and_escapes_names(tmp_path):
    m = mismatch("m.cmp::ANM_a", "objects", "parent", ["node", 3], ["anm"])
    run = write_run(tmp_path, [{"chunk": "m.cmp::ANM_a", "mismatches": [m], "draw": {"objects": rows()}}])
    reports.render(run)
    html = (run / "report.html").read_text()
    i = html.index("Object trees")
    tree = html[i:html.index("</details>", i)]
    body, leg = tree.index("OBJ_body"), tree.index("OBJ_&lt;leg&gt;")
    assert body < leg and "<ul><li>entry 1" in tree            # the leg nested under the body's node
    assert "holds made 0" in tree and "not hung" in tree and "<leg>" not in tree


def test_a_run_without_tree_rows_draws_no_tree(tmp_path):
    run = write_run(tmp_path, [{"chunk": "m.cmp::ANM_a", "mismatches": [mismatch("m.cmp::ANM_a", "objects", "parent", ["node", 3], ["anm"])]}])
    reports.render(run)
    assert "Object trees" not in (run / "report.html").read_text()
