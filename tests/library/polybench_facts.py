"""The PolyBench facts the library tests check against, shipped inside the repository.

``polybench_facts.json`` is extracted from the project's reference description of
PolyBench/C 4.2.1 (``shared/data/polybench.json``, outside the repository), so a user's clone
runs every check CI runs. Regenerate: ``python tests/library/polybench_facts.py PATH``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FACTS = Path(__file__).with_name("polybench_facts.json")


def load() -> dict[str, dict[str, Any]]:
    """Kernel name -> ``{"class", "params": {P: {dataset: value}}, "statements": [...]}``."""
    return {k["name"]: k for k in json.loads(FACTS.read_text())["kernels"]}


def extract(data: dict[str, Any]) -> dict[str, Any]:
    """The facts the tests use, from the full description (kept small and reviewable)."""
    kernels = [{"name": k["name"], "class": k["tcpa"]["class"], "params": k["params"],
                "statements": [{"ops": st["ops"], "instances_MINI": st["instances_by_dataset"]["MINI"]}
                               for st in k["statements"]]}
               for k in data["kernels"]]
    note = (f"Extracted from shared/data/polybench.json: {data['benchmark']}, {data['source']}. "
            "Per kernel: TCPA class, dataset parameters, per statement its operations and "
            "dynamic instances at MINI. Regenerate with tests/library/polybench_facts.py.")
    return {"source": note, "kernels": kernels}


if __name__ == "__main__":
    full = json.loads(Path(sys.argv[1]).read_text())
    facts = extract(full)
    rows = ",\n  ".join(json.dumps(k) for k in facts["kernels"])
    FACTS.write_text(f'{{\n "source": {json.dumps(facts["source"])},\n "kernels": [\n  {rows}\n ]\n}}\n')
