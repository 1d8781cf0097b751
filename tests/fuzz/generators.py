"""Seeded generators of bad inputs, one per surface; every case must be refused (exit 2).

Each generator mutates a valid input in a way that makes it wrong (never a mutation that
might stay valid), so an exit 0 is a wrong acceptance. ``random.Random(seed)`` makes the
suite deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from importlib import resources

import yaml
from harness import FuzzCase  # tests/fuzz is on sys.path (test_fuzz.py puts it there)

Gen = Callable[[random.Random], Iterator[FuzzCase]]


def _gemm_yaml() -> dict:
    text = resources.files("polyjoule.library").joinpath("data", "kernels", "gemm.yaml")
    return yaml.safe_load(text.read_text())


def _dump(doc: dict) -> bytes:
    return yaml.safe_dump(doc, sort_keys=False).encode()


JUNK = [b"\xff", b"\xfe\xfe\x00", b"\xc3\x28", b"abc\x80def", b"\xed\xa0\x80", b"\x00\xff\x00"]


def _junk(rng: random.Random) -> bytes:
    return rng.choice([b"", b"version: 1\n", b"# c\n"]) + rng.choice(JUNK) + \
        bytes(rng.randrange(256) for _ in range(rng.randrange(4)))


def bytes_everywhere(rng: random.Random) -> Iterator[FuzzCase]:
    """Files that are not UTF-8, through every command that reads a file."""
    uses = [
        ("analyze", "k.yaml", ("analyze", "{dir}/k.yaml")),
        ("--array", "a.yaml", ("analyze", "gemm", "--dataset", "MINI", "--array", "{dir}/a.yaml")),
        ("--energy-table", "e.yaml", ("analyze", "gemm", "--dataset", "MINI",
                                      "--energy-table", "{dir}/e.yaml")),
        ("show", "k.yaml", ("show", "{dir}/k.yaml")),
        ("localize", "k.c", ("localize", "{dir}/k.c")),
        ("tasm", "p.tasm", ("tinytpu", "check", "{dir}/p.tasm")),
        ("thex", "p.thex", ("tinytpu", "run", "{dir}/p.thex")),
        ("plot", "s.json", ("plot", "{dir}/s.json", "-o", "{dir}/p.png")),
        ("plot-csv", "s.csv", ("plot", "{dir}/s.csv", "-o", "{dir}/p.png")),
        ("machine", "m.yaml", ("tinytpu", "check", "--machine", "{dir}/m.yaml", "{dir}/p.tasm")),
    ]
    for k in range(60):
        what, name, args = uses[k % len(uses)]
        files = {name: _junk(rng)}
        if what == "machine":
            files["p.tasm"] = b"nop\n"
        yield FuzzCase("bytes", f"{what}-{k}", args, files, needle="UTF-8")


def _deep(rng: random.Random, depth: int) -> bytes:
    kind = rng.choice(["flow-list", "flow-map", "block"])
    if kind == "flow-list":
        return b"a: " + b"[" * depth + b"]" * depth + b"\n"
    if kind == "flow-map":
        return b"a: " + b"{x: " * depth + b"1" + b"}" * depth + b"\n"
    depth = min(depth, 400)  # block style: indentation grows as depth squared
    return b"".join(b"  " * i + b"k:\n" for i in range(depth)) + b"  " * depth + b"v\n"


def yaml_limits(rng: random.Random) -> Iterator[FuzzCase]:
    """Deep nesting, duplicate keys, long expressions in every YAML reader."""
    targets = [("analyze", "{dir}/k.yaml"), ("show", "{dir}/k.yaml")]
    for k in range(40):
        cmd, path = targets[k % 2]
        if k % 4 < 2:
            data, needle = _deep(rng, rng.choice([60, 500, 5000])), "nested deeper"
        else:
            key = rng.choice(["name", "version", "description"])
            data = f"version: 1\n{key}: a\nname: b\n{key}: c\n".encode()
            data, needle = (data if key != "name" else b"name: a\nname: b\n"), "given twice"
        yield FuzzCase("yaml", f"limits-{k}", (cmd, path), {"k.yaml": data}, needle=needle)
    for k in range(20):
        opt = rng.choice(["--array", "--energy-table"])
        name = "a.yaml" if opt == "--array" else "e.yaml"
        data = _deep(rng, rng.choice([60, 3000])) if k % 2 else b"name: a\nname: b\n"
        yield FuzzCase("yaml", f"{opt}-{k}", ("analyze", "gemm", "--dataset", "MINI", opt,
                                          "{dir}/" + name), {name: data})


def _pra_mutations(rng: random.Random) -> Iterator[tuple[str, dict, str]]:
    """(label, mutated gemm document, needle): each mutation makes the PRA wrong."""
    doc = _gemm_yaml()
    ph = lambda d: d["phases"][0]  # noqa: E731
    while True:
        d = yaml.safe_load(yaml.safe_dump(doc))
        m = rng.randrange(10)
        st = ph(d)["statements"]
        if m == 0:
            dep = (0, 1, 0)
            while dep in ((0, 1, 0), (0, 0, 0)):
                dep = tuple(rng.randint(-3, 3) for _ in range(3))
            st[1]["dep"] = list(dep)
            yield "dep", d, "dep"
        elif m == 1:
            st[0]["input"] = rng.choice(["A[i]", "A[i, k, j]", "A[k]"])
            yield "rank", d, "rank"
        elif m == 2:
            st[0]["input"] = rng.choice(["A[i, k + 1]", "A[i + NI, k]", "A[i - 1, k]",
                                         "A[k + 3, i]"])
            yield "bound", d, "leaves"
        elif m == 3:
            ph(d)["tensors"]["A"]["shape"][0] = rng.choice(["NI - 5", "0", "-3", "1 - NI"])
            yield "shape", d, "not positive"
        elif m == 4:
            lo = rng.randint(3, 9)
            ph(d)["dims"][0] = {"name": "i", "lower": lo, "upper": lo - rng.randint(1, 3)}
            yield "empty-dim", d, "empty dim"
        elif m == 5:
            d["datasets"]["MINI"]["N" + rng.choice("XYZQ")] = rng.randint(1, 9)
            yield "dataset-param", d, "not a parameter"
        elif m == 6:
            d["version"] = rng.choice([0, 2, 7, "1", 1.5, None])
            yield "version", d, "version"
        elif m == 7:
            st[4]["compute"] = "*".join(["a"] * rng.randint(200, 3000))
            yield "long-compute", d, "expression"
        elif m == 8:
            st[4]["compute"] = "(" * rng.randint(60, 2000) + "a" + ")" * 60
            yield "deep-compute", d, "nested deeper"
        else:
            where = rng.choice(["dim", "var", "tensor"])
            bad = rng.choice(["μ", "ñ", "ж", "x·y"])
            if where == "dim":
                ph(d)["dims"][0]["name"] = bad
            elif where == "var":
                st[4]["var"] = bad
            else:
                ph(d)["tensors"][bad] = ph(d)["tensors"].pop("A")
            yield "non-ascii", d, "ASCII"


def pra_semantics(rng: random.Random) -> Iterator[FuzzCase]:
    """PRA files that parse but mean nothing: refused at load, naming the field."""
    gen = _pra_mutations(rng)
    for k in range(90):
        label, doc, needle = next(gen)
        yield FuzzCase("pra", f"{label}-{k}", ("analyze", "{dir}/k.yaml", "--dataset", "MINI",
                                           "--array", "2x2"), {"k.yaml": _dump(doc)},
                   needle=needle)


def energy_tables(rng: random.Random) -> Iterator[FuzzCase]:
    """Energy tables: unknown keys, non-finite or negative values, unknown versions."""
    for k in range(40):
        m = k % 5
        if m == 0:
            text, needle = f"op_pj:\n  fp32: {{{rng.choice(['frob', 'mull', 'MUL'])}: 1.0}}\n", \
                "unknown operation"
        elif m == 1:
            text, needle = f"op_pj:\n  {rng.choice(['fp99', 'float', 'i8'])}: {{mul: 1.0}}\n", \
                "unknown dtype"
        elif m == 2:
            v = rng.choice([".nan", ".inf", "-.inf", "1e400", "-1", "1e30"])
            text, needle = f"access_pj:\n  DR: {v}\n", "DR"
        elif m == 3:
            text, needle = f"version: {rng.choice([2, 3, 99])}\n", "version"
        else:
            text, needle = f"access_pj:\n  {rng.choice(['XX', 'dram', 'L9'])}: 1.0\n", "unknown"
        yield FuzzCase("energy", f"table-{k}", ("analyze", "gemm", "--dataset", "MINI",
                                            "--energy-table", "{dir}/e.yaml"),
                   {"e.yaml": text.encode()}, needle=needle)


def cli_values(rng: random.Random) -> Iterator[FuzzCase]:
    """Numeric options and assignments: duplicates, int64 overflow, NaN, negatives."""
    big = [str(2**63), str(2**64), "18446744073709551616", "9" * 40]
    gemm = ("--dataset", "MINI")
    for k in range(80):
        m = k % 10
        if m == 0:
            p = rng.choice(["NI", "NJ", "NK"])
            args = ("analyze", "gemm", "--set", f"{p}=4,NJ=5,NK=6,NI=7,{p}=8")
            if p == "NI":
                args = ("analyze", "gemm", "--set", "NI=4,NJ=5,NK=6,NI=8")
        elif m == 1:
            args = ("analyze", "gemm", "--set", f"NI={rng.choice(big)},NJ=4,NK=4")
        elif m == 2:
            args = ("analyze", "gemm", *gemm, "--array", f"{rng.choice(big)}x2")
        elif m == 3:
            args = ("simulate", "gemm", *gemm, "--seed", str(-rng.randint(1, 10**6)))
        elif m == 4:
            args = ("simulate", "gemm", *gemm, "--memory-limit",
                    rng.choice(["nan", "inf", "-1", "0", "-inf"]))
        elif m == 5:
            args = ("simulate", "gemm", *gemm, "--op-latency",
                    rng.choice(["frob=3", "mul=3,mul=4", "mul=-1", "mul=nan", f"div={2**70}"]))
        elif m == 6:
            args = ("analyze", "gemm", *gemm, "--tile", rng.choice(["0,1,1", "-2,2,2", "1,,x",
                                                                     f"{2**64},1,1"]))
        elif m == 7:
            args = ("simulate", "gemm", *gemm, rng.choice(["--pi", "--w"]),
                    str(rng.choice([-1, -7, 2**64])))
        elif m == 8:
            args = ("tinytpu", "run", "--gemm", rng.choice(["0x0x0", "-16x16x16", "4x0x4",
                                                            "8x8", "axbxc"]), "{dir}/p.tasm")
            yield FuzzCase("cli", f"values-{k}", args, {"p.tasm": b"nop\n"})
            continue
        else:
            args = ("analyze", "gemm", *gemm, "--array", rng.choice(["0x4", "-4x4", "4x4x4",
                                                                     "x", "nanx2"]))
        yield FuzzCase("cli", f"values-{k}", args)


def sweep_ranges(rng: random.Random) -> Iterator[FuzzCase]:
    """Sweep sizes past int64 or past the point limit (refused before any allocation)."""
    for k in range(20):
        spec = rng.choice(["N=1:10000000000", f"N=1:{2**64}", f"N={2**63},4", "N=1:1e30:*2",
                           "N=5:1", "N=4:8:0", "N=0:8:*1", "N=", "N=a:b"])
        yield FuzzCase("sweep", f"range-{k}", ("sweep", "gemm", "-s", spec, "--arrays", "2x2"),
                   needle="--size")


def sweep_huge(rng: random.Random) -> Iterator[FuzzCase]:
    """Sweep sizes at and past 2**63 in every spelling: refused with the 64-bit message
    (below it a sweep is exact: tests/fuzz/test_exact_fuzz.py)."""
    for k in range(30):
        v = 2**63 + rng.choice([0, 1, 7, 2**20, 2**63])
        name = rng.choice(["N", "NI", "NJ", "NK"])
        spec = rng.choice([f"{name}={v}", f"{name}=8,{v}", f"{name}={v},16", f"{name}=8:{v}",
                           f"{name}={v}:{v + 8}", f"{name}=1:{v}:*2", f"{name}=-{v}"])
        rest = [] if name == "N" else ["-s", "N=8"]
        yield FuzzCase("sweep", f"huge-{k}", ("sweep", "gemm", *rest, "-s", spec, "--arrays", "2x2",
                                          "--no-cache"), needle="64-bit")


#: (label, command line writing to OUT) for every command with an output path
_WRITERS = [
    ("sweep-csv", ("sweep", "gemm", "-s", "N=4", "--arrays", "2x2", "--no-cache", "--csv", "OUT")),
    ("sweep-json", ("sweep", "gemm", "-s", "N=4", "--arrays", "2x2", "--no-cache", "--json", "OUT")),
    ("analyze", ("analyze", "gemm", "--dataset", "MINI", "--json", "-o", "OUT")),
    ("report", ("report", "gemm", "--dataset", "MINI", "-o", "OUT")),
    ("localize", ("localize", "--einsum", "C[m,n] += A[m,k]*B[k,n]", "-o", "OUT")),
    ("gen", ("tinytpu", "gen", "gemm", "8x8x8", "-o", "OUT")),
    ("plot", ("plot", "{dir}/s.csv", "-o", "OUT")),
]


def output_paths(rng: random.Random) -> Iterator[FuzzCase]:
    """Output files in a missing folder, on a directory, under a regular file: refused before
    any work, naming the path; nothing written (the harness checks the exit and the line)."""
    where = [("missing/out.x", "no such folder"), ("adir", "is a directory"),
             ("afile/out.x", "is a file, not a folder"),
             ("afile/deeper/out.x", "is a file, not a folder")]
    csv = b"array,energy_pj,latency_cycles\n2x2,10,5\n"
    for k in range(42):
        label, args = _WRITERS[k % len(_WRITERS)]
        dest, needle = where[(k // len(_WRITERS) + k) % len(where)]
        suffix = {"gen": ".tasm", "plot": ".png", "report": ".html", "sweep-csv": ".csv"}.get(label, ".json")
        dest = dest.replace(".x", suffix)
        files = {"afile": b"keep", "adir/keep": b"", "s.csv": csv}
        yield FuzzCase("output", f"{label}-{k}", tuple(a.replace("OUT", "{dir}/" + dest) for a in args),
                   files, needle=needle)


def mlir_files(rng: random.Random) -> Iterator[FuzzCase]:
    """TOSA MLIR files without a function (empty, blank, comments, an empty module): one line
    naming the file (skipped by the harness when the tosa extra is missing)."""
    texts = [b"", b"\n\n", b"   \t\n", b"// nothing here\n", b"module {\n}\n",
             b"module attributes {} {\n}\n", b"// a\n// b\nmodule {}\n"]
    import importlib.util

    needle = "net.mlir: no func.func" if importlib.util.find_spec("torch_mlir") else "tosa"
    for k in range(14):
        yield FuzzCase("tosa", f"empty-{k}", ("map", "--tosa", "{dir}/net.mlir"),
                   {"net.mlir": texts[k % len(texts)] + b" " * rng.randrange(3)},
                   needle=needle)


def mapper_shapes(rng: random.Random) -> Iterator[FuzzCase]:
    """Mapper shapes: repeated ranks, zero/negative/huge extents, --slots past the cap."""
    for k in range(40):
        m = k % 5
        if m == 0:
            r = rng.choice("MKN")
            shape = ",".join(f"{x}={4 if x != r else 8}" for x in "MKN") + f",{r}=4"
            args, needle = ("map", "gemm", shape), "given twice"
        elif m == 1:
            args, needle = ("map", "gemm", f"{rng.choice([0, 2**41, 2**64])}x4x4"), "extent"
        elif m == 2:
            args, needle = ("map", "gemm", f"-{rng.randint(1, 64)}x4x4"), "No such option"
        elif m == 3:
            args, needle = ("map", "gemm", "16x16x16", "--slots",
                            str(rng.choice([5, 6, 50, 0, -1]))), "--slots"
        else:
            args, needle = ("map", "gemm", rng.choice(["4x4", "4x4x4x4", "axbxc", "4,,4"])), ""
        yield FuzzCase("mapper", f"shape-{k}", args, needle=needle)


def einsum_texts(rng: random.Random) -> Iterator[FuzzCase]:
    """Einsums: non-ASCII names, deep parentheses, long sums, garbage."""
    for k in range(40):
        m = k % 4
        if m == 0:
            r = rng.choice(["μ", "ñ", "ж", "ϕ"])
            text, needle = f"C[{r},n] += A[{r},k]*B[k,n]", "ASCII"
        elif m == 1:
            d = rng.choice([60, 400, 5000])
            text, needle = "C[m,n] += " + "(" * d + "A[m,k]*B[k,n]" + ")" * d, "nested"
        elif m == 2:
            n = rng.choice([300, 3000])
            text, needle = "C[m,n] += " + "+".join(["A[m,k]*B[k,n]"] * n), "expression"
        else:
            text, needle = rng.choice(["C[m,n] +=", "C[m,n] -= A[m,k]*B[k,n]", "[[[",
                                       "C += A", "C[m,1] += A[m,k]*B[k,n]"]), ""
        yield FuzzCase("einsum", f"text-{k}", ("localize", "--einsum", text), needle=needle)


C_HEAD = "void k(int N, double A[N], double B[N]) {\n  int i;\n#pragma scop\n"
C_TAIL = "#pragma endscop\n}\n"


def c_sources(rng: random.Random) -> Iterator[FuzzCase]:
    """C loop nests: deep expressions, long statements, garbage."""
    for k in range(30):
        m = k % 3
        if m == 0:
            d = rng.choice([60, 500, 3000])
            body = "    B[i] = " + "(" * d + "A[i]" + ")" * d + ";\n"
        elif m == 1:
            body = "    B[i] = " + " + ".join(["A[i]"] * rng.choice([300, 3000])) + ";\n"
        else:
            body = rng.choice(["    B[i] = ;\n", "    B[i = A[i];\n", "    B[i] = A[i] +\n"])
        src = C_HEAD + "  for (i = 0; i < N; i++)\n" + body + C_TAIL
        yield FuzzCase("c", f"nest-{k}", ("localize", "{dir}/k.c"), {"k.c": src.encode()})


def programs(rng: random.Random, good_tasm: bytes, good_thex: bytes) -> Iterator[FuzzCase]:
    """Program files: unknown mnemonics, bad fields, tampered or truncated images."""
    lines = good_thex.decode().splitlines()
    head = [n for n, ln in enumerate(lines) if ln and not ln.startswith("#")][:8]
    for k in range(50):
        m = k % 5
        cmd = rng.choice(["check", "run", "cycles"])
        if m < 2:  # tamper with one header count
            n = head[rng.randrange(8)]
            word = int(lines[n].split()[0], 16)
            new = list(lines)
            new[n] = f"{word + rng.randint(1, 9):016x}"
            yield FuzzCase("program", f"thex-{k}", ("tinytpu", cmd, "{dir}/p.thex"),
                       {"p.thex": "\n".join(new).encode() + b"\n"}, needle="header")
        elif m == 2:  # truncate the image
            body = [ln for ln in lines if ln and not ln.startswith("#")]
            cut = rng.randrange(1, len(body) - 1)
            yield FuzzCase("program", f"trunc-{k}", ("tinytpu", cmd, "{dir}/p.thex"),
                       {"p.thex": "\n".join(body[:cut]).encode() + b"\n"})
        elif m == 3:
            bad = rng.choice(["frob nr=4", "mm f5=1", "mm nr=four", "loop nr=-1",
                              "dma_ld f0=99999999999999999999"])
            yield FuzzCase("program", f"tasm-{k}", ("tinytpu", cmd, "{dir}/p.tasm"),
                       {"p.tasm": good_tasm + bad.encode() + b"\n"})
        else:
            yield FuzzCase("program", f"suffix-{k}", ("tinytpu", cmd, "{dir}/p.txt"),
                       {"p.txt": good_tasm})


def plot_inputs(rng: random.Random) -> Iterator[FuzzCase]:
    """Sweep outputs handed to ``plot``: wrong records, ragged rows, text or NaN numbers."""
    row = {"array": "2x2", "energy_pj": 10.0, "latency_cycles": 5}
    for k in range(40):
        m = k % 6
        if m == 0:
            doc = rng.choice(['{"points":[1]}', '{"points":[]}', '{"points":{}}', "[]",
                              '{"points":[null]}'])
            files = {"s.json": doc.encode()}
        elif m == 1:
            doc = '{"points":[' + _json(row) + ', {"array": "2x2", "energy_pj": 1}]}'
            files = {"s.json": doc.encode()}
        elif m == 2:
            bad = rng.choice(['"lots"', "NaN", "Infinity", "-Infinity", "null", "[1]"])
            doc = '{"points":[{"array": "2x2", "energy_pj": ' + bad + ', "latency_cycles": 5}]}'
            files = {"s.json": doc.encode()}
        elif m == 3:
            files = {"s.csv": b"array,energy_pj,latency_cycles\n2x2,10,5\n2x2,10\n"}
        elif m == 4:
            v = rng.choice(["abc", "nan", "inf", "", "-5"])
            files = {"s.csv": f"array,energy_pj,latency_cycles\n2x2,{v},5\n".encode()}
        else:
            files = {"s.json": b"[" * rng.choice([100, 5000]) + b"]" * 5}
        yield FuzzCase("plot", f"input-{k}", ("plot", "{dir}/" + next(iter(files)), "-o",
                                          "{dir}/p.png"), files)


def _json(row: dict) -> str:
    import json

    return json.dumps(row)


def _bad_alternatives(rng: random.Random) -> object:
    """A ``when:`` with alternatives that is wrong: empty, malformed or not affine."""
    good = ["j >= 1", "k == 0", "i <= NI - 2", ["j >= 1", "k >= 1"]]
    bad = rng.choice([3, None, 1.5, "j * k >= 1", "j >= Z", "j >", "", {"all": ["j >= 1"]},
                      {"any": []}, {"any": "j >= 1"}])
    m = rng.randrange(4)
    if m == 0:
        return {"any": rng.choice([[], "j >= 1", 7, None, {"any": ["j >= 1"]}])}
    if m == 1:
        return {rng.choice(["all", "or", "anyy", "ANY"]): ["j >= 1"]}
    entries = rng.sample(good, rng.randint(0, 2))
    entries.insert(rng.randint(0, len(entries)), bad)
    return {"any": entries} if m == 2 else ["j >= 0", {"any": entries}]


def pra_alternatives(rng: random.Random) -> Iterator[FuzzCase]:
    """gemm with a broken ``when: {any: [...]}``: refused at load, naming the field."""
    for k in range(24):
        doc = _gemm_yaml()
        doc["phases"][0]["statements"][1]["when"] = _bad_alternatives(rng)
        yield FuzzCase("pra", f"alternatives-{k}", ("analyze", "{dir}/k.yaml", "--dataset", "MINI",
                                                "--array", "2x2"), {"k.yaml": _dump(doc)},
                   needle="when")


SURFACES: tuple[Gen, ...] = (bytes_everywhere, yaml_limits, pra_semantics, energy_tables,
                             cli_values, sweep_ranges, sweep_huge, output_paths, mapper_shapes,
                             einsum_texts, c_sources, plot_inputs, mlir_files, pra_alternatives)
