"""The immutable game State and the position JSON (the engine's FEN).

A State is never changed after it is handed out: `apply` copies it (`_copy`), changes the fresh copy and returns
it. Board data are flat tuples indexed by square so a copy is a handful of pointer copies and a hash is one
tuple hash -- search code creates millions of states.

The position's fields are declared once, in the `State` dataclass; `FIELDS`, the constructor, the slots and the
position JSON's keys are derived from that declaration. Reading a position is two steps, as python-chess keeps
`Board.set_fen` apart from `Board.status()`: `parse_position` reads the fields (types, ranges, shapes, defaults)
and `check_position` asks whether a game can reach the result (docs/rules.md section 2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, final

from .board import SQUARE_NAMES, parse_square
from .castles import Castles, analyse
from .editions import (
    BLOCK_STOCKS,
    EDITIONS,
    KNIGHTS_PER_PLAYER,
    MIN_CASTLES,
    OPTION_NAMES,
    TOTAL_BLOCKS,
    Options,
    make_options,
    rounds_in_phase,
)
from .names import CARD_KINDS, COPIES_PER_KIND, MASTER_CARDS, STAGES

NO_FIGURE: Final = -1
_TURN_STAGES: Final = ("turn", "keep_card")


class InvalidPosition(ValueError):
    """A position JSON that no game can reach (docs/rules.md section 2) or that is malformed."""


@final
@dataclass(eq=False, repr=False, slots=True)
class State:
    """One position of a game. Treat as immutable; build new ones with the rules' functions.

    The fields below, in this order, are the position: the keys of the position JSON and what States compare and
    hash by. heights: 64 stack heights. knights: 64 entries, the owning seat or NO_FIGURE. king: square or
    NO_FIGURE. stacks: per seat, the remaining stacks (one is used up per turn). leftover: per seat, blocks kept
    from the last turn of a phase for the next phase (carry_over_blocks). hands and bought_this_turn are sorted
    tuples (multisets); decks/deck/seen are tuples, top card first; played: per seat, the cards it played, in
    order (public: RULES 13).
    """

    players: int
    edition: str
    master: bool
    options: Options
    master_card: str | None
    stage: str
    phase: int
    round: int
    start_player: int
    to_move: int | None
    ap: int
    ap_spent: int
    card_played: bool
    cards_bought: int
    stack_chosen: int | None
    heights: tuple[int, ...]
    knights: tuple[int, ...]
    king: int
    scores: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    leftover: tuple[int, ...]
    supply: int
    hands: tuple[tuple[str, ...], ...]
    bought_this_turn: tuple[str, ...]
    decks: tuple[tuple[str, ...], ...] | None
    deck: tuple[str, ...] | None
    seen: tuple[str, ...] | None
    played: tuple[tuple[str, ...], ...]
    # caches, not part of the position: the castles of `heights` (computed once per distinct board), the identity
    # tuple, and per seat its knights' squares (None: not asked for yet), valid while `knights` is `_knights_for`;
    # shared by copies until a knight moves, then replaced (never changed in place) by `put_knight`
    _castles: Castles | None = field(default=None, init=False)
    _key: tuple[object, ...] | None = field(default=None, init=False)
    _knights_for: tuple[int, ...] | None = field(default=None, init=False)
    _knights_of: list[tuple[int, ...] | None] | None = field(default=None, init=False)

    def __new__(cls, *args: Any, **kwargs: Any) -> State:
        """Only so that `_copy` can make a State without the dataclass's `__init__`: a compiled (mypyc) class
        translates this `object.__new__` into its native allocation."""
        return object.__new__(cls)

    def _copy(self) -> State:
        """A private, still mutable copy for `apply` to change before handing it out.

        Spelled out field by field, because the compiled build runs the dataclass's generated `__init__` as
        interpreted code (mypyc compiles only the methods written in the source), about ten times the instructions
        of these stores, and `apply` copies a State per action (docs/performance.md, "Rules engine").
        tests/rules/test_position.py checks that this copy and `_identity` cover the declared fields in order."""
        new = State.__new__(State)
        new.players = self.players
        new.edition = self.edition
        new.master = self.master
        new.options = self.options
        new.master_card = self.master_card
        new.stage = self.stage
        new.phase = self.phase
        new.round = self.round
        new.start_player = self.start_player
        new.to_move = self.to_move
        new.ap = self.ap
        new.ap_spent = self.ap_spent
        new.card_played = self.card_played
        new.cards_bought = self.cards_bought
        new.stack_chosen = self.stack_chosen
        new.heights = self.heights
        new.knights = self.knights
        new.king = self.king
        new.scores = self.scores
        new.stacks = self.stacks
        new.leftover = self.leftover
        new.supply = self.supply
        new.hands = self.hands
        new.bought_this_turn = self.bought_this_turn
        new.decks = self.decks
        new.deck = self.deck
        new.seen = self.seen
        new.played = self.played
        new._castles = self._castles
        new._key = None
        new._knights_for = self._knights_for
        new._knights_of = self._knights_of
        return new

    # --- derived facts -------------------------------------------------------------------------------------

    @property
    def castles(self) -> Castles:
        """Castle membership of the current heights, computed once per distinct board."""
        if self._castles is None:
            self._castles = analyse(self.heights)
        return self._castles

    def set_heights(self, heights: tuple[int, ...]) -> None:
        """Private to the engine: change the board of a fresh copy and drop the castle cache."""
        self.heights = heights
        self._castles = None

    def add_block(self, square: int) -> None:
        """Private to the engine: one more block on `square` of a fresh copy, castles updated incrementally."""
        heights = list(self.heights)
        heights[square] += 1
        new_heights = tuple(heights)
        if self._castles is not None:
            self._castles = self._castles.with_block(square, new_heights)
        self.heights = new_heights

    def take_block(self, seat: int, stack: int) -> None:
        """Private to the engine: one block off one of the seat's stacks of a fresh copy."""
        stacks = self.stacks[seat]
        self.stacks = replaced(self.stacks, seat, replaced(stacks, stack, stacks[stack] - 1))

    def is_free(self, square: int) -> bool:
        """No figure (knight or king) stands on the square."""
        return self.knights[square] == NO_FIGURE and self.king != square

    def knight_squares(self, seat: int) -> tuple[int, ...]:
        """The seat's knights, by square, ascending; cached per seat for the current knights tuple (a copy shares
        the cache until its knights change, and `put_knight` carries it over)."""
        cache = self._knights_of
        if cache is None or self._knights_for is not self.knights:
            cache = [None] * self.players
            self._knights_of = cache
            self._knights_for = self.knights
        squares = cache[seat]
        if squares is None:
            squares = tuple(_indices(self.knights, seat))
            cache[seat] = squares
        return squares

    def put_knight(self, seat: int, frm: int, to: int) -> None:
        """Private to the engine: a knight of `seat` onto the free square `to` of a fresh copy, from `frm` or,
        when `frm` is NO_FIGURE, from the seat's reserve. The per-seat squares are updated, not re-derived by a
        scan of the 64 squares: most actions of a game are knight moves."""
        knights = list(self.knights)
        knights[to] = seat
        if frm != NO_FIGURE:
            knights[frm] = NO_FIGURE
        new_knights = tuple(knights)
        cache = self._knights_of
        if cache is not None and self._knights_for is self.knights:
            cache = cache[:]
            old = cache[seat]
            if old is not None:
                moved: list[int] = []
                placed = False
                for sq in old:
                    if sq == frm:
                        continue
                    if not placed and to < sq:
                        moved.append(to)
                        placed = True
                    moved.append(sq)
                if not placed:
                    moved.append(to)
                cache[seat] = tuple(moved)
            self._knights_of = cache
            self._knights_for = new_knights
        self.knights = new_knights

    def mover(self) -> int:
        """The seat to move, for the rules of a stage in which someone is (every stage but "over")."""
        seat = self.to_move
        assert seat is not None, "nobody is to move once the game is over"
        return seat

    @property
    def ap_left(self) -> int:
        return self.ap - self.ap_spent

    # --- identity ------------------------------------------------------------------------------------------

    def _identity(self) -> tuple[object, ...]:
        """The position's fields as one tuple, made once per State: what States compare and hash by. Spelled out
        as `_copy` is: a generic `attrgetter(*FIELDS)` costs the compiled build several times the instructions
        (docs/performance.md, "Rules engine"), and the bots' planner hashes every State it makes."""
        key = self._key
        if key is None:
            key = self._key = (
                self.players, self.edition, self.master, self.options, self.master_card, self.stage, self.phase,
                self.round, self.start_player, self.to_move, self.ap, self.ap_spent, self.card_played,
                self.cards_bought, self.stack_chosen, self.heights, self.knights, self.king, self.scores,
                self.stacks, self.leftover, self.supply, self.hands, self.bought_this_turn, self.decks, self.deck,
                self.seen, self.played,
            )
        return key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        return (
            f"<State {self.players}p {self.edition}{' master' if self.master else ''} {self.stage} "
            f"phase {self.phase} round {self.round} to_move {self.to_move} scores {list(self.scores)}>"
        )

    def to_position(self) -> dict[str, Any]:
        return to_position(self)


FIELDS: Final[tuple[str, ...]] = tuple(f.name for f in fields(State) if f.init)
"""The position's fields, in the declared order: the keys of the position JSON."""


def replaced(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A copy of a tuple with one item replaced: the building block of every change to a State."""
    items = list(values)
    items[index] = value
    return tuple(items)


def _indices(values: tuple[int, ...], wanted: int) -> list[int]:
    """Positions of `wanted` in `values`."""
    return [i for i, value in enumerate(values) if value == wanted]


# --- position JSON ---------------------------------------------------------------------------------------


def to_position(state: State) -> dict[str, Any]:
    """The complete position, secrets included (deck orders): for storage, tests and admins, never players.
    Every field as it is, tuples as lists (no field nests deeper than a tuple of tuples), but the board by square
    name and the options as an object."""
    position: dict[str, Any] = {}
    for name, value in zip(FIELDS, state._identity(), strict=True):  # the fields in the declared order
        if isinstance(value, tuple) and name != "heights" and name != "knights":  # of scalars, or of tuples
            value = [list(item) for item in value] if value and isinstance(value[0], tuple) else list(value)
        position[name] = value
    position["options"] = state.options.to_dict()
    position["heights"] = {SQUARE_NAMES[sq]: h for sq, h in enumerate(state.heights) if h}
    position["knights"] = {SQUARE_NAMES[sq]: seat for sq, seat in enumerate(state.knights) if seat != NO_FIGURE}
    position["king"] = SQUARE_NAMES[state.king] if state.king != NO_FIGURE else None
    return position


def turns_left(players: int, phase: int, round_: int, start_player: int, to_move: int, seat: int) -> int:
    """Turns `seat` still has in the phase, counting the current one if it has not ended yet."""
    played_this_round = (seat - start_player) % players < (to_move - start_player) % players
    return rounds_in_phase(players, phase) - round_ + (0 if played_this_round else 1)


def from_position(position: dict[str, Any]) -> State:
    """Build a State from position JSON, rejecting anything malformed (`parse_position`) or impossible
    (`check_position`) with a clear message."""
    state = parse_position(position)
    check_position(state)
    return state


def parse_position(position: dict[str, Any]) -> State:
    """The State a position JSON describes, field by field, raising InvalidPosition for a malformed field: an
    unknown name, a wrong type, a number out of its range, a list of the wrong length for the players, a deck field
    the deck mode does not use. Whether a game can reach the result is `check_position`'s question.

    Omitted fields take the value a fresh turn would have: stage "turn", phase 1, round 1, seat 0 to move,
    5 AP, no scores, the phase's stacks for the turns left, empty hands and decks, and the supply that makes
    the blocks add up to 92.
    """
    if not isinstance(position, dict):
        raise InvalidPosition("a position is a JSON object")
    p = _Reader(position)
    unknown = set(position) - set(FIELDS)
    if unknown:
        raise InvalidPosition(f"unknown position fields: {', '.join(sorted(unknown))}")

    players = p.int_field("players", 2, 2, 4)
    edition = p.choice("edition", "rio_grande", EDITIONS)
    master = p.bool_field("master", False)
    raw_options = p.get("options", {})
    if not isinstance(raw_options, dict):
        raise InvalidPosition("options must be an object")
    try:
        options = make_options(edition, master, {k: v for k, v in raw_options.items() if k in OPTION_NAMES})
    except ValueError as e:
        raise InvalidPosition(str(e)) from None
    if set(raw_options) - set(OPTION_NAMES):
        raise InvalidPosition(f"unknown options: {', '.join(sorted(set(raw_options) - set(OPTION_NAMES)))}")
    master_card = p.get("master_card", None)
    if master and master_card not in MASTER_CARDS:
        raise InvalidPosition(f"the master version needs a master_card, one of {', '.join(MASTER_CARDS)}")
    if not master and master_card is not None:
        raise InvalidPosition("master_card is only used in the master version")

    stage = p.choice("stage", "turn", STAGES)
    phase = p.int_field("phase", 1, 1, 3)
    round_ = p.int_field("round", 1, 1, rounds_in_phase(players, phase))
    start_player = p.int_field("start_player", 0, 0, players - 1)
    to_move: int | None
    if stage == "over":
        to_move = p.get("to_move", None)
        if to_move is not None:
            raise InvalidPosition("nobody is to move once the game is over: to_move must be null")
    else:
        to_move = p.int_field("to_move", start_player, 0, players - 1)

    heights = [0] * 64
    for name, h in p.squares("heights").items():
        if not isinstance(h, int) or isinstance(h, bool) or h < 0:
            raise InvalidPosition(f"height of {SQUARE_NAMES[name]} must be a whole number >= 0")
        heights[name] = h
    knights = [NO_FIGURE] * 64
    for sq, seat in p.squares("knights").items():
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise InvalidPosition(f"knight on {SQUARE_NAMES[sq]} belongs to no seat of {players} players")
        knights[sq] = seat
    king_name = p.get("king", None)
    king = NO_FIGURE if king_name is None else parse_square(king_name)
    if king is None:
        raise InvalidPosition(f"king stands on no square: {king_name!r}")
    scores = p.int_list("scores", [0] * players, players, 0)

    ap = p.int_field("ap", 5, 5, 7)
    ap_spent = p.int_field("ap_spent", 0, 0, ap)
    card_played = p.bool_field("card_played", False)
    cards_bought = p.int_field("cards_bought", 0, 0, 2)
    stack_chosen = p.get("stack_chosen", None)
    if stack_chosen is not None and not isinstance(stack_chosen, int):
        raise InvalidPosition(_stack_chosen_problem(stage, stack_chosen, to_move))

    if "stacks" in position:
        raw_stacks = position["stacks"]
        if not isinstance(raw_stacks, list) or len(raw_stacks) != players:
            raise InvalidPosition(f"stacks must be a list of {players} lists")
        stacks = [tuple(p.int_list_value(s, "stacks", None, 0)) for s in raw_stacks]
    else:
        stacks = [_default_stacks(players, stage, phase, round_, start_player, to_move, s) for s in range(players)]
    leftover = p.int_list("leftover", [0] * players, players, 0)
    supply = p.int_field("supply", TOTAL_BLOCKS - _blocks(heights, stacks, leftover), 0, TOTAL_BLOCKS)

    hands = [tuple(sorted(_cards(h, f"hands[{i}]"))) for i, h in enumerate(p.list_field("hands", [[]] * players))]
    if len(hands) != players:
        raise InvalidPosition(f"hands must be a list of {players} lists")
    bought = tuple(sorted(_cards(p.list_field("bought_this_turn", []), "bought_this_turn")))
    played = [tuple(_cards(x, f"played[{i}]")) for i, x in enumerate(p.list_field("played", [[]] * players))]
    if len(played) != players:
        raise InvalidPosition(f"played must be a list of {players} lists")
    decks_raw = p.get("decks", None)
    deck_raw = p.get("deck", None)
    seen_raw = p.get("seen", None)
    decks = deck = seen = None
    if options.deck == "personal":
        decks_raw = [[] for _ in range(players)] if decks_raw is None else decks_raw
        if not isinstance(decks_raw, list) or len(decks_raw) != players:
            raise InvalidPosition(f"decks must be a list of {players} lists (personal decks)")
        decks = tuple(tuple(_cards(d, f"decks[{i}]")) for i, d in enumerate(decks_raw))
    elif decks_raw is not None:
        raise InvalidPosition(f"decks are only used with personal decks, not deck mode {options.deck!r}")
    if options.deck == "common":
        deck = tuple(_cards([] if deck_raw is None else deck_raw, "deck"))
    elif deck_raw is not None:
        raise InvalidPosition(f"deck is only used with a common deck, not deck mode {options.deck!r}")
    if stage == "keep_card":
        seen = tuple(_cards(seen_raw or [], "seen"))
    elif seen_raw is not None:
        raise InvalidPosition("seen cards exist only during the keep_card stage")

    return State(
        players=players, edition=edition, master=master, options=options, master_card=master_card, stage=stage,
        phase=phase, round=round_, start_player=start_player, to_move=to_move, ap=ap, ap_spent=ap_spent,
        card_played=card_played, cards_bought=cards_bought, stack_chosen=stack_chosen, heights=tuple(heights),
        knights=tuple(knights), king=king, scores=tuple(scores), stacks=tuple(stacks), leftover=tuple(leftover),
        supply=supply, hands=tuple(hands), bought_this_turn=bought, decks=decks, deck=deck, seen=seen,
        played=tuple(played),
    )


def check_position(state: State) -> None:
    """Raise InvalidPosition naming the first rule of docs/rules.md section 2 (or of the stage's flow) that the
    position breaks: what no game can reach, though every field is well formed."""
    players, stage, heights, knights, king = state.players, state.stage, state.heights, state.knights, state.king
    if king != NO_FIGURE and knights[king] != NO_FIGURE:
        raise InvalidPosition(f"at most one figure per square: the king and a knight share {SQUARE_NAMES[king]}")
    for seat in range(players):
        if knights.count(seat) > KNIGHTS_PER_PLAYER:
            raise InvalidPosition(f"seat {seat} has {knights.count(seat)} knights on the board, at most 6")
    positive = [s for s in state.scores if s > 0]
    if len(positive) != len(set(positive)):
        raise InvalidPosition("no two players with a score above 0 may share a score (RULES 8)")

    on_board_and_stock = _blocks(heights, state.stacks, state.leftover)
    if on_board_and_stock + state.supply != TOTAL_BLOCKS:
        raise InvalidPosition(
            f"blocks must add up to {TOTAL_BLOCKS}: {sum(heights)} on the board + "
            f"{on_board_and_stock - sum(heights)} in stocks + {state.supply} in the supply = "
            f"{on_board_and_stock + state.supply}"
        )
    castles = state.castles
    for sq, h in enumerate(heights):
        if h > castles.area_of(sq):
            raise InvalidPosition(
                f"a stack may be at most as high as its castle's base area: {SQUARE_NAMES[sq]} has height {h}, "
                f"base area {castles.area_of(sq)}"
            )
    if castles.count < MIN_CASTLES and not (state.master and stage == "setup"):
        raise InvalidPosition(f"there are never fewer than {MIN_CASTLES} castles; this board has {castles.count}")

    if stage == "keep_card":
        if state.options.deck != "personal":
            raise InvalidPosition("the keep_card stage follows a buy from a personal deck only")
        if not 1 <= len(state.seen or ()) <= 3:
            raise InvalidPosition("during keep_card the buyer sees 1 to 3 cards")
    _check_cards(state)

    to_move = state.to_move
    if stage in _TURN_STAGES:
        assert to_move is not None
        for seat in range(players):
            expected = turns_left(players, state.phase, state.round, state.start_player, to_move, seat)
            if len(state.stacks[seat]) != expected:
                raise InvalidPosition(
                    f"every turn uses up one stack: seat {seat} has {expected} turns left in phase {state.phase} "
                    f"but {len(state.stacks[seat])} stacks"
                )
        if state.stack_chosen is not None and not 0 <= state.stack_chosen < len(state.stacks[to_move]):
            raise InvalidPosition(_stack_chosen_problem(stage, state.stack_chosen, to_move))
        if state.cards_bought < len(state.bought_this_turn):
            raise InvalidPosition("bought_this_turn lists more cards than cards_bought")
    elif state.stack_chosen is not None:
        raise InvalidPosition(_stack_chosen_problem(stage, state.stack_chosen, to_move))

    if stage != "setup" and king == NO_FIGURE:
        raise InvalidPosition("exactly one king stands on the board once it is placed")
    if king != NO_FIGURE and not heights[king]:
        raise InvalidPosition(f"the king always stands on a block: {SQUARE_NAMES[king]} is ground")
    if stage == "move_king" and state.phase == 1:
        raise InvalidPosition("the king moves between phases: stage move_king belongs to phase 2 or 3 (the next)")
    if stage == "setup":
        if king != NO_FIGURE:
            raise InvalidPosition("during setup the king is placed last, after every start knight")
        for seat in range(players):
            if knights.count(seat) > 1:
                raise InvalidPosition(f"during setup each player places one start knight: seat {seat} has more")
        for sq, seat in enumerate(knights):
            if seat != NO_FIGURE and not heights[sq]:
                raise InvalidPosition(f"start knights stand on foundations: {SQUARE_NAMES[sq]} is ground")
    elif any(seat not in knights for seat in range(players)):
        raise InvalidPosition("after setup every player has a knight on the board")


def _stack_chosen_problem(stage: str, stack_chosen: object, to_move: int | None) -> str:
    if stage in _TURN_STAGES:
        return f"stack_chosen {stack_chosen!r} is not one of seat {to_move}'s stacks"
    return "stack_chosen belongs to a turn"


def _blocks(heights: Sequence[int], stacks: Sequence[Sequence[int]], leftover: Sequence[int]) -> int:
    """Blocks on the board and in the players' stocks (stacks and leftovers): all but the supply."""
    return sum(heights) + sum(map(sum, stacks)) + sum(leftover)


def _default_stacks(
    players: int, stage: str, phase: int, round_: int, start_player: int, to_move: int | None, seat: int
) -> tuple[int, ...]:
    stock = BLOCK_STOCKS[players][phase - 1]
    if stage in _TURN_STAGES and to_move is not None:
        return stock[: turns_left(players, phase, round_, start_player, to_move, seat)]
    if stage in ("setup", "move_king"):
        return stock
    return ()


def _cards(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or any(c not in CARD_KINDS for c in value):
        raise InvalidPosition(f"{where} must be a list of card kinds ({', '.join(CARD_KINDS)})")
    return value


def _check_cards(state: State) -> None:
    """Each player owns one card of each kind (personal, hand); a common deck holds 4 of each kind. Played
    cards still count: they left the game, so they are no longer in any hand or deck."""
    hands, played, to_move = state.hands, state.played, state.to_move
    if state.options.deck == "common":
        counts = Counter(state.deck or ())
        for hand in hands:
            counts.update(hand)
        for cards_played in played:
            counts.update(cards_played)
        over = [kind for kind, n in counts.items() if n > COPIES_PER_KIND]
        if over:
            raise InvalidPosition(f"there are only {COPIES_PER_KIND} cards of each kind: too many {over[0]}")
        return
    for seat in range(state.players):
        owned = list(hands[seat]) + list(played[seat])
        if state.decks is not None:
            owned += state.decks[seat]
        if state.seen is not None and seat == to_move:
            owned += state.seen
        if len(owned) != len(set(owned)):
            raise InvalidPosition(f"seat {seat} owns one card of each kind, but holds a kind twice")
    if to_move is not None and not Counter(state.bought_this_turn) <= Counter(hands[to_move]):
        raise InvalidPosition("bought_this_turn names cards that are not in the hand of the player to move")


class _Reader:
    """Typed access to position fields with defaults and precise errors."""

    def __init__(self, position: dict[str, Any]) -> None:
        self.position = position

    def get(self, key: str, default: Any) -> Any:
        return self.position.get(key, default)

    def int_field(self, key: str, default: int, lo: int, hi: int) -> int:
        value = self.position.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise InvalidPosition(f"{key} must be a whole number from {lo} to {hi}, not {value!r}")
        return value

    def bool_field(self, key: str, default: bool) -> bool:
        value = self.position.get(key, default)
        if not isinstance(value, bool):
            raise InvalidPosition(f"{key} must be true or false, not {value!r}")
        return value

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.position.get(key, default)
        if value not in choices:
            raise InvalidPosition(f"{key} must be one of {', '.join(choices)}, not {value!r}")
        return str(value)

    def list_field(self, key: str, default: list[Any]) -> list[Any]:
        value = self.position.get(key, default)
        if not isinstance(value, list):
            raise InvalidPosition(f"{key} must be a list")
        return value

    def int_list(self, key: str, default: list[int], length: int | None, lo: int) -> list[int]:
        return self.int_list_value(self.position.get(key, default), key, length, lo)

    @staticmethod
    def int_list_value(value: Any, key: str, length: int | None, lo: int) -> list[int]:
        if (
            not isinstance(value, list)
            or (length is not None and len(value) != length)
            or any(not isinstance(v, int) or isinstance(v, bool) or v < lo for v in value)
        ):
            size = f"{length} " if length is not None else ""
            raise InvalidPosition(f"{key} must be a list of {size}whole numbers >= {lo}")
        return value

    def squares(self, key: str) -> dict[int, Any]:
        value = self.position.get(key, {})
        if not isinstance(value, dict):
            raise InvalidPosition(f"{key} must be an object keyed by square (\"A1\"..\"H8\")")
        out: dict[int, Any] = {}
        for name, v in value.items():
            sq = parse_square(name)
            if sq is None:
                raise InvalidPosition(f"{key}: {name!r} is not a square (\"A1\"..\"H8\")")
            out[sq] = v
        return out
