"""Inferred rules, named: README.md's "Your own disc" lists each [INF] rule of the spec that a first
real run settles, and a mismatch that falls on one carries the tag "inferred rule: ...", so a reviewer
reads it as a question about the spec, not a bug. The zero-exponent one-value position is the first."""
import re
from pathlib import Path

import pytest

import reports
from harness.compare.inferred import RULES, tag
from harness.compare.mismatch import CaseContext, record
from harness.compare.show import format_mismatch
from tests.reports.fake_run import write_run
from tests.reports.htmltree import embedded, parse

ROOT = Path(__file__).resolve().parents[2]


def ctx(model="hw"):
    return CaseContext("m.cmp::ANM_x", 4, "nightly", model)


def own_disc_section():
    text = (ROOT / "README.md").read_text()
    start = text.index("## Your own disc")
    return text[start:text.index("\n## ", start + 3)]


def test_the_readme_lists_every_inferred_rule_with_its_spec_section_first_the_zero_exponent_one():
    section = own_disc_section()
    listed = re.findall(r"^\s*\d+\. \*\*inferred rule: ([^*]+)\*\* \(([^)]+)\)", section, re.M)
    assert listed == [(r.name, r.where) for r in RULES]
    assert RULES[0].name == "zero-exponent one-value position"


def test_a_one_value_positions_zero_exponent_word_against_plus_zero_is_tagged():
    for e, g in ((0x00000000, 0x00000001), (0x80000003, 0x00000000), (0x00000000, 0x807FFFFF),
                 (0x80000000, 0x00000000), (0x00000000, 0x80000000)):   # -0 against +0: the same add
        rec = record(ctx(), "playback", "translation.y", e, g, object=3, time=256)
        assert rec["inferred"] == ("inferred rule: zero-exponent one-value position "
                                   "(animation-semantics.md §4 step 3.2)"), (hex(e), hex(g))


@pytest.mark.parametrize("field,e,g,model,want", [
    ("translation.y", 0x00000000, 0x3F800000, "hw", None),              # a plain wrong value
    ("position.y", 0x00000000, 0x00000001, "hw", "hw underflow result"),  # not the local matrix
    ("translation.x", 0x3F800000, 0x3F800001, "hw", "multiply fs/ft roles"),
    ("translation.x", 0x3F800000, 0x3F800001, "trunc", None),           # no role question under trunc
    ("translation.x", 0x3F800000, 0x3F800003, "hw", None),              # 3 ulp: not a role
])
def test_only_mismatches_that_fall_on_a_rule_are_tagged(field, e, g, model, want):
    rec = record(ctx(model), "playback", field, e, g)
    got = rec.get("inferred")
    if want is None:
        assert got is None and tag(rec, model) is None
    else:
        assert got.startswith(f"inferred rule: {want} (")


def test_make_one_prints_the_tag_as_a_question():
    rec = record(ctx(), "playback", "translation.z", 0, 1)
    assert "inferred rule: zero-exponent one-value position (animation-semantics.md §4 step 3.2): " \
           "a question about the spec" in format_mismatch(rec)


def test_the_report_shows_the_tag_in_the_row_and_the_detail(tmp_path):
    rec = record(ctx(), "playback", "translation.x", 0, 0x00000002, object=1, time=512)
    plain = record(ctx(), "playback", "translation.x", 0x3F800000, 0x40000000, object=1, time=768)
    chunk = {"chunk": rec["chunk"], "index": 0, "seconds": 0.1, "counters": {"cases": 2},
             "mismatches": [rec, plain], "checks": ["playback"]}
    run = write_run(tmp_path, [chunk])
    page = parse(reports.render(run).read_text(encoding="utf-8"))
    _, items = embedded(page)
    html = [it[4] for it in items]
    assert len(html) == 2
    assert sum("inferred rule: zero-exponent one-value position" in h for h in html) == 1
    tagged = next(h for h in html if "inferred rule" in h)
    assert "question" in tagged and "0x00000002" in tagged
