"""Turn flow: setup (3, 10), turns, rounds and phases (4, 5), between phases (7) and the end (14).

The functions here change a fresh copy made by `apply`; they never touch a state that was handed out.
"""

from __future__ import annotations

import random
from typing import Any, Final

from . import building, scoring
from .board import DIAGONAL_NEIGHBOURS, FOUNDATIONS, column, row
from .editions import AP_PER_TURN, BLOCK_STOCKS, PHASES, TOTAL_BLOCKS, make_options, rounds_in_phase
from .names import CARD_KINDS, COPIES_PER_KIND, MASTER_CARDS
from .state import NO_FIGURE, State, replaced

MASTER_FOUNDATIONS: Final = 8


def new_game(
    players: int = 2, seed: int | str | None = None, edition: str = "rio_grande", master: bool = False,
    **options: Any,
) -> State:
    """A new game at the start of setup. All randomness (start player, master card, deck orders) is drawn here
    from `seed` and recorded in the state, so that `apply` stays deterministic."""
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise ValueError(f"Torres is played by 2 to 4 players, not {players!r}")
    opts = make_options(edition, master, options)
    rng = random.Random(seed)
    start_player = rng.randrange(players) if opts.start_player == "random" else 0
    master_card = rng.choice(MASTER_CARDS) if master else None
    decks = deck = None
    hands: tuple[tuple[str, ...], ...] = tuple(() for _ in range(players))
    if opts.deck == "personal":
        decks = tuple(tuple(rng.sample(CARD_KINDS, len(CARD_KINDS))) for _ in range(players))
    elif opts.deck == "common":
        cards = list(CARD_KINDS) * COPIES_PER_KIND
        rng.shuffle(cards)
        deck = tuple(cards)
    else:
        hands = tuple(tuple(sorted(CARD_KINDS)) for _ in range(players))

    heights = [0] * 64
    if not master:
        for sq in FOUNDATIONS:
            heights[sq] = 1
    stock = BLOCK_STOCKS[players][0]
    stacks = tuple(stock for _ in range(players))
    return State(
        players=players,
        edition=edition,
        master=master,
        options=opts,
        master_card=master_card,
        stage="setup",
        phase=1,
        round=1,
        start_player=start_player,
        to_move=start_player,
        ap=AP_PER_TURN,
        ap_spent=0,
        card_played=False,
        cards_bought=0,
        stack_chosen=None,
        heights=tuple(heights),
        knights=(NO_FIGURE,) * 64,
        king=NO_FIGURE,
        scores=(0,) * players,
        stacks=stacks,
        leftover=(0,) * players,
        supply=TOTAL_BLOCKS - sum(heights) - sum(stock) * players,
        hands=hands,
        bought_this_turn=(),
        decks=decks,
        deck=deck,
        played=((),) * players,
        seen=None,
    )


# --- setup -----------------------------------------------------------------------------------------------------


def setup_step(state: State) -> str:
    """Which setup action is due: foundations (master), start knights, or the king."""
    if state.master and sum(state.heights) < MASTER_FOUNDATIONS:
        return "place_foundation"
    if sum(1 for k in state.knights if k != NO_FIGURE) < state.players:
        return "place_start_knight"
    return "place_king"


def foundation_squares(state: State) -> list[int]:
    """Free ground squares for a master foundation: two in one row or column need two empty squares between
    them [ruling]; diagonal touching only where the edition allows it (10)."""
    blocked: set[int] = set()
    diagonal_ok = state.options.master_diagonal_foundations
    for f in range(64):
        if state.heights[f]:
            blocked |= FOUNDATION_SPACING[f]
            if not diagonal_ok:
                blocked.update(DIAGONAL_NEIGHBOURS[f])
    return [sq for sq in range(64) if not state.heights[sq] and sq not in blocked]


def _too_close(sq: int) -> frozenset[int]:
    """Squares in the same row or column with fewer than two empty squares between them and `sq`."""
    return frozenset(
        other for other in range(64)
        if (row(other) == row(sq) and abs(column(other) - column(sq)) < 3)
        or (column(other) == column(sq) and abs(row(other) - row(sq)) < 3)
    )


FOUNDATION_SPACING: Final[tuple[frozenset[int], ...]] = tuple(_too_close(sq) for sq in range(64))


def free_foundations(state: State) -> list[int]:
    """Foundations (single-block castles at setup) with no figure on them."""
    return [sq for sq in range(64) if state.heights[sq] and state.is_free(sq)]


def after_foundation(state: State) -> None:
    placed = sum(state.heights)
    state.to_move = (state.start_player + placed) % state.players
    if placed == MASTER_FOUNDATIONS:
        state.to_move = state.start_player


def after_start_knight(state: State) -> None:
    """From the start player on; the last placer then places the king (3.3, 3.4)."""
    placed = sum(1 for k in state.knights if k != NO_FIGURE)
    if placed < state.players:
        state.to_move = (state.start_player + placed) % state.players


def after_king(state: State) -> None:
    state.stage = "turn"
    begin_turn(state, state.start_player)


# --- turns -----------------------------------------------------------------------------------------------------


def begin_turn(state: State, seat: int) -> None:
    state.to_move = seat
    state.ap = AP_PER_TURN
    state.ap_spent = 0
    state.card_played = False
    state.cards_bought = 0
    state.bought_this_turn = ()
    state.stack_chosen = None
    if state.options.stack_choice == "largest" and state.stacks[seat]:
        state.stack_chosen = building.automatic_stack(state.stacks[seat])


def end_turn(state: State, used: int, spread: list[int]) -> None:
    """Use up the turn's stack: spread its leftover (already validated), then pass the turn on."""
    seat = state.mover()
    stacks = state.stacks[seat]
    leftover = stacks[used]
    remaining = stacks[:used] + stacks[used + 1 :]
    if remaining:
        assert len(spread) == len(remaining), "a validated spread lists one number per remaining stack"
        new = tuple([remaining[i] + spread[i] for i in range(len(remaining))])
        state.supply += leftover - sum(spread)
    else:
        new = ()
        if state.options.carry_over_blocks and state.phase < PHASES:
            state.leftover = replaced(state.leftover, seat, state.leftover[seat] + leftover)
        else:
            state.supply += leftover
    state.stacks = replaced(state.stacks, seat, new)
    next_seat = (seat + 1) % state.players
    if next_seat != state.start_player:
        begin_turn(state, next_seat)
        return
    if state.round < rounds_in_phase(state.players, state.phase):
        state.round += 1
        if state.master:
            state.start_player = leader_first(state)
        begin_turn(state, state.start_player)
        return
    end_phase(state)


def leader_first(state: State) -> int:
    """Master version (10): once anyone has scored, the leader starts, the others follow in seat order."""
    if max(state.scores) == 0:
        return state.start_player
    return state.scores.index(max(state.scores))


def end_phase(state: State) -> None:
    """Score the phase; then either the game ends or new stocks are dealt and the king may move (6, 7)."""
    state.scores = tuple(scoring.phase_scoring(state))
    state.stack_chosen = None
    state.ap_spent = 0
    state.card_played = False
    state.cards_bought = 0
    state.bought_this_turn = ()
    if state.phase == PHASES:
        state.stage = "over"
        state.to_move = None
        state.supply += sum(state.leftover)
        state.leftover = (0,) * state.players
        return
    state.phase += 1
    state.round = 1
    deal_stocks(state)
    state.stage = "move_king"
    state.to_move = king_mover(state)


def deal_stocks(state: State) -> None:
    """New stacks from the supply; blocks kept from the last phase are spread onto them (4, 5.3)."""
    stock = BLOCK_STOCKS[state.players][state.phase - 1]
    capped = building.spread_is_capped(state)
    stacks = []
    for seat in range(state.players):
        state.supply -= sum(stock)
        kept = state.leftover[seat]
        spread = building.default_spread(stock, kept, capped)
        state.supply += kept - sum(spread)
        stacks.append(tuple([stock[i] + spread[i] for i in range(len(stock))]))
    state.stacks = tuple(stacks)
    state.leftover = (0,) * state.players


def king_mover(state: State) -> int:
    """The player furthest behind; a tie (only possible at 0) goes to the tied player latest in turn order."""
    order = list(scoring.turn_order(state))
    lowest = min(state.scores)
    return [seat for seat in order if state.scores[seat] == lowest][-1]


def king_squares(state: State) -> list[int]:
    """Free blocks at any level of any castle (7.2)."""
    return [sq for sq in range(64) if state.heights[sq] and state.is_free(sq)]


def after_king_move(state: State) -> None:
    mover = state.mover()
    if state.master:
        state.start_player = leader_first(state)
    elif state.options.king_mover_starts:
        state.start_player = mover
    state.stage = "turn"
    begin_turn(state, state.start_player)

