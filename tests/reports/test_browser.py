"""The report in a real browser: headless Debian chromium loads it with no console errors, the
inline script's details match the static ones, pages beyond the first render, and a screenshot
lands in build/ for a reviewer (issue 8, Must show). Skipped when chromium is not installed."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import reports
from tests.reports.fake_run import mismatch, small_run, write_run
from tests.reports.htmltree import parse

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.path.exists(p)),
                None)
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="Debian chromium not installed (apt-get install chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]


def chromium(tmp_path, url, *extra, timeout=90):
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def dump_dom(tmp_path, page: Path, fragment=""):
    out = chromium(tmp_path, page.as_uri() + fragment, "--dump-dom")
    return parse(out.stdout), out.stdout


def console_errors(doc):
    el = doc.by_id("console-errors")
    assert el is not None, "the inline error hook did not run"
    return int(el.attrs["data-count"]), el.text()


@pytest.fixture(scope="module")
def small_report(tmp_path_factory):
    return reports.render(small_run(tmp_path_factory.mktemp("runs")))


def test_page_loads_without_console_errors(tmp_path, small_report):
    doc, _ = dump_dom(tmp_path, small_report)
    assert console_errors(doc) == (0, "")
    assert doc.find("body").attrs.get("data-ready") == "1"


# Appended to a copy of the page: draw every static detail again with the inline script's
# detailHTML and compare the DOM (plots aside: their tick labels are formatted separately).
SELFTEST = """<script>
(function(){
  var bad = [], n = 0;
  document.querySelectorAll('#mlist details.mm').forEach(function(d){
    var v = window.__eediff.views[+d.id.slice(1)];
    var a = d.querySelector('.det').cloneNode(true), b = document.createElement('div');
    b.innerHTML = window.__eediff.detailHTML(v);
    [a, b].forEach(function(x){ x.querySelectorAll('svg').forEach(function(s){ s.remove(); }); });
    n++;
    if (a.innerHTML !== b.innerHTML) bad.push(d.id + '\\nPY ' + a.innerHTML + '\\nJS ' + b.innerHTML);
  });
  var out = document.createElement('pre'); out.id = 'selftest';
  out.setAttribute('data-compared', String(n)); out.textContent = bad.join('\\n\\n');
  document.body.appendChild(out);
})();
</script></body>"""


def test_inline_script_draws_the_same_details_as_the_static_page(tmp_path, small_report):
    page = tmp_path / "selftest.html"
    page.write_text(small_report.read_text().replace("</body>", SELFTEST))
    doc, _ = dump_dom(tmp_path, page)
    res = doc.by_id("selftest")
    assert res.attrs["data-compared"] == "4"
    assert res.text() == ""
    assert console_errors(doc)[0] == 0


def test_a_mismatch_on_page_three_renders_from_the_embedded_data(tmp_path):
    chunks = []
    for i in range(25):
        c = f"cbu{i:02d}.cmp::ANM_cbu3nut2"
        chunks.append({"chunk": c, "mismatches": [
            mismatch(c, "controllers", "scale.y", f"0x{0x40000000 + 10 * i + k:08x}",
                     f"0x{0x40000000 + 10 * i + k + 4:08x}", track=2, time=300 + 10 * i + k)
            for k in range(10)]})
    page = reports.render(write_run(tmp_path / "runs", chunks))
    doc, _ = dump_dom(tmp_path, page, "#m217")
    assert console_errors(doc)[0] == 0
    assert doc.by_id("pageinfo").text() == "page 3 of 3 · 250 mismatches"
    d = doc.by_id("m217")
    assert "open" in d.attrs
    text = d.text()
    assert f"0x{0x40000000 + 217:08x}" in text and f"0x{0x40000000 + 221:08x}" in text
    assert "t=517 (frame 2 + 5/256)" in text
    got_cells = d.find("div", cls="strip").find_all("div", cls="srow")[1].find_all("span", cls="b")
    assert [i for i, cell in enumerate(got_cells) if "d" in cell.classes]   # differing bits marked
    assert d.find("div", cls="repro").find("code").text().startswith("make one CASE=")


def test_chunk_filter_from_the_address(tmp_path, small_report):
    doc, _ = dump_dom(tmp_path, small_report, "#chunk=ctu1body.cmp::ANM_ctu1atc0")
    assert doc.by_id("pageinfo").text() == "page 1 of 1 · 1 of 4 mismatches"
    assert [d.attrs["id"] for d in doc.by_id("mlist").find_all("details")] == ["m3"]


def test_screenshots_for_a_reviewer(tmp_path, small_report):
    """build/report.png (the summary) and build/report-details.png (every detail open)."""
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    for name, frag, size in (("report.png", "", "1400,1000"),
                             ("report-details.png", "#open", "1400,3600")):
        target = build / name
        if target.exists():
            target.unlink()
        chromium(tmp_path, small_report.as_uri() + frag, f"--screenshot={target}",
                 f"--window-size={size}", "--hide-scrollbars")
        data = target.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
