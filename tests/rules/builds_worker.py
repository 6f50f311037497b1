"""Play seeded random games with whichever rules build this process loaded and print one digest per game.

Run by test_builds.py twice, once with TORRES_RULES_PURE=1: the two builds agree exactly when every digest does.
A digest covers, after every action, the legal-action list and the legal codes, the full position, and the
IllegalAction message (or the resulting position) of a random, mostly illegal, candidate action and of a random
code (`apply_code`) -- so the error paths are compared too. Half the games are played through the wire forms
(`legal_actions` / `apply`), half through the codes (`legal_codes` / `apply_code`). Positions and lists are
digested as JSON (orjson keeps the keys' order, as repr would, and costs far less: repr was half the run).

    python tests/rules/builds_worker.py GAMES_PER_CONFIG
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import orjson

import torres_rules as tr

SQUARES = [f"{c}{r}" for c in "ABCDEFGH" for r in range(1, 9)]
CONFIGS = [(edition, master) for edition in tr.EDITIONS for master in (False, True)]


def candidate(rng: random.Random, legal: list[dict[str, object]]) -> dict[str, object]:
    """A legal action with one field replaced by a random value: legal now and then, mostly not."""
    action = dict(rng.choice(legal))
    field = rng.choice(sorted(action))
    action[field] = rng.choice([*SQUARES, None, 0, 1, 5, "top", "bottom", *tr.CARD_KINDS, "fly", [0, 1]])
    return action


def game_digest(edition: str, master: bool, players: int, seed: int) -> str:
    rng = random.Random(seed)
    state = tr.new_game(players, seed=seed, edition=edition, master=master)
    digest = hashlib.sha256(orjson.dumps(state.to_position()))
    by_code = seed % 2 == 1
    while not tr.is_over(state):
        legal = tr.legal_actions(state)
        codes = tr.legal_codes(state)
        probe = candidate(rng, legal)
        try:
            outcome = orjson.dumps(tr.apply(state, probe).to_position())
        except tr.IllegalAction as exc:
            outcome = f"IllegalAction: {exc}".encode()
        code = rng.choice(codes) ^ rng.choice((1, 64, 2048)) if rng.random() < 0.5 else rng.randrange(tr.NUM_CODES)
        try:
            outcome += orjson.dumps(tr.apply_code(state, code).to_position())
        except tr.IllegalAction as exc:
            outcome += f"IllegalAction: {exc}".encode()
        i = rng.randrange(len(legal))
        state = tr.apply_code(state, codes[i]) if by_code else tr.apply(state, legal[i])
        digest.update(orjson.dumps(legal) + orjson.dumps(codes) + outcome + orjson.dumps(state.to_position()))
    return digest.hexdigest()


def main() -> None:
    games = int(sys.argv[1])
    digests = {
        f"{edition}{' master' if master else ''} {2 + g % 3}p seed {g}": game_digest(edition, master, 2 + g % 3, g)
        for edition, master in CONFIGS
        for g in range(games)
    }
    json.dump({"build": tr.ENGINE_BUILD, "digests": digests}, sys.stdout)


if __name__ == "__main__":
    main()
