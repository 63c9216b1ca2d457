"""Result files: load back what was written, one line per kick."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjxwalk import results

_scalars = (st.none() | st.booleans() | st.integers() | st.text(max_size=8)
            | st.floats(allow_nan=False))
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.tuples(inner, inner)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(_json)
def test_dumps_loads_back_as_json_dumps_does(obj):
    # tuples come back as lists, as from json.dumps
    assert json.loads(results.dumps(obj)) == json.loads(json.dumps(obj))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers() | st.booleans() | st.none() | st.text(max_size=4)
                       | st.floats(allow_nan=False),
                       st.lists(st.integers(), max_size=2) | st.integers(), max_size=4))
def test_keys_that_are_not_strings_are_written_as_json_dumps_writes_them(obj):
    assert json.loads(results.dumps(obj)) == json.loads(json.dumps(obj))


def test_a_key_json_cannot_have_is_refused_whatever_the_values():
    with pytest.raises(TypeError, match="keys must be"):
        results.dumps({(1, 2): [[1]]})
    with pytest.raises(TypeError, match="keys must be"):
        results.dumps({(1, 2): 1})


def test_a_list_of_plain_values_is_one_line_and_nesting_is_indented():
    kicks = [[0, 312, 0.27, 41.5, True], [3, 95, 0.44, 170.0, False]]
    share = {"pushes": 12, "fall_share": 0.25}
    obj = {"scenarios": {"forward_0.3": {"kicks": kicks, "episodes_fallen": [], "all": share}}}
    lines = results.dumps(obj).splitlines()
    assert '    [0, 312, 0.27, 41.5, true],' in lines
    assert '    [3, 95, 0.44, 170.0, false]' in lines
    assert '   "episodes_fallen": [],' in lines
    assert '   "all": {"pushes": 12, "fall_share": 0.25}' in lines
    assert len(lines) == 12  # json.dumps(indent=1): 27, seven per kick and four for the share


def test_an_object_of_plain_values_too_wide_for_one_line_is_indented():
    wide = {f"field_{i}": 0.123456789 for i in range(8)}
    assert len(results.dumps(wide).splitlines()) == 8 + 2


def test_nan_and_tuples_are_written_as_json_dumps_writes_them(tmp_path):
    obj = {"t": float("nan"), "ci": (0.1, 0.2), "kicks": ((0, 1), (2, 3))}
    path = results.write(tmp_path / "sub" / "r.json", obj)
    back = json.loads(path.read_text())
    assert math.isnan(back["t"]) and back["ci"] == [0.1, 0.2]
    assert back["kicks"] == json.loads(json.dumps(obj))["kicks"] == [[0, 1], [2, 3]]
    assert path.read_text().endswith("}\n")
