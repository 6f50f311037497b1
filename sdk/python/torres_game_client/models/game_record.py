from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.game_record_creation import GameRecordCreation
    from ..models.game_record_head import GameRecordHead
    from ..models.game_record_inclusion_type_0 import GameRecordInclusionType0
    from ..models.game_record_reader import GameRecordReader
    from ..models.game_record_result_type_0 import GameRecordResultType0
    from ..models.game_record_signature import GameRecordSignature
    from ..models.record_event import RecordEvent


T = TypeVar("T", bound="GameRecord")


@_attrs_define
class GameRecord:
    """
    Attributes:
        format_ (str | Unset): torres-game-record/1
        game_id (str | Unset):
        status (str | Unset): active | over
        reader (GameRecordReader | Unset): {"kind": "full"} | {"kind": "seat", "seat": n} | {"kind": "spectator"}
        creation (GameRecordCreation | Unset): the game_created payload
        seed (None | str | Unset): the revealed seed (decimal), once over
        result (GameRecordResultType0 | None | Unset): the game_ended payload, once over
        events (list[RecordEvent] | Unset):
        head (GameRecordHead | Unset): {version, hash}: the last event
        signature (GameRecordSignature | Unset): {key: the service's vkey, note: the signed head (C2SP note)}
        inclusion (GameRecordInclusionType0 | None | Unset): the transparency log's proof, once there is one
    """

    format_: str | Unset = UNSET
    game_id: str | Unset = UNSET
    status: str | Unset = UNSET
    reader: GameRecordReader | Unset = UNSET
    creation: GameRecordCreation | Unset = UNSET
    seed: None | str | Unset = UNSET
    result: GameRecordResultType0 | None | Unset = UNSET
    events: list[RecordEvent] | Unset = UNSET
    head: GameRecordHead | Unset = UNSET
    signature: GameRecordSignature | Unset = UNSET
    inclusion: GameRecordInclusionType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.game_record_inclusion_type_0 import GameRecordInclusionType0
        from ..models.game_record_result_type_0 import GameRecordResultType0

        format_ = self.format_

        game_id = self.game_id

        status = self.status

        reader: dict[str, Any] | Unset = UNSET
        if not isinstance(self.reader, Unset):
            reader = self.reader.to_dict()

        creation: dict[str, Any] | Unset = UNSET
        if not isinstance(self.creation, Unset):
            creation = self.creation.to_dict()

        seed: None | str | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, GameRecordResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        events: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.to_dict()
                events.append(events_item)

        head: dict[str, Any] | Unset = UNSET
        if not isinstance(self.head, Unset):
            head = self.head.to_dict()

        signature: dict[str, Any] | Unset = UNSET
        if not isinstance(self.signature, Unset):
            signature = self.signature.to_dict()

        inclusion: dict[str, Any] | None | Unset
        if isinstance(self.inclusion, Unset):
            inclusion = UNSET
        elif isinstance(self.inclusion, GameRecordInclusionType0):
            inclusion = self.inclusion.to_dict()
        else:
            inclusion = self.inclusion

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if format_ is not UNSET:
            field_dict["format"] = format_
        if game_id is not UNSET:
            field_dict["game_id"] = game_id
        if status is not UNSET:
            field_dict["status"] = status
        if reader is not UNSET:
            field_dict["reader"] = reader
        if creation is not UNSET:
            field_dict["creation"] = creation
        if seed is not UNSET:
            field_dict["seed"] = seed
        if result is not UNSET:
            field_dict["result"] = result
        if events is not UNSET:
            field_dict["events"] = events
        if head is not UNSET:
            field_dict["head"] = head
        if signature is not UNSET:
            field_dict["signature"] = signature
        if inclusion is not UNSET:
            field_dict["inclusion"] = inclusion

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.game_record_creation import GameRecordCreation
        from ..models.game_record_head import GameRecordHead
        from ..models.game_record_inclusion_type_0 import GameRecordInclusionType0
        from ..models.game_record_reader import GameRecordReader
        from ..models.game_record_result_type_0 import GameRecordResultType0
        from ..models.game_record_signature import GameRecordSignature
        from ..models.record_event import RecordEvent

        d = dict(src_dict)
        format_ = d.pop("format", UNSET)

        game_id = d.pop("game_id", UNSET)

        status = d.pop("status", UNSET)

        _reader = d.pop("reader", UNSET)
        reader: GameRecordReader | Unset
        if isinstance(_reader, Unset):
            reader = UNSET
        else:
            reader = GameRecordReader.from_dict(_reader)

        _creation = d.pop("creation", UNSET)
        creation: GameRecordCreation | Unset
        if isinstance(_creation, Unset):
            creation = UNSET
        else:
            creation = GameRecordCreation.from_dict(_creation)

        def _parse_seed(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_result(data: object) -> GameRecordResultType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = GameRecordResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GameRecordResultType0 | None | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        _events = d.pop("events", UNSET)
        events: list[RecordEvent] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = RecordEvent.from_dict(events_item_data)

                events.append(events_item)

        _head = d.pop("head", UNSET)
        head: GameRecordHead | Unset
        if isinstance(_head, Unset):
            head = UNSET
        else:
            head = GameRecordHead.from_dict(_head)

        _signature = d.pop("signature", UNSET)
        signature: GameRecordSignature | Unset
        if isinstance(_signature, Unset):
            signature = UNSET
        else:
            signature = GameRecordSignature.from_dict(_signature)

        def _parse_inclusion(data: object) -> GameRecordInclusionType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                inclusion_type_0 = GameRecordInclusionType0.from_dict(data)

                return inclusion_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GameRecordInclusionType0 | None | Unset, data)

        inclusion = _parse_inclusion(d.pop("inclusion", UNSET))

        game_record = cls(
            format_=format_,
            game_id=game_id,
            status=status,
            reader=reader,
            creation=creation,
            seed=seed,
            result=result,
            events=events,
            head=head,
            signature=signature,
            inclusion=inclusion,
        )

        return game_record
