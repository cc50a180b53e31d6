"""The report in a real browser: headless Debian chromium loads it with no console errors, pages
beyond the first show the details reports.detail rendered, an anchored mismatch sits below the
sticky header, and a screenshot lands in $EEDIFF_SCREENSHOTS (else a temporary directory) for a reviewer. Skipped
when chromium is not installed."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import reports
from tests.reports.fake_run import mismatch, small_run, write_run
from tests.reports.htmltree import embedded, parse

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.path.exists(p)),
                None)
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="Debian chromium not installed (apt-get install chromium)")

# --virtual-time-budget: the page decompresses its other pages asynchronously on load; chromium
# dumps or screenshots once the page's tasks (within 20 s of virtual time) are done.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--virtual-time-budget=20000"]


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


def test_a_mismatch_on_page_three_shows_the_detail_python_rendered(tmp_path):
    """One renderer: the browser shows, for a mismatch on page 3, exactly the HTML
    reports.detail rendered for it."""
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
    python = parse(embedded(parse(page.read_text()))[1][217][4]).by_id("m217")
    assert d.text() == python.text()
    def shape(node):          # the browser adds <tbody> to every table
        return [(n.tag, n.attrs.get("class")) for n in node.iter() if n.tag != "tbody"]
    assert shape(d) == shape(python)


def test_chunk_filter_from_the_address(tmp_path, small_report):
    doc, _ = dump_dom(tmp_path, small_report, "#chunk=ctu1body.cmp::ANM_ctu1atc0")
    assert doc.by_id("pageinfo").text() == "page 1 of 1 · 1 of 4 mismatches"
    assert [d.attrs["id"] for d in doc.by_id("mlist").find_all("details")] == ["m3"]


def test_screenshots_for_a_reviewer(tmp_path, small_report):
    """report.png (the summary) and report-details.png (every detail open), written to
    $EEDIFF_SCREENSHOTS for a reviewer when set, else to the test's own temporary directory:
    `make test` writes nothing into build/."""
    shots = Path(os.environ.get("EEDIFF_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    for name, frag, size in (("report.png", "", "1400,1000"),
                             ("report-details.png", "#open", "1400,3600")):
        target = shots / name
        if target.exists():
            target.unlink()
        chromium(tmp_path, small_report.as_uri() + frag, f"--screenshot={target}",
                 f"--window-size={size}", "--hide-scrollbars")
        data = target.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


# Drives the page like a reviewer: sort the chunk table, filter it, page through mismatches,
# filter them by check and cause, click a chunk link, press copy; records what the DOM shows.
INTERACT = """<script>
(function go(){
  if (document.body.getAttribute('data-ready') !== '1') { setTimeout(go, 20); return; }
  var log = {}, $ = function(id){ return document.getElementById(id); };
  function rows(){ return Array.prototype.map.call($('chunktable').tBodies[0].rows,
                   function(r){ return r.hidden ? null : r.cells[1].textContent; }).filter(Boolean); }
  function ids(){ return Array.prototype.map.call(document.querySelectorAll('#mlist details.mm'),
                  function(d){ return d.id; }); }
  var th = $('chunktable').querySelectorAll('th');
  th[3].click(); log.sortMismatchesAsc = rows();
  th[3].click(); log.sortMismatchesDesc = rows();
  $('chunkfilter').value = 'c07'; $('chunkfilter').dispatchEvent(new Event('input'));
  log.filtered = rows();
  $('next').click(); log.page2 = $('pageinfo').textContent; log.page2first = ids()[0];
  var d = document.querySelector('#mlist details.mm'); d.open = true;
  d.dispatchEvent(new Event('toggle'));
  log.lazyFilled = d.querySelector('.det').textContent.indexOf('make one CASE=') >= 0;
  $('mcause').value = 'drift'; $('mcause').dispatchEvent(new Event('change'));
  log.drift = $('pageinfo').textContent;
  $('mcause').value = ''; $('mcause').dispatchEvent(new Event('change'));
  $('mcheck').value = 'notes'; $('mcheck').dispatchEvent(new Event('change'));
  log.notes = $('pageinfo').textContent;
  $('mcheck').value = ''; $('mcheck').dispatchEvent(new Event('change'));
  document.querySelector('#chunktable a[data-chunk]').click();
  log.chunkLink = $('pageinfo').textContent + ' | ' + $('mchunk').textContent;
  $('clearchunk').click(); log.cleared = $('pageinfo').textContent;
  $('mfilter').value = 'rotation[1][2]'; $('mfilter').dispatchEvent(new Event('input'));
  log.text = $('pageinfo').textContent;
  var first = document.querySelector('#mlist details.mm'); first.open = true;
  first.dispatchEvent(new Event('toggle'));
  var b = first.querySelector('button.copy'); b.click();
  log.copyLabel = b.textContent;
  var out = document.createElement('pre'); out.id = 'interact';
  out.textContent = JSON.stringify(log); document.body.appendChild(out);
})();
</script></body>"""


def test_sorting_filtering_paging_and_copy_work_in_the_browser(tmp_path):
    chunks = []
    for i in range(12):
        c = f"c{i:02d}.cmp::ANM_x"
        ms = [mismatch(c, "controllers", "position.x", f"0x{0x3f800000 + k:08x}",
                       f"0x{0x3f800000 + k + 7:08x}", track=1, time=10 + k) for k in range(i + 5)]
        ms.append(mismatch(c, "controllers", "rotation[1][2]", "0x3e4ccccd", "0x3e4cd0a0", track=2,
                           time=99, deviation=2e-5, tolerance=1.5e-5))
        if i % 4 == 0:
            ms.append(mismatch(c, "notes", "notes", [[1, 2, 3, 4], [5, 6, 7, 8]],
                               [[5, 6, 7, 8], [1, 2, 3, 4]], step=3, time=768))
        chunks.append({"chunk": c, "mismatches": ms})
    page = reports.render(write_run(tmp_path / "runs", chunks))
    test_page = tmp_path / "interact.html"
    test_page.write_text(page.read_text().replace("</body>", INTERACT))
    doc, _ = dump_dom(tmp_path, test_page)
    assert console_errors(doc) == (0, "")
    log = json.loads(doc.by_id("interact").text())
    count = {f"c{i:02d}.cmp::ANM_x": i + 6 + (1 if i % 4 == 0 else 0) for i in range(12)}
    asc = [count[c] for c in log["sortMismatchesAsc"]]
    desc = [count[c] for c in log["sortMismatchesDesc"]]
    assert sorted(log["sortMismatchesAsc"]) == sorted(count)
    assert asc == sorted(asc) and desc == sorted(desc, reverse=True) and asc != desc
    assert log["filtered"] == ["c07.cmp::ANM_x"]
    total = sum(count.values())
    assert log["page2"] == f"page 2 of {-(-total // 100)} · {total} mismatches"
    assert log["page2first"] == "m100" and log["lazyFilled"] is True
    assert log["drift"] == f"page 1 of 1 · 12 of {total} mismatches"
    assert log["notes"] == f"page 1 of 1 · 3 of {total} mismatches"
    top = log["sortMismatchesDesc"][0]            # the first link in the (sorted) table
    assert log["chunkLink"] == f"page 1 of 1 · {count[top]} of {total} mismatches | chunk {top} show all"
    assert log["cleared"] == f"page 1 of 2 · {total} mismatches"
    assert log["text"] == f"page 1 of 1 · 12 of {total} mismatches"
    assert log["copyLabel"] in ("copy", "copied", "select + copy by hand")


def test_ten_thousand_mismatches_open_the_last_one_in_the_browser(tmp_path):
    """A run with 10,000 mismatches stays responsive: the page loads, jumps to
    page 100 and draws the last mismatch (trimmed to its row, repro and record pointer)."""
    from tests.reports.test_junit_big import big_run
    page = reports.render(big_run(tmp_path / "runs"))
    doc, _ = dump_dom(tmp_path, page, "#m9999")
    assert console_errors(doc) == (0, "")
    assert doc.by_id("pageinfo").text() == "page 100 of 100 · 10000 mismatches"
    d = doc.by_id("m9999")
    assert "open" in d.attrs
    assert "chunks/00099.json mismatches[99]" in d.text()
    assert d.find("div", cls="repro").find("code").text() == \
        "make one CASE='m099.cmp::ANM_big099' SEED=4 CHECK=controllers"


# Measures the page once it is ready and the address's mismatch is open: the mismatch's heading
# against the sticky header and the viewport, the row's time/ulp/d cells, the SHA-256 cells.
LAYOUT = """<script>
(function go(){
  if (document.body.getAttribute('data-ready') !== '1') { setTimeout(go, 20); return; }
  setTimeout(function(){
    var el = document.getElementById(location.hash.slice(1)), head = el.querySelector('summary');
    var r = head.getBoundingClientRect(), hdr = document.querySelector('header').getBoundingClientRect();
    var cut = Array.prototype.filter.call(head.querySelectorAll('span.mt, span.mu, span.md'),
      function(s){ return s.scrollWidth > s.clientWidth + 1 || s.scrollHeight > s.clientHeight + 1; })
      .map(function(s){ return s.className; });
    var sha = Array.prototype.map.call(document.querySelectorAll('#run td.sha .shav'), function(v){
      return v.getBoundingClientRect().height < parseFloat(getComputedStyle(v).fontSize) * 2; });
    var out = document.createElement('pre'); out.id = 'layout';
    out.textContent = JSON.stringify({open: el.open, top: r.top, bottom: r.bottom, header: hdr.bottom,
      viewport: innerHeight, scrolled: scrollY, cut: cut, shaOneLine: sha});
    document.body.appendChild(out);
  }, 200);
})();
</script></body>"""


def long_run(root):
    chunks = []
    for i in range(25):
        c = f"cbu{i:02d}.cmp::ANM_cbu3nut2"
        chunks.append({"chunk": c, "mismatches": [
            mismatch(c, "controllers", "rotation[0][1]", f"0x{0x3e000000 + k:08x}",
                     f"0x{0x3f000000 + k:08x}", track=2, time=0xFFFFFFF0 - k, object=7,
                     ulp=0xFFFFFFFF - k, deviation=123456.789 + k, tolerance=1e-5)
            for k in range(10)]})
    return write_run(root, chunks)


@pytest.mark.parametrize("n", [40, 217])          # on page 1 (static) and on page 3 (drawn)
def test_an_anchored_mismatch_shows_below_the_sticky_header(tmp_path, n):
    """#m<n> scrolls the mismatch's heading to just below the sticky header,
    inside the viewport; its time, ulp and d are not cut (item 8.4) and each SHA-256 is one
    line (item 8.2)."""
    page = reports.render(long_run(tmp_path / "runs"))
    test_page = tmp_path / "layout.html"
    test_page.write_text(page.read_text().replace("</body>", LAYOUT))
    out = chromium(tmp_path, test_page.as_uri() + f"#m{n}", "--dump-dom", "--window-size=1280,900")
    doc = parse(out.stdout)
    assert console_errors(doc) == (0, "")
    got = json.loads(doc.by_id("layout").text())
    assert got["open"] and got["scrolled"] > 0, got
    assert got["header"] <= got["top"] < got["bottom"] <= got["viewport"], got
    assert got["cut"] == [], got
    assert got["shaOneLine"] == [True, True], got


# Measures what overflows once the page is ready: the Run section's tables against the section's
# right edge (the two-column layout), and each mismatch row's cause and object cells (cut text).
OVERFLOW = """<script>
(function go(){
  if (document.body.getAttribute('data-ready') !== '1') { setTimeout(go, 20); return; }
  var run = document.getElementById('run').getBoundingClientRect(), log = {tables: [], cut: [], causes: []};
  document.querySelectorAll('#run table').forEach(function(t){
    var r = t.getBoundingClientRect();
    if (r.right > run.right + 1) log.tables.push(t.className + ' ' + Math.round(r.right - run.right) + 'px');
  });
  document.querySelectorAll('details.mm > summary span.cause, details.mm > summary span.mw').forEach(function(s){
    if (s.scrollWidth > s.clientWidth + 1) log.cut.push(s.className + ': ' + s.textContent);
    if (s.classList.contains('cause')) log.causes.push(s.textContent);
  });
  var out = document.createElement('pre'); out.id = 'overflow';
  out.textContent = JSON.stringify(log); document.body.appendChild(out);
})();
</script></body>"""


def test_a_failing_report_with_long_paths_keeps_its_columns_and_shows_every_tag(tmp_path):
    """A failing run from a deep checkout: the executable's and the corpus's paths wrap inside the
    Run section instead of running into the Checks column, and each mismatch row shows its whole
    cause, the inferred-rule tag included, and its object's name (the screenshot report-long-paths.png
    lands beside the others for a reviewer)."""
    deep = "/home/reviewer/" + "/".join(f"a_rather_long_directory_name_{i}" for i in range(8))
    chunk = "a-member-with-a-long-name.cmp::ANM_a_chunk_with_a_long_name_000"
    ms = [mismatch(chunk, "playback", "translation.y", "0x00000000", f"0x{0x80000000 + k:08x}", step=3 + k,
                   time=768, object=f"OBJ_an_object_with_a_rather_long_name_{k}", track=k,
                   inferred="inferred rule: zero-exponent one-value position (animation-semantics.md §4 step 3.2)")
          for k in range(3)]
    run = write_run(tmp_path / "runs", [{"chunk": chunk, "mismatches": ms, "checks": ["playback"]}],
                    params={"image": {"path": deep + "/SLUS_202.67", "size": 3_000_000, "sha256": "ab" * 32},
                            "data": {"path": deep + "/DATA/DATA.BIN", "size": 500_000_000, "sha256": "cd" * 32}})
    page = reports.render(run)
    test_page = tmp_path / "overflow.html"
    test_page.write_text(page.read_text().replace("</body>", OVERFLOW))
    out = chromium(tmp_path, test_page.as_uri(), "--dump-dom", "--window-size=1400,1000")
    log = json.loads(parse(out.stdout).by_id("overflow").text())
    assert log["tables"] == [] and log["cut"] == [], log
    assert len(log["causes"]) == 3 and all("inferred rule: zero-exponent one-value position" in c
                                           for c in log["causes"]), log
    shots = Path(os.environ.get("EEDIFF_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    chromium(tmp_path, page.as_uri() + "#open", f"--screenshot={shots / 'report-long-paths.png'}",
             "--window-size=1400,1600", "--hide-scrollbars")
    assert (shots / "report-long-paths.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
