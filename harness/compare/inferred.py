"""The spec's inferred ([INF]) rules that a first run on the real disc settles, and the tag a mismatch
gets when it falls on one ("inferred rule: ..."): a reviewer reads such a mismatch as a question
about the spec, not as a bug of the game or of the harness.

README.md's "Your own disc" lists the same rules (tests/harness/test_inferred_rules.py keeps the two
in step). A rule with a matcher tags mismatches; the others show in a probe finding or in a check's
mismatches without a pattern specific enough to tag.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class Rule:
    name: str                 # the short name the tag and README use
    where: str                # the spec section that marks it [INF]
    rule: str                 # what the spec infers
    shows: str                # how a first real run settles it
    matches: Optional[Callable[[dict, str], bool]] = None   # (mismatch record, float model) -> falls on it


def _u32(v) -> Optional[int]:
    if isinstance(v, int) and not isinstance(v, bool):
        return v & 0xFFFFFFFF
    if isinstance(v, str) and v.startswith("0x"):
        try:
            return int(v, 16) & 0xFFFFFFFF
        except ValueError:
            return None
    return None


def _zero_exponent(w: int) -> bool:
    """A nonzero word with an exponent field of 0 (what IEEE calls a denormal; +-0 excluded)."""
    return w & 0x7F800000 == 0 and w & 0x7FFFFFFF != 0


def _one_value_position(rec, _float_model) -> bool:
    """+0 on one side, and on the other a word the add f_add(+0, w) turns into +0: a zero-exponent
    word, or -0 (0x80000000), which the same add makes +0
    (ee-float.md §2.2 f_add: with both E = 0 the sign is a AND b AND 0x80000000)."""
    e, g = _u32(rec.get("expected")), _u32(rec.get("got"))
    if e is None or g is None or not str(rec.get("field", "")).startswith("translation."):
        return False
    return (e == 0 and _added_to_plus_zero(g)) or (g == 0 and _added_to_plus_zero(e))


def _added_to_plus_zero(w: int) -> bool:
    return _zero_exponent(w) or w == 0x80000000


def _underflow(rec, float_model) -> bool:
    e, g = _u32(rec.get("expected")), _u32(rec.get("got"))
    if e is None or g is None or e == g or _one_value_position(rec, float_model):
        return False
    return float_model == "hw" and (_zero_exponent(e) or _zero_exponent(g))


def _multiply_role(rec, float_model) -> bool:
    return float_model == "hw" and rec.get("ulp") == 1 and rec.get("check") in (
        "controllers", "multistep", "playback", "materials", "morph", "fobj")


def _direct_light(rec, _float_model) -> bool:
    return str(rec.get("field", "")).startswith("light.") or rec.get("field") == "light controller"


RULES = (
    Rule("zero-exponent one-value position",
         "animation-semantics.md §4 step 3.2",
         "a one-value position's zero-exponent word becomes +0 in the local matrix, through "
         "sceVu0TransMatrix's add (the users' reference keeps the word as it is)",
         "a playback translation mismatch with +0 on one side and a zero-exponent word or -0 on the other",
         _one_value_position),
    Rule("hw underflow result",
         "ee-float.md §3.1, §3.8",
         "an underflowing add, subtract or multiply returns sign | fraction with an exponent of 0",
         "a mismatch under FLOAT=hw with a zero-exponent word on one side",
         _underflow),
    Rule("multiply fs/ft roles",
         "animation-semantics.md §1, rows 1-3 and 9-14",
         "which operand of each multiply is fs and which ft (they differ by an ulp under the hw model)",
         "1-ulp mismatches under FLOAT=hw, clustered on one multiply site, that vanish under FLOAT=trunc",
         _multiply_role),
    Rule("table entry lc",
         "executable-abi.md §5.4",
         "a ccAnmIndexCntTbl entry's lc is 4*object + 1",
         "the load's table entries: objects read at the wrong index fail every check of the chunk"),
    Rule("ccstag at ccAnmIndex +0",
         "executable-abi.md §5.5",
         "the index entry's ccstag is its word at +0",
         "a notes mismatch in a note's ccstag alone"),
    Rule("ccAnmIndex +8 kind",
         "executable-abi.md §5.5",
         "an object-controller entry's u16 at +8 is 0x0100 (Obj)",
         "playback or F_Obj mismatches on objects whose entry the game reads as another kind"),
    Rule("loop restart resets every work",
         "animation-semantics.md §8.1",
         "a looping animation rewinds the reader and resets every work as ResetAnmCtrlWork does",
         "playback mismatches right after a loop restart"),
    Rule("same-object records keyed by position",
         "checks.md §1",
         "two records with the same own object are told apart by their table position",
         "controller mismatches on a chunk with two records for one object"),
    Rule("ccMemalign argument order",
         "executable-abi.md §6",
         "ccMemalign takes (size, align)",
         "the probe's 'ccMemalign order' warning"),
    Rule("ccRingBufferTh +0x24 read pointer",
         "executable-abi.md §5.11",
         "the reader's +0x24 is its current read pointer",
         "the probe's 'unknown field' error on a reader field, or a load that reads the wrong bytes"),
    Rule("free memory from 0x01000000",
         "executable-abi.md §1.3",
         "the executable's image and .bss end below 0x01000000",
         "the probe's 'segment overlap' warning (its layout lines)"),
    Rule("overlay segments carry no bytes",
         "executable-abi.md §1.2",
         "the overlay windows' program headers have no file bytes and load nothing",
         "the probe's layout lines (PT_LOAD ... no bytes)"),
    Rule("unaligned vertex loads",
         "executable-abi.md §5.9",
         "Modify reads vertices with unaligned 8-byte loads (hence the 8 bytes of padding); mmatNum and "
         "rwflag are u16",
         "a morph mismatch or a probe finding in Modify"),
    Rule("F_Obj flag bits",
         "animation-semantics.md §11",
         "the bits of object +0xA2 other than 0 and 1, and the exact zero test",
         "an fobj mismatch in the flags word"),
    Rule("direct light fields",
         "formats.md §4.7, docs/lights.md",
         "the direct light's payload is object, flags, then the present channels packed as the 0x0102 "
         "record's, colour 3 floats and the scalars 1; position, rotation (degrees, as evaluated), colour "
         "and intensity sit at light +0x110, +0x120, +0x130 and +0x140; an absent channel leaves its field "
         "as it was",
         "a controllers mismatch in a light.* field (its context names the offset), or no kind-0x0605 "
         "table entry for a direct light record",
         _direct_light),
    Rule("parent slot",
         "anim-objects.md §2.2, §7 Q2",
         "a parent slot is an s32 naming the first entry of the chunk's own parent field (not followed "
         "through ExtObj chains); -1 for other kinds and for a parent the clip does not name",
         "an objects mismatch in a parent slot"),
    Rule("Eff entries",
         "anim-objects.md §3.3 step 4, §7 Q4",
         "SetAnm makes objects for Obj entries only; an Eff entry takes its ccEffObj when it is the "
         "last to name it (flags 6), else keeps flags 1; other kinds keep their chunk's instance with "
         "flags 0",
         "an objects mismatch in an Eff or non-Obj entry's flags"),
    Rule("node table slots",
         "anim-objects.md §3.3 step 5, §7 Q5",
         "a bone or skin model's node list is its clump's; a node no entry claims leaves its slot 0",
         "an objects mismatch in a node table"),
    Rule("DeleteAnmIndex frees",
         "anim-objects.md §5, §7 Q7",
         "operator delete of each flags-7 object in index order, then ccFree of the entry array; "
         "+0xAC cleared",
         "an objects mismatch in the frees"),
    Rule("parent x local",
         "anim-objects.md §4.2, §7 Q10",
         "_SetLWMatrix composes the parent's world matrix first (sceVu0MulMatrix(world, parent, local)); "
         "ccModel::Draw receives localtp x the anm's tp",
         "world mismatches on every object under a parent with a rotation, none on the root's children"),
)


def tag(rec: dict, float_model: str) -> Optional[str]:
    """'inferred rule: <name> (<where>)' for the first rule the mismatch falls on, else None."""
    for r in RULES:
        if r.matches is not None and r.matches(rec, float_model):
            return f"inferred rule: {r.name} ({r.where})"
    return None

