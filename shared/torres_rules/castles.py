"""Castles: maximal orthogonally connected groups of castle squares (height >= 1), and what follows from them.

Everything here depends on the heights alone, so one analysis serves every state with the same board (knight
moves never change it) and is cached by the heights tuple.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from .board import NEIGHBOURS

NO_CASTLE: Final = -1


class Castles:
    """The castles of one board.

    of[square]: the castle index of a square, or NO_CASTLE on the ground. areas[c]: base area of castle c.
    members[c]: its squares. Figure-independent derived tables are computed on first use.
    """

    __slots__ = ("_build_squares", "_buildable_at", "_gate_exits", "_landing", "_lonely", "_reach", "areas", "heights",
                 "members", "of")

    def __init__(
        self,
        heights: tuple[int, ...],
        of: tuple[int, ...] | None = None,
        members: tuple[tuple[int, ...], ...] | None = None,
        areas: tuple[int, ...] | None = None,
        reach: list[tuple[int, ...] | None] | None = None,
        gate_exits: list[list[int] | None] | None = None,
    ) -> None:
        """The castles of `heights`: found by a flood fill, or given (`of`, `members` and their `areas`, and the
        caches still valid) when derived from a board one block away (`with_block`)."""
        if of is None or members is None:
            of, members = _flood(heights)
        self.heights = heights
        self.of = of
        self.members = members
        self.areas: tuple[int, ...] = tuple([len(m) for m in members]) if areas is None else areas
        self._build_squares: tuple[int, ...] | None = None
        # per square, whether a block may go there (figures aside): what `build_squares` lists, as a table that
        # `with_block` copies and re-decides only where the block can change it
        self._buildable_at: list[bool] | None = None
        self._lonely: tuple[int, ...] | None = None
        self._landing: tuple[int, ...] | None = None
        # per square, its reach once asked for: a list indexed by square, which `with_block` copies whole and
        # clears where stale (a dict cost an insert per surviving entry)
        self._reach: list[tuple[int, ...] | None] = [None] * 64 if reach is None else reach
        self._gate_exits: list[list[int] | None] = [None] * len(members) if gate_exits is None else gate_exits

    def with_block(self, square: int, heights: tuple[int, ...]) -> Castles:
        """The castles after one block was added on `square` (giving `heights`), derived without a new flood
        fill: a block on top changes no membership; a ground block joins the one castle it touches or founds
        one (building never joins castles). Only the changed castle's tables are recomputed: castles never
        touch, so no other castle's gates or build squares depend on it."""
        # a square's reach depends only on its own level and its neighbours' (steps), and on the castles next
        # to it (gates): only the squares next to the changed castle, and the changed square, need it again
        reach = self._reach[:]
        reach[square] = None
        exits = self._gate_exits[:]
        if self.heights[square]:
            changed = self.of[square]
            new = Castles(heights, self.of, self.members, self.areas, reach, exits)
            affected: tuple[int, ...] = (square,)
        else:
            extended = self.ground_extension(square)
            if extended is None:  # not reachable by legal building; stay exact anyway
                return Castles(heights)
            of = list(self.of)
            grown = list(self.members)
            areas = list(self.areas)
            if extended == NO_CASTLE:
                changed = len(grown)
                grown.append((square,))
                areas.append(1)
                exits.append(None)
            else:
                changed = extended
                grown[changed] = tuple(sorted((*grown[changed], square)))
                areas[changed] += 1
            members = tuple(grown)
            of[square] = changed
            new = Castles(heights, tuple(of), members, tuple(areas), reach, exits)
            affected = (square, *NEIGHBOURS[square], *members[changed])
        exits[changed] = None
        below = self.heights[square]
        if below:  # on top: the castle's gates change only at levels >= the old top of `square` (its neighbours
            # at that level get a gate, and `square` itself stops being a gate exit at that level). A knight next to
            # the castle on a lower level reaches the same squares unless it stands next to `square` (its steps
            # and whether it enters the castle through `square` change): most knights around a growing castle.
            # Next to a castle, only its own squares are that high (the ground is lower, and castles never touch).
            # A neighbour of `square` lower than below - 1 keeps its reach too: `square` was no step for it and
            # stays none, and it entered the castle through `square` and still does.
            heights_before = self.heights
            for n in NEIGHBOURS[square]:
                if heights_before[n] + 1 >= below:
                    reach[n] = None
            for x in new.members[changed]:
                if heights_before[x] >= below:
                    reach[x] = None
        else:
            for x in new.members[changed]:
                for n in NEIGHBOURS[x]:
                    reach[n] = None
        buildable = self._buildable_at
        if buildable is not None:  # carried over, re-decided only where the block can change it: its own
            table = buildable  # square, its neighbours and the squares of the castle it grew; copied on the first
            for sq in affected:  # change, as the tables are never changed in place
                decided = new._buildable(sq)
                if decided != table[sq]:
                    if table is buildable:
                        table = buildable[:]
                    table[sq] = decided
            new._buildable_at = table
            if table is buildable:  # most blocks on top of a castle: the very same tables serve
                new._build_squares = self._build_squares
        return new

    @property
    def count(self) -> int:
        return len(self.members)

    def area_of(self, square: int) -> int:
        """Base area of the castle the square belongs to (0 on the ground)."""
        c = self.of[square]
        return self.areas[c] if c != NO_CASTLE else 0

    def ground_extension(self, square: int) -> int | None:
        """The one castle a block on this ground square would extend, NO_CASTLE if it touches none,
        None if it touches two or more (castles never join)."""
        found = NO_CASTLE
        for n in NEIGHBOURS[square]:
            c = self.of[n]
            if c != NO_CASTLE and c != found:
                if found != NO_CASTLE:
                    return None
                found = c
        return found

    def build_squares(self) -> tuple[int, ...]:
        """Squares where a block may be built, figures aside (RULES 5.3): on top of a castle square whose stack
        stays <= the base area, or on ground next to exactly one castle."""
        squares = self._build_squares
        if squares is None:
            buildable = self.buildable_at()
            squares = self._build_squares = tuple([sq for sq in range(64) if buildable[sq]])
        return squares

    def buildable_at(self) -> list[bool]:
        """Per square, whether it is one of `build_squares` (a look-up for `apply`, not a search of the tuple)."""
        buildable = self._buildable_at
        if buildable is None:
            buildable = self._buildable_at = [self._buildable(sq) for sq in range(64)]
        return buildable

    def lonely_squares(self) -> tuple[int, ...]:
        """Ground squares touching no castle: where a moved block founds a new castle (card 8)."""
        if self._lonely is None:
            near = {n for members in self.members for sq in members for n in NEIGHBOURS[sq]}
            self._lonely = tuple(sq for sq in range(64) if sq not in near and not self.heights[sq])
        return self._lonely

    def landing_squares(self) -> tuple[int, ...]:
        """Where a block lifted off another square may land (card 8): any build square, or a lonely one."""
        if self._landing is None:
            self._landing = tuple(sorted({*self.build_squares(), *self.lonely_squares()}))
        return self._landing

    def _buildable(self, sq: int) -> bool:
        c = self.of[sq]
        if c != NO_CASTLE:
            return self.heights[sq] < self.areas[c]
        of = self.of
        found = NO_CASTLE
        for n in NEIGHBOURS[sq]:
            d = of[n]
            if d != NO_CASTLE and d != found:
                if found != NO_CASTLE:
                    return False
                found = d
        return found != NO_CASTLE

    def gate_exits(self, castle: int) -> list[int]:
        """Every square a gate of the castle opens onto, as `level * 64 + square` (the level of E, then E), lowest
        first (RULES 5.2 [ruling]: a gate exists between a castle square X and a neighbour E whose level is below
        X's top); E appears once per gate onto it (`reach` marks each square once). Plain ints, not (level, square)
        pairs, and no de-duplication: no tuple per exit, and sorting compares machine ints."""
        exits = self._gate_exits[castle]
        if exits is None:
            h = self.heights
            exits = []
            for x in self.members[castle]:
                top = h[x]
                for e in NEIGHBOURS[x]:
                    level = h[e]
                    if level < top:
                        exits.append(level * 64 + e)
            exits.sort()
            self._gate_exits[castle] = exits
        return exits

    def reach(self, square: int) -> tuple[int, ...]:
        """Where `move_knight` (5.2) leads from a knight on `square`, figures aside, sorted: a step onto a
        neighbour at most 1 level higher, or a gate move through any castle next to it with a gate above the
        knight's level, out through a gate onto a square no higher than it started."""
        targets = self._reach[square]
        if targets is None:
            h = self.heights
            of = self.of
            level = h[square]
            limit = level * 64 + 63  # gate exits (level * 64 + square) no higher than the knight's level
            found = [False] * 64  # a mask, not a set: the compiled build runs this loop as plain C
            found[square] = True  # never a target
            out: list[int] = []
            gated = False
            entered = 0  # the castles already gone through, as bits of their indices: no list to search
            for t in NEIGHBOURS[square]:
                if h[t] <= level + 1 and not found[t]:
                    found[t] = True
                    out.append(t)
                c = of[t]
                if c == NO_CASTLE or h[t] <= level or entered >> c & 1:
                    continue
                entered |= 1 << c
                for key in self.gate_exits(c):
                    if key > limit:
                        break
                    e = key & 63
                    if not found[e]:
                        found[e] = True
                        out.append(e)
                        gated = True
            if gated:  # steps alone come in NEIGHBOURS' order, which is ascending
                out.sort()
            targets = tuple(out)
            self._reach[square] = targets
        return targets


def _flood(heights: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """(castle index of each square, squares of each castle): maximal orthogonally connected castle squares."""
    of = [NO_CASTLE] * 64
    members: list[tuple[int, ...]] = []
    for start in range(64):
        if heights[start] == 0 or of[start] != NO_CASTLE:
            continue
        index = len(members)
        of[start] = index
        group = [start]
        i = 0
        while i < len(group):
            for n in NEIGHBOURS[group[i]]:
                if heights[n] and of[n] == NO_CASTLE:
                    of[n] = index
                    group.append(n)
            i += 1
        members.append(tuple(sorted(group)))
    return tuple(of), tuple(members)


@lru_cache(maxsize=8192)
def analyse(heights: tuple[int, ...]) -> Castles:
    return Castles(heights)

