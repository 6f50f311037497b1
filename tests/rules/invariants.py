"""The invariants of docs/rules.md section 2, re-derived from position JSON alone (independent of engine internals),
so that property tests check the engine against a second implementation rather than against itself."""

from __future__ import annotations

from typing import Any

COLUMNS = "ABCDEFGH"


def _xy(name: str) -> tuple[int, int]:
    return COLUMNS.index(name[0]), int(name[1:]) - 1


def castles_of(heights: dict[str, int]) -> dict[str, int]:
    """Castle label per castle square, by flood fill over orthogonal neighbours."""
    squares = {_xy(n) for n, h in heights.items() if h > 0}
    label: dict[tuple[int, int], int] = {}
    for start in sorted(squares):
        if start in label:
            continue
        label[start] = len(set(label.values()))
        todo = [start]
        while todo:
            x, y = todo.pop()
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if (nx, ny) in squares and (nx, ny) not in label:
                    label[(nx, ny)] = label[start]
                    todo.append((nx, ny))
    return {f"{COLUMNS[x]}{y + 1}": c for (x, y), c in label.items()}


def check_position(p: dict[str, Any]) -> None:
    """Section 2, for one position."""
    heights = p["heights"]
    stock = sum(map(sum, p["stacks"])) + sum(p.get("leftover", [0] * p["players"]))
    assert sum(heights.values()) + stock + p["supply"] == 92, "blocks must add up to 92"
    assert p["supply"] >= 0
    labels = castles_of(heights)
    areas: dict[int, int] = {}
    for c in labels.values():
        areas[c] = areas.get(c, 0) + 1
    if not (p["master"] and p["stage"] == "setup"):
        assert len(areas) >= 6, f"never fewer than 6 castles, got {len(areas)}"
    for sq, h in heights.items():
        assert h <= areas[labels[sq]], f"stack on {sq} higher than its base area"
    knights = p["knights"]
    assert p["king"] is None or p["king"] not in knights, "king shares a square with a knight"
    for seat in range(p["players"]):
        assert list(knights.values()).count(seat) <= 6
    if p["stage"] != "setup":
        assert p["king"] is not None, "exactly one king once placed"
    positive = [s for s in p["scores"] if s > 0]
    assert len(positive) == len(set(positive)), "two players share a positive score"


def check_transition(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Section 2, across one action: scores never decrease; castles never join."""
    assert all(b <= a for b, a in zip(before["scores"], after["scores"], strict=True)), "a score decreased"
    old = castles_of(before["heights"])
    new = castles_of(after["heights"])
    firsts: dict[int, str] = {}
    for sq, c in old.items():
        if sq not in new:
            continue
        if c in firsts:
            continue
        firsts[c] = sq
    reps = list(firsts.values())
    for i, a in enumerate(reps):
        for b in reps[i + 1:]:
            assert new[a] != new[b], f"castles of {a} and {b} were joined"
