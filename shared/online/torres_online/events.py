"""The event vocabulary of a game's log, and the seed: what a verifier needs to read a log without the service.

Events are facts in the rules package's own vocabulary (wire-form actions), so any state can be rebuilt by
``new_game`` followed by ``apply`` per action. The seed is secret while the game runs (only its commitment is
in ``game_created``) and revealed by ``game_ended``; :func:`initial_state` is where it turns into the start
player, the master card and every deck order (docs/audit.md, "The seed").
"""

from __future__ import annotations

import hashlib
from typing import Any

import torres_rules as tr

GAME_CREATED = "game_created"
ACTION_APPLIED = "action_applied"
GAME_ENDED = "game_ended"
ACTION_UNDONE = "action_undone"
TIMED_OUT = "timed_out"
RESIGNED = "resigned"
ABANDONED = "abandoned"
EVENT_TYPES = (GAME_CREATED, ACTION_APPLIED, ACTION_UNDONE, TIMED_OUT, RESIGNED, ABANDONED, GAME_ENDED)

#: Action types whose wire form carries hidden information (docs/rules.md section 13). Their events get a random
#: salt, so the public hash chain cannot be brute-forced to recover a redacted field.
SECRET_ACTION_TYPES = frozenset({"keep_card"})


def seed_commitment(seed: int) -> str:
    """The public promise made at creation: SHA-256 of the seed's decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


def initial_state(created: dict[str, Any], seed: int) -> tr.State:
    """The rules state a ``game_created`` payload starts from with this seed: every random draw of the game
    (start player, master card, deck orders) happens here, in ``new_game``, and nowhere else."""
    return tr.new_game(
        players=created["players"], seed=seed, edition=created["edition"], master=created["master"],
        **created.get("options", {}),
    )
