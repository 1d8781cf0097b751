"""``polyjoule list``, ``show`` and ``localize``: can polyjoule read my kernel, and how?"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from polyjoule.cli._common import (
    EINSUM_HELP,
    EXTENTS_HELP,
    KERNEL_HELP,
    handles_errors,
    output_path,
)
from polyjoule.errors import SpecError
from polyjoule.jsontext import dumps
from polyjoule.model.dtypes import DTYPES

if TYPE_CHECKING:

    from polyjoule.frontends.pra_outline import KernelOutline, PhaseOutline
    from polyjoule.model.pra import PRA, Kernel

_INCLUDE_HELP = "C include folder (repeatable), e.g. the PolyBench utilities/ folder."
_DEFINE_HELP = "C macro NAME or NAME=VALUE (repeatable), e.g. DATA_TYPE_IS_FLOAT."


def load_any(spec: str | None, einsum: str | None = None, extents: str | None = None,
             include: list[str] | None = None, define: list[str] | None = None) -> Kernel:
    """A built-in kernel name, a PRA YAML file, a C loop nest or an einsum (one resolver:
    :func:`polyjoule.frontends.resolve.kernel_from`)."""
    from polyjoule.frontends.resolve import kernel_from

    return kernel_from(spec, einsum, extents, include=include or (), define=define or ())


def _displayed(spec: str | None, einsum: str | None, extents: str | None,
               include: list[str] | None = None, define: list[str] | None = None
               ) -> Kernel | KernelOutline:
    """What ``show`` prints: a built-in kernel's outline (read without sympy), else the kernel."""
    from polyjoule.frontends.resolve import source_kind

    if spec is None or einsum is not None or source_kind(spec) != "builtin":
        return load_any(spec, einsum, extents, include, define)
    from polyjoule.frontends.resolve import builtin_outline

    return builtin_outline(spec)


def _flow(value: Any) -> str:
    import yaml

    if isinstance(value, dict | list):
        return yaml.safe_dump(value, default_flow_style=True, width=10_000,
                              sort_keys=False).strip()
    return yaml.safe_dump([value], default_flow_style=True, width=10_000).strip()[1:-1]


def dump_yaml(data: dict[str, Any]) -> str:
    """PRA YAML in the layout of the built-in files: one line per dim, tensor, statement."""
    out = [f"version: {data.get('version', 1)}", f"name: {_flow(data['name'])}"]
    if data.get("description"):
        out.append(f"description: {_flow(data['description'])}")
    if data.get("datasets"):
        out.append("datasets:")
        out += [f"  {_flow(k)}: {_flow(v)}" for k, v in data["datasets"].items()]
    out.append("phases:")
    for ph in data["phases"]:
        out.append(f"  - name: {_flow(ph['name'])}")
        out.append(f"    dtype: {ph.get('dtype', 'fp32')}")
        out.append(f"    params: {_flow(ph['params'])}")
        out.append("    dims:")
        out += [f"      - {_flow(d)}" for d in ph["dims"]]
        if ph.get("tensors"):
            out.append("    tensors:")
            out += [f"      {_flow(k)}: {_flow(v)}" for k, v in ph["tensors"].items()]
        if ph.get("scalars"):
            out.append(f"    scalars: {_flow(ph['scalars'])}")
        out.append("    statements:")
        out += [f"      - {_flow(s)}" for s in ph["statements"]]
    return "\n".join(out) + "\n"


def _show_pra(con: Any, pra: PRA | PhaseOutline, index: int, total: int) -> None:
    from polyjoule.frontends.pra_dump import when_text
    from polyjoule.reports.tables import Column, echo, print_table

    head = f"phase {index + 1}/{total}: " if total > 1 else ""
    echo(f"{head}{pra.name}  dtype {pra.dtype}, {pra.n} dims, {len(pra.statements)} statements",
         con=con)
    echo("  parameters: " + ", ".join(f"{p} >= {lo}" for p, lo in pra.param_min), con=con)
    for d in pra.dims:
        echo(f"  dim {d.name}: {d.lower} .. {d.upper}  (tiling box 0 <= {d.name} < {d.extent})",
             con=con)
    for t in pra.tensors:
        echo(f"  tensor {t.name}[{', '.join(str(s) for s in t.shape)}]: {t.kind}", con=con)
    if pra.scalars:
        echo("  scalars: " + ", ".join(f"{k} = {v:g}" for k, v in pra.scalars), con=con)
    print_table(None, [Column("id", fold=False), Column("kind", fold=False),
                       Column("statement"), Column("when")],
                [(s.id, s.kind, s.text, when_text(s, pra.dim_names)) for s in pra.statements],
                con=con)


def _yaml_of(spec: str | None, k: Kernel | KernelOutline) -> str:
    """``show --yaml``: a file as written, a derived kernel as the YAML of its objects."""
    from polyjoule.frontends.resolve import read_source, source_kind

    kind = "einsum" if spec is None else source_kind(spec)
    if kind in ("c", "einsum"):
        from polyjoule.frontends.pra_dump import kernel_data

        return dump_yaml(kernel_data(k))
    if kind == "yaml":
        assert spec is not None
        return read_source(spec)
    from importlib import resources

    return resources.files("polyjoule.library").joinpath("data", "kernels",
                                                         f"{k.name}.yaml").read_text()


def _show_kernel(k: Kernel | KernelOutline, wide: bool = False) -> None:
    from polyjoule.reports.tables import console, echo

    con = console(wide)
    echo(f"{k.name}: {k.description or ''}", con=con)
    echo(f"parameters: {', '.join(k.params)}", con=con)
    for ds, vals in k.datasets.items():
        echo(f"  {ds}: " + ", ".join(f"{p}={v}" for p, v in vals.items()), con=con)
    for i, ph in enumerate(k.phases):
        _show_pra(con, ph, i, len(k.phases))


def _derive(source: str | None, einsum: str | None, extents: str | None, name: str | None,
            dtype: str | None, include: list[str] | None = None,
            define: list[str] | None = None) -> Kernel:
    """``localize``: the kernel of an einsum or of a C file (or of any kernel input)."""
    from polyjoule.frontends.resolve import kernel_from

    return kernel_from(source, einsum, extents, name=name, dtype=dtype, include=include or (),
                       define=define or ())


def register(app: typer.Typer) -> None:
    @app.command("list")
    @handles_errors
    def list_(
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        wide: bool = typer.Option(False, "--wide", help="Full table, whatever the terminal's width."),
    ) -> None:
        """Built-in kernels: parameters, datasets, phases and statement counts."""

        from polyjoule.library.kernels import names, summary

        rows = [summary(n) for n in names()]
        if as_json:
            typer.echo(dumps({"kernels": rows}, indent=1))
            return
        from polyjoule.reports.tables import Column, print_table

        print_table("built-in kernels",
                    [Column("kernel", fold=False), Column("parameters"), Column("datasets"),
                     Column("phases", number=True), Column("dims", fold=False),
                     Column("statements", fold=False), Column("description")],
                    [(r["name"], ", ".join(r["params"]), ", ".join(r["datasets"]),
                      str(r["phases"]), "+".join(map(str, r["dims"])),
                      "+".join(map(str, r["statements"])), r["description"]) for r in rows],
                    wide=wide)

    @app.command()
    @handles_errors
    def show(
        kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
        as_yaml: bool = typer.Option(False, "--yaml", help="Print the PRA as YAML instead."),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
        include: list[str] | None = typer.Option(None, "-I", "--include", help=_INCLUDE_HELP),
        define: list[str] | None = typer.Option(None, "-D", "--define", help=_DEFINE_HELP),
        wide: bool = typer.Option(False, "--wide", help="Full tables, whatever the terminal's width."),
    ) -> None:
        """Print the PRA of a kernel readably: dims, tensors and every statement."""
        k = _displayed(kernel, einsum, extents, include, define)
        if as_yaml:
            typer.echo(_yaml_of(kernel, k), nl=False)
            return
        _show_kernel(k, wide)

    @app.command()
    @handles_errors
    def localize(
        source: str | None = typer.Argument(None, help="C file with a PolyBench-style loop nest."),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
        output: Path | None = typer.Option(None, "-o", "--output", callback=output_path, help="Write the YAML here."),
        name: str | None = typer.Option(None, "--name", help="Kernel name (default: from the source)."),
        dtype: str | None = typer.Option(None, "--dtype", help=", ".join(DTYPES) + " (default: "
                                         "the C arrays' declared type; fp32 for an einsum)."),
        include: list[str] | None = typer.Option(None, "-I", "--include", help=_INCLUDE_HELP),
        define: list[str] | None = typer.Option(None, "-D", "--define", help=_DEFINE_HELP),
    ) -> None:
        """Derive a PRA from a C loop nest or an einsum; print it as YAML (or write -o FILE)."""
        if dtype is not None and dtype not in DTYPES:
            raise SpecError(f"--dtype: {dtype!r} is not one of {', '.join(DTYPES)}")
        from polyjoule.frontends.pra_dump import kernel_data
        from polyjoule.reports.files import write_atomic

        k = _derive(source, einsum, extents, name, dtype, include, define)
        text = dump_yaml(kernel_data(k))
        if output is None:  # flow YAML folds at spaces: the wrapped lines load the same
            from polyjoule.reports.tables import width, wrap

            sys.stdout.write("\n".join(wrap(text.rstrip("\n"), width())) + "\n")
        else:
            write_atomic(output, text)
