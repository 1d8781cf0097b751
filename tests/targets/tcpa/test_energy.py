"""Energy tables (issue 14): unknown keys are errors, energies finite and bounded."""

from __future__ import annotations

import pytest

from polyjoule.errors import SpecError, UnknownNameError
from polyjoule.targets.tcpa.energy import default_table, load_table


@pytest.mark.parametrize("text,err,needle", [
    ("op_pj:\n  fp32: {frob: 1.0}\n", UnknownNameError, r"op_pj\.fp32\.frob: unknown operation"),
    ("op_pj:\n  fp99: {mul: 1.0}\n", UnknownNameError, r"op_pj\.fp99: unknown dtype"),
    ("op_pj:\n  fp32: {mul: .nan}\n", SpecError, r"op_pj\.fp32\.mul: energy nan"),
    ("access_pj:\n  DR: 1e400\n", SpecError, r"access_pj\.DR: energy inf"),
    ("access_pj:\n  DR: 1e30\n", SpecError, r"access_pj\.DR: energy 1e\+30"),
    ("access_pj:\n  DR: -1\n", SpecError, r"access_pj\.DR: energy -1"),
    ("version: 2\n", SpecError, r"version: 2 is not a version"),
])
def test_bad_table_is_refused_naming_file_and_key(tmp_path, text, err, needle):
    p = tmp_path / "e.yaml"
    p.write_text(text)
    with pytest.raises(err, match=needle):
        load_table(p)


def test_a_known_override_still_applies(tmp_path):
    p = tmp_path / "e.yaml"
    p.write_text("op_pj:\n  fp32: {mul: 7.5}\naccess_pj:\n  DR: 100\n")
    t = load_table(p)
    assert t.op("fp32", "mul") == 7.5 and t.access_pj["DR"] == 100
    assert default_table().op("fp32", "mul") != 7.5
