"""pydantic's validation errors in the words of a spec file, for every file kind.

Every schema-checked file (array declaration, PRA spec, energy tables, TinyTPU build,
workload spec) reports a failure as one line, ``FILE: field.path: what is wrong (got
VALUE)``, every wrong field on it (``; ``-separated). No pydantic wording reaches a user:
not ``Input should be``, ``Field required``, ``Extra inputs are not permitted``, nor the
class names pydantic puts into the path of a union (``access_pj.DR._Entry.value``).

The schema is walked along each error's path, so an unknown field lists the known ones,
a section given as a number says which keys it takes, and the alternatives of a union
(``3.5`` or ``{value: 3.5, source: "..."}``) make one message instead of one per branch.
"""

from __future__ import annotations

import reprlib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from polyjoule.errors import SpecError

#: pydantic's error types in a spec file's words (``{...}`` from the error's context)
WORDS = {
    "greater_than_equal": "must be at least {ge:,}", "greater_than": "must be greater than {gt:,}",
    "less_than_equal": "must be at most {le:,}", "less_than": "must be less than {lt:,}",
    "multiple_of": "must be a multiple of {multiple_of}",
    "finite_number": "must be a finite number", "int_from_float": "must be a whole number",
    "int_parsing": "must be a whole number", "int_type": "must be a whole number",
    "int_parsing_size": "must be a whole number of at most 64 bits",
    "float_parsing": "must be a number", "float_type": "must be a number",
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "string_type": "must be a text", "list_type": "must be a list",
    "tuple_type": "must be a list", "dict_type": "must be a mapping",
    "literal_error": "must be {expected}", "enum": "must be {expected}",
    "too_short": "must have at least {min_length} {entries}",
    "too_long": "must have at most {max_length} {entries}",
    "string_too_short": "must have at least {min_length} characters",
    "string_too_long": "must have at most {max_length} characters",
    "missing": "is missing", "empty": "must not be empty",
}
#: what a value of a union's member is, in words (a model: a mapping of its fields)
KINDS = {int: "a whole number", float: "a number", str: "a text", bool: "true or false",
         list: "a list", dict: "a mapping", type(None): "empty"}
MAX_PROBLEMS = 8  # a file wrong everywhere: the first few, then how many more
_short = reprlib.Repr()
_short.maxstring, _short.maxother, _short.maxlist, _short.maxdict = 40, 40, 4, 4


@dataclass(frozen=True)
class _Place:
    """Where an error's path leads in the schema: the user's field path, the annotation
    there, and, inside a union, the union's path and whether the error is below it."""

    path: tuple[str | int, ...]
    annotation: Any
    union: tuple[str | int, ...] | None = None
    options: Any = None  # the union's annotation
    below: bool = False  # the error is inside the member (its field), not the member itself
    key: bool = False  # the error is about a mapping's key, not its value


def spec_error(e: ValidationError, where: str | Path, schema: type[BaseModel],
               docs: str = "", words: Mapping[str, str] | None = None,
               error: type[SpecError] = SpecError, at: str = "") -> SpecError:
    """``e`` as one line naming ``where`` and every wrong field; ``docs`` (a page) is named
    where a field is missing or a section has the wrong shape; ``words`` overrides
    :data:`WORDS` for one file kind (``must be a multiple of 8 bits``); ``at`` is where
    ``schema`` sits in the file (``energy`` of a declaration), in front of every path."""
    lines = problems(e, schema, docs, {**WORDS, **(words or {})}, at)
    if len(lines) > MAX_PROBLEMS:
        lines = [*lines[:MAX_PROBLEMS], f"and {len(lines) - MAX_PROBLEMS} more"]
    return error(f"{where}: " + "; ".join(lines))


def problems(e: ValidationError, schema: type[BaseModel], docs: str = "",
             words: Mapping[str, str] = WORDS, at: str = "") -> list[str]:
    """One ``field.path: what is wrong (got VALUE)`` per problem, in the file's order; the
    failed branches of one union are one problem."""
    found: dict[str, None] = {}
    errs = [(err, _walk(schema, err["loc"], at)) for err in e.errors()]
    missing = [field_path(p.path) for err, p in errs if err["type"] == "missing"]
    unknown: dict[tuple[Any, ...], list[str]] = {}  # per mapping, its unknown fields
    for err, place in errs:
        if err["type"] == "extra_forbidden":
            unknown.setdefault(tuple(err["loc"][:-1]), []).append(field_path(place.path))
    for err, place in errs:
        if err["type"] == "missing":  # all at once: "einsum, dims: are missing (see ...)"
            found[_missing(missing, docs, words)] = None
            continue
        if err["type"] == "extra_forbidden":  # a mapping's unknown fields, the known once
            found[_unknown(unknown[tuple(err["loc"][:-1])], schema, err["loc"][:-1])] = None
            continue
        if place.union is None:
            found[_problem(err, place, schema, docs, words)] = None
            continue
        if not any(p.below for _, p in errs if p.union == place.union):
            found[_alternatives(err, place)] = None  # one message for every branch
        elif place.below:  # the value took a member's shape: what is wrong inside it
            found[_problem(err, place, schema, docs, words)] = None
    return list(found)


def _problem(err: Mapping[str, Any], place: _Place, schema: type[BaseModel], docs: str,
             words: Mapping[str, str]) -> str:
    """One error (not a union's) in the file's words."""
    path = field_path(place.path)
    kind, got = err["type"], err.get("input")
    ctx = {k: int(v) if isinstance(v, float) and v.is_integer() else v  # 0.0 -> 0
           for k, v in err.get("ctx", {}).items()}
    ctx["entries"] = "entry" if 1 in (ctx.get("min_length"), ctx.get("max_length")) else "entries"
    see = f"; see {docs}" if docs else ""
    if kind in ("too_short", "string_too_short") and ctx.get("min_length") == 1:
        kind = "empty"
    if kind in ("value_error", "assertion_error"):
        return f"{path}: {ctx.get('error', err['msg'])}"
    if kind in ("model_type", "model_attributes_type", "dict_type") and not place.key:
        shape = "a mapping" if place.annotation is Any else _kind(place.annotation)
        return f"{path}: must be {shape} (got {_value(got)}{see})"
    said = words.get(kind)
    what = said.format(**ctx) if said is not None else _plain(err["msg"])
    if place.key and kind == "literal_error":
        return f"{path}: unknown key (known: {ctx['expected']})"
    if place.key:
        return f"{path}: the key {what}"
    return f"{path}: {what} (got {_value(got)})"


def _unknown(paths: list[str], schema: type[BaseModel], parent: Any) -> str:
    """A mapping's unknown fields as one problem: ``rows, cols: unknown fields (known: ..)``."""
    known = _fields(_walk(schema, parent).annotation)
    return (f"{', '.join(paths)}: unknown field{'s' if len(paths) > 1 else ''}"
            + (f" (known: {', '.join(known)})" if known else ""))


def _missing(paths: list[str], docs: str, words: Mapping[str, str]) -> str:
    """Every missing field as one problem, the format's page named once."""
    said = words["missing"] if len(paths) == 1 else words["missing"].replace("is ", "are ", 1)
    return f"{', '.join(paths)}: {said}" + (f" (see {docs})" if docs else "")


def _alternatives(err: Mapping[str, Any], place: _Place) -> str:
    """The failed branches of a union as one problem: ``must be a number or a mapping of
    value, source (got 'lots')``."""
    said = _description(place.options)
    if said is None:  # plain values first: "a number or a mapping of value, source"
        members = sorted(_members(_plain_type(place.options)), key=_is_model)
        said = " or ".join(dict.fromkeys(_kind(m) for m in members))
    return f"{field_path(place.path)}: must be {said} (got {_value(err.get('input'))})"


def field_path(path: tuple[str | int, ...]) -> str:
    """``statements[1].when`` from ``("statements", 1, "when")``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _walk(schema: Any, loc: tuple[Any, ...], at: str = "") -> _Place:
    """Follow ``loc`` through ``schema`` (which sits at ``at`` in the file): drop
    pydantic's own parts (union members, validator wrappers, ``[key]``), keep the user's
    field path."""
    ann: Any = schema
    path: list[str | int] = [at] if at else []
    union: tuple[str | int, ...] | None = None
    options: Any = None
    below = key = False
    for part in loc:
        raw, ann = ann, _plain_type(ann)
        if isinstance(part, str) and part.startswith("function-"):
            continue
        if part == "[key]":
            key = True
        elif _is_union(ann):
            union, options, ann = tuple(path), raw, _member(ann, str(part))
        elif _is_model(ann):
            below |= union is not None
            ann = _field_annotation(ann, part)
            path.append(part)
        else:
            below |= union is not None
            ann = _item(ann)
            path.append(part)
    return _Place(tuple(path), _plain_type(ann), union, options, below, key)


def _plain_type(ann: Any) -> Any:
    """``X`` from ``Annotated[X, ...]`` and from ``X | None`` (pydantic's nullable)."""
    while True:
        if typing.get_origin(ann) is typing.Annotated:
            ann = typing.get_args(ann)[0]
        elif _is_union(ann) and type(None) in typing.get_args(ann):
            rest = [a for a in typing.get_args(ann) if a is not type(None)]
            if len(rest) != 1:
                return ann
            ann = rest[0]
        else:
            return ann


def _is_union(ann: Any) -> bool:
    return typing.get_origin(ann) in (typing.Union, types.UnionType)


def _is_model(ann: Any) -> bool:
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _members(ann: Any) -> list[Any]:
    return [_plain_type(a) for a in typing.get_args(ann)] if _is_union(ann) else [ann]


def _member(ann: Any, tag: str) -> Any:
    """The member of a union that pydantic names ``tag`` (``_Entry``, ``float``)."""
    for m in _members(ann):
        if getattr(m, "__name__", None) == tag:
            return m
    return Any


def _field_annotation(model: type[BaseModel], name: Any) -> Any:
    """The annotation of ``model``'s field ``name`` (by name or alias), or ``Any``; a
    field's description stays with it (``Annotated``) for :func:`_description`."""
    for fname, f in model.model_fields.items():
        if name in (fname, f.alias):
            return typing.Annotated[f.annotation, f] if f.description else f.annotation
    return Any


def _description(ann: Any) -> str | None:
    """What a value of ``ann`` is, as its schema says (``Field(description=...)``)."""
    if typing.get_origin(ann) is typing.Annotated:
        for meta in typing.get_args(ann)[1:]:
            if getattr(meta, "description", None):
                return str(meta.description)
    return None


def _item(ann: Any) -> Any:
    """What a key (of a mapping) or an index (of a list) of ``ann`` leads to."""
    args = typing.get_args(ann)
    origin = typing.get_origin(ann)
    if origin in (dict, Mapping) and len(args) == 2:
        return args[1]
    if origin in (list, tuple, set, frozenset) and args:
        return args[0]
    return Any


def _fields(ann: Any) -> list[str]:
    """The keys a model takes, as a file spells them (aliases: ``from``)."""
    if not _is_model(ann):
        return []
    return [f.alias or name for name, f in ann.model_fields.items()]


def _kind(ann: Any) -> str:
    """What a value of ``ann`` is, in words."""
    ann = _plain_type(ann)
    if _is_model(ann):
        return f"a mapping of {', '.join(_fields(ann))}"
    if typing.get_origin(ann) is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(ann))
    return KINDS.get(typing.get_origin(ann) or ann, "a value of another kind")


def _value(x: Any) -> str:
    """A user's value, short: a long text or a big mapping is cut with ``...``."""
    return _short.repr(x)


def _plain(msg: str) -> str:
    """A pydantic message with no error code of ours: lower-cased, ``Input should`` made
    ``must``."""
    msg = msg.replace("Input should be", "must be").replace("Input should", "must")
    return msg[:1].lower() + msg[1:]
