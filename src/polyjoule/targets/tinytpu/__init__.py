"""TinyTPU-isa toolchain: machine parameters, encoding, assembler and checker,
numpy reference model, cycle model and reference programs.

Facts: ``shared/specs/tinytpu-isa.md`` (newer revision, with ``vaddrelu``).
Modules: ``params`` (the build), ``isa`` (opcode table, encoding), ``assembler``
(expand, fetches, check_program, header, assemble, admit: the one gate), ``refmodel``,
``cycles``, ``programs``, ``disasm``, ``asmfile`` (file formats).
"""

from polyjoule.targets.tinytpu.params import DEFAULT, Config

__all__ = ["DEFAULT", "Config"]
