"""The simulator at any size (issue 13): ``validate gemm --dataset LARGE --array 16x16``.

Runs the real command as a child process and records its wall time, CPU time and peak
resident memory (``ru_maxrss`` of the child), and the time estimate the command printed
before it started. ``--sizes NI=..,NJ=..,NK=..`` runs a smaller gemm instead (same array).
``--compare REV`` times the normal sizes (gesummv N=1024 on 8x8, gemm MEDIUM on 16x16) in
the code of git revision REV and in this tree, alternately, in one run: the streamed
simulator must not be slower there.

    python benchmarks/bench_sim_large.py                      # the LARGE run (about 20-40 min)
    python benchmarks/bench_sim_large.py --sizes NI=500,NJ=550,NK=600
    python benchmarks/bench_sim_large.py --compare e140e71 --repeat 2

Results are printed and appended to ``benchmarks/out/sim_large.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
OUT = HERE / "out"

#: The simulator's own timing, run in a child: (kernel, array, values).
NORMAL = [("gesummv", (8, 8), {"N0": 1024, "N1": 1024}),
          ("gemm", (16, 16), {"NI": 200, "NJ": 220, "NK": 240})]

_CHILD = """
import json, sys, time
from polyjoule.analysis.simulator import simulate
from polyjoule.library import kernels as registry
name, array, values = json.loads(sys.argv[1])
t = time.perf_counter()
r = simulate(registry.get(name), tuple(array), values=values, memory_limit=2**33)
print(json.dumps({"seconds": time.perf_counter() - t, "ok": r.ok, "counts": r.counts,
                  "makespan": r.makespan}))
"""


def run_child(argv: list[str], pythonpath: Path) -> dict:
    """Run ``argv`` with ``PYTHONPATH=pythonpath``: wall and CPU seconds and peak resident
    memory (MiB) of that child alone (``os.wait4``)."""
    env = {**os.environ, "PYTHONPATH": str(pythonpath), "COLUMNS": "100"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, env=env, text=True)
        _, status, use = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"argv": argv[2:], "exit": child.returncode, "wall_s": round(wall, 1),
                "cpu_s": round(use.ru_utime + use.ru_stime, 1),
                "peak_rss_mib": round(use.ru_maxrss / 1024), "stdout": out.read(),
                "stderr": err.read()}


def large(sizes: str | None, limit: float) -> dict:
    """The validate command (LARGE, or ``sizes``) with its estimate, time and memory."""
    argv = [sys.executable, "-m", "polyjoule", "validate", "gemm", "--array", "16x16",
            "--progress", "--memory-limit", str(limit)]
    argv += ["--set", sizes] if sizes else ["--dataset", "LARGE"]
    got = run_child(argv, SRC)
    estimate = [ln for ln in got["stderr"].splitlines() if "estimate" in ln]
    out = {k: v for k, v in got.items() if k not in ("stdout", "stderr")}
    out["estimate"] = estimate[0].strip() if estimate else None
    out["agrees"] = got["exit"] == 0
    if got["exit"] != 0:
        out["tail"] = (got["stdout"] + got["stderr"])[-2000:]
    return out


def compare(rev: str, repeat: int) -> list[dict]:
    """The normal sizes in REV's code and in this tree, alternately; best of ``repeat``."""
    old = Path(tempfile.mkdtemp(prefix="polyjoule-old-"))
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", rev, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    rows = []
    for name, array, values in NORMAL:
        best: dict[str, float] = {}
        same = None
        for _ in range(repeat):
            for label, path in (("before", old / "src"), ("after", SRC)):
                got = run_child([sys.executable, "-c", _CHILD,
                                 json.dumps([name, array, values])], path)
                if got["exit"] != 0:
                    raise SystemExit(got["stderr"])
                res = json.loads(got["stdout"])
                best[label] = min(best.get(label, 1e9), res["seconds"])
                best[label + "_cpu"] = min(best.get(label + "_cpu", 1e9), got["cpu_s"])
                best[label + "_rss_mib"] = max(best.get(label + "_rss_mib", 0), got["peak_rss_mib"])
                key = (json.dumps(res["counts"], sort_keys=True), res["makespan"], res["ok"])
                same = key if same is None else same
                assert key == same, f"{name}: before and after differ"
        rows.append({"kernel": name, "array": f"{array[0]}x{array[1]}", "values": values,
                     **{k: round(v, 2) for k, v in best.items()}})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", help="gemm sizes NI=..,NJ=..,NK=.. instead of LARGE")
    ap.add_argument("--memory-limit", type=float, default=8.0, help="GiB given to the command")
    ap.add_argument("--compare", metavar="REV", help="time the normal sizes, REV vs this tree")
    ap.add_argument("--repeat", type=int, default=1, help="runs per side with --compare")
    args = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    load = os.getloadavg()[0]
    if args.compare:
        result = {"when": stamp, "load": load, "compare": args.compare,
                  "rows": compare(args.compare, args.repeat)}
    else:
        result = {"when": stamp, "load": load, **large(args.sizes, args.memory_limit)}
    with (OUT / "sim_large.jsonl").open("a") as f:
        f.write(json.dumps(result) + "\n")
    print(json.dumps(result, indent=2))
    return 0 if result.get("agrees", True) else 1


if __name__ == "__main__":
    raise SystemExit(main())
