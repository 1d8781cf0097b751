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
