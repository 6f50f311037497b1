"""Every process's configuration, declared once: a setting's environment variable, type, default and meaning.

Why: each service used to parse its environment by hand (three parsers, four prefixes), writing every default
twice -- once on the dataclass, once as a string in ``from_env`` -- and the docs a third time, by hand, so they
drifted. Here a :class:`Setting` names the variable and says what it means; the type and the default are the
dataclass field's (``field(default=16, metadata=setting("DB_POOL_MAX", "…"))``), or the setting's own for a
value read outside a dataclass (``PORT = Setting("PORT", "…", default=8000)``). :func:`values` reads a
dataclass's settings from an environment, so a ``from_env`` is one line, and :func:`markdown` prints the table of
every setting of every process that ``docs/settings.md`` holds (``python -m torres_service.settings --markdown``;
a test fails when the two differ).

The rules, the same for every variable: an unset variable means the default. ``int``, ``float`` and ``bool``
values that are empty also mean the default (a manifest's ``VALUE: ""``), a string's empty value is a value (an
empty ``TORRES_RATELIMIT_EXEMPT`` exempts nobody). A flag is ``1``/``true``/``yes``/``on`` or
``0``/``false``/``no``/``off``; a tuple is comma- or space-separated. A value that does not parse stops the
process with the variable named (``DB_POOL_MAX='x' is not an integer``) rather than a bare ``ValueError``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The key of a dataclass field's metadata that holds its :class:`Setting`.
KEY = "torres_setting"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_SPLIT = re.compile(r"[,\s]+")


class SettingError(ValueError):
    """A variable's value does not parse; the message names the variable and what was expected."""


def _int(raw: str) -> int:
    try:
        return int(raw.strip())
    except ValueError:
        raise ValueError("is not an integer") from None


def _float(raw: str) -> float:
    try:
        return float(raw.strip())
    except ValueError:
        raise ValueError("is not a number") from None


def _bool(raw: str) -> bool:
    word = raw.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise ValueError("is not a flag (1/0, true/false, yes/no, on/off)")


def items(raw: str) -> list[str]:
    """The comma- or space-separated items of a value, empty ones dropped."""
    return [item for item in _SPLIT.split(raw) if item]


#: A parser per scalar type; a ``ValueError``'s message says what the value is not.
PARSERS: dict[type, Callable[[str], Any]] = {str: str, int: _int, float: _float, bool: _bool, Path: Path}
#: Types whose empty value counts as unset (it could not parse, and a flag's empty value is ambiguous).
_EMPTY_IS_UNSET = (int, float, bool)
#: What :meth:`Setting.value` returns for a variable that is not set (None may be a value).
_UNSET: Any = object()


def parser_for(kind: Any) -> Callable[[str], Any]:
    """The parser of a type annotation: a scalar of :data:`PARSERS`, or ``tuple[X, ...]`` of one."""
    if typing.get_origin(kind) is tuple:
        element = PARSERS[typing.get_args(kind)[0]]
        return lambda raw: tuple(element(item) for item in items(raw))
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:  # X | None: the X
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
    return PARSERS[kind]


@dataclass(frozen=True)
class Setting:
    """One environment variable: its name, a one-line meaning, and, when it is not a dataclass field's, its
    default (whose type is the value's type, unless ``kind`` says otherwise).

    ``also`` are older or broader variables read, in order, when this one is unset or empty
    (``GAME_SERVICE_API_KEY``, then ``TORRES_API_KEY``); ``parse`` replaces the type's parser (a
    ``ValueError``'s message completes "VAR='value' …"); ``shown`` is the default as the table shows it, where
    the value is computed (a path of the checkout, another variable)."""

    var: str
    doc: str
    default: Any = None
    kind: Any = None
    also: tuple[str, ...] = ()
    parse: Callable[[str], Any] | None = None
    shown: str | None = None

    def raw(self, env: Mapping[str, str]) -> str | None:
        """The variable's text in ``env`` (its first ``also`` that is set and not empty when it is not), or
        None: unset."""
        for var in (self.var, *self.also):
            value = env.get(var)
            if value is not None and (value != "" or (var == self.var and not self.also)):
                return value
        return None

    def value(self, env: Mapping[str, str], kind: Any = None) -> Any:
        """The parsed value, or ``_UNSET`` when the variable (and its ``also``) are unset."""
        kind = kind if kind is not None else self.type
        raw = self.raw(env)
        if raw is None or (raw.strip() == "" and kind in _EMPTY_IS_UNSET):
            return _UNSET
        try:
            return (self.parse or parser_for(kind))(raw)
        except (ValueError, TypeError) as exc:
            raise SettingError(f"{self.var}={raw!r} {exc}") from None

    def read(self, env: Mapping[str, str] | None = None) -> Any:
        """This setting's value in ``env`` (default: the process's environment), else its default."""
        value = self.value(os.environ if env is None else env)
        return self.default if value is _UNSET else value

    @property
    def type(self) -> Any:
        return self.kind if self.kind is not None else type(self.default)

    def field(self, **kwargs: Any) -> Any:
        """A dataclass field for this shared setting, its default this setting's: a variable read by several
        processes (``TORRES_TENANTS_FILE``) is declared once, where its meaning lives."""
        return dataclasses.field(default=self.default, metadata={KEY: self}, **kwargs)


def setting(var: str, doc: str, **kwargs: Any) -> dict[str, Setting]:
    """A dataclass field's metadata: ``field(default=16, metadata=setting("DB_POOL_MAX", "…"))``."""
    return {KEY: Setting(var, doc, **kwargs)}


def fields_of(cls: type, settings: Mapping[str, Setting] | None = None,
              ) -> Iterator[tuple[dataclasses.Field[Any], Setting, Any]]:
    """A dataclass's fields that are settings, with their resolved type annotation: those whose metadata holds
    one, or those ``settings`` names (a class whose fields stay plain declares its variables beside it)."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        s = settings.get(f.name) if settings is not None else f.metadata.get(KEY)
        if s is not None:
            yield f, s, hints[f.name]


def values(cls: type, env: Mapping[str, str] | None = None,
           settings: Mapping[str, Setting] | None = None) -> dict[str, Any]:
    """The fields of ``cls`` whose variables are set in ``env`` (default: the process's environment), parsed:
    the keyword arguments of ``cls(...)``, whose own defaults fill the rest, so no default is written twice.
    ``settings``: the fields' settings when they are not in the fields' metadata (see :func:`fields_of`)."""
    env = os.environ if env is None else env
    out: dict[str, Any] = {}
    for f, s, kind in fields_of(cls, settings):
        value = s.value(env, kind)
        if value is not _UNSET:
            out[f.name] = value
    return out


def default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


# -- the table ----------------------------------------------------------------------------------------------------

#: The entry-point group in which each component declares the processes it runs, one entry a process
#: (``game = "torres_game.config:PROCESS"`` in its pyproject) naming a :class:`Process`. This package names none of
#: the components that use it: a process is in the table when the component that declares it is installed (the AI
#: worker is optional), and the test that compares the table with docs/settings.md runs where all of them are.
GROUP = "torres_service.settings"


@dataclass(frozen=True)
class Process:
    """One process as its component declares it: what runs it (words for the table's readers) and the settings it
    reads, each a :class:`Setting`, a dataclass whose fields carry them, :class:`Fields`, or a collection of them."""

    runs: str
    settings: tuple[Any, ...]


@dataclass(frozen=True)
class Fields:
    """A dataclass whose fields stay plain, with the mapping of field names to their settings that stands beside
    it (see :func:`fields_of`)."""

    cls: type
    settings: Mapping[str, Setting]


def processes() -> dict[str, Process]:
    """Every installed component's processes, by name, in the order of the names."""
    found = sorted(importlib.metadata.entry_points(group=GROUP), key=lambda entry: entry.name)
    return {entry.name: entry.load() for entry in found}


@dataclass
class Row:
    var: str
    processes: list[str]
    kind: str
    default: str
    doc: str


def declared(obj: Any) -> Iterator[tuple[Setting, Any, Any]]:
    """(setting, type, default) of each setting of what a process declares: a :class:`Setting`, a dataclass (its
    fields with a :class:`Setting`), :class:`Fields`, or a collection of them (a mapping: its values)."""
    if isinstance(obj, Setting):
        yield obj, obj.type, obj.default
    elif isinstance(obj, Fields):
        for f, s, kind in fields_of(obj.cls, obj.settings):
            yield s, kind, default_of(f)
    elif dataclasses.is_dataclass(obj) and isinstance(obj, type):
        for f, s, kind in fields_of(obj):
            yield s, kind, default_of(f)
    else:
        for item in obj.values() if isinstance(obj, Mapping) else obj:
            yield from declared(item)


def _type_name(kind: Any) -> str:
    if typing.get_origin(kind) is tuple:
        return f"list of {_type_name(typing.get_args(kind)[0])}"
    if isinstance(kind, types.UnionType):
        return " or ".join(_type_name(arg) for arg in typing.get_args(kind) if arg is not type(None))
    return {str: "string", int: "integer", float: "number", bool: "flag", Path: "path"}.get(kind, str(kind))


def show(value: Any) -> str:
    """A default as the table shows it (the way it would be written in the variable)."""
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, float):
        return f"`{int(value) if value.is_integer() else value}`"
    if isinstance(value, tuple):
        return f"`{','.join(str(show(v)).strip('`') for v in value)}`" if value else "(empty)"
    if value == "" or value is None:
        return "(empty)"
    return f"`{value}`"


def rows(declarations: Mapping[str, Process] | None = None) -> list[Row]:
    """One row per variable, sorted by name; a variable several processes read is one row naming them all.

    A variable declared twice with different defaults or types is an error, not a row: that is the drift the
    single declaration is there to prevent."""
    by_var: dict[str, Row] = {}
    for process, declaration in (processes() if declarations is None else declarations).items():
        for s, kind, default in declared(declaration.settings):
            row = Row(s.var, [process], _type_name(kind), s.shown or show(default),
                      s.doc + (f" (also read: {', '.join(f'`{v}`' for v in s.also)})" if s.also else ""))
            seen = by_var.setdefault(s.var, row)
            if seen is not row:
                if (seen.kind, seen.default) != (row.kind, row.default):
                    raise SettingError(f"{s.var} is declared twice with different types or defaults: "
                                       f"{seen.kind} {seen.default} ({seen.processes}) and {row.kind} "
                                       f"{row.default} ({process})")
                if process not in seen.processes:
                    seen.processes.append(process)
    return sorted(by_var.values(), key=lambda row: row.var)


def _fill(text: str, width: int = 108) -> list[str]:
    """``text`` in lines of at most ``width`` characters, never breaking inside a code span."""
    lines: list[str] = []
    for word in re.findall(r"(?:`[^`]*`|[^\s`])+", text):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def markdown(declarations: Mapping[str, Process] | None = None) -> str:
    """docs/settings.md: the table of every setting of every process, generated from the declarations."""
    declarations = processes() if declarations is None else declarations
    named = ", ".join(f"`{name}` ({process.runs})" for name, process in declarations.items())
    lines = [
        "# Settings",
        "",
        "<!-- Generated by `python -m torres_service.settings --markdown > docs/settings.md`; do not edit by hand:",
        "     tests/common/test_settings.py fails when this file differs from the declarations. -->",
        "",
        "Every process reads its configuration from environment variables, each declared once, beside the code",
        "that uses it (the mechanism: `torres_service/settings.py`). An unset variable means the default; an",
        "empty number or flag also does.",
        "A flag is `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`; a list is comma- or space-separated. A value",
        "that does not parse stops the process at start with the variable named "
        "(`DB_POOL_MAX='x' is not an integer`).",
        *_fill(f"Processes: {named}. One variable is not here: `TORRES_RULES_PURE=1` runs the rules engine's "
               "pure-Python modules instead of the compiled ones (for debugging), read by `torres_rules` itself, "
               "which depends on nothing."),
        "",
        "| variable | process | type | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for row in rows(declarations):
        doc = row.doc.replace("|", "\\|")
        lines.append(f"| `{row.var}` | {', '.join(row.processes)} | {row.kind} | {row.default} | {doc} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m torres_service.settings", description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print the table of every setting (docs/settings.md)")
    args = parser.parse_args(argv)
    if not args.markdown:
        parser.print_help()
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":  # run as the package's module, so that the services' Setting is this one's class
    from torres_service import settings as _module

    sys.exit(_module.main())
