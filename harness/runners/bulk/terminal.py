"""What a run says on the terminal: the progress line while chunks are checked, and the closing
summary (the verdict, the failing chunks with their repros, the counters by check, the time lines).

bulk and merge print through this module; it reads a summary (interfaces.md §4) and never the
run directory itself. Counts speak of the archive's chunks; the cases the harness makes up
(ids starting `synthetic::`) are counted apart.
"""
from __future__ import annotations

import json
import math
import time
from collections import deque

from corpus.names import counted, printable
from harness.compare.tally import MISMATCHES_KEPT_PER_CHUNK
from corpus.synth.edge import is_synthetic
from ground.exits import EXIT
from ground.vocabulary import CHECK_NAMES as CHECKS
from reports.coverage import counter_label, counter_groups, coverage_rows
from reports.describe import answered_by


class Progress:
    """One progress line: the archive's chunks done/total (synthetic cases apart), mismatches,
    errors, the recent rate in chunks/min, an ETA, and the time since the start.

    DECISION: the ETA is the predicted seconds of the chunks not yet done, divided by the rate at
    which the last RATE_WINDOW seconds finished worker-seconds. A chunk's predicted seconds are
    a + b x g(its predicted cost) (cost: the last run's time, else the header proxy of
    schedule.py), fitted on the chunks this run has finished (seconds_model). The fixed part `a`
    (a load, the parse) and the proxy's faster growth than the time are what a rate of cost left
    out: the ETA came out 40-60% short once bulk, checking the most expensive chunks first,
    reached the many small ones, and near 0 for the cases built by code, which have no proxy.
    Without per-chunk seconds (a caller that gives none) it is the cost left at the recent rate.

    Without a terminal (cron, CI) a line is printed at most every QUIET_EVERY seconds, and the
    last one; each carries the elapsed time, so a log gives each ETA's error afterwards.
    """

    RATE_WINDOW = 30.0
    QUIET_EVERY = 60.0
    FIT_LAST = 5000                               # completions the seconds model is fitted on

    def __init__(self, total, done, out, chunks=None, costs=None, done_ids=(), label=""):
        self.total, self.done, self.out = total, done, out
        self.label = label                        # a run that compares nothing (an export) names itself
        self.start_done, self.t0 = done, time.time()
        self.mismatches = self.errors = 0
        self.tty = hasattr(out, "isatty") and out.isatty()
        self.last_print = self.t0
        self.chunks = dict(chunks or {})          # index -> chunk id
        self.costs = dict(costs or {})            # chunk id -> predicted cost
        self.synthetic_total = sum(1 for c in self.chunks.values() if is_synthetic(c))
        self.synthetic_done = sum(1 for i in done_ids if is_synthetic(self.chunks.get(i)))
        finished = set(done_ids)
        self.todo = {i: self._cost(i) for i in self.chunks if i not in finished}
        self.left = sum(self.todo.values())
        self.recent = deque()                     # (time, cost, seconds) of the latest completions
        self.fitted = deque(maxlen=self.FIT_LAST)  # (predicted cost, seconds) of finished chunks

    def _cost(self, index):
        return self.costs.get(self.chunks.get(index), 0.0) or 0.0

    def update(self, index, mismatches, error, seconds=None):
        self.done += 1
        self.mismatches += mismatches
        self.errors += int(error)
        if is_synthetic(self.chunks.get(index)):
            self.synthetic_done += 1
        now = time.time()
        cost = self.todo.pop(index, self._cost(index)) if self.chunks else 1.0
        self.left = max(0.0, self.left - cost)
        self.recent.append((now, cost, seconds))
        if seconds is not None:
            self.fitted.append((cost, float(seconds)))
        while len(self.recent) > 2 and now - self.recent[0][0] > self.RATE_WINDOW:
            self.recent.popleft()
        if self.tty or now - self.last_print >= self.QUIET_EVERY or self.done == self.total:
            self.last_print = now
            line = self.line()
            self.out.write(("\r" if self.tty else "") + line + ("" if self.tty else "\n"))
            self.out.flush()

    def seconds_model(self):
        """A chunk's worker-seconds as a function of its predicted cost: a + b x g(cost), a, b >= 0,
        least squares on the finished chunks, with g the identity or the square root, whichever
        fits them better (a header proxy grows faster than the time it predicts; a last run's
        seconds grow as fast)."""
        pts = list(self.fitted)
        if not pts:
            return None
        best = None
        for g in (float, math.sqrt):
            xs, ts = [g(c) for c, _ in pts], [t for _, t in pts]
            a, b = _affine(xs, ts)
            # refit without the outliers (a chunk that waited for the machine's compile)
            res = [abs(a + b * x - t) for x, t in zip(xs, ts)]
            cut = 4 * sorted(res)[len(res) // 2]
            kept = [(x, t) for x, t, r in zip(xs, ts, res) if r <= cut]
            if cut > 0 and 2 <= len(kept) < len(xs):
                a, b = _affine([x for x, _ in kept], [t for _, t in kept])
            else:
                kept = list(zip(xs, ts))
            low = min(t for _, t in kept)
            if a > low:     # no chunk's fixed part exceeds the quickest chunk's time: b then carries it
                sxx = sum(x * x for x, _ in kept)
                a, b = low, (max(0.0, sum(x * (t - low) for x, t in kept) / sxx) if sxx > 0 else 0.0)
            sse = sum(min((a + b * x - t) ** 2, cut * cut) for x, t in zip(xs, ts))
            if best is None or sse < best[0]:
                best = (sse, a, b, g)
        _, a, b, g = best
        return lambda cost: a + b * g(cost)

    def eta_seconds(self, now=None):
        """Seconds left at the recent rate, or None before two chunks have finished."""
        now = time.time() if now is None else now
        if self.done >= self.total:
            return 0.0
        if len(self.recent) < 2:
            return None
        span = now - self.recent[0][0]
        later = list(self.recent)[1:]
        model = self.seconds_model() if all(s is not None for _, _, s in later) else None
        if model is not None and self.chunks:
            worked = sum(s for _, _, s in later)
            # the cases without a proxy (built by code) at what those finished took, once one has
            unproxied = sorted(t for c, t in self.fitted if c <= 0)
            guess = unproxied[len(unproxied) // 2] if unproxied else model(0.0)
            left = sum(model(c) if c > 0 else guess for c in self.todo.values())
            return left * span / worked if span > 0 and worked > 0 else None
        finished = sum(c or 1.0 for _, c, _ in later)
        if span <= 0 or finished <= 0:
            return None
        left = sum(c or 1.0 for c in self.todo.values()) if self.chunks else float(self.total - self.done)
        return left * span / finished

    def line(self):
        now = time.time()
        el = now - self.t0
        span = now - self.recent[0][0] if len(self.recent) >= 2 else el
        n = len(self.recent) - 1 if len(self.recent) >= 2 else self.done - self.start_done
        rate = 60.0 * n / span if span > 0 else 0.0
        eta = self.eta_seconds(now)
        archive_total = self.total - self.synthetic_total
        where = f"[{self.done - self.synthetic_done}/{archive_total}]"
        if self.synthetic_total:
            where += f" + {self.synthetic_done}/{self.synthetic_total} synthetic"
        counts = f"errors {self.errors}" if self.label else f"mismatches {self.mismatches} errors {self.errors}"
        return (f"{self.label + ': ' if self.label else ''}{where} {counts} "
                f"{rate:.1f} chunks/min ETA {_hms(eta)} elapsed {_hms(el)}")

    def finish(self):
        if self.tty:
            self.out.write("\n")


def _affine(xs, ys):
    """(a, b) >= 0 of the least-squares line y = a + b x (b = 0 when x does not vary or falls)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    b = max(0.0, sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var) if var > 0 else 0.0
    a = my - b * mx
    if a < 0:                       # through the origin instead
        sxx = sum(x * x for x in xs)
        a, b = 0.0, (sum(x * y for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0)
    return a, b


def _hms(s):
    return "?" if s is None else f"{int(s // 3600)}:{int(s % 3600 // 60):02d}:{int(s % 60):02d}"


STATUS_TEXT = {"pass": "PASS", "mismatches": "FAIL (mismatches)", "errors": "FAIL (harness errors)",
               "bad members": "FAIL (bad archive members)", "nothing compared": "NOTHING COMPARED",
               "interrupted": "INTERRUPTED", "incomplete": "INCOMPLETE", "left out": "FAIL (records left out)"}


def selection_text(s):
    """'4,091 chunks of the archive and 9 synthetic cases' ('3,000/4,091 ...' while incomplete)."""
    arc, syn = s.get("archive_chunks"), s.get("synthetic_chunks") or {}
    if not arc or "total" not in arc:          # a summary written before the split was kept
        return f"{s['chunks_done']}/{s['chunks_total']} chunks"

    def part(c, noun, plural=None):
        if c["done"] == c["total"]:
            return counted(c["total"], noun, plural)
        return f"{c['done']:,}/{counted(c['total'], noun, plural)}"
    text = part(arc, "chunk") + " of the archive"
    if syn.get("total"):
        text += " and " + part(syn, "synthetic case")
    return text


def verdict_line(s):
    st = s.get("status") or "pass"
    rate = s.get("chunks_per_minute")
    return (f"run {s['run_id']}: {STATUS_TEXT.get(st, st)} (exit {EXIT.get(st, 1)}): {selection_text(s)}, "
            f"{s['chunks_failed']:,} failed, {counted(s['mismatches'], 'mismatch')}, "
            f"{counted(s['errors'], 'error')}, {s['seconds']:.0f} s"
            + (f" ({rate:,.0f} chunks/min)" if rate else ""))


def format_summary(s):
    """The closing block: the verdict, what failed, then what was compared and how long it took."""
    lines = [verdict_line(s)]
    lines += failing_chunk_lines(s)
    lines += bad_member_lines(s)
    for why in s.get("nothing_compared") or ():
        lines.append(f"  nothing compared: {why}")
    lines += ledger_lines(s)
    lines += chunk_origin_lines(s)
    if any((v or {}).get("mismatches") for v in (s.get("checks") or {}).values()):
        lines.append(mismatch_count_line(s))
    lines += counter_lines(s)
    lines += quirk_lines(s)
    w = s.get("worst_keyed_rotation")
    if w:
        bound = f"{w['bound']:.3g}" if isinstance(w.get("bound"), (int, float)) else "unknown"
        lines.append(f"  worst keyed rotation: d {w['d']:.3g} (bound {bound}, "
                     f"{w['chunk']} track {w['track']} t={w['time']}, {w.get('check')})")
    lines += time_lines(s)
    return "\n".join(lines)


def ledger_lines(s):
    """The ledger (reports.ledger): what the run compared of each kind, and what it left out."""
    from reports.ledger import lines
    out = [f"  left out: {why}" for why in s.get("left_out") or ()]
    return out + wrapped("  ledger: ", lines(s["ledger"]), sep="; ") if s.get("ledger") else out


def _kinds_text(counts):
    return ", ".join(f"{k} {n:,}" for k, n in counts.items()) or "none"


def chunk_origin_lines(s):
    """The archive's chunks and the chunks built by code (Modify blends, edge chunks) counted apart,
    and the quirk classes a sample met and missed."""
    syn = s.get("synthetic_chunks") or {}
    arc = s.get("archive_chunks") or {}
    lines = []
    if syn.get("done"):
        lines.append(f"  archive chunks {arc.get('done')} ({arc.get('failed')} failed, "
                     f"{counted(arc.get('mismatches'), 'mismatch')}); built by code {syn['done']} "
                     f"({syn.get('failed')} failed, {counted(syn.get('mismatches'), 'mismatch')}: "
                     f"synthetic::morph/ and synthetic::edge/)")
    if s.get("model"):
        lines.append(printable(f"  model: {s['model']} in place of the built-in reference (docs/truth.md §5)"))
        mk = s.get("model_kinds")
        if mk:
            lines.append(f"  model answered: {_kinds_text(mk['answered'])} queries; "
                         f"not asked: {_kinds_text(mk['not_asked'])}")
    q = s.get("sample_quirks")
    if q:
        met, missed = q.get("covered") or [], q.get("missed") or []
        lines += wrapped(f"  sample meets {len(met)} of {len(met) + len(missed)} quirk classes of the pool: ",
                         met or ["none"], sep=", ")
        lines += wrapped("    missed: ", missed or ["none"], sep=", ")
    return lines


def bad_member_lines(s):
    bad = s.get("bad_members") or []
    if not bad:
        return []
    lines = [f"  {counted(len(bad), 'bad archive member')}"
             + (" (allowed by --allow-bad-members)" if s.get("allow_bad_members") else
                "; their chunks were not checked (--allow-bad-members accepts this):")]
    for b in bad[:10]:
        lines.append(f"    {b.get('member')} at offset 0x{int(b.get('offset') or 0):X}: "
                     f"{b.get('kind') or 'error'}: {b.get('error')}")
    if len(bad) > 10:
        lines.append(f"    ... and {len(bad) - 10} more (summary.json)")
    return lines


def wrapped(head, items, width=100, indent=6, sep=" · "):
    """`head` then the items joined by `sep`, wrapped under the first item."""
    lines, cur = [], head
    for i, item in enumerate(items):
        piece = ("" if i == 0 else sep) + item
        if i and len(cur) + len(piece) > width:
            lines.append(cur + sep.rstrip())
            cur = " " * indent + item
        else:
            cur += piece
    lines.append(cur)
    return lines


def counter_lines(s):
    """The counters grouped by the check that counted them, with readable names."""
    by_check = s.get("counters_by_check")
    counters = dict(s.get("counters") or {})
    if by_check:
        order = {c: i for i, c in enumerate(CHECKS)}
        groups = [(c, list(v.items())) for c, v in sorted(by_check.items(), key=lambda cv: order.get(cv[0], 99)) if v]
        seen = {k for _, items in groups for k, _ in items}
        rest = {k: v for k, v in counters.items() if k not in seen and k not in ("failures", "errors")}
        if rest:
            groups.append(("other", sorted(rest.items())))
    else:
        groups = counter_groups(counters)
    if not groups:
        return []
    lines = ["  compared, by check:"]
    width = max(len(c) for c, _ in groups)
    for check, items in groups:
        lines += wrapped(f"    {check:{width}s}  ", [f"{v:,} {counter_label(check, k)}" for k, v in items],
                         indent=6 + width)
    return lines


def quirk_lines(s):
    """How often each quirk was exercised, under its readable name; the known ones never exercised."""
    rows = coverage_rows(s.get("quirks") or {}, s.get("counters") or {})
    hit = [f"{label} {n:,}" for label, n, _ in rows if n]
    never = [label for label, n, _ in rows if n == 0]
    if not hit and not never:
        return []
    lines = wrapped("  quirks exercised: ", hit or ["none"], indent=4)
    if never:
        lines += wrapped("  quirks recorded but never exercised: ", never, indent=4)
    return lines


def time_lines(s):
    """Where the time went. The machine's time is the wall time of its calls (driver/game.py), so it
    is set against the workers' wall time, of which it is a part: the share is within 0-100% and
    the rest (reference + harness) never negative, however many workers ran and however busy the
    machine was. CPU-seconds are the workers' own process time, shown apart."""
    lines = []
    if s.get("seconds_by_check"):
        lines.append("  seconds by check: " + ", ".join(f"{k} {v}" for k, v in s["seconds_by_check"].items()))
    worker = s.get("chunk_seconds") or 0.0
    if s.get("machine_steps") and worker:
        cpu = s.get("cpu_seconds")
        cpu_text = ""
        if cpu:
            cpu_text = (f"; {cpu:.1f} CPU-seconds ({share(cpu, worker):.0f}% of it; "
                        f"{s.get('cpu_seconds_per_chunk')} per chunk)")
        lines.append(f"  machine: {s['machine_steps']:,} instructions in {worker:.1f} worker-seconds{cpu_text}")
        mc = s.get("machine_cpu_seconds") or {}
        inside = min(sum(mc.values()), worker)
        # DECISION: times rounded to 0 (a run of a few tiny chunks) print no ratios.
        if mc and inside > 0:
            lines.append(f"  time in the machine {inside:.1f} s ({share(inside, worker):.0f}% of the workers' time: "
                         + ", ".join(f"{k} {v:.1f}" for k, v in mc.items())
                         + f"); reference + harness {max(0.0, worker - inside):.1f} s; "
                         f"{s['machine_steps'] / inside / 1e6:.2f} M instr/s")
    return lines


def share(part, whole):
    """100 * part / whole, held within 0-100 (the two clocks differ by their rounding alone)."""
    return max(0.0, min(100.0, 100.0 * part / whole)) if whole else 0.0


def mismatch_count_line(s):
    """Per-check counts that add up to the top line's total: the recorded ones, plus those past
    the per-chunk cap (counted, not recorded)."""
    text = "  mismatches by check: " + ", ".join(f"{k} {v['mismatches']}" for k, v in s["checks"].items()
                                                 if v.get("mismatches"))
    beyond = s.get("mismatches_dropped") or 0
    if beyond:
        text += (f"; {beyond} more past the cap of {MISMATCHES_KEPT_PER_CHUNK} recorded per chunk "
                 f"(counted in the total, not recorded)")
    return text


def failing_chunk_lines(s):
    """The closing block: which chunks failed, each one's first mismatch and one-line repro."""
    failing = s.get("failing_chunks") or []
    if not failing:
        return []
    n = s.get("chunks_failed") or len(failing)
    lines = [f"  failing chunks ({'first %d of %d' % (len(failing), n) if n > len(failing) else n};"
             f" report.html has every mismatch):"]
    for f in failing:
        head = f"    {f['chunk']}: {counted(f['mismatches'], 'mismatch')}"
        if f.get("error"):
            head += f"; error {f['error'][:160]}"
        lines.append(head)
        m = f.get("first")
        if m:
            where = [m["check"]] + [f"{k} {m[k]}" for k in ("object", "track", "time", "step")
                                    if m.get(k) is not None]
            lines.append(f"      first: {' | '.join(map(str, where))} | {m['field']}: "
                         f"{answered_by(m)} {short(m['expected'])}, game {short(m['got'])}"
                         + (f" ({m['ulp']} ulp)" if m.get("ulp") is not None else ""))
        if f.get("repro"):
            lines.append(f"      repro: {f['repro']}")
    return lines


def short(v, limit=100):
    from corpus.note_text import notes_text
    text = v if isinstance(v, str) else (notes_text(v) or json.dumps(v))
    return text if len(text) <= limit else text[:limit] + " ..."


def run_header(rd, opts, ids, done, todo):
    """The bulk's first lines: the run directory, what is selected (the archive's chunks and the
    synthetic cases apart), how, with which engine, and whether it resumes."""
    from harness.arguments import engine_in_use
    p = rd.params()
    synthetic = sum(1 for c in ids if is_synthetic(c))
    picked = counted(len(ids) - synthetic, "chunk") + (f" and {counted(synthetic, 'synthetic case')}"
                                                      if synthetic else "")
    lines = [f"eediff bulk: run {rd.path}",
             f"  archive {counted(p.get('corpus_chunks') or 0, 'Anime chunk')}; checking {picked}; "
             f"profile {opts.profile}, float {opts.float_model}, seed {opts.seed}, jobs {opts.jobs}, "
             f"engine {engine_in_use()}"]
    if done:
        lines.append(f"  resuming this run: {len(done):,} already done of {len(ids):,}, {len(todo):,} to check "
                     f"(FRESH=1 or --fresh starts a new run)")
    return "\n".join(lines)
