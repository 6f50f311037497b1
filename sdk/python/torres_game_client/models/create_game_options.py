from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.create_game_options_deck import CreateGameOptionsDeck
from ..models.create_game_options_jump_over import CreateGameOptionsJumpOver
from ..models.create_game_options_personal_rest import CreateGameOptionsPersonalRest
from ..models.create_game_options_stack_choice import CreateGameOptionsStackChoice
from ..models.create_game_options_start_player import CreateGameOptionsStartPlayer
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateGameOptions")


@_attrs_define
class CreateGameOptions:
    """single rule options overriding the edition's (docs/rules.md, docs/rules-engine.md)

    Attributes:
        deck (CreateGameOptionsDeck | Unset):
        personal_rest (CreateGameOptionsPersonalRest | Unset):
        carry_over_blocks (bool | Unset):
        king_mover_starts (bool | Unset):
        jump_over (CreateGameOptionsJumpOver | Unset):
        master_diagonal_foundations (bool | Unset):
        start_player (CreateGameOptionsStartPlayer | Unset):
        stack_choice (CreateGameOptionsStackChoice | Unset):
    """

    deck: CreateGameOptionsDeck | Unset = UNSET
    personal_rest: CreateGameOptionsPersonalRest | Unset = UNSET
    carry_over_blocks: bool | Unset = UNSET
    king_mover_starts: bool | Unset = UNSET
    jump_over: CreateGameOptionsJumpOver | Unset = UNSET
    master_diagonal_foundations: bool | Unset = UNSET
    start_player: CreateGameOptionsStartPlayer | Unset = UNSET
    stack_choice: CreateGameOptionsStackChoice | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        deck: str | Unset = UNSET
        if not isinstance(self.deck, Unset):
            deck = self.deck.value

        personal_rest: str | Unset = UNSET
        if not isinstance(self.personal_rest, Unset):
            personal_rest = self.personal_rest.value

        carry_over_blocks = self.carry_over_blocks

        king_mover_starts = self.king_mover_starts

        jump_over: str | Unset = UNSET
        if not isinstance(self.jump_over, Unset):
            jump_over = self.jump_over.value

        master_diagonal_foundations = self.master_diagonal_foundations

        start_player: str | Unset = UNSET
        if not isinstance(self.start_player, Unset):
            start_player = self.start_player.value

        stack_choice: str | Unset = UNSET
        if not isinstance(self.stack_choice, Unset):
            stack_choice = self.stack_choice.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if deck is not UNSET:
            field_dict["deck"] = deck
        if personal_rest is not UNSET:
            field_dict["personal_rest"] = personal_rest
        if carry_over_blocks is not UNSET:
            field_dict["carry_over_blocks"] = carry_over_blocks
        if king_mover_starts is not UNSET:
            field_dict["king_mover_starts"] = king_mover_starts
        if jump_over is not UNSET:
            field_dict["jump_over"] = jump_over
        if master_diagonal_foundations is not UNSET:
            field_dict["master_diagonal_foundations"] = master_diagonal_foundations
        if start_player is not UNSET:
            field_dict["start_player"] = start_player
        if stack_choice is not UNSET:
            field_dict["stack_choice"] = stack_choice

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _deck = d.pop("deck", UNSET)
        deck: CreateGameOptionsDeck | Unset
        if isinstance(_deck, Unset):
            deck = UNSET
        else:
            deck = CreateGameOptionsDeck(_deck)

        _personal_rest = d.pop("personal_rest", UNSET)
        personal_rest: CreateGameOptionsPersonalRest | Unset
        if isinstance(_personal_rest, Unset):
            personal_rest = UNSET
        else:
            personal_rest = CreateGameOptionsPersonalRest(_personal_rest)

        carry_over_blocks = d.pop("carry_over_blocks", UNSET)

        king_mover_starts = d.pop("king_mover_starts", UNSET)

        _jump_over = d.pop("jump_over", UNSET)
        jump_over: CreateGameOptionsJumpOver | Unset
        if isinstance(_jump_over, Unset):
            jump_over = UNSET
        else:
            jump_over = CreateGameOptionsJumpOver(_jump_over)

        master_diagonal_foundations = d.pop("master_diagonal_foundations", UNSET)

        _start_player = d.pop("start_player", UNSET)
        start_player: CreateGameOptionsStartPlayer | Unset
        if isinstance(_start_player, Unset):
            start_player = UNSET
        else:
            start_player = CreateGameOptionsStartPlayer(_start_player)

        _stack_choice = d.pop("stack_choice", UNSET)
        stack_choice: CreateGameOptionsStackChoice | Unset
        if isinstance(_stack_choice, Unset):
            stack_choice = UNSET
        else:
            stack_choice = CreateGameOptionsStackChoice(_stack_choice)

        create_game_options = cls(
            deck=deck,
            personal_rest=personal_rest,
            carry_over_blocks=carry_over_blocks,
            king_mover_starts=king_mover_starts,
            jump_over=jump_over,
            master_diagonal_foundations=master_diagonal_foundations,
            start_player=start_player,
            stack_choice=stack_choice,
        )

        return create_game_options
