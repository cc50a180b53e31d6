"""JUnit XML for CI dashboards: one testsuite per check, one testcase per chunk x check.

Follows the common "JUnit XML" schema (testsuites > testsuite > testcase > failure|error,
as read by Jenkins, GitLab and GitHub test reporters): counts as attributes, time in seconds,
a failure's message attribute a one-line summary and its text the first mismatches with their
repro commands.
"""
from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime, timezone

from corpus.names import counted, printable, printable_lines

from .describe import one_line
from .summary import checks_of

MAX_LISTED = 20          # mismatches spelled out in one failure's text


def build(run, summary: dict) -> ET.ElementTree:
    """The JUnit tree of a run (see module docstring)."""
    suites: dict[str, list[ET.Element]] = defaultdict(list)
    fails: dict[str, int] = defaultdict(int)
    errors: dict[str, int] = defaultdict(int)
    times: dict[str, float] = defaultdict(float)
    for ch in run.chunks:
        checks = checks_of(ch)
        # DECISION: a chunk's seconds are not split per check; each testcase gets an equal share.
        share = float(ch.get("seconds") or 0) / max(1, len(checks))
        by_check = defaultdict(list)
        for m in ch["mismatches"]:
            by_check[m["check"]].append(m)
        err = ch.get("error")
        # DECISION: a chunk error (the harness could not finish) is an <error> of the check it
        # names (error.check) if any, else of a "harness" testcase for that chunk.
        err_check = err.get("check") if err else None
        if err and err_check not in checks:
            checks = checks + ["harness"]
            err_check = "harness"
        for c in checks:
            tc = ET.Element("testcase", classname=f"eediff.{c}", name=printable(ch["chunk"]),
                            time=f"{share:.3f}")
            ms = by_check.get(c, [])
            if ms:
                first = ms[0]
                msg = f"{counted(len(ms), 'mismatch')}; first: {one_line(first)}"
                f = ET.SubElement(tc, "failure", message=printable(msg[:500]), type="mismatch")
                lines = [one_line(m) + (f"\n    repro: {m['repro']}" if m.get("repro") else "")
                         for m in ms[:MAX_LISTED]]
                if len(ms) > MAX_LISTED:
                    lines.append(f"... and {len(ms) - MAX_LISTED} more (see report.html)")
                f.text = printable_lines("\n".join(lines))
                fails[c] += 1
            if err and c == err_check:
                e = ET.SubElement(tc, "error", message=printable(str(err.get("message", ""))[:500]),
                                  type=printable(err.get("type", "error")))
                e.text = printable_lines(err.get("message", ""))
                errors[c] += 1
            suites[c].append(tc)
            times[c] += share
    run_cases(summary, suites, errors)
    root = ET.Element("testsuites", name=f"eediff {summary.get('run_id', '')}",
                      tests=str(sum(len(v) for v in suites.values())),
                      failures=str(sum(fails.values())), errors=str(sum(errors.values())),
                      time=f"{sum(times.values()):.3f}")
    stamp = run.params.get("started") or datetime.now(timezone.utc).isoformat(timespec="seconds")
    host = socket.gethostname() or "localhost"
    for i, (c, cases) in enumerate(suites.items()):
        skipped = sum(1 for tc in cases if tc.find("skipped") is not None)
        s = ET.SubElement(root, "testsuite", name=c, tests=str(len(cases)),
                          failures=str(fails[c]), errors=str(errors[c]), skipped=str(skipped),
                          time=f"{times[c]:.3f}", timestamp=str(stamp)[:19], hostname=host,
                          id=str(i), package="eediff")
        keys = [k for k in ("seed", "profile", "float_model") if k in run.params]
        if keys:
            props = ET.SubElement(s, "properties")
            for k in keys:
                ET.SubElement(props, "property", name=k, value=str(run.params[k]))
        s.extend(cases)
    ET.indent(root)
    return ET.ElementTree(root)


def run_cases(summary: dict, suites, errors) -> None:
    """What the run itself got wrong, as <error> testcases: each bad archive member (suite
    "archive"; <skipped> when --allow-bad-members accepted it) and each reason the run compared
    nothing (suite "run"), so a dashboard never shows such a run as green or as empty."""
    for b in summary.get("bad_members") or ():
        tc = ET.Element("testcase", classname="eediff.archive", name=printable(b.get("member")), time="0")
        text = (f"bad member {b.get('member')} at offset 0x{int(b.get('offset') or 0):X}: "
                f"{b.get('kind') or 'error'}: {b.get('error')}")
        if summary.get("allow_bad_members"):
            ET.SubElement(tc, "skipped", message=printable(text[:500] + " (--allow-bad-members)"))
        else:
            el = ET.SubElement(tc, "error", message=printable(text[:500]), type="bad member")
            el.text = printable_lines(text)
            errors["archive"] += 1
        suites["archive"].append(tc)
    for why in summary.get("nothing_compared") or ():
        tc = ET.Element("testcase", classname="eediff.run", name="nothing compared", time="0")
        el = ET.SubElement(tc, "error", message=printable(why[:500]), type="nothing compared")
        el.text = printable_lines(why)
        errors["run"] += 1
        suites["run"].append(tc)
    for why in summary.get("left_out") or ():       # the ledger: records a nightly left out
        tc = ET.Element("testcase", classname="eediff.run", name="left out", time="0")
        el = ET.SubElement(tc, "error", message=printable(why[:500]), type="left out")
        el.text = printable_lines(why)
        errors["run"] += 1
        suites["run"].append(tc)


def write(run, summary: dict, path) -> None:
    build(run, summary).write(path, encoding="utf-8", xml_declaration=True)
