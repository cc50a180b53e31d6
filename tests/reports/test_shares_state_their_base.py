"""Every share in a failing report states its base: the headline's instruction share is of the
traced mismatches, with the untraced ones named, and the likely-cause table says it covers the
mismatches kept under the per-chunk cap."""
import reports
from reports.origins import headline
from tests.reports.fake_run import mismatch, write_run
from tests.reports.htmltree import parse

X = {"pc": "0x00101234", "symbol": "ccAnm::SetAnmCtrlWork+0x40", "insn": "mul.s $f0, $f1, $f2", "first_differs": True}
Y = {"pc": "0x00105678", "symbol": "sceVu0MulMatrix+0x8", "insn": "vmula.xyzw", "first_differs": True}


def chunk(i, origin, fields, dropped=0):
    ms = [mismatch(f"m{i}.cmp::ANM_x", "playback", f, 0x3F800000, 0x3F800001,
                   provenance={"origin": origin} if origin and k == 0 else None)
          for k, f in enumerate(fields)]
    return {"chunk": f"m{i}.cmp::ANM_x", "mismatches": ms, "dropped_mismatches": dropped, "checks": ["playback"]}


def chunks():
    # 9 traced to X (3 chunks x 3 of one field), 1 to Y, 30 untraced (other fields, no traced sibling),
    # and 100 counted past the cap
    out = [chunk(i, X, ["matrix.r0"] * 3) for i in range(3)]
    out.append(chunk(3, Y, ["localtp"]))
    out.append(chunk(4, None, [f"translation.{k}" for k in range(30)], dropped=100))
    return out


def test_the_headline_gives_the_share_of_the_traced_and_names_the_untraced():
    line = headline(chunks())
    assert line.startswith("140 mismatches; 10 traced to an instruction (130 not traced): 90% of the traced "
                           "from ccAnm::SetAnmCtrlWork+0x40 `mul.s $f0, $f1, $f2`"), line


def test_the_report_states_the_base_of_each_share(tmp_path):
    run = write_run(tmp_path, chunks())
    text = " ".join(parse(reports.render(run).read_text(encoding="utf-8")).text().split())
    assert "share of the traced" in text and "130 mismatches of 140 were not traced" in text
    assert "Over the 40 mismatches kept in the chunk records; 100 more were counted past the per-chunk cap" in text
