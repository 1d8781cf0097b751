"""docs/kernels.md lists every PolyBench kernel as analysed or refused, with the reason; this
test regenerates that table and fails when the file is stale.

Regenerate with ``POLYJOULE_REGEN_DOCS=1 python -m pytest tests/library/test_docs_table.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import polybench_facts  # noqa: E402
from polybench_c import CLASS_D, NOT_BUILT  # noqa: E402

from polyjoule.errors import NotUniformError  # noqa: E402
from polyjoule.frontends.cnest import c_kernel  # noqa: E402
from polyjoule.library import kernels as registry  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "kernels.md"
BEGIN, END = "<!-- polybench-table:begin -->", "<!-- polybench-table:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table() -> str:
    data = polybench_facts.load().values()
    rows = ["| kernel | class | status | how / why |", "|---|---|---|---|"]
    built = set(registry.names())
    for k in sorted(data, key=lambda k: (k["class"], k["name"])):
        name, cls = k["name"], k["class"]
        if name in built:
            kern = registry.get(name)
            tri = [f"{d.name} in {d.lower}..{d.upper}" for ph in kern.phases for d in ph.dims
                   if (d.lower.names() | d.upper.names()) - set(ph.params)]
            how = f"built-in PRA, {len(kern.phases)} phase{'s' if len(kern.phases) > 1 else ''}"
            how += f", {sum(len(p.statements) for p in kern.phases)} statements"
            if tri:
                how += f"; triangular ({', '.join(tri)})"
            rows.append(f"| {name} | {cls} | analysed | {_cell(how)} |")
        elif name in CLASS_D and name not in NOT_BUILT:
            try:
                c_kernel(CLASS_D[name], f"{name}.c")
            except NotUniformError as e:
                rows.append(f"| {name} | {cls} | refused (NotUniformError) | `{_cell(str(e))}` |")
            else:  # pragma: no cover - the refusal test catches this first
                raise AssertionError(f"{name} was not refused")
        else:
            rows.append(f"| {name} | {cls} | not built in | {_cell(NOT_BUILT[name])} |")
    return "\n".join(rows)


def test_every_polybench_kernel_is_analysed_or_refused() -> None:
    t = table()
    assert t.count("\n") - 1 == len(polybench_facts.load()) == 30
    text = DOC.read_text()
    assert BEGIN in text and END in text, "docs/kernels.md lost its table markers"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    fresh = f"{head}{BEGIN}\n{t}\n{END}{tail}"
    if os.environ.get("POLYJOULE_REGEN_DOCS"):
        DOC.write_text(fresh)
        return
    assert text == fresh, "docs/kernels.md table is stale: regenerate (see this test's docstring)"
