from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.seat_token import SeatToken
from ...types import Response


def _get_kwargs(
    game_id: str,
    seat: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/games/{game_id}/seats/{seat}/token".format(
            game_id=quote(str(game_id), safe=""),
            seat=quote(str(seat), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SeatToken | None:
    if response.status_code == 201:
        response_201 = SeatToken.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[Problem | SeatToken]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    game_id: str,
    seat: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | SeatToken]:
    """A new token for a human seat (the game's tenant's key with ``games``, or the admin key), for a
    player who
    lost theirs: shown this once; every earlier token of the seat answers 401 ``seat_token_revoked``
    from now on,
    in every process. 409 ``seat_has_no_token`` for an AI seat.

    Args:
        game_id (str):
        seat (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SeatToken]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        seat=seat,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    seat: int,
    *,
    client: AuthenticatedClient,
) -> Problem | SeatToken | None:
    """A new token for a human seat (the game's tenant's key with ``games``, or the admin key), for a
    player who
    lost theirs: shown this once; every earlier token of the seat answers 401 ``seat_token_revoked``
    from now on,
    in every process. 409 ``seat_has_no_token`` for an AI seat.

    Args:
        game_id (str):
        seat (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SeatToken
    """

    return sync_detailed(
        game_id=game_id,
        seat=seat,
        client=client,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    seat: int,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | SeatToken]:
    """A new token for a human seat (the game's tenant's key with ``games``, or the admin key), for a
    player who
    lost theirs: shown this once; every earlier token of the seat answers 401 ``seat_token_revoked``
    from now on,
    in every process. 409 ``seat_has_no_token`` for an AI seat.

    Args:
        game_id (str):
        seat (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SeatToken]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        seat=seat,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    seat: int,
    *,
    client: AuthenticatedClient,
) -> Problem | SeatToken | None:
    """A new token for a human seat (the game's tenant's key with ``games``, or the admin key), for a
    player who
    lost theirs: shown this once; every earlier token of the seat answers 401 ``seat_token_revoked``
    from now on,
    in every process. 409 ``seat_has_no_token`` for an AI seat.

    Args:
        game_id (str):
        seat (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SeatToken
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            seat=seat,
            client=client,
        )
    ).parsed
