"""The build as data: derived constants and every cross-parameter rule (sheet §9)."""

import pytest

from polyjoule.errors import SpecError
from polyjoule.targets.tinytpu.params import DEFAULT, Config


def test_default_derivations_match_sheet():
    assert (DEFAULT.T, DEFAULT.MAXDIM, DEFAULT.QD, DEFAULT.IMEM_SIZE) == (4, 64, 16, 56)
    assert (DEFAULT.WPR, DEFAULT.OPERAND_ROWS) == (16, 1024)
    assert (DEFAULT.SPAD_ROWS, DEFAULT.NVR, DEFAULT.NAR) == (1024, 1024, 136)
    assert (DEFAULT.VW, DEFAULT.AW, DEFAULT.MAX_STATIC, DEFAULT.PROCESSES) == (32, 128, 24, 38)


def test_maxdim16_derivations_match_sheet():
    c = Config(MAXDIM=16)
    assert (c.WPR, c.OPERAND_ROWS, c.SPAD_ROWS, c.NVR, c.NAR) == (4, 64, 64, 64, 128)


def test_other_builds_are_values():
    c = Config(T=8, MAXDIM=128, AGU_TERMS=4)
    assert c.WPR == 16 and c.OPERAND_ROWS == 2048 and c.AGU_WORD_BITS == 76


def test_addressing_ceiling_is_88_at_t4():
    Config(MAXDIM=88)
    with pytest.raises(SpecError, match="MAXDIM"):
        Config(MAXDIM=92)


@pytest.mark.parametrize("kwargs, name", [
    ({"T": 2, "MAXDIM": 16}, "T"),
    ({"MAXDIM": 18}, "MAXDIM"),
    ({"AR_RAW_DIST": 5}, "AR_RAW_DIST"),
    ({"IMEM_SIZE": 60}, "IMEM_SIZE"),
    ({"spad_rows": 100}, "SPAD_ROWS"),
    ({"nvr": 3000}, "NVR"),
    ({"nar": 129}, "NAR"),
    ({"DMA_WORDS": 0}, "DMA_WORDS"),
    ({"QD": 1}, "QD"),
    ({"LOOP_DEPTH": 9}, "LOOP_DEPTH"),
    ({"MAXROWS": 128}, "MAXROWS"),
    ({"T": "4"}, "T"),
])
def test_cross_parameter_rules_name_the_parameter(kwargs, name):
    with pytest.raises(SpecError) as e:
        Config(**kwargs)
    assert str(e.value).startswith(f"{name}:")


def test_memory_map_depths():
    from polyjoule.targets.tinytpu.params import MEMORIES

    depths = {m.name: m.rows(Config(MAXDIM=16)) for m in MEMORIES}
    assert depths == {"spad": 64, "vr": 64, "ar": 128, "imem": 56, "A": 256, "B": 256, "C": 256}


def test_a_derived_depth_out_of_range_names_the_fields_it_derives_from():
    with pytest.raises(SpecError) as e:
        Config(T=1024, MAXDIM=1024)
    text = str(e.value)
    assert text.startswith("MAXDIM: MAXDIM=1024 derives NAR=max(128, 2*MAXDIM+8)=2056")
    assert 2 * 1024 + 8 == 2056  # the derivation the message prints
    with pytest.raises(SpecError, match=r"^NAR: NAR=3000 outside 1\.\.2048"):
        Config(T=1024, MAXDIM=1024, nar=3000)  # a value the user wrote is named as such
