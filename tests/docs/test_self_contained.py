"""The repository stands alone: a user who clones it gets the rules it implements and every document it points to.
Nothing tracked may send the reader outside it (the rulebooks the project was written from are not part of a clone),
and every relative link between the Markdown documents must lead to a file of the clone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared/|\b(?:RULES|CONTRACT|BOARD)\.md\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tracked() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in names.decode().split("\0") if name and (ROOT / name).is_file()]


def test_no_tracked_file_points_outside_the_repository() -> None:
    found = []
    for path in tracked():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1)
                  if OUTSIDE.search(line)]
    assert not found, "\n".join(found)


def test_the_rules_and_the_contract_are_in_the_repository() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text()
    for section in range(1, 15):  # the code cites them by number ("RULES 13", "docs/rules.md section 13")
        assert re.search(rf"^## {section}\. ", rules, re.M), section
    assert rules.count("**ruling**") + rules.count("(**ruling**)") >= 10
    contract = (ROOT / "docs" / "rules-contract.md").read_text()
    for name in ("new_game", "legal_actions", "apply", "IllegalAction", "from_position", "view", "keep_card",
                 "move_king"):
        assert f"{name}" in contract, name


def test_relative_links_between_documents_resolve() -> None:
    broken = []
    for path in tracked():
        if path.suffix != ".md":
            continue
        for target in LINK.findall(path.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not broken, "\n".join(broken)
