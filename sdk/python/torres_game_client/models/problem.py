from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem_errors import ProblemErrors


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """
    Attributes:
        type_ (str | Unset):
        title (str | Unset):
        status (int | Unset):
        detail (str | Unset):
        code (str | Unset):
        errors (ProblemErrors | Unset): validation_failed only: field errors
        limit (int | Unset): the input limit a request exceeded (413 payload_too_large, 414 uri_too_long, 431
            headers_too_large, 400 json_too_deep and json_number_too_long), the requests allowed per window (429
            rate_limited) or the open streams allowed (429 too_many_streams_for_client); docs/security.md
        limit_class (str | Unset): 429 only: whose limit it was: address, tenant or player
        window_seconds (int | Unset): 429 rate_limited only: the limit's window
        retry_after (int | Unset): 429 only: seconds to wait, as in Retry-After
        key (str | Unset): 400 json_duplicate_key only: the repeated key (first 80 characters)
        current_version (int | Unset): 409 version_conflict only
        game_id (str | Unset): 400 malformed_id only: the id sent (first 80 characters)
    """

    type_: str | Unset = UNSET
    title: str | Unset = UNSET
    status: int | Unset = UNSET
    detail: str | Unset = UNSET
    code: str | Unset = UNSET
    errors: ProblemErrors | Unset = UNSET
    limit: int | Unset = UNSET
    limit_class: str | Unset = UNSET
    window_seconds: int | Unset = UNSET
    retry_after: int | Unset = UNSET
    key: str | Unset = UNSET
    current_version: int | Unset = UNSET
    game_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        title = self.title

        status = self.status

        detail = self.detail

        code = self.code

        errors: dict[str, Any] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors.to_dict()

        limit = self.limit

        limit_class = self.limit_class

        window_seconds = self.window_seconds

        retry_after = self.retry_after

        key = self.key

        current_version = self.current_version

        game_id = self.game_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if type_ is not UNSET:
            field_dict["type"] = type_
        if title is not UNSET:
            field_dict["title"] = title
        if status is not UNSET:
            field_dict["status"] = status
        if detail is not UNSET:
            field_dict["detail"] = detail
        if code is not UNSET:
            field_dict["code"] = code
        if errors is not UNSET:
            field_dict["errors"] = errors
        if limit is not UNSET:
            field_dict["limit"] = limit
        if limit_class is not UNSET:
            field_dict["limit_class"] = limit_class
        if window_seconds is not UNSET:
            field_dict["window_seconds"] = window_seconds
        if retry_after is not UNSET:
            field_dict["retry_after"] = retry_after
        if key is not UNSET:
            field_dict["key"] = key
        if current_version is not UNSET:
            field_dict["current_version"] = current_version
        if game_id is not UNSET:
            field_dict["game_id"] = game_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem_errors import ProblemErrors

        d = dict(src_dict)
        type_ = d.pop("type", UNSET)

        title = d.pop("title", UNSET)

        status = d.pop("status", UNSET)

        detail = d.pop("detail", UNSET)

        code = d.pop("code", UNSET)

        _errors = d.pop("errors", UNSET)
        errors: ProblemErrors | Unset
        if isinstance(_errors, Unset):
            errors = UNSET
        else:
            errors = ProblemErrors.from_dict(_errors)

        limit = d.pop("limit", UNSET)

        limit_class = d.pop("limit_class", UNSET)

        window_seconds = d.pop("window_seconds", UNSET)

        retry_after = d.pop("retry_after", UNSET)

        key = d.pop("key", UNSET)

        current_version = d.pop("current_version", UNSET)

        game_id = d.pop("game_id", UNSET)

        problem = cls(
            type_=type_,
            title=title,
            status=status,
            detail=detail,
            code=code,
            errors=errors,
            limit=limit,
            limit_class=limit_class,
            window_seconds=window_seconds,
            retry_after=retry_after,
            key=key,
            current_version=current_version,
            game_id=game_id,
        )

        problem.additional_properties = d
        return problem

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
