"""The report draws the playback 3x3 bound per element (docs/tolerances.md §1): the formula's flat
line, one ulp of f32 as a staircase, and the bound, the larger of the two; mismatches as points."""
import re

from ground.bounds import f32_ulp
from reports import svg


def polylines(page):
    return {cls: [tuple(map(float, p.split(","))) for p in pts.split()]
            for pts, cls in re.findall(r'<polyline points="([^"]+)" class="(\w+)"/>', page)
            if cls == "rule"}


def test_the_rule_is_the_formula_for_small_elements_and_one_ulp_for_large_ones():
    assert f32_ulp(1.0) == 2.0 ** -23 and f32_ulp(2634.0) == 2.0 ** -12
    page = svg.tolerance_rule([(2634.3, 2e-4, "e011 matrix[0][0]")], 1e-5)
    rule = polylines(page)["rule"]
    ys = [y for _, y in rule]
    left, right = ys[0], ys[-1]
    assert left == ys[len(ys) // 4] and right < left, "flat at the formula, then the ulp staircase rises"
    assert "binds from 128" in page and page.count('class="over"') == 1 and "e011 matrix[0][0]" in page
