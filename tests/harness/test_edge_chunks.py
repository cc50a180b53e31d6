"""Edge chunks beyond the disc (corpus/synth/edge.py, harness/runners/cases/edge_chunks.py): small chunks
built by code at every wrap and saturation boundary the spec documents, checked by every profile
whatever archive the run reads, counted apart from the archive's chunks. The stand-in passes them;
a stand-in that saturates a texture offset, or converts a duration as signed, fails them."""
import os
import struct

import pytest

from corpus.synth import edge
from harness.options import ROOT, Options
from harness.profiles import PROFILES, profile
from harness.runners.cases import edge_chunks

TO_S16 = 0x43360B61


def f(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def words(c):
    return list(c.value) + [w for _, ws in c.keys for w in ws]


def anime(name):
    return edge_chunks.chunk(edge.PREFIX + name).anime


def test_every_edge_chunk_has_its_own_id_apart_from_the_archive():
    ids = edge_chunks.ids()
    assert len(set(ids)) == len(ids) == 6 and all(edge_chunks.is_edge(i) and edge.is_synthetic(i) for i in ids)
    assert not edge.is_synthetic("xp_flag.cmp::ANM_xpflnut0")
    with pytest.raises(ValueError, match="synthetic::edge/nope"):
        edge_chunks.chunk("synthetic::edge/nope")


def test_texture_offsets_leave_s16_one_value_and_keyed():
    """animation-semantics.md §6: s16(f_to_int(U * 4096)) wraps past 32767 and below -32768."""
    a = anime("texture-wrap")
    one_value = [w for m in a.materials for c in (m.u, m.v) if c.kind == 1 for w in c.value]
    assert sum(1 for w in one_value if not -32768 <= f(w) * 4096 <= 32767) >= 8
    assert any(f(w) * 4096 == 32768.0 for w in one_value) and any(f(w) * 4096 == -32768.0 for w in one_value)
    assert any(abs(f(w)) * 4096 >= 2 ** 31 for w in one_value)          # f_to_int saturates
    keyed = [c for m in a.materials for c in (m.u, m.v) if c.kind == 2]
    assert any(min(f(w) for w in words(c)) * 4096 < -32768 and max(f(w) for w in words(c)) * 4096 > 32767
               for c in keyed)


def test_rotation_keys_past_180_and_at_the_quantisation_wrap():
    """animation-semantics.md §3.1: TO_S16 * 180 = 32768 wraps to -32768; larger angles wrap; past
    2^31 the conversion saturates. §3.7: one-value rotations beyond 180 reach the sine defect."""
    a = anime("rotation-wrap")
    keyed = [w for t in a.tracks if t.rot.kind == 2 for w in words(t.rot)]
    assert any(f(w) == 180.0 for w in keyed) and any(f(w) == -180.0 for w in keyed)
    assert any(180 < abs(f(w)) < 360 for w in keyed) and any(abs(f(w)) * f(TO_S16) >= 2 ** 31 for w in keyed)
    single = [w for t in a.tracks if t.rot.kind == 1 for w in t.rot.value]
    assert any(abs(f(w)) > 180 for w in single)


def test_a_key_back_in_time_on_every_channel_kind():
    a = anime("back-in-time")
    back = set()
    for rec, chans in [(t, ("pos", "rot", "scale", "alpha")) for t in a.tracks] + \
                      [(m, ("u", "v")) for m in a.materials]:
        for ch in chans:
            fr = [k for k, _ in getattr(rec, ch).keys]
            if any(b < x for x, b in zip(fr, fr[1:])):
                back.add(ch)
    assert back == {"pos", "rot", "scale", "alpha", "u", "v"}


def test_one_value_positions_of_zero_exponent_words_and_zero_fobj_positions():
    a = anime("zero-exponent")
    zero_exp = [w for t in a.tracks if t.pos.kind == 1 for w in t.pos.value if (w >> 23) & 0xFF == 0 and w & 0x7FFFFF]
    assert len(zero_exp) >= 4
    assert any(all((w >> 23) & 0xFF == 0 for w in o.pos) for o in a.fobjs)


def test_morph_rescales_leave_s16():
    """animation-semantics.md §9.2 step 1: s16(f_to_int(ratio * c)) wraps and saturates."""
    out = [x for c in edge_chunks.morph_cases() for ps, s, _ in c.targets
           for p in edge_chunks.rescaled(ps, s, c.base_scale) for x in p]
    assert sum(1 for x in out if not -32768 <= x <= 32767) >= 10 and any(abs(x) >= 2 ** 31 for x in out)


@pytest.fixture(scope="module")
def game():
    pytest.importorskip("eemu_ext")
    from harness.driver.game import Game
    return Game(os.path.join(ROOT, "standin", "standin.elf"), "hw")


@pytest.mark.parametrize("prof", ["quick", "nightly"])
def test_the_stand_in_passes_every_edge_chunk(game, prof):
    opts = Options(seed=4)
    for cid in edge_chunks.ids():
        res = edge_chunks.check_edge(game, cid, opts.context(cid), profile(prof))
        assert res["error"] is None and res["checks"], cid
        assert sum(res["counters"].values()) > 0, cid
        assert not res["mismatches"], (cid, res["mismatches"][:2])


def test_an_edge_chunk_checks_every_track_under_every_profile():
    a = anime("rotation-wrap")
    for p in PROFILES.values():
        q = edge_chunks.every_record(p, a)
        assert q.max_tracks >= len(a.tracks) and q.max_boundaries == -1 and q.times >= 6


def test_a_check_selection_keeps_the_edge_chunks_it_applies_to():
    assert edge_chunks.ids(["materials"]) == [edge.PREFIX + "texture-wrap", edge.PREFIX + "back-in-time"]
    assert edge_chunks.ids(["morph"]) == [edge.PREFIX + "morph-rescale"]
    assert edge_chunks.ids(["fobj"]) == [edge.PREFIX + "zero-exponent"]
    assert edge_chunks.ids(["notes"]) == []


def mutant(name):
    from harness.driver.game import Game
    from tests.harness.mutant_elfs import mutant_elf
    return Game(mutant_elf(name), "hw")


@pytest.mark.parametrize("name, chunk, check", [("texture_saturates", "texture-wrap", "materials"),
                                                ("u2f_signed", "back-in-time", "controllers"),
                                                ("blend_no_saturation", "morph-rescale", "morph"),
                                                ("light_square_of_radius1", "direct-light", "controllers")])
def test_a_mutant_the_disc_cannot_show_fails_an_edge_chunk(name, chunk, check):
    """The disc has no texture offset past s16 (corpus-stats.md §8), few backward keys, and no
    rescale past s16: the quick profile's edge chunk shows each of these mutants."""
    g = mutant(name)
    cid = edge.PREFIX + chunk
    res = edge_chunks.check_edge(g, cid, Options(seed=4).context(cid), profile("quick"))
    assert res["error"] is None and any(m["check"] == check for m in res["mismatches"]), res["mismatches"][:2]


def test_a_bulk_on_any_archive_runs_the_edge_chunks_and_counts_them_apart(tmp_path, capsys):
    """A run on a two-chunk archive of its own (not the synthetic DATA.BIN) checks the edge chunks
    too; summary.json, the closing block and the report count the archive's chunks apart from
    those built by code, and a sample lists the quirk classes it met and missed."""
    import json
    from harness.runners.bulk import command as bulk
    from harness.runners.cases import morph_pseudo
    from .minicorpus import mini_corpus
    o = Options(seed=4, profile="quick", n=1, jobs=1, runs=str(tmp_path))
    o._corpus = mini_corpus()
    assert bulk.run_bulk(o, ["test"]) == 0
    out = capsys.readouterr().out
    run = os.path.realpath(tmp_path / "latest")
    s = json.load(open(os.path.join(run, "summary.json")))
    built = len(morph_pseudo.ids()) + len(edge_chunks.ids())
    assert s["params"]["chunks"][-len(edge_chunks.ids()):] == edge_chunks.ids() and s["chunks_done"] == 1 + built
    assert s["archive_chunks"] == {"total": 1, "done": 1, "failed": 0, "mismatches": 0}
    assert s["synthetic_chunks"] == {"total": built, "done": built, "failed": 0, "mismatches": 0}
    q = s["sample_quirks"]
    assert q["covered"] and q["missed"] and set(q["covered"]).isdisjoint(q["missed"])
    assert f"archive chunks 1 (0 failed, 0 mismatches); built by code {built} (0 failed" in out
    assert f"sample meets {len(q['covered'])} of {len(q['covered']) + len(q['missed'])} quirk classes" in out
    assert "missed: " + ", ".join(q["missed"]) in out
    html = open(os.path.join(run, "report.html")).read()
    assert "chunks by origin" in html and f"{built} built by code" in html and "sample quirk classes" in html


def test_make_one_repeats_an_edge_chunk_and_its_repro_reproduces(tmp_path):
    """The repro a failing edge chunk prints (`one --case synthetic::edge/...`) runs it again,
    whatever DATA is, and an unknown edge name is a usage error naming it."""
    import subprocess
    import sys
    elf = os.path.join(ROOT, "standin", "build", "mutants", "texture_saturates.elf")
    if not os.path.exists(elf):
        pytest.skip("needs the mutant ELFs (make -C standin mutants, with gcc-mipsel-linux-gnu)")

    def one(*args):
        return subprocess.run([sys.executable, "-m", "harness", "one", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
    bad = one("--case", "synthetic::edge/texture-wrap", "--image", elf, "--data", str(tmp_path / "none.bin"),
              "--show", "1")
    assert bad.returncode == 1 and "materials | synthetic::edge/texture-wrap" in bad.stdout, bad.stdout + bad.stderr
    repro = next(line.split("repro", 1)[1].strip() for line in bad.stdout.splitlines() if "repro " in line)
    again = subprocess.run(repro.replace(".venv/bin/python", sys.executable, 1), shell=True, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 1 and "time 1 | u" in again.stdout and " 0 mismatches" not in again.stdout, \
        again.stdout + again.stderr
    good = one("--case", "synthetic::edge/texture-wrap")
    assert good.returncode == 0 and "0 mismatches" in good.stdout, good.stdout + good.stderr
    nope = one("--case", "synthetic::edge/nope")
    assert nope.returncode == 2 and "synthetic::edge/nope" in nope.stderr
