from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ActionRequestAction")


@_attrs_define
class ActionRequestAction:
    """an action in the rules package's wire form (docs/rules-contract.md)

    Attributes:
        type_ (str): the action's type, e.g. place_knight
        at (bool | int | list[int | str] | None | str | Unset):
        from_ (bool | int | list[int | str] | None | str | Unset):
        to (bool | int | list[int | str] | None | str | Unset):
        stack (bool | int | list[int | str] | None | str | Unset):
        card (bool | int | list[int | str] | None | str | Unset):
        rest (bool | int | list[int | str] | None | str | Unset):
        order (bool | int | list[int | str] | None | str | Unset):
        spread (bool | int | list[int | str] | None | str | Unset):
    """

    type_: str
    at: bool | int | list[int | str] | None | str | Unset = UNSET
    from_: bool | int | list[int | str] | None | str | Unset = UNSET
    to: bool | int | list[int | str] | None | str | Unset = UNSET
    stack: bool | int | list[int | str] | None | str | Unset = UNSET
    card: bool | int | list[int | str] | None | str | Unset = UNSET
    rest: bool | int | list[int | str] | None | str | Unset = UNSET
    order: bool | int | list[int | str] | None | str | Unset = UNSET
    spread: bool | int | list[int | str] | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        at: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        elif isinstance(self.at, list):
            at = []
            for at_type_3_item_data in self.at:
                at_type_3_item: int | str
                at_type_3_item = at_type_3_item_data
                at.append(at_type_3_item)

        else:
            at = self.at

        from_: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        elif isinstance(self.from_, list):
            from_ = []
            for from_type_3_item_data in self.from_:
                from_type_3_item: int | str
                from_type_3_item = from_type_3_item_data
                from_.append(from_type_3_item)

        else:
            from_ = self.from_

        to: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        elif isinstance(self.to, list):
            to = []
            for to_type_3_item_data in self.to:
                to_type_3_item: int | str
                to_type_3_item = to_type_3_item_data
                to.append(to_type_3_item)

        else:
            to = self.to

        stack: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.stack, Unset):
            stack = UNSET
        elif isinstance(self.stack, list):
            stack = []
            for stack_type_3_item_data in self.stack:
                stack_type_3_item: int | str
                stack_type_3_item = stack_type_3_item_data
                stack.append(stack_type_3_item)

        else:
            stack = self.stack

        card: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.card, Unset):
            card = UNSET
        elif isinstance(self.card, list):
            card = []
            for card_type_3_item_data in self.card:
                card_type_3_item: int | str
                card_type_3_item = card_type_3_item_data
                card.append(card_type_3_item)

        else:
            card = self.card

        rest: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.rest, Unset):
            rest = UNSET
        elif isinstance(self.rest, list):
            rest = []
            for rest_type_3_item_data in self.rest:
                rest_type_3_item: int | str
                rest_type_3_item = rest_type_3_item_data
                rest.append(rest_type_3_item)

        else:
            rest = self.rest

        order: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.order, Unset):
            order = UNSET
        elif isinstance(self.order, list):
            order = []
            for order_type_3_item_data in self.order:
                order_type_3_item: int | str
                order_type_3_item = order_type_3_item_data
                order.append(order_type_3_item)

        else:
            order = self.order

        spread: bool | int | list[int | str] | None | str | Unset
        if isinstance(self.spread, Unset):
            spread = UNSET
        elif isinstance(self.spread, list):
            spread = []
            for spread_type_3_item_data in self.spread:
                spread_type_3_item: int | str
                spread_type_3_item = spread_type_3_item_data
                spread.append(spread_type_3_item)

        else:
            spread = self.spread

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )
        if at is not UNSET:
            field_dict["at"] = at
        if from_ is not UNSET:
            field_dict["from"] = from_
        if to is not UNSET:
            field_dict["to"] = to
        if stack is not UNSET:
            field_dict["stack"] = stack
        if card is not UNSET:
            field_dict["card"] = card
        if rest is not UNSET:
            field_dict["rest"] = rest
        if order is not UNSET:
            field_dict["order"] = order
        if spread is not UNSET:
            field_dict["spread"] = spread

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_at(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                at_type_3 = []
                _at_type_3 = data
                for at_type_3_item_data in _at_type_3:

                    def _parse_at_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    at_type_3_item = _parse_at_type_3_item(at_type_3_item_data)

                    at_type_3.append(at_type_3_item)

                return at_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        def _parse_from_(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                from_type_3 = []
                _from_type_3 = data
                for from_type_3_item_data in _from_type_3:

                    def _parse_from_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    from_type_3_item = _parse_from_type_3_item(from_type_3_item_data)

                    from_type_3.append(from_type_3_item)

                return from_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_to(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                to_type_3 = []
                _to_type_3 = data
                for to_type_3_item_data in _to_type_3:

                    def _parse_to_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    to_type_3_item = _parse_to_type_3_item(to_type_3_item_data)

                    to_type_3.append(to_type_3_item)

                return to_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        to = _parse_to(d.pop("to", UNSET))

        def _parse_stack(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                stack_type_3 = []
                _stack_type_3 = data
                for stack_type_3_item_data in _stack_type_3:

                    def _parse_stack_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    stack_type_3_item = _parse_stack_type_3_item(stack_type_3_item_data)

                    stack_type_3.append(stack_type_3_item)

                return stack_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        stack = _parse_stack(d.pop("stack", UNSET))

        def _parse_card(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                card_type_3 = []
                _card_type_3 = data
                for card_type_3_item_data in _card_type_3:

                    def _parse_card_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    card_type_3_item = _parse_card_type_3_item(card_type_3_item_data)

                    card_type_3.append(card_type_3_item)

                return card_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        card = _parse_card(d.pop("card", UNSET))

        def _parse_rest(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rest_type_3 = []
                _rest_type_3 = data
                for rest_type_3_item_data in _rest_type_3:

                    def _parse_rest_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    rest_type_3_item = _parse_rest_type_3_item(rest_type_3_item_data)

                    rest_type_3.append(rest_type_3_item)

                return rest_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        rest = _parse_rest(d.pop("rest", UNSET))

        def _parse_order(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                order_type_3 = []
                _order_type_3 = data
                for order_type_3_item_data in _order_type_3:

                    def _parse_order_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    order_type_3_item = _parse_order_type_3_item(order_type_3_item_data)

                    order_type_3.append(order_type_3_item)

                return order_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        order = _parse_order(d.pop("order", UNSET))

        def _parse_spread(
            data: object,
        ) -> bool | int | list[int | str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                spread_type_3 = []
                _spread_type_3 = data
                for spread_type_3_item_data in _spread_type_3:

                    def _parse_spread_type_3_item(data: object) -> int | str:
                        return cast(int | str, data)

                    spread_type_3_item = _parse_spread_type_3_item(
                        spread_type_3_item_data
                    )

                    spread_type_3.append(spread_type_3_item)

                return spread_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | int | list[int | str] | None | str | Unset, data)

        spread = _parse_spread(d.pop("spread", UNSET))

        action_request_action = cls(
            type_=type_,
            at=at,
            from_=from_,
            to=to,
            stack=stack,
            card=card,
            rest=rest,
            order=order,
            spread=spread,
        )

        return action_request_action
