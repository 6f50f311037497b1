"""Training run for the profile-guided build of the compiled rules engine (`build_compiled.py`).

Plays what the engine does in service: random games through the integer codes (the bots' API) and through the
wire forms with `view` (the game service's), in every edition and mode, so GCC lays out and inlines the engine
for its real branches. Deterministic (fixed seeds) and a few seconds long."""

from __future__ import annotations

import random

import torres_rules as tr

CONFIGS = [dict(players=p, edition=e, master=m) for p in (2, 3, 4) for e in tr.EDITIONS for m in (False, True)]


def main() -> None:
    assert tr.ENGINE_BUILD == "compiled", "the training run needs the instrumented compiled build"
    for seed, config in enumerate(CONFIGS):
        for game in range(3):
            rng = random.Random(seed * 100 + game)
            state = tr.new_game(seed=seed * 100 + game, **config)
            while not tr.is_over(state):
                if game == 0:
                    state = tr.apply(state, rng.choice(tr.legal_actions(state)))
                    tr.view(state, rng.randrange(state.players))
                else:
                    state = tr.apply_code(state, rng.choice(tr.legal_codes(state)))


if __name__ == "__main__":
    main()
