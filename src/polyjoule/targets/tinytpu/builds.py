"""Builds as data: named TinyTPU-isa builds shipped as YAML files, and build records.

A build file names any :class:`Config` field (T, MAXDIM, QD, DMA_WORDS, IMEM_SIZE,
LOOP_DEPTH, AGU_TERMS, AR_RAW_DIST, MAXROWS, SPAD_ROWS, NVR, NAR); omitted ones take
the sheet's defaults. ``--machine`` takes a shipped name or a path. A program file
carries a one-line build record so a tool running another build refuses it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, StrictInt, ValidationError

from polyjoule.errors import BuildFileError, BuildMismatchError, SpecError
from polyjoule.targets.tinytpu.params import Config

#: the build every command uses unless told otherwise: the published mapper build
DEFAULT_NAME = "maxdim16"
#: build-file key -> Config field (memory depths are lower-case fields of Config)
_FIELDS = {f.name.upper(): f.name for f in dataclasses.fields(Config)}


class BuildSpec(BaseModel):
    """The schema of a build file: every key optional, no unknown key, integers only."""

    model_config = ConfigDict(extra="forbid")
    description: str = ""
    T: StrictInt | None = None
    MAXDIM: StrictInt | None = None
    QD: StrictInt | None = None
    DMA_WORDS: StrictInt | None = None
    IMEM_SIZE: StrictInt | None = None
    LOOP_DEPTH: StrictInt | None = None
    AGU_TERMS: StrictInt | None = None
    AR_RAW_DIST: StrictInt | None = None
    MAXROWS: StrictInt | None = None
    SPAD_ROWS: StrictInt | None = None
    NVR: StrictInt | None = None
    NAR: StrictInt | None = None

    def config(self) -> Config:
        kwargs = {_FIELDS[k]: v for k, v in self.model_dump().items()
                  if k != "description" and v is not None}
        return Config(**kwargs)


@dataclasses.dataclass(frozen=True)
class Build:
    """A named build: where it came from and its :class:`Config`."""

    name: str
    cfg: Config
    description: str = ""

    def header(self) -> str:
        """The line every command prints first, so a figure always says its build."""
        c = self.cfg
        return (f"build {self.name}: T={c.T} MAXDIM={c.MAXDIM} QD={c.QD} "
                f"DMA_WORDS={c.DMA_WORDS} IMEM_SIZE={c.IMEM_SIZE} LOOP_DEPTH={c.LOOP_DEPTH} "
                f"AGU_TERMS={c.AGU_TERMS}")


def _data() -> resources.abc.Traversable:
    return resources.files("polyjoule.library") / "data" / "builds"


def shipped() -> list[str]:
    """Names of the builds shipped with the package, sorted."""
    return sorted(p.name[:-5] for p in _data().iterdir() if p.name.endswith(".yaml"))


def parse_build(text: str, where: str) -> Build:
    """A build from YAML text; errors name ``where`` and the field."""
    from polyjoule.errors import SpecError
    from polyjoule.frontends.specfile import load_yaml

    try:
        doc = load_yaml(text, where)
    except SpecError as e:
        raise BuildFileError(str(e)) from None
    if not isinstance(doc, dict):
        raise BuildFileError(f"{where}: a build file is a mapping of parameter: value")
    try:
        spec = BuildSpec.model_validate(doc)
    except ValidationError as e:
        from polyjoule.frontends.specerrors import spec_error

        raise spec_error(e, where, BuildSpec, "docs/tinytpu.md", error=BuildFileError) from None
    try:
        cfg = spec.config()
    except SpecError as e:
        raise BuildFileError(f"{where}: {e}") from None
    return Build(Path(where).stem, cfg, spec.description)


@functools.cache
def _shipped(name: str) -> Build:
    return parse_build((_data() / f"{name}.yaml").read_text(), f"{name}.yaml")


def load(name_or_path: str | Path | None = None) -> Build:
    """A shipped build by name, or a build file by path (``None``: the default build)."""
    text_name = str(name_or_path) if name_or_path is not None else DEFAULT_NAME
    if text_name in shipped():
        return _shipped(text_name)
    path = Path(text_name)
    if not path.suffix and not path.exists():
        raise BuildFileError(f"--machine: {text_name!r} is neither a shipped build "
                             f"({', '.join(shipped())}) nor a file")
    from polyjoule.errors import SpecError
    from polyjoule.frontends.specfile import read_text

    try:
        text = read_text(path)
    except SpecError as e:
        raise BuildFileError(str(e)) from None
    return parse_build(text, str(path))


def with_overrides(build: Build, overrides: dict[str, int]) -> Build:
    """``build`` with some parameters replaced (``--config NAME=VALUE``); renamed if changed."""
    if not overrides:
        return build
    kwargs = {}
    for key, value in overrides.items():
        if key.upper() not in _FIELDS:
            raise SpecError(f"--config: {key}: not a build parameter ({', '.join(_FIELDS)})")
        kwargs[_FIELDS[key.upper()]] = value
    try:
        cfg = dataclasses.replace(build.cfg, **kwargs)
    except SpecError as e:
        raise SpecError(f"--config: {e}") from None
    return Build(name_of(cfg) or f"{build.name}+" + ",".join(f"{k}={v}" for k, v in
                                                           overrides.items()), cfg)


def name_of(cfg: Config) -> str | None:
    """The shipped build equal to ``cfg``, if any."""
    for name in shipped():
        if _shipped(name).cfg == cfg:
            return name
    return None


# --- the build record a program file carries --------------------------------------

_RECORD = re.compile(r"^#\s*polyjoule:\s*build\s+(\S+)((?:\s+\w+=-?\d+)*)\s*$", re.M)


def record(build: Build) -> str:
    """The comment line naming the build a program was made for (every parameter)."""
    c = build.cfg
    params = " ".join(f"{k}={getattr(c, k)}" for k in
                      ("T", "MAXDIM", "QD", "DMA_WORDS", "IMEM_SIZE", "LOOP_DEPTH",
                       "AGU_TERMS", "AR_RAW_DIST", "MAXROWS", "SPAD_ROWS", "NVR", "NAR"))
    return f"# polyjoule: build {build.name} {params}"


def recorded(text: str, where: str) -> Build | None:
    """The build a program file records, or None for a file without a record."""
    m = _RECORD.search(text)
    if m is None:
        return None
    kwargs = {}
    for item in m.group(2).split():
        key, value = item.split("=")
        if key.upper() not in _FIELDS:
            raise BuildFileError(f"{where}: build record: {key}: not a build parameter")
        kwargs[_FIELDS[key.upper()]] = int(value)
    try:
        return Build(m.group(1), Config(**kwargs))
    except SpecError as e:
        raise BuildFileError(f"{where}: build record: {e}") from None


def require_same(path: str | Path, build: Build) -> None:
    """Refuse a program file recorded for another build than the one the tool runs."""
    try:
        text = Path(path).read_text().removeprefix("\ufeff")  # a byte-order mark
    except (OSError, UnicodeDecodeError):
        return  # load_program reports unreadable files with their own message
    made = recorded(text, str(path))
    if made is None or made.cfg.describe() == build.cfg.describe():
        return
    diff = [f"{k}={getattr(made.cfg, k)} (tool: {getattr(build.cfg, k)})"
            for k in ("T", "MAXDIM", "QD", "DMA_WORDS", "IMEM_SIZE", "LOOP_DEPTH",
                      "AGU_TERMS", "AR_RAW_DIST", "MAXROWS", "SPAD_ROWS", "NVR", "NAR")
            if getattr(made.cfg, k) != getattr(build.cfg, k)]
    hint = (f"--machine {made.name}" if made.name in shipped() else
            "a build file (--machine FILE.yaml) with " + " ".join(d.split(" ")[0] for d in diff))
    raise BuildMismatchError(f"{path}: build: made for build {made.name} ({', '.join(diff)}); "
                             f"this tool runs build {build.name}: pass {hint}")
