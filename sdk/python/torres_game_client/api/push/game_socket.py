from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.game_socket_connection import GameSocketConnection
from ...models.game_socket_sec_web_socket_version import GameSocketSecWebSocketVersion
from ...models.game_socket_upgrade import GameSocketUpgrade
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    game_id: str,
    *,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    upgrade: GameSocketUpgrade,
    connection: GameSocketConnection,
    sec_web_socket_version: GameSocketSecWebSocketVersion,
    sec_web_socket_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Upgrade"] = str(upgrade)

    headers["Connection"] = str(connection)

    headers["Sec-WebSocket-Version"] = str(sec_web_socket_version)

    headers["Sec-WebSocket-Key"] = sec_web_socket_key

    params: dict[str, Any] = {}

    params["version"] = version

    params["stream_ticket"] = stream_ticket

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/games/{game_id}/ws".format(
            game_id=quote(str(game_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | None:
    if response.status_code == 101:
        response_101 = cast(Any, None)
        return response_101

    if response.status_code == 400:
        response_400 = cast(Any, None)
        return response_400

    if response.status_code == 401:
        response_401 = cast(Any, None)
        return response_401

    if response.status_code == 403:
        response_403 = cast(Any, None)
        return response_403

    if response.status_code == 404:
        response_404 = cast(Any, None)
        return response_404

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = cast(Any, None)
        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    upgrade: GameSocketUpgrade,
    connection: GameSocketConnection,
    sec_web_socket_version: GameSocketSecWebSocketVersion,
    sec_web_socket_key: str,
) -> Response[Any | Problem]:
    """WebSocket: every version of the game once, in order; a seat's redacted events with its token

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        upgrade (GameSocketUpgrade):
        connection (GameSocketConnection):
        sec_web_socket_version (GameSocketSecWebSocketVersion):
        sec_web_socket_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        version=version,
        stream_ticket=stream_ticket,
        upgrade=upgrade,
        connection=connection,
        sec_web_socket_version=sec_web_socket_version,
        sec_web_socket_key=sec_web_socket_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    upgrade: GameSocketUpgrade,
    connection: GameSocketConnection,
    sec_web_socket_version: GameSocketSecWebSocketVersion,
    sec_web_socket_key: str,
) -> Any | Problem | None:
    """WebSocket: every version of the game once, in order; a seat's redacted events with its token

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        upgrade (GameSocketUpgrade):
        connection (GameSocketConnection):
        sec_web_socket_version (GameSocketSecWebSocketVersion):
        sec_web_socket_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return sync_detailed(
        game_id=game_id,
        client=client,
        version=version,
        stream_ticket=stream_ticket,
        upgrade=upgrade,
        connection=connection,
        sec_web_socket_version=sec_web_socket_version,
        sec_web_socket_key=sec_web_socket_key,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    upgrade: GameSocketUpgrade,
    connection: GameSocketConnection,
    sec_web_socket_version: GameSocketSecWebSocketVersion,
    sec_web_socket_key: str,
) -> Response[Any | Problem]:
    """WebSocket: every version of the game once, in order; a seat's redacted events with its token

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        upgrade (GameSocketUpgrade):
        connection (GameSocketConnection):
        sec_web_socket_version (GameSocketSecWebSocketVersion):
        sec_web_socket_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        version=version,
        stream_ticket=stream_ticket,
        upgrade=upgrade,
        connection=connection,
        sec_web_socket_version=sec_web_socket_version,
        sec_web_socket_key=sec_web_socket_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    upgrade: GameSocketUpgrade,
    connection: GameSocketConnection,
    sec_web_socket_version: GameSocketSecWebSocketVersion,
    sec_web_socket_key: str,
) -> Any | Problem | None:
    """WebSocket: every version of the game once, in order; a seat's redacted events with its token

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        upgrade (GameSocketUpgrade):
        connection (GameSocketConnection):
        sec_web_socket_version (GameSocketSecWebSocketVersion):
        sec_web_socket_key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            client=client,
            version=version,
            stream_ticket=stream_ticket,
            upgrade=upgrade,
            connection=connection,
            sec_web_socket_version=sec_web_socket_version,
            sec_web_socket_key=sec_web_socket_key,
        )
    ).parsed
