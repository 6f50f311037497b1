import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.game_list import GameList
from ...models.list_games_status import ListGamesStatus
from ...models.list_games_visibility import ListGamesVisibility
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: ListGamesStatus | Unset = UNSET,
    player_id: str | Unset = UNSET,
    visibility: ListGamesVisibility | Unset = UNSET,
    external_id: str | Unset = UNSET,
    label: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["player_id"] = player_id

    json_visibility: str | Unset = UNSET
    if not isinstance(visibility, Unset):
        json_visibility = visibility.value

    params["visibility"] = json_visibility

    params["external_id"] = external_id

    params["label"] = label

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    params["cursor"] = cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/games",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GameList | Problem | None:
    if response.status_code == 200:
        response_200 = GameList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[GameList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: ListGamesStatus | Unset = UNSET,
    player_id: str | Unset = UNSET,
    visibility: ListGamesVisibility | Unset = UNSET,
    external_id: str | Unset = UNSET,
    label: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[GameList | Problem]:
    """The caller's tenant's games (a tenant's key with ``games``; the admin key: every tenant's), newest
    first,
    every visibility; filtered by status, player, visibility and creation time; paged by
    ``next_cursor``.

    Args:
        status (ListGamesStatus | Unset):
        player_id (str | Unset):
        visibility (ListGamesVisibility | Unset):
        external_id (str | Unset):
        label (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        cursor (str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameList | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        player_id=player_id,
        visibility=visibility,
        external_id=external_id,
        label=label,
        created_after=created_after,
        created_before=created_before,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    status: ListGamesStatus | Unset = UNSET,
    player_id: str | Unset = UNSET,
    visibility: ListGamesVisibility | Unset = UNSET,
    external_id: str | Unset = UNSET,
    label: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> GameList | Problem | None:
    """The caller's tenant's games (a tenant's key with ``games``; the admin key: every tenant's), newest
    first,
    every visibility; filtered by status, player, visibility and creation time; paged by
    ``next_cursor``.

    Args:
        status (ListGamesStatus | Unset):
        player_id (str | Unset):
        visibility (ListGamesVisibility | Unset):
        external_id (str | Unset):
        label (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        cursor (str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameList | Problem
    """

    return sync_detailed(
        client=client,
        status=status,
        player_id=player_id,
        visibility=visibility,
        external_id=external_id,
        label=label,
        created_after=created_after,
        created_before=created_before,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: ListGamesStatus | Unset = UNSET,
    player_id: str | Unset = UNSET,
    visibility: ListGamesVisibility | Unset = UNSET,
    external_id: str | Unset = UNSET,
    label: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[GameList | Problem]:
    """The caller's tenant's games (a tenant's key with ``games``; the admin key: every tenant's), newest
    first,
    every visibility; filtered by status, player, visibility and creation time; paged by
    ``next_cursor``.

    Args:
        status (ListGamesStatus | Unset):
        player_id (str | Unset):
        visibility (ListGamesVisibility | Unset):
        external_id (str | Unset):
        label (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        cursor (str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameList | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        player_id=player_id,
        visibility=visibility,
        external_id=external_id,
        label=label,
        created_after=created_after,
        created_before=created_before,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    status: ListGamesStatus | Unset = UNSET,
    player_id: str | Unset = UNSET,
    visibility: ListGamesVisibility | Unset = UNSET,
    external_id: str | Unset = UNSET,
    label: str | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> GameList | Problem | None:
    """The caller's tenant's games (a tenant's key with ``games``; the admin key: every tenant's), newest
    first,
    every visibility; filtered by status, player, visibility and creation time; paged by
    ``next_cursor``.

    Args:
        status (ListGamesStatus | Unset):
        player_id (str | Unset):
        visibility (ListGamesVisibility | Unset):
        external_id (str | Unset):
        label (str | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        cursor (str | Unset):
        limit (int | Unset):  Default: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            player_id=player_id,
            visibility=visibility,
            external_id=external_id,
            label=label,
            created_after=created_after,
            created_before=created_before,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
