"""The immutable game State and the position JSON (the engine's FEN).

A State is never changed after it is handed out: `apply` copies it (`_copy`), changes the fresh copy and returns
it. Board data are flat tuples indexed by square so a copy is a handful of pointer copies and a hash is one
tuple hash -- search code creates millions of states.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

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

_FIELDS: Final = (
    "players",
    "edition",
    "master",
    "options",
    "master_card",
    "stage",
    "phase",
    "round",
    "start_player",
    "to_move",
    "ap",
    "ap_spent",
    "card_played",
    "cards_bought",
    "stack_chosen",
    "heights",
    "knights",
    "king",
    "scores",
    "stacks",
    "leftover",
    "supply",
    "hands",
    "bought_this_turn",
    "decks",
    "deck",
    "seen",
    "played",
)


class InvalidPosition(ValueError):
    """A position JSON that no game can reach (RULES.md section 2) or that is malformed."""


class State:
    """One position of a game. Treat as immutable; build new ones with the rules' functions.

    heights: 64 stack heights. knights: 64 entries, the owning seat or NO_FIGURE. king: square or NO_FIGURE.
    stacks: per seat, the remaining stacks (one is used up per turn). leftover: per seat, blocks kept from the
    last turn of a phase for the next phase (carry_over_blocks). hands and bought_this_turn are sorted tuples
    (multisets); decks/deck/seen are tuples, top card first.
    """

    __slots__ = (*_FIELDS, "_castles", "_key", "_knights_for", "_knights_of")

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
    played: tuple[tuple[str, ...], ...]  # per seat, the cards it played, in order (public: RULES 13)

    def __init__(
        self,
        players: int,
        edition: str,
        master: bool,
        options: Options,
        master_card: str | None,
        stage: str,
        phase: int,
        round: int,
        start_player: int,
        to_move: int | None,
        ap: int,
        ap_spent: int,
        card_played: bool,
        cards_bought: int,
        stack_chosen: int | None,
        heights: tuple[int, ...],
        knights: tuple[int, ...],
        king: int,
        scores: tuple[int, ...],
        stacks: tuple[tuple[int, ...], ...],
        leftover: tuple[int, ...],
        supply: int,
        hands: tuple[tuple[str, ...], ...],
        bought_this_turn: tuple[str, ...],
        decks: tuple[tuple[str, ...], ...] | None,
        deck: tuple[str, ...] | None,
        seen: tuple[str, ...] | None,
        played: tuple[tuple[str, ...], ...],
    ) -> None:
        self.players = players
        self.edition = edition
        self.master = master
        self.options = options
        self.master_card = master_card
        self.stage = stage
        self.phase = phase
        self.round = round
        self.start_player = start_player
        self.to_move = to_move
        self.ap = ap
        self.ap_spent = ap_spent
        self.card_played = card_played
        self.cards_bought = cards_bought
        self.stack_chosen = stack_chosen
        self.heights = heights
        self.knights = knights
        self.king = king
        self.scores = scores
        self.stacks = stacks
        self.leftover = leftover
        self.supply = supply
        self.hands = hands
        self.bought_this_turn = bought_this_turn
        self.decks = decks
        self.deck = deck
        self.seen = seen
        self.played = played
        self._castles: Castles | None = None
        self._key: tuple[object, ...] | None = None
        # per seat, its knights' squares (None: not asked for yet), valid while `knights` is `_knights_for`;
        # shared by copies until a knight moves, then replaced (never changed in place) by `put_knight`
        self._knights_for: tuple[int, ...] | None = None
        self._knights_of: list[tuple[int, ...] | None] | None = None

    def _copy(self) -> State:
        """A private, still mutable copy for `apply` to change before handing it out."""
        new = State(
            self.players,
            self.edition,
            self.master,
            self.options,
            self.master_card,
            self.stage,
            self.phase,
            self.round,
            self.start_player,
            self.to_move,
            self.ap,
            self.ap_spent,
            self.card_played,
            self.cards_bought,
            self.stack_chosen,
            self.heights,
            self.knights,
            self.king,
            self.scores,
            self.stacks,
            self.leftover,
            self.supply,
            self.hands,
            self.bought_this_turn,
            self.decks,
            self.deck,
            self.seen,
            self.played,
        )
        new._castles = self._castles
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
        key = self._key
        if key is None:
            key = self._key = (
                self.players,
                self.edition,
                self.master,
                self.options,
                self.master_card,
                self.stage,
                self.phase,
                self.round,
                self.start_player,
                self.to_move,
                self.ap,
                self.ap_spent,
                self.card_played,
                self.cards_bought,
                self.stack_chosen,
                self.heights,
                self.knights,
                self.king,
                self.scores,
                self.stacks,
                self.leftover,
                self.supply,
                self.hands,
                self.bought_this_turn,
                self.decks,
                self.deck,
                self.seen,
                self.played,
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
    """The complete position, secrets included (deck orders): for storage, tests and admins, never players."""
    return {
        "players": state.players,
        "edition": state.edition,
        "master": state.master,
        "options": state.options.to_dict(),
        "master_card": state.master_card,
        "stage": state.stage,
        "phase": state.phase,
        "round": state.round,
        "start_player": state.start_player,
        "to_move": state.to_move,
        "ap": state.ap,
        "ap_spent": state.ap_spent,
        "card_played": state.card_played,
        "cards_bought": state.cards_bought,
        "stack_chosen": state.stack_chosen,
        "heights": {SQUARE_NAMES[sq]: h for sq, h in enumerate(state.heights) if h},
        "knights": {SQUARE_NAMES[sq]: seat for sq, seat in enumerate(state.knights) if seat != NO_FIGURE},
        "king": SQUARE_NAMES[state.king] if state.king != NO_FIGURE else None,
        "scores": list(state.scores),
        "stacks": [list(s) for s in state.stacks],
        "leftover": list(state.leftover),
        "supply": state.supply,
        "hands": [list(h) for h in state.hands],
        "bought_this_turn": list(state.bought_this_turn),
        "decks": None if state.decks is None else [list(d) for d in state.decks],
        "deck": None if state.deck is None else list(state.deck),
        "seen": None if state.seen is None else list(state.seen),
        "played": [list(p) for p in state.played],
    }


def turns_left(players: int, phase: int, round_: int, start_player: int, to_move: int, seat: int) -> int:
    """Turns `seat` still has in the phase, counting the current one if it has not ended yet."""
    played_this_round = (seat - start_player) % players < (to_move - start_player) % players
    return rounds_in_phase(players, phase) - round_ + (0 if played_this_round else 1)


def from_position(position: dict[str, Any]) -> State:
    """Build a State from position JSON, rejecting anything malformed or impossible with a clear message.

    Omitted fields take the value a fresh turn would have: stage "turn", phase 1, round 1, seat 0 to move,
    5 AP, no scores, the phase's stacks for the turns left, empty hands and decks, and the supply that makes
    the blocks add up to 92.
    """
    if not isinstance(position, dict):
        raise InvalidPosition("a position is a JSON object")
    p = _Reader(position)
    unknown = set(position) - set(_FIELDS)
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
    king = NO_FIGURE
    if king_name is not None:
        parsed = parse_square(king_name)
        if parsed is None:
            raise InvalidPosition(f"king stands on no square: {king_name!r}")
        king = parsed
        if knights[king] != NO_FIGURE:
            raise InvalidPosition(f"at most one figure per square: the king and a knight share {king_name}")
    for seat in range(players):
        if knights.count(seat) > KNIGHTS_PER_PLAYER:
            raise InvalidPosition(f"seat {seat} has {knights.count(seat)} knights on the board, at most 6")

    scores = p.int_list("scores", [0] * players, players, 0)
    positive = [s for s in scores if s > 0]
    if len(positive) != len(set(positive)):
        raise InvalidPosition("no two players with a score above 0 may share a score (RULES 8)")

    ap = p.int_field("ap", 5, 5, 7)
    ap_spent = p.int_field("ap_spent", 0, 0, ap)
    card_played = p.bool_field("card_played", False)
    cards_bought = p.int_field("cards_bought", 0, 0, 2)
    stack_chosen = p.get("stack_chosen", None)

    if "stacks" in position:
        raw_stacks = position["stacks"]
        if not isinstance(raw_stacks, list) or len(raw_stacks) != players:
            raise InvalidPosition(f"stacks must be a list of {players} lists")
        stacks = [p.int_list_value(s, "stacks", None, 0) for s in raw_stacks]
    else:
        stacks = [list(_default_stacks(players, stage, phase, round_, start_player, to_move, s))
                  for s in range(players)]
    leftover = p.int_list("leftover", [0] * players, players, 0)

    on_board_and_stock = sum(heights) + sum(map(sum, stacks)) + sum(leftover)
    supply = p.int_field("supply", TOTAL_BLOCKS - on_board_and_stock, 0, TOTAL_BLOCKS)
    if on_board_and_stock + supply != TOTAL_BLOCKS:
        raise InvalidPosition(
            f"blocks must add up to {TOTAL_BLOCKS}: {sum(heights)} on the board + "
            f"{sum(map(sum, stacks)) + sum(leftover)} in stocks + {supply} in the supply = "
            f"{on_board_and_stock + supply}"
        )

    castles = analyse(tuple(heights))
    for sq, h in enumerate(heights):
        if h > castles.area_of(sq):
            raise InvalidPosition(
                f"a stack may be at most as high as its castle's base area: {SQUARE_NAMES[sq]} has height {h}, "
                f"base area {castles.area_of(sq)}"
            )
    founding = master and stage == "setup"
    if castles.count < MIN_CASTLES and not founding:
        raise InvalidPosition(f"there are never fewer than {MIN_CASTLES} castles; this board has {castles.count}")

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
        if options.deck != "personal":
            raise InvalidPosition("the keep_card stage follows a buy from a personal deck only")
        seen = tuple(_cards(seen_raw or [], "seen"))
        if not 1 <= len(seen) <= 3:
            raise InvalidPosition("during keep_card the buyer sees 1 to 3 cards")
    elif seen_raw is not None:
        raise InvalidPosition("seen cards exist only during the keep_card stage")

    _check_cards(players, options.deck, hands, decks, deck, seen, to_move, bought, played)

    if stage in ("turn", "keep_card"):
        assert to_move is not None
        for seat in range(players):
            expected = turns_left(players, phase, round_, start_player, to_move, seat)
            if len(stacks[seat]) != expected:
                raise InvalidPosition(
                    f"every turn uses up one stack: seat {seat} has {expected} turns left in phase {phase} "
                    f"but {len(stacks[seat])} stacks"
                )
        if stack_chosen is not None and (
            not isinstance(stack_chosen, int) or not 0 <= stack_chosen < len(stacks[to_move])
        ):
            raise InvalidPosition(f"stack_chosen {stack_chosen!r} is not one of seat {to_move}'s stacks")
        if cards_bought < len(bought):
            raise InvalidPosition("bought_this_turn lists more cards than cards_bought")
    elif stack_chosen is not None:
        raise InvalidPosition("stack_chosen belongs to a turn")

    if stage != "setup" and king == NO_FIGURE:
        raise InvalidPosition("exactly one king stands on the board once it is placed")
    if king != NO_FIGURE and not heights[king]:
        raise InvalidPosition(f"the king always stands on a block: {SQUARE_NAMES[king]} is ground")
    if stage == "move_king" and phase == 1:
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

    return State(
        players=players,
        edition=edition,
        master=master,
        options=options,
        master_card=master_card,
        stage=stage,
        phase=phase,
        round=round_,
        start_player=start_player,
        to_move=to_move,
        ap=ap,
        ap_spent=ap_spent,
        card_played=card_played,
        cards_bought=cards_bought,
        stack_chosen=stack_chosen,
        heights=tuple(heights),
        knights=tuple(knights),
        king=king,
        scores=tuple(scores),
        stacks=tuple(tuple(s) for s in stacks),
        leftover=tuple(leftover),
        supply=supply,
        hands=tuple(hands),
        bought_this_turn=bought,
        decks=decks,
        deck=deck,
        seen=seen,
        played=tuple(played),
    )


def _default_stacks(
    players: int, stage: str, phase: int, round_: int, start_player: int, to_move: int | None, seat: int
) -> tuple[int, ...]:
    stock = BLOCK_STOCKS[players][phase - 1]
    if stage in ("turn", "keep_card") and to_move is not None:
        return stock[: turns_left(players, phase, round_, start_player, to_move, seat)]
    if stage in ("setup", "move_king"):
        return stock
    return ()


def _cards(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or any(c not in CARD_KINDS for c in value):
        raise InvalidPosition(f"{where} must be a list of card kinds ({', '.join(CARD_KINDS)})")
    return value


def _check_cards(
    players: int,
    mode: str,
    hands: list[tuple[str, ...]],
    decks: tuple[tuple[str, ...], ...] | None,
    deck: tuple[str, ...] | None,
    seen: tuple[str, ...] | None,
    to_move: int | None,
    bought: tuple[str, ...],
    played: list[tuple[str, ...]],
) -> None:
    """Each player owns one card of each kind (personal, hand); a common deck holds 4 of each kind. Played
    cards still count: they left the game, so they are no longer in any hand or deck."""
    if mode == "common":
        counts = Counter(deck or ())
        for hand in hands:
            counts.update(hand)
        for cards_played in played:
            counts.update(cards_played)
        over = [kind for kind, n in counts.items() if n > COPIES_PER_KIND]
        if over:
            raise InvalidPosition(f"there are only {COPIES_PER_KIND} cards of each kind: too many {over[0]}")
        return
    for seat in range(players):
        owned = list(hands[seat]) + list(played[seat])
        if decks is not None:
            owned += decks[seat]
        if seen is not None and seat == to_move:
            owned += seen
        if len(owned) != len(set(owned)):
            raise InvalidPosition(f"seat {seat} owns one card of each kind, but holds a kind twice")
    if to_move is not None and not Counter(bought) <= Counter(hands[to_move]):
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
