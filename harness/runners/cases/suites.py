"""The named suites of checks.md §9 on the role cases of §10: their cases, seeds and thresholds."""
from __future__ import annotations

from typing import Dict, List, Tuple

from harness import HarnessError

# (member stem, animation name): the real-disc names, which the synthetic archive reuses (§10).
CONTROLLER_CASES = [
    ("town01", "ANM_sr1fla1_a"), ("town01", "ANM_sr1shi1_a"), ("xp_flag", "ANM_xpflnut0"),
    ("field_d", "ANM_sfd4lak1a"), ("chgate", "ANM_xmgtcir2"), ("eldl", "ANM_eldlmag0"),
    ("cbu3body", "ANM_cbu3nut2"), ("xdhhack", "ANM_xdhfram0"), ("xdl_load", "ANM_xdl_lod0"),
    ("xdl_load", "ANM_xdl_lod1"), ("ekx1", "ANM_ekx1atc0"), ("cha2body", "ANM_cha2mag1"),
    ("cha2body", "ANM_cha2nut3"),
]
PLAYBACK_RUNS = [(("xp_flag", "ANM_xpflnut0"), 256, 60), (("xp_flag", "ANM_xpflnut0"), 700, 30),
                 (("ekx1", "ANM_ekx1atc0"), 100, 130)]
NOTE_CASES = [
    ("ctu1body", "ANM_ctu1atc0"), ("ctu1body", "ANM_ctu1atc1"), ("ctu1body", "ANM_ctu1run0"),
    ("cbu4body", "ANM_cbu4atc0"), ("cbu4body", "ANM_cbu4run0"), ("egn1", "ANM_egn1atc0"),
    ("egn1", "ANM_egn1atc1"), ("ecm1", "ANM_ecm1mag0"), ("cbu0ski2", "ANM_cbu0ski2"),
]
MORPH_CASES = [("xp_flag", "ANM_xpflnut0"), ("ekx1", "ANM_ekx1dwn0")]
FOBJ_CASES = [("eex1", "ANM_eex1dmg0")]

SEEDS = {"controllers": 5, "notes": 7, "morph": 3, "morph_a": 9, "morph_b": 0x6D6F7270}
NOTE_STEPS = 120

# checks.md §9 "must hold": (counter, op, value)
THRESHOLDS: Dict[str, List[Tuple[str, str, int]]] = {
    "controllers": [("failures", "==", 0), ("cases", ">", 50), ("material cases", ">", 10),
                    ("keyed rotations", ">", 10), ("single-value rotations", ">", 10)],
    "playback": [("failures", "==", 0), ("steps", "==", 220), ("loop resets", ">=", 2), ("ends", ">", 5),
                 ("object matrices", ">", 500), ("morph states", ">", 100)],
    "notes": [("failures", "==", 0), ("note steps", "==", 1080), ("notes delivered", ">", 100),
              ("steps with several notes", ">", 10), ("note loop resets", ">", 5),
              ("note ends", ">", 20), ("note restarts", ">", 20)],
    "morph": [("failures", "==", 0), ("morph cases", ">", 2)],
    "fobj": [("failures", "==", 0), ("F_Obj poses", ">", 0)],
}


def find(corpus, stem, name):
    """The chunk id of (member stem, animation name), e.g. ("xp_flag", "ANM_xpflnut0")."""
    hits = [cid for cid in corpus.chunk_ids()
            if cid.split("::", 1)[1].split("#")[0] == name and cid.split("::", 1)[0].split(".")[0] == stem]
    if not hits:
        raise HarnessError(f"named case {stem} {name} (checks.md §10) is not in the corpus")
    return hits[0]


def unmet(counters, suite):
    """The thresholds of `suite` that `counters` do not meet, as readable strings."""
    ops = {"==": lambda a, b: a == b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
    out = []
    for name, op, value in THRESHOLDS[suite]:
        got = counters.get(name, 0)
        if not ops[op](got, value):
            out.append(f"{name} = {got}, must be {op} {value}")
    return out
