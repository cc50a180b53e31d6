(function(){
'use strict';
// The report's behaviour. It renders nothing of a mismatch: every mismatch's HTML (its row and
// its detail) is rendered by reports/detail.py. Page 1 is static in the page; the HTML of every
// mismatch travels gzip-compressed in #eediff-data and is decompressed once, on load, to draw
// other pages and filtered lists.
var $ = function(id){ return document.getElementById(id); };
var data = JSON.parse($('eediff-data').textContent);
var PS = data.pageSize;
var items = null;        // [chunk, check, cause, search text, html] per mismatch, in run order
var shown = [];
var state = {page: 0, text: '', check: '', cause: '', chunk: ''};
var mlist = $('mlist');

// ---- the sticky header: anchored headings scroll to just below it (CSS scroll-margin-top)
function measureHeader(){
  var h = document.querySelector('header');
  if (h) document.documentElement.style.setProperty('--header-h', h.offsetHeight + 'px');
}
measureHeader();
window.addEventListener('resize', measureHeader);

// ---- the mismatches' HTML: base64 of gzip of JSON
function decode(b64){
  if (typeof DecompressionStream === 'undefined') return Promise.reject(new Error('no DecompressionStream'));
  var bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text().then(JSON.parse);
}

// ---- the paginated, filtered list
function applyFilters(){
  var t = state.text.toLowerCase();
  shown = [];
  items.forEach(function(it, n){
    if (state.check && it[1] !== state.check) return;
    if (state.cause && it[2] !== state.cause) return;
    if (state.chunk && it[0] !== state.chunk) return;
    if (t && it[3].indexOf(t) < 0) return;
    shown.push(n);
  });
}
function pages(){ return Math.max(1, Math.ceil(shown.length / PS)); }
function renderPage(){
  state.page = Math.min(Math.max(0, state.page), pages() - 1);
  var part = shown.slice(state.page * PS, (state.page + 1) * PS);
  mlist.innerHTML = part.map(function(n){ return items[n][4]; }).join('') ||
    '<p class="note">No mismatch matches the filters.</p>';
  $('pageinfo').textContent = 'page ' + (state.page + 1) + ' of ' + pages() + ' · ' + shown.length +
    (shown.length === items.length ? '' : ' of ' + items.length) + (items.length === 1 ? ' mismatch' : ' mismatches');
  var mc = $('mchunk');
  mc.textContent = '';
  if (state.chunk) {
    var b = document.createElement('b'), btn = document.createElement('button');
    b.textContent = state.chunk;
    btn.type = 'button'; btn.id = 'clearchunk'; btn.textContent = 'show all';
    mc.append('chunk ', b, ' ', btn);
  }
}
function openMismatch(n){
  if (!items) {                         // before the pages are decoded: page 1 only
    var el0 = $('m' + n);
    if (el0) { el0.open = true; el0.scrollIntoView(); }
    return;
  }
  var idx = shown.indexOf(n);
  if (idx < 0) { state.text = state.check = state.cause = state.chunk = ''; syncInputs(); applyFilters();
                 idx = shown.indexOf(n); }
  if (idx < 0) return;
  if (Math.floor(idx / PS) !== state.page || !$('m' + n)) { state.page = Math.floor(idx / PS); renderPage(); }
  var el = $('m' + n);
  el.open = true; el.scrollIntoView();
}
function expandPage(){
  mlist.querySelectorAll('details.mm').forEach(function(d){ d.open = true; });
}
function syncInputs(){
  $('mfilter').value = state.text; $('mcheck').value = state.check; $('mcause').value = state.cause;
}
function update(){ if (!items) return; applyFilters(); state.page = 0; renderPage(); }
function onHash(){
  var h = decodeURIComponent(location.hash.slice(1));
  var m = /^m(\d+)$/.exec(h);
  if (m) { openMismatch(+m[1]); return; }
  if (h === 'open') { expandPage(); return; }
  if (!items) return;
  m = /^p=(\d+)$/.exec(h);
  if (m) { state.page = +m[1] - 1; renderPage(); return; }
  m = /^chunk=(.+)$/.exec(h);
  if (m) { state.chunk = m[1]; update(); }
}

// ---- copy buttons, chunk and cause links
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
  if (a && mlist && items) {
    ev.preventDefault();
    if (a.classList.contains('causelink')) { state.cause = a.getAttribute('data-cause'); state.chunk = ''; }
    else { state.chunk = a.getAttribute('data-chunk'); state.cause = ''; }
    state.text = state.check = ''; syncInputs(); update();
    $('mismatches').scrollIntoView();
  }
});

// ---- the sortable, filterable failing-chunk table
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

function ready(){
  window.addEventListener('hashchange', onHash);
  if (location.hash) onHash();
  document.body.setAttribute('data-ready', '1');
}
if (!mlist || !data.pages) { ready(); return; }
decode(data.pages).then(function(list){
  items = list;
  shown = items.map(function(_, n){ return n; });
  $('mfilter').addEventListener('input', function(){ state.text = this.value; update(); });
  $('mcheck').addEventListener('change', function(){ state.check = this.value; update(); });
  $('mcause').addEventListener('change', function(){ state.cause = this.value; update(); });
  $('prev').addEventListener('click', function(){ state.page--; renderPage(); });
  $('next').addEventListener('click', function(){ state.page++; renderPage(); });
  $('expand').addEventListener('click', expandPage);
  ready();
}, function(err){
  $('pageinfo').textContent += ' (pages beyond the first need a browser with DecompressionStream: ' +
    err.message + ')';
  $('expand').addEventListener('click', expandPage);
  ready();
});
})();
