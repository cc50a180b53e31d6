"""benchmarks.float_ops (make bench's float loop): runs both models and reports rates."""
from __future__ import annotations

from benchmarks.float_ops import COP1_BODY, VU0_BODY, float_bench
from eemu_ext.isa.decode import default_decoder


def test_bench_bodies_decode_to_float_rows():
    d = default_decoder()
    names = [d.rows[d.decode(w)].mnemonic for w in COP1_BODY + VU0_BODY]
    assert names == ["mul.s", "add.s", "mula.s", "madda.s", "madd.s", "sub.s", "mul.s", "add.s",
                     "vmulax", "vmadday", "vmaddaz", "vmaddw", "vadd"]


def test_float_bench_reports_both_models_and_engines(capsys, engine):
    res = float_bench(n=300, ops_n=300, engines=("python", engine))
    out = capsys.readouterr().out
    assert "COP1 body" in out and "model hw" in out and "model trunc" in out
    for model in ("hw", "trunc"):
        assert res[model][engine]["cop1"] > 0 and res[model][engine]["vu0"] > 0
        assert set(res[model]["ops_us"]) == {"add", "mul", "madd", "div", "sqrt", "rsqrt"}
