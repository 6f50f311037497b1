"""Torres in OpenSpiel (the AI worker's optional ``openspiel`` extra).

Importing this package registers the game ``torres`` with ``pyspiel``; ``bots`` seats OpenSpiel's ISMCTS and
MCTS in our tournaments. Nothing in the services imports it.
"""

from __future__ import annotations

from .game import GAME_NAME, TorresGame, TorresState

__all__ = ["GAME_NAME", "TorresGame", "TorresState"]
