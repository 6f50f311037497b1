from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.timeout_policy_level import TimeoutPolicyLevel
from ..models.timeout_policy_policy import TimeoutPolicyPolicy
from ..models.timeout_policy_scope import TimeoutPolicyScope
from ..types import UNSET, Unset

T = TypeVar("T", bound="TimeoutPolicy")


@_attrs_define
class TimeoutPolicy:
    """
    Attributes:
        policy (TimeoutPolicyPolicy): forfeit: the seat leaves (knights stay, passes, ranks last); ai: the AI plays the
            seat
        scope (TimeoutPolicyScope | Unset): with ai: for the rest of the turn (default) or the game
        level (TimeoutPolicyLevel | Unset): with ai: the AI's level
    """

    policy: TimeoutPolicyPolicy
    scope: TimeoutPolicyScope | Unset = UNSET
    level: TimeoutPolicyLevel | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        policy = self.policy.value

        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value

        level: str | Unset = UNSET
        if not isinstance(self.level, Unset):
            level = self.level.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "policy": policy,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope
        if level is not UNSET:
            field_dict["level"] = level

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        policy = TimeoutPolicyPolicy(d.pop("policy"))

        _scope = d.pop("scope", UNSET)
        scope: TimeoutPolicyScope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = TimeoutPolicyScope(_scope)

        _level = d.pop("level", UNSET)
        level: TimeoutPolicyLevel | Unset
        if isinstance(_level, Unset):
            level = UNSET
        else:
            level = TimeoutPolicyLevel(_level)

        timeout_policy = cls(
            policy=policy,
            scope=scope,
            level=level,
        )

        return timeout_policy
