"""What a run says on the terminal: the progress line while chunks are checked, and the closing
summary (the verdict, the failing chunks with their repros, the counters, the time lines).

bulk and merge print through this module; it reads a summary (interfaces.md §4) and never the
run directory itself.
"""
from __future__ import annotations

import json
import time

from harness.compare.tally import MISMATCHES_KEPT_PER_CHUNK
from harness.runners.run import EXIT


class Progress:
    """One progress line: done/total, mismatches, errors, chunks/min, ETA."""

    def __init__(self, total, done, out):
        self.total, self.done, self.out = total, done, out
        self.start_done, self.t0 = done, time.time()
        self.mismatches = self.errors = 0
        self.tty = hasattr(out, "isatty") and out.isatty()
        self.last_print = 0.0

    def update(self, index, mismatches, error, seconds):
        self.done += 1
        self.mismatches += mismatches
        self.errors += int(error)
        now = time.time()
        if self.tty or now - self.last_print > 5 or self.done == self.total:
            self.last_print = now
            self.out.write(("\r" if self.tty else "") + self.line() + ("" if self.tty else "\n"))
            self.out.flush()

    def line(self):
        el = time.time() - self.t0
        n = self.done - self.start_done
        rate = 60.0 * n / el if el > 0 else 0.0
        eta = (self.total - self.done) / (rate / 60.0) if rate else float("nan")
        eta_s = "?" if eta != eta else f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
        return (f"[{self.done}/{self.total}] mismatches {self.mismatches} errors {self.errors} "
                f"{rate:.1f} chunks/min ETA {eta_s}")

    def finish(self):
        if self.tty:
            self.out.write("\n")


STATUS_TEXT = {"pass": "PASS", "mismatches": "FAIL (mismatches)", "errors": "FAIL (harness errors)",
               "bad members": "FAIL (bad archive members)", "nothing compared": "NOTHING COMPARED",
               "interrupted": "INTERRUPTED", "incomplete": "INCOMPLETE"}


def format_summary(s):
    st = s.get("status") or "pass"
    lines = [f"run {s['run_id']}: {STATUS_TEXT.get(st, st)} (exit {EXIT.get(st, 1)}): "
             f"{s['chunks_done']}/{s['chunks_total']} chunks, "
             f"{s['chunks_failed']} failed, {s['mismatches']} mismatches, {s['errors']} errors, "
             f"{s['seconds']:.0f} s ({s['chunks_per_minute']} chunks/min)"]
    bad = s.get("bad_members") or []
    if bad:
        lines.append(f"  {len(bad)} bad archive member(s)"
                     + (" (allowed by --allow-bad-members)" if s.get("allow_bad_members") else
                        "; their chunks were not checked (--allow-bad-members accepts this):"))
        for b in bad[:10]:
            lines.append(f"    {b.get('member')} at offset 0x{int(b.get('offset') or 0):X}: "
                         f"{b.get('kind') or 'error'}: {b.get('error')}")
        if len(bad) > 10:
            lines.append(f"    ... and {len(bad) - 10} more (summary.json)")
    for why in s.get("nothing_compared") or ():
        lines.append(f"  nothing compared: {why}")
    if s.get("mismatches_by_check"):
        lines.append(mismatch_count_line(s))
    lines.append("  counters:")
    for k, v in s["counters"].items():
        lines.append(f"    {k:32s} {v}")
    w = s.get("worst_keyed_rotation")
    if w:
        lines.append(f"    {'worst keyed rotation d':32s} {w['d']:.3g} (bound {w['bound']:.3g}, "
                     f"{w['chunk']} track {w['track']} t={w['time']}, {w.get('check')})")
    if s["quirks"]:
        lines.append("  quirk coverage:")
        for k, v in s["quirks"].items():
            lines.append(f"    {k:40s} {v}")
    if s.get("seconds_by_check"):
        lines.append("  seconds by check: " + ", ".join(f"{k} {v}" for k, v in s["seconds_by_check"].items()))
    if s.get("machine_steps") and s.get("chunk_seconds"):
        lines.append(f"  machine: {s['machine_steps']} instructions in {s['chunk_seconds']} worker-seconds "
                     f"({s.get('cpu_seconds')} CPU-seconds, {s.get('cpu_seconds_per_chunk')} per chunk)")
        mc = s.get("machine_cpu_seconds") or {}
        inside = sum(mc.values())
        # DECISION: CPU figures rounded to 0 (a run of a few tiny chunks) print no ratios.
        if mc and s.get("cpu_seconds") and inside > 0:
            # the machine's share is timed per call (driver/game.py, perf_counter): on an idle
            # machine it is CPU time, on a shared one it includes time the worker waited
            lines.append(f"  time in the machine {inside:.1f} s ({100 * inside / s['cpu_seconds']:.0f}% of the CPU: "
                         + ", ".join(f"{k} {v:.1f}" for k, v in mc.items())
                         + f"); reference + harness {s['cpu_seconds'] - inside:.1f} s; "
                         f"{s['machine_steps'] / inside / 1e6:.2f} M instr/s")
    lines += failing_chunk_lines(s)
    return "\n".join(lines)


def mismatch_count_line(s):
    """Per-check counts that add up to the top line's total: the recorded ones, plus those past
    the per-chunk cap (counted, not recorded)."""
    text = "  mismatches by check: " + ", ".join(f"{k} {v}" for k, v in s["mismatches_by_check"].items())
    beyond = s.get("mismatches_beyond_cap") or 0
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
        head = f"    {f['chunk']}: {f['mismatches']} mismatch{'es' if f['mismatches'] != 1 else ''}"
        if f.get("error"):
            head += f"; error {f['error'][:160]}"
        lines.append(head)
        m = f.get("first")
        if m:
            where = [m["check"]] + [f"{k} {m[k]}" for k in ("object", "track", "time", "step")
                                    if m.get(k) is not None]
            lines.append(f"      first: {' | '.join(map(str, where))} | {m['field']}: "
                         f"reference {short(m['expected'])}, game {short(m['got'])}"
                         + (f" ({m['ulp']} ulp)" if m.get("ulp") is not None else ""))
        if f.get("repro"):
            lines.append(f"      repro: {f['repro']}")
    return lines


def short(v, limit=100):
    from corpus.note_text import notes_text
    text = v if isinstance(v, str) else (notes_text(v) or json.dumps(v))
    return text if len(text) <= limit else text[:limit] + " ..."
