"""What the fault suite's checker asserts, as functions of what the clients saw and what the service holds in the
end: each returns the problems it finds, in words (none: that property held). The suite (test_fault_suite.py) runs
them over a whole run; test_async_replication.py shows :func:`log_problems` catching a loss."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def log_problems(game_id: str, events: list[dict[str, Any]], acknowledged: Mapping[str, int]) -> list[str]:
    """Versions contiguous from 1; every command acknowledged (command id -> version it was answered with) in the
    log at that version; no command applied twice (an action's events share its command id, so a command may
    span several consecutive events, never two separate runs)."""
    problems = []
    versions = [e["version"] for e in events]
    if versions != list(range(1, len(versions) + 1)):
        problems.append(f"{game_id}: versions not contiguous: {versions}")
    at = {e["version"]: e.get("command_id") for e in events}
    for command_id, version in acknowledged.items():
        if at.get(version) != command_id:
            problems.append(f"{game_id}: acknowledged {command_id} at version {version} is not there "
                            f"(found {at.get(version)!r})")
    commands = [e.get("command_id") for e in events if e.get("command_id")]
    runs = [c for i, c in enumerate(commands) if i == 0 or commands[i - 1] != c]
    if len(runs) != len(set(runs)):
        problems.append(f"{game_id}: a command applied twice")
    return problems


def ai_turn_problems(game_id: str, events: list[dict[str, Any]]) -> list[str]:
    """Every AI turn played once: an AI seat's command id names the game and the version its turn was asked at
    (torres_game.ai_turns), so a turn played twice shows as that id in two separate runs of events."""
    commands = [e["command_id"] for e in events if str(e.get("command_id", "")).startswith("ai:")]
    runs = [c for i, c in enumerate(commands) if i == 0 or commands[i - 1] != c]
    return [f"{game_id}: AI turn {c} played {runs.count(c)} times" for c in sorted(set(runs)) if runs.count(c) > 1]


def two_games_problems(games_of_player: Mapping[str, set[str]]) -> list[str]:
    """No player seated in two games (matchmaking matched each ticket once)."""
    return [f"player {player} in {len(games)} games: {sorted(games)}"
            for player, games in sorted(games_of_player.items()) if len(games) > 1]


def webhook_problems(written: Mapping[str, str], delivered: set[str]) -> list[str]:
    """Every webhook the service wrote (delivery id -> its game) posted to the endpoint, answered 2xx, at least
    once."""
    return [f"webhook {delivery_id} ({game_id}) never delivered"
            for delivery_id, game_id in sorted(written.items()) if delivery_id not in delivered]


def watcher_problems(name: str, seen: list[int], final_version: int, ended: bool) -> list[str]:
    """A watcher (SSE or WebSocket, reconnecting with the last version it had) saw every version once, in order,
    none past the game's final one; and, once the game ended and the watcher was told so, saw it to the end."""
    problems = []
    if seen != sorted(set(seen)):
        problems.append(f"{name}: versions out of order or twice: {seen}")
    if seen and seen[-1] > final_version:
        problems.append(f"{name}: saw version {seen[-1]} past the final {final_version}")
    gaps = sorted(set(range(seen[0], seen[-1] + 1)) - set(seen)) if seen else []
    if gaps:
        problems.append(f"{name}: versions skipped: {gaps}")
    if ended and (not seen or seen[-1] != final_version):
        problems.append(f"{name}: told the game was over at {seen[-1] if seen else None}, final {final_version}")
    return problems
