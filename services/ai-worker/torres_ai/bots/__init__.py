"""Bots: pure functions of a seat's view (no Celery, no database). ``make_bot(kind)`` builds one."""

from __future__ import annotations

from .base import Action, Bot, Budget, LocalPlanMemory, PlanMemory, View, view_key
from .mcts import MctsBot
from .simple import GreedyBot, RandomBot

BOT_KINDS = ("random", "greedy", "mcts")


def make_bot(kind: str, memory: PlanMemory | None = None) -> Bot:
    """A fresh bot of ``kind``; planning bots share ``memory`` (e.g. Redis) when given."""
    if kind == "random":
        return RandomBot()
    if kind == "greedy":
        return GreedyBot(memory)
    if kind == "mcts":
        return MctsBot(memory)
    raise ValueError(f"unknown bot {kind!r}: expected one of {', '.join(BOT_KINDS)}")


__all__ = [
    "BOT_KINDS",
    "Action",
    "Bot",
    "Budget",
    "GreedyBot",
    "LocalPlanMemory",
    "MctsBot",
    "PlanMemory",
    "RandomBot",
    "View",
    "make_bot",
    "view_key",
]
