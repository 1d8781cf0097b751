"""Every error polyjoule raises on bad input, in one place.

Only the CLI catches these: it prints one line (``polyjoule: error: ...``) and exits 2.
Library code raises; it never prints or exits. Internal invariants use ``assert``.
"""

from __future__ import annotations


class PolyjouleError(Exception):
    """Base of every user-facing error: bad input, refused request, missing extra."""

    exit_code = 2


class SpecError(PolyjouleError):
    """A spec file or value is malformed; the message names the file and the field."""


class NotAffineError(SpecError):
    """A bound, subscript or condition is not affine in the loop indices and parameters."""


class NotUniformError(SpecError):
    """A loop nest cannot be made uniform (a PRA) by localisation."""


class UnknownNameError(SpecError):
    """An unknown kernel, workload, rank, parameter or energy-table key."""


class ParameterRangeError(PolyjouleError):
    """Parameter values outside the domain a formula was derived for (never a silent 0)."""


class InfeasibleMapping(PolyjouleError):
    """The mapping cannot be realised: tile too small for a dependence, too many tiles, ..."""


class InfeasibleSchedule(PolyjouleError):
    """No schedule satisfies the request (e.g. a scanning order that violates a dependence)."""


class ResourceLimitError(PolyjouleError):
    """A request too large for a bounded resource (simulator memory, cache, ...)."""


class MissingExtraError(PolyjouleError):
    """An optional dependency is not installed; the message says which extra to install."""


class ValidationMismatch(PolyjouleError):
    """Two independent computations disagree (symbolic vs simulated, program vs numpy)."""

    exit_code = 1


# --- moved here from the modules that raised them (rules branch) --------------------------


class SchedulerUnreachable(PolyjouleError):
    """The Dask scheduler address does not answer (exit 2, one line)."""


class InProgramFile(PolyjouleError):
    """A library error re-raised with the program file's name in front (same exit code)."""

    def __init__(self, path: object, err: PolyjouleError):
        text = str(err)
        super().__init__(text if text.startswith(str(path)) else f"{path}: {text}")
        self.exit_code = err.exit_code


class ReaderGone(Exception):  # noqa: N818 - not an error: the run's reader left
    """The reader of standard output closed it (``| head``): the run ends quietly, 141."""


class NotSymbolic(Exception):
    """Internal control flow, not a user error: the symbolic-tile rewrite does not apply.

    :mod:`polyjoule.analysis.counts` raises it and its callers fall back to fixed tiles; it
    never reaches the CLI, so it is deliberately not a :class:`PolyjouleError`. It lives here
    only so that every exception class of the package is in one file.
    """


class OutputPathError(PolyjouleError):
    """An output file cannot be written where asked (no such folder, a directory, ...)."""


# --- TinyTPU-isa builds and judge ---------------------------------------------------


class BuildFileError(SpecError):
    """A build file (``--machine``) that cannot be read or names a parameter out of range."""


class BuildMismatchError(SpecError):
    """A program file made for one build handed to a tool running another."""


class WorkloadSpecError(SpecError):
    """A workload spec JSON (judge corpus) that breaks the spec format; names file and key."""


# --- TOSA front end -------------------------------------------------------------------
# Why the TOSA front end refused something, a class per cause (ACT's taxonomy, §13):
# every refusal names the operation; nothing is approximated.


class TosaFrontendError(PolyjouleError):
    """Base of the TOSA front end's errors (ACT: ``ACTError``)."""


class MlirParseError(TosaFrontendError):
    """The input is not MLIR the bindings can parse, or holds no function."""


class ModelLoadError(TosaFrontendError):
    """``model.py:Module`` cannot be loaded, built or exported to TOSA."""


class CompileError(TosaFrontendError):
    """The program is valid TOSA but cannot become a workload (ACT: ``CompileError``)."""


class NoMatchError(CompileError):
    """Stage 1: an operation (or the program's shape) is not in the workload grammar."""


class ShapeError(CompileError):
    """Stage 2: extents disagree between terms, or a matmul has a non-unit batch."""


class DTypeError(CompileError):
    """Stage 2: an element type the recogniser cannot read (e.g. unsigned or 1-bit bounds)."""


class LayoutError(CompileError):
    """Stage 2: a reshape/transpose chain does not leave a plain (or transposed) matrix."""


class QuantizationError(CompileError):
    """A zero-point or shift is non-zero or unknown (only symmetric, unshifted is mapped)."""


# --- search and TinyTPU-isa ------------------------------------------------------------
# ``Kind`` lives here, not in ``polyjoule.search``, because ``Refused`` needs it for its
# default and this module imports nothing from polyjoule (``search.nest`` re-exports both).

from collections.abc import Iterable, Mapping  # noqa: E402 - this block's own imports
from enum import StrEnum  # noqa: E402


class Kind(StrEnum):
    """Why a cause refuses: the encoding cannot say it, or only a checker stops it."""

    EXPRESS = "express"  # the instruction word has no field/room for what the nest asks
    REFUSE = "refuse"  # the machine would accept it and compute wrongly or hang


class Refused(Exception):  # noqa: N818 - the domain's word
    """A nest a target cannot lower; ``also`` lists every cause, ``cause`` first.

    Not bad input: a signal from a target to the search, which censuses it. It never
    reaches the CLI, so it is not a :class:`PolyjouleError`.
    """

    def __init__(self, cause: str, detail: str, also: Iterable[str] = (),
                 kinds: Mapping[str, Kind] | None = None) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
        self.also: tuple[str, ...] = tuple(dict.fromkeys((cause, *also)))
        self._kinds = kinds or {}

    @property
    def kinds(self) -> dict[str, Kind]:
        """Kind of every cause in ``also`` (express unless the target says otherwise)."""
        return {c: self.kind(c) for c in self.also}

    def kind(self, cause: str | None = None) -> Kind:
        return self._kinds.get(cause or self.cause, Kind.EXPRESS)


class MachineError(PolyjouleError):
    """An issue names an opcode the machine (as data) does not declare."""


class StepError(PolyjouleError):
    """Steps with repeated indices (not a program order)."""


class EncodingError(SpecError):
    """A value does not fit its encoding field (spare-bit rule) or the AGU term budget."""

    rule = "enc.field_range"

    def __init__(self, message: str, field_name: str = "", rule: str = "enc.field_range"):
        super().__init__(message)
        self.field_name = field_name
        self.rule = rule


class NestError(InfeasibleMapping):
    """The generator cannot emit what was asked; ``code`` names the budget (or None)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class ProgramFileError(SpecError):
    """A program file that cannot be read: bad syntax, unknown mnemonic, truncated image."""


class ProgramError(PolyjouleError):
    """A program the machine would run wrongly or hang on (``check_program``)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class AssemblyError(PolyjouleError):
    """A legal program that does not fit the encoding limits (``assemble``)."""

    def __init__(self, rule: str, message: str):
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


# --- TinyTPU-isa energy (targets/tinytpu/energy.py)


class EnergyTableError(SpecError):
    """A unit-energy table file that cannot be used: unknown entry, non-positive value, ..."""


# --- robustness: input limits and malformed bytes (issue 14) ---------------------------


class InputLimitError(SpecError):
    """An input past a size or nesting limit (file bytes, YAML depth, expression length)."""


class UndecodableInput(SpecError):
    """A text input whose bytes are not UTF-8; the message names the file and the byte."""


class DuplicateKeyError(SpecError):
    """A key given twice (YAML mapping, ``--set``, a mapper shape): never last-one-wins."""


# --- C sources (frontends/cpre.py) ---------------------------------------------------------


class CIncludeError(SpecError):
    """A ``#include`` of a C source that no include folder (``-I``) holds."""


class CRunError(SpecError):
    """A C construct the C reference (``frontends/crun.py``) does not run, or a run that
    fails (an index out of range, a size with no value)."""


# --- PRA conditions: alternatives in `when:` (model/affine.py parse_when, model/pra.py) ------


class ConditionError(SpecError):
    """A ``when:`` that is no condition: a malformed or empty list of alternatives, too many
    alternatives once expanded, or a union isl cannot split into plain conjunctions."""


# --- plots of sweeps (reports/plots*.py) ---------------------------------------------------


class PlotSelectionError(SpecError):
    """A plot the selected points cannot make readably: several mappings where one is drawn,
    more problem sizes than panels; the message says which ``--where`` narrows it."""


class EmptySelectionError(PlotSelectionError):
    """A ``--where`` filter that matches no design point; the message lists the values there are."""


# --- robustness: exact outputs, JSON, temporary files (issue 14, reports/ and dse/sweep) ----


class NonFiniteValueError(PolyjouleError):
    """A NaN or infinite number about to be written as JSON (not valid JSON): the message
    names the field. Only input values (an energy so large that a product overflows) lead
    there, so it is bad input (exit 2)."""
