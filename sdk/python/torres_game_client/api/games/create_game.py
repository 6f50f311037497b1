from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_game import CreateGame
from ...models.game_created import GameCreated
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateGame,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/games",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GameCreated | Problem | None:
    if response.status_code == 201:
        response_201 = GameCreated.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[GameCreated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateGame,
    idempotency_key: str | Unset = UNSET,
) -> Response[GameCreated | Problem]:
    """Create a game (a tenant's key with scope ``games``; it belongs to that tenant). Returns a secret
    token for
    each human seat. With an ``Idempotency-Key``, a retry of the same request answers the original 201
    (``Idempotent-Replayed: true``), never a second game; so does a creation with an ``external_id`` the
    tenant
    used before (its own id for the game: unique per tenant).

    Args:
        idempotency_key (str | Unset):
        body (CreateGame):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameCreated | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateGame,
    idempotency_key: str | Unset = UNSET,
) -> GameCreated | Problem | None:
    """Create a game (a tenant's key with scope ``games``; it belongs to that tenant). Returns a secret
    token for
    each human seat. With an ``Idempotency-Key``, a retry of the same request answers the original 201
    (``Idempotent-Replayed: true``), never a second game; so does a creation with an ``external_id`` the
    tenant
    used before (its own id for the game: unique per tenant).

    Args:
        idempotency_key (str | Unset):
        body (CreateGame):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameCreated | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateGame,
    idempotency_key: str | Unset = UNSET,
) -> Response[GameCreated | Problem]:
    """Create a game (a tenant's key with scope ``games``; it belongs to that tenant). Returns a secret
    token for
    each human seat. With an ``Idempotency-Key``, a retry of the same request answers the original 201
    (``Idempotent-Replayed: true``), never a second game; so does a creation with an ``external_id`` the
    tenant
    used before (its own id for the game: unique per tenant).

    Args:
        idempotency_key (str | Unset):
        body (CreateGame):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameCreated | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateGame,
    idempotency_key: str | Unset = UNSET,
) -> GameCreated | Problem | None:
    """Create a game (a tenant's key with scope ``games``; it belongs to that tenant). Returns a secret
    token for
    each human seat. With an ``Idempotency-Key``, a retry of the same request answers the original 201
    (``Idempotent-Replayed: true``), never a second game; so does a creation with an ``external_id`` the
    tenant
    used before (its own id for the game: unique per tenant).

    Args:
        idempotency_key (str | Unset):
        body (CreateGame):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameCreated | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
