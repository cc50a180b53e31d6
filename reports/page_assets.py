"""The report page's inline CSS and JavaScript (no external files, nothing fetched).

JS.detailHTML mirrors reports.detail.detail_html: both draw a mismatch from the same view
(reports.describe.view); tests/reports checks that they agree in a headless browser.
"""

# Runs first: records uncaught errors and console.error calls into <pre id="console-errors">,
# so a headless --dump-dom shows them (tests/reports/test_browser.py).
ERROR_HOOK = r"""
(function(){
  var errs = window.__eediffErrors = [];
  function show(){
    if (!document.body) return;
    var el = document.getElementById('console-errors');
    if (!el) { el = document.createElement('pre'); el.id = 'console-errors'; el.hidden = true;
               document.body.appendChild(el); }
    el.textContent = errs.join('\n'); el.setAttribute('data-count', String(errs.length));
  }
  function note(msg){ errs.push(String(msg)); show(); }
  window.__eediffNote = note;
  window.addEventListener('error', function(ev){
    note('error: ' + ev.message + ' at ' + (ev.filename || '') + ':' + (ev.lineno || ''));
  });
  window.addEventListener('unhandledrejection', function(ev){ note('rejection: ' + ev.reason); });
  var ce = console.error;
  console.error = function(){
    note('console.error: ' + Array.prototype.join.call(arguments, ' '));
    return ce.apply(console, arguments);
  };
  document.addEventListener('DOMContentLoaded', show);
})();
"""

CSS = r"""
:root { --ok:#1a7f37; --bad:#cf222e; --warn:#9a6700; --err:#8250df; --line:#d0d7de;
        --bg:#f6f8fa; --fg:#1f2328; --muted:#59636e; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
       color:var(--fg); background:#fff; }
header { padding:14px 24px 8px; border-bottom:1px solid var(--line); background:var(--bg);
         position:sticky; top:0; z-index:5; }
header h1 { display:inline; font-size:20px; margin:0 0 0 10px; }
header h1 small { color:var(--muted); font-weight:normal; font-size:14px; }
.headline { margin:4px 0; color:var(--muted); }
nav a { margin-right:14px; color:#0969da; text-decoration:none; font-size:13px; }
nav a:hover { text-decoration:underline; }
.verdict { display:inline-block; padding:2px 10px; border-radius:4px; color:#fff; font-weight:bold;
           vertical-align:3px; }
.verdict.pass { background:var(--ok); } .verdict.fail { background:var(--bad); }
.verdict.incomplete { background:var(--warn); } .verdict.nothing { background:var(--warn); color:#000; }
main { padding:0 24px 40px; max-width:1400px; }
section { margin-top:22px; }
.cards { display:flex; flex-wrap:wrap; gap:12px; margin-top:18px; }
.card { border:1px solid var(--line); border-radius:6px; padding:8px 16px; min-width:150px; background:#fff; }
.card .cv { font-size:22px; font-weight:600; font-variant-numeric:tabular-nums; }
.card .cl { color:var(--muted); font-size:12px; } .card .cs { color:var(--muted); font-size:11.5px; }
.card.bad { border-color:var(--bad); } .card.bad .cv { color:var(--bad); }
.card.ok .cv { color:var(--ok); }
.proof { margin:10px 0 0; color:var(--fg); }
.cols { display:flex; flex-wrap:wrap; gap:0 40px; align-items:flex-start; }
.cols > section { flex:1 1 520px; min-width:0; }
h2 { font-size:17px; border-bottom:1px solid var(--line); padding-bottom:4px; }
h3 { font-size:15px; margin:14px 0 6px; } h4 { margin:12px 0 4px; font-size:13px; }
table { border-collapse:collapse; margin:6px 0; }
th, td { border:1px solid var(--line); padding:3px 8px; text-align:left; vertical-align:top; }
th { background:var(--bg); font-weight:600; }
table.kv th { width:130px; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
.mono, code { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
.sha { font-size:11.5px; word-break:break-all; }
table.checks-t tr.bad td:last-child { color:var(--bad); font-weight:bold; }
table.checks-t tr.ok td:last-child { color:var(--ok); }
tr.warn td { background:#fff8c5; }
.note { color:var(--muted); font-size:12.5px; }
.problems { background:#fff8c5; border:1px solid #d4a72c; padding:8px 28px; }
.cells { display:flex; flex-wrap:wrap; gap:2px; max-width:1200px; }
.cell { display:inline-block; width:10px; height:10px; border-radius:2px; }
.cell.ok { background:#4ac26b; } .cell.bad { background:var(--bad); } .cell.err { background:var(--err); }
a.cell:hover { outline:2px solid #000; }
.cells.dense { gap:1px; } .cells.dense .cell { width:6px; height:6px; border-radius:1px; }
.legend .cell { vertical-align:-1px; margin:0 2px 0 8px; }
.counters { display:flex; flex-wrap:wrap; gap:12px; align-items:flex-start; }
svg.plot { border:1px solid var(--line); background:#fff; max-width:100%; height:auto; }
svg.plot text { font-size:10px; fill:var(--muted); } svg.plot .axis { font-size:11px; fill:var(--fg); }
svg.plot .plotbg { fill:#fbfcfd; } svg.plot .grid { stroke:#eaeef2; }
svg.plot .bound { fill:none; stroke:var(--bad); stroke-dasharray:5 3; stroke-width:1.5; }
svg.plot .boundlbl { fill:var(--bad); }
svg.plot .pt { fill:#0969da; fill-opacity:.55; } svg.plot .over { fill:var(--bad); }
svg.plot .ref { fill:none; stroke:#0969da; stroke-width:1.5; }
svg.plot .game { fill:var(--bad); } svg.plot .mark { stroke:var(--warn); stroke-dasharray:3 3; }
svg.plot .legend { fill:var(--fg); }
input[type=search] { padding:4px 8px; width:320px; border:1px solid var(--line); border-radius:4px; }
select, button { padding:3px 8px; border:1px solid var(--line); border-radius:4px; background:#fff; }
button:hover { background:var(--bg); cursor:pointer; }
table.sortable th { cursor:pointer; user-select:none; }
table.sortable th.asc::after { content:" ▲"; } table.sortable th.desc::after { content:" ▼"; }
.err-t { color:var(--err); }
.filters, .pager { margin:8px 0; }
details.mm { border:1px solid var(--line); border-radius:4px; margin:3px 0; }
details.mm[open] { border-color:#8c959f; box-shadow:0 1px 3px rgba(0,0,0,.08); }
details.mm > summary { cursor:pointer; padding:4px 8px; display:grid; gap:10px; align-items:baseline;
  grid-template-columns:52px 86px minmax(160px,1.3fr) minmax(140px,1.2fr) 120px minmax(200px,1.6fr) 84px 130px; }
details.mm > summary span { overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
details.mm > summary:hover { background:var(--bg); }
details.mm:target { outline:2px solid #0969da; }
.mn { color:var(--muted); } .mc { font-weight:600; } .mf { color:#0550ae; }
.cause { background:#ddf4ff; border-radius:10px; padding:0 8px; font-size:12px; text-align:center; }
.det { padding:4px 14px 12px; border-top:1px solid var(--line); }
table.vals th { width:90px; white-space:nowrap; } table.vals td { white-space:nowrap; }
.pair { display:flex; flex-wrap:wrap; gap:8px 28px; align-items:flex-start; }
.pair table.kv { min-width:380px; }
.shdr { display:flex; align-items:flex-end; margin:1px 0; }
.shdr span { font-size:10.5px; color:var(--muted); text-align:center; border-bottom:1px solid var(--line); }
.shdr .hs { width:17px; margin-right:3px; } .shdr .he { width:136px; margin-right:3px; }
.shdr .hf { width:391px; }
tr.dr td { background:#ffebe9; }
table.keys tr.seg td { background:#fff8c5; font-weight:600; }
.strip { margin:6px 0 10px; }
.srow { display:flex; align-items:center; margin:1px 0; }
.slbl { width:110px; font-size:12px; color:var(--muted); }
.b { display:inline-block; width:17px; height:20px; line-height:20px; text-align:center;
     font:12px ui-monospace,monospace; border:1px solid #fff; }
.b.i { background:#eef1f4; } .b.s { background:#ffd8e4; } .b.e { background:#dbeafe; } .b.f { background:#dcfce7; }
.b:nth-child(2) { margin-right:3px; } .b:nth-child(10) { margin-right:3px; }
.b.d { background:var(--bad); color:#fff; font-weight:bold; }
.sdesc { font-size:12px; color:var(--muted); margin-left:110px; }
.dev { font-weight:600; color:var(--bad); }
dl.ctx { display:grid; grid-template-columns:max-content 1fr; gap:2px 12px; margin:4px 0; }
dl.ctx dt { font-weight:600; } dl.ctx dd { margin:0; word-break:break-all; }
.repro { margin:10px 0 4px; display:flex; gap:8px; align-items:center; }
.repro code { background:var(--bg); border:1px solid var(--line); padding:4px 8px; border-radius:4px;
              flex:1; white-space:pre-wrap; word-break:break-all; }
.rlbl { font-weight:600; width:100px; }
.shrunk { border-left:4px solid var(--ok); background:#f0fff4; padding:4px 12px; margin:8px 0; }
footer { padding:12px 24px; color:var(--muted); font-size:12px; border-top:1px solid var(--line); }
"""

JS = r"""
(function(){
'use strict';
var blob = document.getElementById('eediff-data');
var data = JSON.parse(blob.textContent);
var views = data.views, PS = data.pageSize;
var state = {page: 0, text: '', check: '', cause: '', chunk: ''};
var shown = views;
var $ = function(id){ return document.getElementById(id); };
var mlist = $('mlist');

function esc(s){
  // characters that are not printable (as corpus.names.printable) are shown as \\x / \\u escapes
  return s == null ? '' : String(s).replace(/[\u0000-\u001f\u007f-\u00a0\u00ad\u2028\u2029]/g, function(c){
    var n = c.charCodeAt(0);
    return n < 256 ? '\\x' + ('0' + n.toString(16)).slice(-2) : '\\u' + ('000' + n.toString(16)).slice(-4);
  }).replace(/[&<>"']/g, function(c){
    return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#x27;'}[c]; });
}

// ---- one mismatch (mirrors reports/detail.py; keep the two in step) ----
function stripHTML(sv, label){
  var rows = '', sides = [['reference', sv.eb], ['game', sv.gb]];
  for (var k = 0; k < 2; k++) {
    var cells = '', bits = sides[k][1];
    for (var i = 31; i >= 0; i--) {
      var part = sv['float'] ? (i === 31 ? 's' : (i >= 23 ? 'e' : 'f')) : 'i';
      var d = ((sv.mask >>> i) & 1) ? ' d' : '';
      cells += '<span class="b ' + part + d + '" title="bit ' + i + '">' + ((bits >>> i) & 1) + '</span>';
    }
    rows += '<div class="srow"><span class="slbl">' + esc(label || '') + ' ' + sides[k][0] + '</span>' + cells + '</div>';
  }
  var head = sv['float'] ? '<div class="shdr"><span class="slbl"></span><span class="hs">s</span>' +
    '<span class="he">exponent</span><span class="hf">fraction</span></div>' : '';
  return '<div class="strip">' + head + rows + '<div class="sdesc">' + esc(sv.desc) + '</div></div>';
}
function valuesHTML(sv){
  var ulp = sv.ulp == null ? '' : '<tr><th>ulp distance</th><td colspan="3">' + sv.ulp + '</td></tr>';
  var rows = '';
  [['reference', sv.e], ['game', sv.g]].forEach(function(p){
    rows += '<tr><th>' + p[0] + '</th><td class="mono">' + esc(p[1].hex) + '</td><td class="mono">' +
      esc(p[1].dec) + '</td><td class="mono">' + esc(p[1].read) + '</td></tr>';
  });
  return '<table class="vals"><tr><th></th><th>hex</th><th>decimal</th><th>' +
    (sv['float'] ? 'float (display only)' : 'reading') + '</th></tr>' + rows + ulp + '</table>';
}
function listHTML(lv){
  var rows = lv.rows.map(function(r){
    return '<tr class="' + (r[3] ? 'dr' : '') + '"><td>' + r[0] + '</td><td class="mono">' + esc(r[1]) +
      '</td><td class="mono">' + esc(r[2]) + '</td></tr>'; }).join('');
  var more = lv.more > 0 ? '<p class="note">' + lv.more + ' more elements not shown</p>' : '';
  var strips = lv.strips.map(function(s){ return valuesHTML(s) + stripHTML(s, s.label); }).join('');
  return '<table class="vals list"><tr><th>#</th><th>reference (' + lv.ne + ')</th><th>game (' + lv.ng +
    ')</th></tr>' + rows + '</table>' + more + strips;
}
function reproHTML(cmd, label){
  return '<div class="repro"><span class="rlbl">' + esc(label || 'repro') + '</span><code>' + esc(cmd) +
    '</code><button type="button" class="copy" data-copy="' + esc(cmd) + '">copy</button></div>';
}
function fmt(x){ var a = Math.abs(x);
  if (a >= 1000 && a < 1e7) return String(Math.round(x));
  return (a !== 0 && (a < 1e-3 || a >= 1e7)) ? x.toExponential(2) : String(+x.toPrecision(3)); }
function seriesSVG(s, mark){
  var W = 640, H = 260, L = 64, R = 16, T = 14, B = 36, pw = W - L - R, ph = H - T - B;
  var xs = s.t.concat(s.gt), ys = s.ref.concat(s.g);
  var xlo = Math.min.apply(null, xs), xhi = Math.max.apply(null, xs);
  var ylo = Math.min.apply(null, ys), yhi = Math.max.apply(null, ys);
  if (yhi === ylo) { ylo -= 1; yhi += 1; }
  var pad = (yhi - ylo) * 0.05; ylo -= pad; yhi += pad;
  var X = function(x){ return L + (x - xlo) / ((xhi - xlo) || 1) * pw; };
  var Y = function(y){ return T + ph - (y - ylo) / ((yhi - ylo) || 1) * ph; };
  var o = '<rect x="' + L + '" y="' + T + '" width="' + pw + '" height="' + ph + '" class="plotbg"/>';
  for (var i = 0; i < 5; i++) {
    var ty = ylo + (yhi - ylo) * i / 4, tx = xlo + (xhi - xlo) * i / 4;
    o += '<line x1="' + L + '" x2="' + (L + pw) + '" y1="' + Y(ty).toFixed(1) + '" y2="' + Y(ty).toFixed(1) + '" class="grid"/>';
    o += '<text x="' + (L - 4) + '" y="' + (Y(ty) + 4).toFixed(1) + '" text-anchor="end">' + fmt(ty) + '</text>';
    o += '<text x="' + X(tx).toFixed(1) + '" y="' + (T + ph + 14) + '" text-anchor="middle">' + fmt(tx) + '</text>';
  }
  o += '<text x="' + (L + pw / 2) + '" y="' + (H - 4) + '" text-anchor="middle" class="axis">time (ticks)</text>';
  o += '<text x="12" y="' + (T + ph / 2) + '" text-anchor="middle" class="axis" transform="rotate(-90 12 ' + (T + ph / 2) + ')">' + esc(s.label || 'value') + '</text>';
  if (s.t.length) o += '<polyline points="' + s.t.map(function(x, k){ return X(x).toFixed(1) + ',' + Y(s.ref[k]).toFixed(1); }).join(' ') + '" class="ref"/>';
  if (typeof mark === 'number' && mark >= xlo && mark <= xhi)
    o += '<line x1="' + X(mark).toFixed(1) + '" x2="' + X(mark).toFixed(1) + '" y1="' + T + '" y2="' + (H - B) + '" class="mark"/>';
  s.gt.forEach(function(x, k){ o += '<circle cx="' + X(x).toFixed(1) + '" cy="' + Y(s.g[k]).toFixed(1) + '" r="3" class="game"><title>game at t=' + x + ': ' + s.g[k] + '</title></circle>'; });
  o += '<text x="' + (W - R) + '" y="' + (H - 4) + '" text-anchor="end" class="legend">' +
    (s.derived ? '— reference (derived by reports)   ● game' : '— reference   ● game') + '</text>';
  return '<svg class="plot" viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H + '" role="img" aria-label="value over time">' + o + '</svg>';
}
function detailHTML(v){
  var out = '', sh = v.shrunk;
  if (sh) {
    var items = sh.items.map(function(it){ return '<tr><th>' + esc(it[0]) + '</th><td class="mono">' + esc(it[1]) +
      '</td><td>' + (it[2] == null ? '' : esc(it[2]) + ' item(s)') + '</td></tr>'; }).join('');
    var orig = sh.orig.map(function(o){ return ' ' + esc(o[0]) + ': ' + o[1] + ' originally.'; }).join('');
    var tests = sh.tests != null ? ' Found in ' + esc(sh.tests) + ' replays.' : '';
    out += '<div class="shrunk"><h4>Shrunk reproduction</h4><table class="kv">' + items + '</table><p class="note">Smallest input that still fails.' +
      orig + tests + '</p>' + (sh.repro ? reproHTML(sh.repro, 'shrunk repro') : '') + '</div><h4>Original case</h4>';
  }
  var kv = [['chunk', v.chunk], ['check', v.check], ['where', v.where], ['field', v.field],
            ['likely cause', v.cause], ['seed', v.seed]];
  var kvHTML = '<table class="kv">' + kv.filter(function(p){ return p[1] != null && p[1] !== ''; }).map(function(p){
    return '<tr><th>' + p[0] + '</th><td>' + esc(p[1]) + '</td></tr>'; }).join('') + '</table>';
  if (v.sv) out += '<div class="pair">' + kvHTML + '<div>' + valuesHTML(v.sv) + stripHTML(v.sv, '') + '</div></div>';
  else if (v.lv) out += kvHTML + listHTML(v.lv);
  else if (v.raw) out += kvHTML + '<table class="vals"><tr><th>reference</th><td class="mono">' + esc(v.raw[0]) +
    '</td></tr><tr><th>game</th><td class="mono">' + esc(v.raw[1]) + '</td></tr></table>';
  else out += kvHTML;
  if ('dev' in v) out += '<p class="dev">deviation d = ' + esc(v.dev) + ', tolerance ' + esc(v.tol) + '</p>';
  (v.keys || []).forEach(function(k){
    var rows = k.rows.map(function(r){ return '<tr class="' + r[4] + '"><td class="num">' + esc(r[0]) +
      '</td><td class="num">' + esc(r[1]) + '</td><td class="num">' + esc(r[2]) + '</td><td class="mono">' +
      esc(r[3]) + '</td></tr>'; }).join('');
    var count = k.count != null ? ' of ' + esc(k.count) : '';
    out += '<h4>' + esc(k.name) + ' around t=' + esc(k.t) + ' (' + k.rows.length + count + ' keys; ' +
      'the segment holding t is marked)</h4><table class="grid-t keys"><tr><th>key</th>' +
      '<th>frame</th><th>tick</th><th>value</th></tr>' + rows + '</table>';
  });
  if (v.ctx && v.ctx.length) out += '<h4>Context</h4><dl class="ctx">' + v.ctx.map(function(p){
    return '<dt>' + esc(p[0]) + '</dt><dd class="mono">' + esc(p[1]) + '</dd>'; }).join('') + '</dl>';
  if (v.series) out += '<h4>Value over time</h4>' + seriesSVG(v.series, v.time);
  out += reproHTML(v.repro);
  if (v.src) out += '<p class="note">record: ' + esc(v.src) + '</p>';
  return out;
}
function summaryHTML(v){
  return '<span class="mn">#' + v.n + '</span><span class="mc">' + esc(v.check) + '</span><span class="mch">' +
    esc(v.chunk) + '</span><span class="mw">' + esc(v.where) + '</span><span class="mf">' + esc(v.field) +
    '</span><span class="mv mono">' + esc(v.es) + ' → ' + esc(v.gs) + '</span><span class="mu">' + esc(v.extra || '') +
    '</span><span class="cause">' + esc(v.cause) + '</span>';
}
function bodyHTML(v){
  return v.full ? detailHTML(v) : '<p class="note">Details trimmed to keep the report small; the full record is ' +
    esc(v.src) + '.</p>' + reproHTML(v.repro);
}

// ---- the paginated, filtered list ----
function applyFilters(){
  var t = state.text.toLowerCase();
  shown = views.filter(function(v){
    if (state.check && v.check !== state.check) return false;
    if (state.cause && v.cause !== state.cause) return false;
    if (state.chunk && v.chunk !== state.chunk) return false;
    if (t && [v.chunk, v.field, v.where, v.check, v.cause].join(' ').toLowerCase().indexOf(t) < 0) return false;
    return true;
  });
}
function pages(){ return Math.max(1, Math.ceil(shown.length / PS)); }
function renderPage(){
  if (!mlist) return;
  state.page = Math.min(Math.max(0, state.page), pages() - 1);
  var part = shown.slice(state.page * PS, (state.page + 1) * PS);
  mlist.innerHTML = part.map(function(v){
    return '<details class="mm" id="m' + v.n + '" data-n="' + v.n + '"><summary>' + summaryHTML(v) +
      '</summary><div class="det"></div></details>'; }).join('') ||
    '<p class="note">No mismatch matches the filters.</p>';
  $('pageinfo').textContent = 'page ' + (state.page + 1) + ' of ' + pages() + ' · ' + shown.length +
    (shown.length === views.length ? '' : ' of ' + views.length) + ' mismatches';
  var mc = $('mchunk');
  mc.innerHTML = state.chunk ? 'chunk <b>' + esc(state.chunk) + '</b> <button type="button" id="clearchunk">show all</button>' : '';
}
function fill(det){
  var body = det.querySelector('.det');
  if (body && !body.childNodes.length) body.innerHTML = bodyHTML(views[+det.getAttribute('data-n')]);
}
function openMismatch(n){
  var idx = shown.findIndex(function(v){ return v.n === n; });
  if (idx < 0) { state.text = state.check = state.cause = state.chunk = ''; syncInputs(); applyFilters();
                 idx = shown.findIndex(function(v){ return v.n === n; }); }
  if (idx < 0) return;
  var el = document.getElementById('m' + n);
  if (!el || !el.parentNode || el.parentNode !== mlist || Math.floor(idx / PS) !== state.page) {
    state.page = Math.floor(idx / PS); renderPage(); el = document.getElementById('m' + n);
  }
  if (el.getAttribute('data-n') != null) fill(el);
  el.open = true; el.scrollIntoView();
}
function expandPage(){
  if (!mlist) return;
  mlist.querySelectorAll('details.mm').forEach(function(d){ if (d.getAttribute('data-n') != null) fill(d); d.open = true; });
}
function syncInputs(){
  if ($('mfilter')) { $('mfilter').value = state.text; $('mcheck').value = state.check; $('mcause').value = state.cause; }
}
function update(){ applyFilters(); state.page = 0; renderPage(); }
function onHash(){
  var h = decodeURIComponent(location.hash.slice(1));
  var m = /^m(\d+)$/.exec(h);
  if (m) { openMismatch(+m[1]); return; }
  if (h === 'open') { expandPage(); return; }
  m = /^p=(\d+)$/.exec(h);
  if (m) { state.page = +m[1] - 1; renderPage(); return; }
  m = /^chunk=(.+)$/.exec(h);
  if (m) { state.chunk = m[1]; update(); }
}

if (mlist) {
  mlist.addEventListener('toggle', function(ev){
    var d = ev.target; if (d.open && d.getAttribute('data-n') != null) fill(d); }, true);
  $('mfilter').addEventListener('input', function(){ state.text = this.value; update(); });
  $('mcheck').addEventListener('change', function(){ state.check = this.value; update(); });
  $('mcause').addEventListener('change', function(){ state.cause = this.value; update(); });
  $('prev').addEventListener('click', function(){ state.page--; renderPage(); });
  $('next').addEventListener('click', function(){ state.page++; renderPage(); });
  $('expand').addEventListener('click', expandPage);
}
document.addEventListener('click', function(ev){
  var t = ev.target;
  if (t.id === 'clearchunk') { state.chunk = ''; update(); return; }
  if (t.classList && t.classList.contains('copy')) {
    var text = t.getAttribute('data-copy');
    var done = function(){ t.textContent = 'copied'; setTimeout(function(){ t.textContent = 'copy'; }, 1200); };
    var fallback = function(){
      var ta = document.createElement('textarea'); ta.value = text; document.body.appendChild(ta); ta.select();
      try { document.execCommand('copy'); done(); } catch (e) { t.textContent = 'select + copy by hand'; }
      document.body.removeChild(ta);
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
    return;
  }
  var a = t.closest ? t.closest('a[data-chunk], a.causelink') : null;
  if (a && mlist) {
    ev.preventDefault();
    if (a.classList.contains('causelink')) { state.cause = a.getAttribute('data-cause'); state.chunk = ''; }
    else { state.chunk = a.getAttribute('data-chunk'); state.cause = ''; }
    state.text = state.check = ''; syncInputs(); update();
    $('mismatches').scrollIntoView();
  }
});

// sortable, filterable failing-chunk table
var table = $('chunktable');
if (table) {
  var ths = table.querySelectorAll('th');
  ths.forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = !th.classList.contains('asc');
      ths.forEach(function(h){ h.classList.remove('asc', 'desc'); });
      th.classList.add(asc ? 'asc' : 'desc');
      var num = th.getAttribute('data-type') === 'num';
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x = a.cells[col].textContent, y = b.cells[col].textContent;
        var c = num ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
  $('chunkfilter').addEventListener('input', function(){
    var q = this.value.toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function(r){
      r.hidden = q && r.textContent.toLowerCase().indexOf(q) < 0; });
  });
}
window.addEventListener('hashchange', onHash);
if (location.hash) onHash();
window.__eediff = {detailHTML: detailHTML, views: views};
document.body.setAttribute('data-ready', '1');
})();
"""
