"""Actions: the generator of legal actions and `apply`, which validates and carries one out.

The engine runs on integer action codes (codes.py): `legal_codes` generates them rather than filtering
candidates (as python-chess does) and `apply_code` checks the one code it is given and carries it out, raising
IllegalAction with the sentence of the rule it breaks. The wire forms are a thin edge over that one path:
`legal_actions` is `legal_codes` with each code's dict copied from a table, and `apply` parses a wire dict
(field names, squares, types) into the same core functions `apply_code` calls -- plus the variants no code
stands for (an `end_turn` with another spread), which take the same core function with their spread.
"""

from __future__ import annotations

from typing import Any, Final, cast

from . import building, cards, codes, moves, turns
from .board import SQUARE_NAMES, parse_square
from .codes import (
    ADVANCE_TRACK,
    BUILD,
    BUY_CARD,
    CODES,
    END_TURN,
    KEEP_CARD,
    KEEP_CARD_END,
    MOVE_KING,
    MOVE_KING_STAY,
    MOVE_KNIGHT,
    PLACE_KING,
    PLACE_KNIGHT,
    PLACE_START_KNIGHT,
    PLAY_CARD,
)
from .editions import KNIGHTS_PER_PLAYER
from .names import CARD_INDEX, CARD_KINDS
from .scoring import advance
from .state import NO_FIGURE, State, replaced

Action = dict[str, Any]


class IllegalAction(ValueError):
    """An action the rules forbid in this position; the message names the rule."""


# Fields each action type may carry (besides "type"); a field outside these is an error, not ignored.
_FIELDS: Final[dict[str, frozenset[str]]] = {
    "place_foundation": frozenset({"at"}),
    "place_start_knight": frozenset({"at"}),
    "place_king": frozenset({"at"}),
    "place_knight": frozenset({"at"}),
    "move_knight": frozenset({"from", "to"}),
    "build": frozenset({"at", "stack"}),
    "buy_card": frozenset(),
    "keep_card": frozenset({"card", "rest", "order"}),
    "play_card": frozenset({"card", "from", "to", "at", "stack"}),
    "advance_track": frozenset(),
    "end_turn": frozenset({"stack", "spread"}),
    "move_king": frozenset({"to"}),
}

_ALLOWED: Final = {kind: fields | {"type"} for kind, fields in _FIELDS.items()}

_STAGE_OF: Final = {
    "place_foundation": "setup",
    "place_start_knight": "setup",
    "place_king": "setup",
    "keep_card": "keep_card",
    "move_king": "move_king",
}

_CARD_FIELDS: Final = {
    "block_under_knight": frozenset({"at", "stack"}),
    "extra_block": frozenset({"at"}),
    "six_ap": frozenset(),
    "seven_ap": frozenset(),
}
_MOVE_FIELDS: Final = frozenset({"from", "to"})


# --- legal codes and actions -----------------------------------------------------------------------------------


def legal_codes(state: State) -> list[int]:
    """The codes of every legal action of the player to move, in a stable order (`legal_actions` lists the
    same actions in the same order). Where choices are many (spreads, stack indices of equal height) the
    canonical one is listed and `apply` accepts every legal variant."""
    stage = state.stage
    out: list[object]  # ints from codes.CODES, which saves an int object per code (see there)
    if stage == "turn":
        out = _turn_codes(state)
    elif stage == "keep_card":
        out = cards.keep_card_codes(state)
    elif stage == "setup":
        step = turns.setup_step(state)
        if step == "place_foundation":
            out = [CODES[sq] for sq in turns.foundation_squares(state)]  # codes.PLACE_FOUNDATION is 0
        else:
            base = PLACE_START_KNIGHT if step == "place_start_knight" else PLACE_KING
            out = [CODES[base + sq] for sq in turns.free_foundations(state)]
    elif stage == "move_king":
        out = [CODES[MOVE_KING_STAY]]
        out += [CODES[MOVE_KING + sq] for sq in turns.king_squares(state)]
    else:
        out = []
    return cast("list[int]", out)


def _turn_codes(state: State) -> list[object]:
    seat = state.mover()
    ap_left = state.ap - state.ap_spent
    out: list[object] = []
    if ap_left >= 1:
        own = state.knight_squares(seat)
        if ap_left >= 2 and len(own) < KNIGHTS_PER_PLAYER:
            for sq in moves.placement_squares(state, seat):
                out.append(CODES[PLACE_KNIGHT + sq])
        moves.knight_move_codes(state, own, out)
        for i in building.stack_choices(state):  # at most 4 stacks (editions.BLOCK_STOCKS; from_position checks it)
            building.build_codes(state, BUILD + i * 64, out)
        if cards.why_not_buy(state) is None:
            out.append(CODES[BUY_CARD])
        out.append(CODES[ADVANCE_TRACK])
    if not state.card_played and state.hands[seat]:
        for kind in cards.playable_kinds(state):
            out += cards.card_codes(state, kind)
    fixed = building.turn_stack(state)
    if fixed is not None:
        out.append(CODES[END_TURN + fixed])
    else:
        stacks = state.stacks[seat]
        out += [CODES[END_TURN + i] for i, h in enumerate(stacks) if h not in stacks[:i]]
    return out


def legal_actions(state: State) -> list[Action]:
    """Every legal action of the player to move in wire form, in a stable order: `legal_codes`, decoded. The
    common codes are copied straight from the table of wire dicts (a function call per action costs the pure build
    a third more per game); end_turn (its spread), keep_card (its list) and first uses go through `_wire`."""
    table = codes.WIRE
    out: list[Action] = []
    for code in legal_codes(state):
        made = table[code]
        if made is not None and (code < END_TURN or MOVE_KING_STAY <= code < KEEP_CARD):
            out.append(made.copy())
        else:
            out.append(_wire(state, code))
    return out


def decode(state: State, code: int) -> Action:
    """The canonical wire form of a code in this position (end_turn gets its default spread)."""
    try:
        return _wire(state, code)
    except codes.NoCode as exc:
        raise IllegalAction(str(exc)) from None


def _wire(state: State, code: int) -> Action:
    action = codes.wire_of(code)
    if END_TURN <= code < MOVE_KING_STAY:
        stacks = state.stacks[state.to_move] if state.stage == "turn" and state.to_move is not None else ()
        used = code - END_TURN
        if used < len(stacks):
            action["spread"] = _default_spread(state, stacks, used)
    return action


def _default_spread(state: State, stacks: tuple[int, ...], used: int) -> list[int]:
    return list(_default_spread_of(stacks, used, building.spread_is_capped(state)))


_SPREADS: Final[dict[tuple[tuple[int, ...], int, bool], tuple[int, ...]]] = {}


def _default_spread_of(stacks: tuple[int, ...], used: int, capped: bool) -> tuple[int, ...]:
    """A handful of stock shapes recur all game: their default spreads are made once."""
    key = (stacks, used, capped)
    spread = _SPREADS.get(key)
    if spread is None:
        spread = tuple(building.default_spread(stacks[:used] + stacks[used + 1 :], stacks[used], capped))
        if len(_SPREADS) < 4096:
            _SPREADS[key] = spread
    return spread


def encode(state: State, action: object) -> int:
    """The code of a listed action. Variants `apply` accepts that mean a listed action (build/end_turn without
    "stack" once the turn's stack is fixed, keep_card without "rest" where only the bottom is allowed, or
    without "order") get the listed action's code; an illegal action, and a legal variant no listed code
    stands for (end_turn with another spread, a later stack of the same height as a listed one), raise
    IllegalAction."""
    if not isinstance(action, dict):
        raise IllegalAction("an action is an object with a \"type\"")
    canonical = dict(action)
    kind = canonical.get("type")
    if kind in ("build", "end_turn") and "stack" not in canonical and state.stage == "turn":
        canonical["stack"] = building.turn_stack(state)
    if kind == "keep_card" and state.stage == "keep_card":
        if "rest" not in canonical and state.options.personal_rest == "bottom":
            canonical["rest"] = "bottom"
        seen = state.seen or ()
        if "order" not in canonical and canonical.get("card") in seen:
            canonical["order"] = list(cards.remove_one(seen, canonical["card"]))
    try:
        code = codes.code_of(canonical)
    except codes.NoCode as exc:
        apply(state, action)  # raises the rule's IllegalAction if the action is illegal
        raise IllegalAction(f"no action code stands for {action!r}: {exc}") from None
    if code not in legal_codes(state) or (kind == "end_turn" and "spread" in canonical
                                          and canonical["spread"] != decode(state, code)["spread"]):
        apply(state, action)
        raise IllegalAction(f"{action!r} is legal but no listed action code stands for it (see codes.py)")
    return code


# --- apply -----------------------------------------------------------------------------------------------------


def apply_code(state: State, code: int) -> State:
    """The state after the action `code` stands for; `state` itself is unchanged. Raises IllegalAction naming
    the broken rule. Every code of `legal_codes(state)` applies; so does any other code whose action the rules
    allow here (e.g. a build from a later stack of the same height as a listed one)."""
    if not 0 <= code < KEEP_CARD_END:
        raise IllegalAction(f"action codes are 0..{KEEP_CARD_END - 1}, not {code}")
    kind = _TYPE_OF_RANGE[_range_of(code)]
    _check_stage(state, kind)
    new = state._copy()
    if code < PLACE_START_KNIGHT:
        _place_foundation(new, code)
    elif code < PLACE_KING:
        _place_start_knight(new, code - PLACE_START_KNIGHT)
    elif code < PLACE_KNIGHT:
        _place_king(new, code - PLACE_KING)
    elif code < MOVE_KNIGHT:
        _place_knight(new, code - PLACE_KNIGHT)
    elif code < BUILD:
        _move_knight(new, (code - MOVE_KNIGHT) >> 6, (code - MOVE_KNIGHT) & 63)
    elif code < BUY_CARD:
        _build(new, (code - BUILD) & 63, (code - BUILD) >> 6)
    elif code == BUY_CARD:
        _buy_card(new)
    elif code == ADVANCE_TRACK:
        _advance_track(new)
    elif code < MOVE_KING_STAY:
        _end_turn(new, code - END_TURN, None)
    elif code == MOVE_KING_STAY:
        _move_king(new, NO_FIGURE)
    elif code < PLAY_CARD:
        _move_king(new, code - MOVE_KING)
    elif code < KEEP_CARD:
        card, first, second = codes.card_use(code)
        _play_card(new, card, first, second)
    else:
        try:
            action = codes.wire_of(code)
        except codes.NoCode as exc:
            raise IllegalAction(str(exc)) from None
        _keep_card(new, action["card"], action["rest"], action["order"])
    return new


_TYPE_OF_RANGE: Final[tuple[str, ...]] = (  # the action type of each range of codes, in code order
    "place_foundation", "place_start_knight", "place_king", "place_knight", "move_knight", "build", "buy_card",
    "advance_track", "end_turn", "move_king", "play_card", "keep_card")


def _range_of(code: int) -> int:
    """The index of the code's range in _TYPE_OF_RANGE. Comparisons, not a table of range starts: mypyc keeps a
    fixed-length tuple of ints unboxed and boxes all of it again for every indexing."""
    if code < MOVE_KNIGHT:
        return 0 if code < PLACE_START_KNIGHT else 1 if code < PLACE_KING else 2 if code < PLACE_KNIGHT else 3
    if code < BUY_CARD:
        return 4 if code < BUILD else 5
    if code < END_TURN:
        return 6 if code == BUY_CARD else 7
    if code < PLAY_CARD:
        return 8 if code < MOVE_KING_STAY else 9
    return 10 if code < KEEP_CARD else 11


def action_type(code: int) -> str:
    """The wire `type` of the action a code stands for (the bots sort plans by it without decoding)."""
    if not 0 <= code < KEEP_CARD_END:
        raise IllegalAction(f"action codes are 0..{KEEP_CARD_END - 1}, not {code}")
    return _TYPE_OF_RANGE[_range_of(code)]


def apply(state: State, action: object) -> State:
    """The state after `action` (wire form); `state` itself is unchanged. Raises IllegalAction naming the broken
    rule. `action` is typed `object`: anything a client sends must arrive here and get an IllegalAction. The
    fields are parsed here; the rules are checked and carried out by the functions `apply_code` calls."""
    if not isinstance(action, dict):
        raise IllegalAction("an action is an object with a \"type\"")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise IllegalAction(f"unknown action type {kind!r}: expected one of {', '.join(_FIELDS)}")
    if not action.keys() <= _ALLOWED[kind]:
        extra = set(action) - _ALLOWED[kind]
        raise IllegalAction(f"{kind} has no field {', '.join(sorted(extra))}")
    _check_stage(state, kind)
    new = state._copy()
    if kind == "move_knight":
        _move_knight(new, _square(action, "from"), _square(action, "to"))
    elif kind == "build":
        at = _square(action, "at")
        index = _turn_stack(state, action, "the first build of a turn chooses its stack: give \"stack\" (an index)")
        _build(new, at, index)
    elif kind == "end_turn":
        used = _turn_stack(state, action, "every turn uses up one stack: give \"stack\", the one this turn uses")
        spread = action.get("spread")
        if "spread" in action and (not isinstance(spread, list)
                                   or any(not isinstance(v, int) or isinstance(v, bool) for v in spread)):
            raise IllegalAction("spread is a list of whole numbers, one per remaining stack")
        _end_turn(new, used, spread)
    elif kind == "place_knight":
        _place_knight(new, _square(action, "at"))
    elif kind == "buy_card":
        _buy_card(new)
    elif kind == "advance_track":
        _advance_track(new)
    elif kind == "play_card":
        _play_card_wire(new, action)
    elif kind == "keep_card":
        _keep_card(new, action.get("card"), action.get("rest", _DEFAULT), action.get("order", _DEFAULT))
    elif kind == "move_king":
        if "to" not in action:
            raise IllegalAction("move_king needs \"to\": a square, or null to leave the king where it stands")
        target = action["to"]
        sq = NO_FIGURE
        if target is not None:
            parsed = parse_square(target)
            if parsed is None:
                raise IllegalAction(f"to must be a square \"A1\"..\"H8\" or null, not {target!r}")
            sq = parsed
        _move_king(new, sq)
    elif kind == "place_foundation":
        _place_foundation(new, _square(action, "at"))
    elif kind == "place_start_knight":
        _place_start_knight(new, _square(action, "at"))
    else:  # place_king
        _place_king(new, _square(action, "at"))
    return new


def _check_stage(state: State, kind: str) -> None:
    stage = state.stage
    if stage == "over":
        raise IllegalAction("the game is over: no more actions")
    wanted = _STAGE_OF.get(kind, "turn")
    if wanted != stage:
        raise IllegalAction(_wrong_stage(state, kind))
    if stage == "setup" and turns.setup_step(state) != kind:
        raise IllegalAction(f"setup goes foundations, start knights, king: now is {turns.setup_step(state)}")


def _wrong_stage(state: State, kind: str) -> str:
    if state.stage == "keep_card":
        return "after buy_card from a personal deck the buyer must keep_card before anything else"
    if state.stage == "move_king":
        return "between phases the player furthest behind decides on the king (move_king) first"
    if state.stage == "setup":
        return f"the game is still in setup: {turns.setup_step(state)} is due"
    return f"{kind} is not part of a turn"


# wire fields ---------------------------------------------------------------------------------------------------


def _square(action: Action, field: str) -> int:
    if field not in action:
        raise IllegalAction(f"{action['type']} needs the field {field!r} (a square \"A1\"..\"H8\")")
    sq = parse_square(action[field])
    if sq is None:
        raise IllegalAction(f"{field} must be a square \"A1\"..\"H8\", not {action[field]!r}")
    return sq


def _stack_index(index: object, stacks: tuple[int, ...], what: str) -> int:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(stacks):
        raise IllegalAction(f"{what}: \"stack\" is the index of one of your {len(stacks)} stacks, not {index!r}")
    return index


def _turn_stack(state: State, action: Action, missing: str) -> int:
    """The stack a build or end_turn names, or the turn's stack when it names none: one stack per turn (5.3)."""
    index = action.get("stack", building.turn_stack(state))
    if index is None:
        raise IllegalAction(missing)
    return _stack_index(index, state.stacks[state.mover()], "blocks come from your stacks")


def _play_card_wire(state: State, action: Action) -> None:
    card = action.get("card")
    if not isinstance(card, str) or card not in CARD_KINDS:
        raise IllegalAction(f"card must be one of {', '.join(CARD_KINDS)}, not {card!r}")
    _check_card(state, card)
    allowed = _CARD_FIELDS.get(card, _MOVE_FIELDS)
    extra = set(action) - allowed - {"type", "card"}
    if extra:
        raise IllegalAction(f"play_card {card} has no field {', '.join(sorted(extra))}")
    kind = CARD_INDEX[card]
    if card == "block_under_knight":
        at = _square(action, "at")
        index = _stack_index(action.get("stack"), state.stacks[state.mover()],
                             "block_under_knight takes a block from one of your stacks")
        _play_card(state, kind, at, index)
    elif card == "extra_block":
        _play_card(state, kind, _square(action, "at"), 0)
    elif card in ("six_ap", "seven_ap"):
        _play_card(state, kind, 0, 0)
    else:
        _play_card(state, kind, _square(action, "from"), _square(action, "to"))


# the rules of each action, on a fresh copy: called by apply_code and apply alike ----------------------------------


def _turn_stack_index(state: State, index: int) -> int:
    """A stack index a build or end_turn gives: one of the mover's stacks, and the turn's one (5.3)."""
    stacks = state.stacks[state.mover()]
    _stack_index(index, stacks, "blocks come from your stacks")
    fixed = building.turn_stack(state)
    if fixed is not None and index != fixed:
        if state.options.stack_choice == "largest":
            raise IllegalAction(f"this edition uses the largest stack automatically: stack {fixed}")
        raise IllegalAction(f"blocks come from one stack per turn: this turn uses stack {fixed}")
    return index


def _spend(state: State, ap: int, what: str) -> None:
    if state.ap - state.ap_spent < ap:
        raise IllegalAction(f"{what} costs {ap} AP but only {state.ap - state.ap_spent} AP are left this turn")
    state.ap_spent += ap


def _own_knight(state: State, sq: int, what: str) -> None:
    if state.knights[sq] != state.to_move:
        raise IllegalAction(f"{what} needs one of your own knights on {SQUARE_NAMES[sq]}")


# setup --------------------------------------------------------------------------------------------------------


def _place_foundation(state: State, sq: int) -> None:
    if sq not in turns.foundation_squares(state):
        raise IllegalAction(
            f"a foundation goes on free ground with at least two empty squares to any foundation in its row or "
            f"column{'' if state.options.master_diagonal_foundations else ' and not diagonally next to one'}: "
            f"{SQUARE_NAMES[sq]} is not allowed"
        )
    state.add_block(sq)
    state.supply -= 1
    turns.after_foundation(state)


def _place_start_knight(state: State, sq: int) -> None:
    if sq not in turns.free_foundations(state):
        raise IllegalAction(f"each player places a start knight on a free foundation: {SQUARE_NAMES[sq]} is not")
    state.put_knight(state.mover(), NO_FIGURE, sq)
    turns.after_start_knight(state)


def _place_king(state: State, sq: int) -> None:
    if sq not in turns.free_foundations(state):
        raise IllegalAction(f"the king is placed on a free foundation: {SQUARE_NAMES[sq]} is not")
    state.king = sq
    turns.after_king(state)


# turn ---------------------------------------------------------------------------------------------------------


def _place_knight(state: State, sq: int) -> None:
    seat = state.mover()
    if moves.reserve(state, seat) == 0:
        raise IllegalAction("all 6 of your knights are on the board: none left to place")
    if sq not in moves.placement_squares(state, seat):
        raise IllegalAction(
            f"a new knight goes on a free square next to one of your knights, at the same or a lower level: "
            f"{SQUARE_NAMES[sq]} is not such a square"
        )
    _spend(state, 2, "placing a knight")
    state.put_knight(seat, NO_FIGURE, sq)


def _move_knight(state: State, frm: int, to: int) -> None:
    _own_knight(state, frm, "move_knight")
    if not moves.may_move(state, frm, to):
        raise IllegalAction(moves.why_not_move(state, frm, to))
    _spend(state, 1, "a knight's step or gate move")
    moves.move_knight(state, frm, to)


def _build(state: State, sq: int, index: int) -> None:
    _turn_stack_index(state, index)
    if state.stacks[state.mover()][index] == 0:
        raise IllegalAction(f"stack {index} has no blocks left")
    if not building.may_build(state, sq):
        raise IllegalAction(building.why_not_build(state, sq))
    _spend(state, 1, "building a block")
    state.take_block(state.mover(), index)
    state.stack_chosen = index
    state.add_block(sq)


def _buy_card(state: State) -> None:
    reason = cards.why_not_buy(state)
    if reason:
        raise IllegalAction(reason)
    _spend(state, 1, "buying a card")
    state.cards_bought += 1
    seat = state.mover()
    if state.decks is not None:
        deck = state.decks[seat]
        state.seen = deck[:3]
        state.decks = replaced(state.decks, seat, deck[3:])
        state.stage = "keep_card"
    else:
        assert state.deck is not None
        card = state.deck[0]
        state.deck = state.deck[1:]
        _take_card(state, card)


def _take_card(state: State, card: str) -> None:
    seat = state.mover()
    state.hands = replaced(state.hands, seat, tuple(sorted((*state.hands[seat], card))))
    state.bought_this_turn = tuple(sorted((*state.bought_this_turn, card)))


_DEFAULT: Final = object()  # a wire field left out


def _keep_card(state: State, card: object, rest: object, order: object) -> None:
    """`rest` and `order` _DEFAULT: left out (the bottom where only the bottom is allowed; the seen order)."""
    seen = state.seen or ()
    if not isinstance(card, str) or card not in seen:
        raise IllegalAction(f"keep one of the cards you looked at ({', '.join(seen)}), not {card!r}")
    others = cards.remove_one(seen, card)
    if rest is _DEFAULT:
        rest = "bottom" if state.options.personal_rest == "bottom" else None
    if rest not in ("top", "bottom"):
        raise IllegalAction("rest must be \"top\" or \"bottom\": where the other cards go back")
    if rest == "top" and state.options.personal_rest == "bottom":
        raise IllegalAction("in this edition the other cards go back at the bottom of the deck")
    if order is _DEFAULT:
        order = list(others)
    if not isinstance(order, list) or any(not isinstance(c, str) for c in order) or sorted(order) != sorted(others):
        raise IllegalAction(f"order lists the other seen cards, top first: {', '.join(others) or 'none'}")
    seat = state.mover()
    decks = state.decks
    assert decks is not None, "keep_card follows a buy from a personal deck only"
    deck = (*order, *decks[seat]) if rest == "top" else (*decks[seat], *order)
    state.decks = replaced(decks, seat, tuple(deck))
    state.seen = None
    state.stage = "turn"
    _take_card(state, card)


def _check_card(state: State, card: str) -> None:
    if card not in state.hands[state.mover()]:
        raise IllegalAction(f"{card} is not in your hand")
    if state.card_played:
        raise IllegalAction("at most 1 card may be played per turn")
    if card not in cards.playable_kinds(state):
        raise IllegalAction(f"a card bought this turn cannot be played this turn: {card}")


def _play_card(state: State, kind: int, first: int, second: int) -> None:
    """Card `kind` (index into CARD_KINDS) from `first` to `second` (squares), at `first` from stack `second`
    (block_under_knight), at `first` (extra_block), or nothing (six_ap, seven_ap)."""
    card = CARD_KINDS[kind]
    _check_card(state, card)
    seat = state.mover()
    hand = state.hands[seat]
    if card in cards.KNIGHT_CARDS:
        reason = cards.why_not_knight_card(state, card, first, second)
        if reason:
            raise IllegalAction(reason)
        moves.move_knight(state, first, second)
    elif card == "block_under_knight":
        stacks = state.stacks[seat]
        index = _stack_index(second, stacks, "block_under_knight takes a block from one of your stacks")
        if stacks[index] == 0:
            raise IllegalAction(f"stack {index} has no blocks left")
        if first not in building.block_under_knight_squares(state, seat):
            raise IllegalAction(building.why_not_block_under_knight(state, first))
        state.take_block(seat, index)
        state.add_block(first)
    elif card == "extra_block":
        if state.supply == 0:
            raise IllegalAction("extra_block builds from the general supply, which is empty")
        if not building.may_build(state, first):
            raise IllegalAction(building.why_not_build(state, first))
        state.supply -= 1
        state.add_block(first)
    elif card in ("six_ap", "seven_ap"):
        state.ap = 6 if card == "six_ap" else 7
    else:  # move_block
        if second not in building.move_block_targets(state, first):
            raise IllegalAction(building.why_not_move_block(state, first, second))
        state.set_heights(building.with_block(building.with_block(state.heights, first, -1), second))
    state.hands = replaced(state.hands, seat, cards.remove_one(hand, card))
    state.played = replaced(state.played, seat, (*state.played[seat], card))
    state.card_played = True


def _advance_track(state: State) -> None:
    _spend(state, 1, "a step on the score track")
    scores = list(state.scores)
    advance(scores, state.mover())
    state.scores = tuple(scores)


def _end_turn(state: State, used: int, spread: list[int] | None) -> None:
    """`spread` None: the default spread (the one the code of end_turn stands for)."""
    _turn_stack_index(state, used)
    stacks = state.stacks[state.mover()]
    automatic = _default_spread(state, stacks, used)
    if spread is None:
        spread = automatic
    elif state.options.stack_choice == "largest":
        if spread != automatic:
            raise IllegalAction(f"this edition spreads leftover blocks automatically: {automatic}")
    else:
        reason = building.why_not_spread(stacks[:used] + stacks[used + 1 :], stacks[used], spread)
        if reason:
            raise IllegalAction(reason)
    turns.end_turn(state, used, spread)


def _move_king(state: State, sq: int) -> None:
    """`sq` NO_FIGURE: the king stays where it stands."""
    if sq != NO_FIGURE:
        if sq not in turns.king_squares(state):
            raise IllegalAction(f"the king moves onto a free block of a castle: {SQUARE_NAMES[sq]} is not one")
        state.king = sq
    turns.after_king_move(state)


__all__ = ["NO_FIGURE", "Action", "IllegalAction", "action_type", "apply", "apply_code", "decode", "encode",
           "legal_actions", "legal_codes"]
