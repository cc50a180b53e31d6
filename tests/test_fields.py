"""A mismatch field is one value type (ground/fields.py): the text a record holds parses back to
the Field that made it, and every field the checks make is one Field's text."""
import pytest
from hypothesis import given, strategies as st

from ground.fields import AXES, BadField, Field
from harness.checks import controllers, playback

NAME = st.text(st.characters(blacklist_characters=".[]", blacklist_categories=("Cs",)), min_size=1, max_size=24)
FIELDS = st.builds(Field, NAME, st.lists(st.integers(0, 10 ** 9), max_size=3).map(tuple),
                   st.none() | st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=24))


@given(FIELDS)
def test_a_fields_text_parses_back_to_the_same_field(f):
    assert Field.parse(str(f)) == f
    assert str(Field.parse(str(f))) == str(f)


@given(st.sampled_from(["position", "scale", "translation", "rotation", "matrix", "world", "vertex", "light"]),
       st.lists(st.integers(0, 4095), max_size=2), st.sampled_from([None, *AXES, "colour.r", "radius2_squared"]))
def test_the_text_of_a_field_of_the_checks_shapes_is_its_text_again(name, index, member):
    text = name + "".join(f"[{i}]" for i in index) + ("" if member is None else f".{member}")
    assert str(Field.parse(text)) == text


def test_every_field_the_checks_make_is_a_fields_text():
    made = ([controllers.rotation_field(j) for j in range(9)] + [playback.coord_field(j) for j in range(12)]
            + [controllers.light_field(j) for j in range(len(controllers.LIGHT_FIELDS))]
            + [Field.axis(n, i) for n in ("position", "scale") for i in range(3)]
            + [Field.axis("vertex", i, 40) for i in range(3)] + [Field("world", (13,))])
    texts = [str(f) for f in made]
    assert texts[:2] == ["rotation[0][0]", "rotation[1][0]"] and texts[9] == "matrix[0][0]"
    assert texts[18:21] == ["translation.x", "translation.y", "translation.z"]
    assert "light.radius2_squared" in texts and "vertex[40].z" in texts and "world[13]" in texts
    assert all(str(Field.parse(t)) == t for t in texts)


@pytest.mark.parametrize("text", ["", "[3]", ".x", "matrix[a][1]", "matrix[1]x", None, 7])
def test_a_text_that_is_no_field_is_refused_naming_it(text):
    with pytest.raises(BadField, match="field"):
        Field.parse(text)


@pytest.mark.parametrize("args", [("a.b",), ("",), ("m", (-1,)), ("m", (True,)), ("m", (), "")])
def test_a_field_that_could_not_parse_back_is_refused(args):
    with pytest.raises(BadField):
        Field(*args)
