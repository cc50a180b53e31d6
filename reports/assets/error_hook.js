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
