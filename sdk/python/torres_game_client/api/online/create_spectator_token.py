from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.spectator_token import SpectatorToken
from ...models.spectator_token_request import SpectatorTokenRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    game_id: str,
    *,
    body: SpectatorTokenRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/games/{game_id}/spectator-tokens".format(
            game_id=quote(str(game_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SpectatorToken | None:
    if response.status_code == 201:
        response_201 = SpectatorToken.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

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
) -> Response[Problem | SpectatorToken]:
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
    body: SpectatorTokenRequest | Unset = UNSET,
) -> Response[Problem | SpectatorToken]:
    """A token that reads this game as a spectator until ``expires_at`` (the game's tenant's key with
    ``games``,
    or the admin key): the way into a private game without a seat. Stateless: it cannot be revoked
    before it
    expires, so keep ``ttl_seconds`` short.

    Args:
        game_id (str):
        body (SpectatorTokenRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SpectatorToken]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    *,
    client: AuthenticatedClient,
    body: SpectatorTokenRequest | Unset = UNSET,
) -> Problem | SpectatorToken | None:
    """A token that reads this game as a spectator until ``expires_at`` (the game's tenant's key with
    ``games``,
    or the admin key): the way into a private game without a seat. Stateless: it cannot be revoked
    before it
    expires, so keep ``ttl_seconds`` short.

    Args:
        game_id (str):
        body (SpectatorTokenRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SpectatorToken
    """

    return sync_detailed(
        game_id=game_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient,
    body: SpectatorTokenRequest | Unset = UNSET,
) -> Response[Problem | SpectatorToken]:
    """A token that reads this game as a spectator until ``expires_at`` (the game's tenant's key with
    ``games``,
    or the admin key): the way into a private game without a seat. Stateless: it cannot be revoked
    before it
    expires, so keep ``ttl_seconds`` short.

    Args:
        game_id (str):
        body (SpectatorTokenRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SpectatorToken]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    *,
    client: AuthenticatedClient,
    body: SpectatorTokenRequest | Unset = UNSET,
) -> Problem | SpectatorToken | None:
    """A token that reads this game as a spectator until ``expires_at`` (the game's tenant's key with
    ``games``,
    or the admin key): the way into a private game without a seat. Stateless: it cannot be revoked
    before it
    expires, so keep ``ttl_seconds`` short.

    Args:
        game_id (str):
        body (SpectatorTokenRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SpectatorToken
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            client=client,
            body=body,
        )
    ).parsed
