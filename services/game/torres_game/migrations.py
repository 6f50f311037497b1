"""Discovery of the numbered SQL migrations in ``infra/migrations/<backend>/``, and of the definitions in
``infra/migrations/<backend>/definitions/``.

Each backend applies them itself (its dialect decides how to run a script atomically); this
module only decides *which* files exist and in what order, so both backends agree on numbering.

A numbered migration runs once, and is never edited after: the store records each applied file's SHA-256 and
refuses to migrate or to report ready while an applied file's text differs from what was applied (as Flyway's
checksums do), because the database would silently not match the schema its files describe.

A definition (Flyway's "repeatable migration") is the one home of a database object that changes in place, a
function such as ``torres_append``: applied after the numbered migrations whenever its text differs from the text
last applied, so that a change to it is an edit of one file, not one more copy of the whole function in a new
migration.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    sql: str

    @property
    def digest(self) -> str:
        """What the store records of an applied migration, and compares the file with ever after."""
        return hashlib.sha256(self.sql.encode()).hexdigest()


class MigrationEdited(RuntimeError):
    """An applied migration's file no longer has the text that was applied."""


def check_applied(found: list[Migration], recorded: dict[int, str | None]) -> None:
    """Raise :class:`MigrationEdited` for the first applied migration whose recorded digest differs from its file.
    A digest of None (applied before digests were recorded) is taken as it is: the store records it then."""
    for migration in found:
        digest = recorded.get(migration.number)
        if digest is not None and digest != migration.digest:
            raise MigrationEdited(
                f"migration {migration.number:04d}_{migration.name}.sql was edited after it was applied "
                f"(applied {digest[:12]}, file {migration.digest[:12]}): restore it and add a new migration")


def discover(migrations_dir: Path, backend: str) -> list[Migration]:
    """All migrations for ``backend``, ascending; a gap or duplicate number is a packaging error."""
    folder = migrations_dir / backend
    if not folder.is_dir():
        raise FileNotFoundError(f"no migrations for {backend} in {folder}")
    found: list[Migration] = []
    for path in sorted(folder.iterdir()):
        match = _NAME.match(path.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), path.read_text("utf-8")))
    numbers = [m.number for m in found]
    if numbers != list(range(1, len(found) + 1)):
        raise ValueError(f"migrations in {folder} must be numbered 0001.. without gaps: {numbers}")
    return found


@dataclass(frozen=True)
class Definition:
    name: str
    sql: str

    @property
    def digest(self) -> str:
        """What the store records of an applied definition: a changed text is applied again."""
        return hashlib.sha256(self.sql.encode()).hexdigest()


def definitions(migrations_dir: Path, backend: str) -> list[Definition]:
    """The definitions of ``backend``, by file name (none when the folder is absent)."""
    folder = migrations_dir / backend / "definitions"
    if not folder.is_dir():
        return []
    return [Definition(path.stem, path.read_text("utf-8")) for path in sorted(folder.glob("*.sql"))]
