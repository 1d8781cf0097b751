"""``polyjoule list``, ``show`` and ``localize``: can polyjoule read my kernel, and how?"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from polyjoule.cli._common import EINSUM_HELP, EXTENTS_HELP, KERNEL_HELP, handles_errors
from polyjoule.errors import SpecError

if TYPE_CHECKING:
    from rich.console import Console

    from polyjoule.frontends.pra_outline import KernelOutline, PhaseOutline
    from polyjoule.model.pra import PRA, Kernel


def load_any(spec: str | None, einsum: str | None = None, extents: str | None = None
             ) -> Kernel:
    """A built-in kernel name, a PRA YAML file, a C loop nest or an einsum (one resolver:
    :func:`polyjoule.frontends.resolve.kernel_from`)."""
    from polyjoule.frontends.resolve import kernel_from

    return kernel_from(spec, einsum, extents)


def _displayed(spec: str | None, einsum: str | None, extents: str | None
               ) -> Kernel | KernelOutline:
    """What ``show`` prints: a built-in kernel's outline (read without sympy), else the kernel."""
    from polyjoule.frontends.resolve import source_kind

    if spec is None or einsum is not None or source_kind(spec) != "builtin":
        return load_any(spec, einsum, extents)
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


def _show_pra(console: Console, pra: PRA | PhaseOutline, index: int, total: int) -> None:
    from rich.markup import escape
    from rich.table import Table

    head = f"phase {index + 1}/{total}: " if total > 1 else ""
    console.print(f"[bold]{head}{escape(pra.name)}[/bold]  dtype {pra.dtype}, "
                  f"{pra.n} dims, {len(pra.statements)} statements")
    mins = ", ".join(f"{p} >= {lo}" for p, lo in pra.param_min)
    console.print(f"  parameters: {escape(mins)}")
    for d in pra.dims:
        console.print(f"  dim {escape(d.name)}: {escape(str(d.lower))} .. {escape(str(d.upper))}"
                      f"  (tiling box 0 <= {escape(d.name)} < {escape(str(d.extent))})")
    for t in pra.tensors:
        shape = ", ".join(str(s) for s in t.shape)
        console.print(f"  tensor {escape(t.name)}[{escape(shape)}]: {t.kind}")
    if pra.scalars:
        console.print("  scalars: " + escape(", ".join(f"{k} = {v:g}" for k, v in pra.scalars)))
    table = Table(show_edge=False, pad_edge=False)
    for col in ("id", "kind", "statement", "when"):
        table.add_column(col)
    from polyjoule.frontends.pra_dump import condition_text

    for s in pra.statements:
        when = " and ".join(condition_text(c, pra.dim_names) for c in s.when) or "always"
        table.add_row(escape(s.id), s.kind, escape(s.text), escape(when))
    console.print(table)


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


def _show_kernel(k: Kernel | KernelOutline) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(width=200, highlight=False)
    console.print(f"[bold]{escape(k.name)}[/bold]: {escape(k.description or '')}")
    console.print(f"parameters: {escape(', '.join(k.params))}")
    for ds, vals in k.datasets.items():
        console.print(f"  {escape(ds)}: " + escape(", ".join(f"{p}={v}" for p, v in vals.items())))
    for i, ph in enumerate(k.phases):
        _show_pra(console, ph, i, len(k.phases))


def _derive(source: str | None, einsum: str | None, extents: str | None, name: str | None,
            dtype: str) -> Kernel:
    """``localize``: the kernel of an einsum or of a C file (or of any kernel input)."""
    from polyjoule.frontends.resolve import kernel_from

    return kernel_from(source, einsum, extents, name=name, dtype=dtype)


def register(app: typer.Typer) -> None:
    @app.command("list")
    @handles_errors
    def list_(
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Built-in kernels: parameters, datasets, phases and statement counts."""
        import json

        from polyjoule.library.kernels import names, summary

        rows = [summary(n) for n in names()]
        if as_json:
            typer.echo(json.dumps({"kernels": rows}, indent=1))
            return
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table(title="built-in kernels")
        for col in ("kernel", "parameters", "datasets", "phases", "dims", "statements",
                    "description"):
            table.add_column(col)
        for r in rows:
            table.add_row(escape(r["name"]), escape(", ".join(r["params"])),
                          escape(", ".join(r["datasets"])), str(r["phases"]),
                          "+".join(map(str, r["dims"])), "+".join(map(str, r["statements"])),
                          escape(r["description"]))
        Console(width=200).print(table)

    @app.command()
    @handles_errors
    def show(
        kernel: str | None = typer.Argument(None, help=KERNEL_HELP),
        as_yaml: bool = typer.Option(False, "--yaml", help="Print the PRA as YAML instead."),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
    ) -> None:
        """Print the PRA of a kernel readably: dims, tensors and every statement."""
        k = _displayed(kernel, einsum, extents)
        if as_yaml:
            typer.echo(_yaml_of(kernel, k), nl=False)
            return
        _show_kernel(k)

    @app.command()
    @handles_errors
    def localize(
        source: str | None = typer.Argument(None, help="C file with a PolyBench-style loop nest."),
        einsum: str | None = typer.Option(None, "--einsum", help=EINSUM_HELP),
        extents: str | None = typer.Option(None, "--extents", help=EXTENTS_HELP),
        output: Path | None = typer.Option(None, "-o", "--output", help="Write the YAML here."),
        name: str | None = typer.Option(None, "--name", help="Kernel name (default: from the source)."),
        dtype: str = typer.Option("fp32", "--dtype", help="fp32, fp16, int32 or int8."),
    ) -> None:
        """Derive a PRA from a C loop nest or an einsum; print it as YAML (or write -o FILE)."""
        if dtype not in ("fp32", "fp16", "int32", "int8"):
            raise SpecError(f"--dtype: {dtype!r} is not one of fp32, fp16, int32, int8")
        from polyjoule.frontends.pra_dump import kernel_data
        from polyjoule.reports.files import write_atomic

        k = _derive(source, einsum, extents, name, dtype)
        text = dump_yaml(kernel_data(k))
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomic(output, text)
