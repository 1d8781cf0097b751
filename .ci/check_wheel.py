"""The wheel holds exactly the package: every file under src/polyjoule and nothing else."""

import sys
import zipfile
from pathlib import Path

wheel = next(Path(sys.argv[1]).glob("polyjoule-*.whl"))
names = {n for n in zipfile.ZipFile(wheel).namelist() if not n.startswith("polyjoule-")}
src = Path("src")
want = {str(p.relative_to(src)) for p in (src / "polyjoule").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts}
missing, extra = sorted(want - names), sorted(names - want)
if missing or extra:
    print(f"wheel {wheel.name}: missing {missing}, unexpected {extra}")
    sys.exit(1)
print(f"wheel {wheel.name}: {len(names)} files, exactly the package")
