"""Write the PolyBench/C 4.2.1 test corpus: one ``<kernel>.c`` and ``<kernel>.h`` per kernel in
the suite's folders, and ``utilities/polybench.h``.

The files have the structure of the distributed ones (license comment, system includes,
``#include <polybench.h>``, the kernel header with its dataset sizes, ``init_array``,
``print_array``, the kernel function with ``POLYBENCH_nD`` parameters and its ``#pragma scop``
region, ``main``); the scop regions are in ``scops.py``, sizes, arrays and scalar arguments
come from ``polybench.json``. Run ``python tests/frontends/polybench_c/make_corpus.py
[path/to/polybench.json]`` to regenerate.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from scops import SCOPS  # noqa: E402

STAMP = """/**
 * This version is stamped on May 10, 2016
 *
 * Contact:
 *   Louis-Noel Pouchet <pouchet.ohio-state.edu>
 *   Tomofumi Yuki <tomofumi.yuki.fr>
 *
 * Web address: http://polybench.sourceforge.net
 */
"""

TYPES = """/* Default data type */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_{default}
# endif

#ifdef DATA_TYPE_IS_INT
#  define DATA_TYPE int
#  define DATA_PRINTF_MODIFIER "%d "
#endif

#ifdef DATA_TYPE_IS_FLOAT
#  define DATA_TYPE float
#  define DATA_PRINTF_MODIFIER "%0.2f "
#  define SCALAR_VAL(x) x##f
#  define SQRT_FUN(x) sqrtf(x)
#  define EXP_FUN(x) expf(x)
#  define POW_FUN(x,y) powf(x,y)
# endif

#ifdef DATA_TYPE_IS_DOUBLE
#  define DATA_TYPE double
#  define DATA_PRINTF_MODIFIER "%0.2lf "
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x,y) pow(x,y)
# endif
"""


#: What each kernel's print_array dumps (its live-out data), as in the suite.
LIVE_OUT = {
    "correlation": ["corr"], "covariance": ["cov"], "2mm": ["D"], "3mm": ["G"], "atax": ["y"],
    "bicg": ["s", "q"], "doitgen": ["A"], "mvt": ["x1", "x2"], "gemm": ["C"], "gemver": ["w"],
    "gesummv": ["y"], "symm": ["C"], "syr2k": ["C"], "syrk": ["C"], "trmm": ["B"],
    "cholesky": ["A"], "durbin": ["y"], "gramschmidt": ["A", "R", "Q"], "lu": ["A"],
    "ludcmp": ["x"], "trisolv": ["x"], "deriche": ["imgOut"], "floyd-warshall": ["path"],
    "nussinov": ["table"], "adi": ["u"], "fdtd-2d": ["ex", "ey", "hz"], "heat-3d": ["A"],
    "jacobi-1d": ["A"], "jacobi-2d": ["A"], "seidel-2d": ["A"],
}


def header(k: dict) -> str:
    """``<kernel>.h``: dataset sizes, loop-bound macros and the data type."""
    guard = "_" + k["name"].upper().replace("-", "_") + "_H"
    params = list(k["params"])
    out = [STAMP, f"#ifndef {guard}\n# define {guard}\n",
           "/* Default to LARGE_DATASET. */",
           "# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET)"
           " && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)",
           "#  define LARGE_DATASET\n# endif\n",
           "# if " + " && ".join(f"!defined({p})" for p in params),
           "/* Define sample dataset sizes. */"]
    for ds in ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"):
        out.append(f"#  ifdef {ds}_DATASET")
        out += [f"#   define {p} {k['params'][p][ds]}" for p in params]
        out.append("#  endif \n")
    out.append("\n#endif /* !(" + " ".join(params) + ") */\n")
    out += [f"# define _PB_{p} POLYBENCH_LOOP_BOUND({p},{p.lower()})" for p in params]
    if k["name"] == "nussinov":
        out.append("\n/* RNA bases represented as chars, range is [0,3] */\ntypedef char base;")
    default = {"double": "DOUBLE", "float": "FLOAT", "int": "INT"}[k["data_type"]]
    out += ["\n" + TYPES.format(default=default), f"#endif /* !{guard} */\n"]
    return "\n".join(out)


def _decl(name: str, dims: list[str], k: dict) -> str:
    ctype = "base" if (k["name"], name) == ("nussinov", "seq") else "DATA_TYPE"
    big, small = ",".join(dims), ",".join(d.lower() for d in dims)
    return f"{ctype} POLYBENCH_{len(dims)}D({name},{big},{small})"


def _signature(k: dict, fn: str, arrays: list[str], scalars: str) -> str:
    args = [f"int {p.lower()}" for p in k["params"]]
    args += [f"DATA_TYPE {scalars}{s}" for s in k["scalar_args"]]
    args += [_decl(a, k["arrays"][a], k) for a in arrays]
    return f"static\nvoid {fn}(" + ",\n\t\t".join(args) + ")"


def _loops(dims: list[str], body: str, pad: str = "  ") -> str:
    idx = "ijkl"[: len(dims)]
    lines = [f"{pad}{'  ' * n}for ({v} = 0; {v} < {d.lower()}; {v}++)"
             for n, (v, d) in enumerate(zip(idx, dims, strict=True))]
    return "\n".join([*lines, f"{pad}{'  ' * len(dims)}{body}"])


def _index(dims: list[str]) -> str:
    return "][".join("ijkl"[:len(dims)])


def _init_and_print(k: dict, arrays: list[str], written: list[str]) -> str:
    """``init_array`` and ``print_array`` (which dumps the live-out arrays)."""
    init_body = "\n".join(
        _loops(k["arrays"][a], f"{a}[{_index(k['arrays'][a])}] = "
               f"(DATA_TYPE) ((i*{len(a)}+1) % {k['arrays'][a][0].lower()}) / "
               f"{k['arrays'][a][0].lower()};") for a in arrays)
    scal_init = "".join(f"  *{s} = 1.5;\n" for s in k["scalar_args"])
    dump = "\n".join(
        f"  POLYBENCH_DUMP_BEGIN(\"{a}\");\n" + _loops(
            k["arrays"][a], f"fprintf (POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, "
            f"{a}[{_index(k['arrays'][a])}]);") +
        f"\n  POLYBENCH_DUMP_END(\"{a}\");" for a in written)
    return f"""/* Array initialization. */
{_signature(k, "init_array", arrays, "*")}
{{
  int i, j, k, l;

{scal_init}{init_body}
}}


/* DCE code. Must scan the entire live-out data.
   Can be used also to check the correctness of the output. */
{_signature({**k, "scalar_args": []}, "print_array", written, "")}

{{
  int i, j, k, l;

  POLYBENCH_DUMP_START;
{dump}
  POLYBENCH_DUMP_FINISH;
}}
"""


def _main(k: dict, cname: str, arrays: list[str], written: list[str]) -> str:
    """``main``: sizes, allocation, init, instruments, the kernel call, the dump."""
    name = k["name"]
    ints = ", ".join(p.lower() for p in k["params"])
    decls = "\n".join(
        f"  POLYBENCH_{len(d)}D_ARRAY_DECL({a},"
        f"{'base' if (name, a) == ('nussinov', 'seq') else 'DATA_TYPE'},"
        f"{','.join(d)},{','.join(x.lower() for x in d)});" for a, d in k["arrays"].items())
    sizes = "\n".join(f"  int {p.lower()} = {p};" for p in k["params"])
    scal_decl = "".join(f"  DATA_TYPE {s};\n" for s in k["scalar_args"])
    call_scal = "".join(f", {s}" for s in k["scalar_args"])
    call_arr = "".join(f",\n\t     POLYBENCH_ARRAY({a})" for a in arrays)
    init_scal = "".join(f", &{s}" for s in k["scalar_args"])
    dumped = "".join(f", POLYBENCH_ARRAY({a})" for a in written)
    frees = "\n".join(f"  POLYBENCH_FREE_ARRAY({a});" for a in arrays)
    return f"""int main(int argc, char** argv)
{{
  /* Retrieve problem size. */
{sizes}

  /* Variable declaration/allocation. */
{scal_decl}{decls}

  /* Initialize array(s). */
  init_array ({ints}{init_scal}{call_arr});

  /* Start timer. */
  polybench_start_instruments;

  /* Run kernel. */
  kernel_{cname} ({ints}{call_scal}{call_arr});

  /* Stop and print timer. */
  polybench_stop_instruments;
  polybench_print_instruments;

  /* Prevent dead-code elimination. All live-out data must be printed
     by the function call in argument. */
  polybench_prevent_dce(print_array({ints}{dumped}));

  /* Be clean. */
{frees}

  return 0;
}}
"""


def source(k: dict) -> str:
    """``<kernel>.c`` as distributed: init_array, print_array, the kernel, main."""
    name, cname = k["name"], k["name"].replace("-", "_")
    arrays = list(k["arrays"])
    written = LIVE_OUT[name]
    locals_, scop = SCOPS[name]
    extra = ""
    if name == "nussinov":
        extra = ("\n#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)\n"
                 "#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)\n")
    return f"""{STAMP}/* {name}.c: this file is part of PolyBench/C */

#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

/* Include polybench common header. */
#include <polybench.h>

/* Include benchmark-specific header. */
#include "{name}.h"
{extra}

{_init_and_print(k, arrays, written)}

/* Main computational kernel. The whole function will be timed,
   including the call and return. */
{_signature(k, "kernel_" + cname, arrays, "")}
{{
{locals_}
#pragma scop
{scop}#pragma endscop

}}


{_main(k, cname, arrays, written)}"""


def main(path: str) -> None:
    data = json.loads(Path(path).read_text())
    texts = {k["name"]: {"loops": [x["c_header"] for x in k["loops"]],
                         "statements": [x["text"] for x in k["statements"]],
                         "params": k["params"], "data_type": k["data_type"]}
             for k in data["kernels"]}
    note = (f"From shared/data/polybench.json ({data['benchmark']}): per kernel its loop "
            "headers and statements after macro stripping, dataset sizes and data type.")
    (HERE / "polybench_texts.json").write_text(
        json.dumps({"source": note, "kernels": texts}, indent=1) + "\n")
    for k in data["kernels"]:
        folder = HERE / Path(k["source_file"]).parent
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{k['name']}.h").write_text(header(k))
        (folder / f"{k['name']}.c").write_text(source(k))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/polybench.json")
