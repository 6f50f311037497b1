from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_ticket import CreateTicket
from ...models.problem import Problem
from ...models.ticket import Ticket
from ...types import Response


def _get_kwargs(
    *,
    body: CreateTicket,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/tickets",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Ticket | None:
    if response.status_code == 201:
        response_201 = Ticket.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[Problem | Ticket]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTicket,
) -> Response[Problem | Ticket]:
    """Queue the token's player for a game (the body does not name the player: a ``player_id`` in it is
    400).
    One live (queued) ticket per player of a tenant: a second one is a 409. The ticket meets only
    players of the
    same tenant, or of every shared-pool tenant if its tenant is one.

    Args:
        body (CreateTicket):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ticket]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateTicket,
) -> Problem | Ticket | None:
    """Queue the token's player for a game (the body does not name the player: a ``player_id`` in it is
    400).
    One live (queued) ticket per player of a tenant: a second one is a 409. The ticket meets only
    players of the
    same tenant, or of every shared-pool tenant if its tenant is one.

    Args:
        body (CreateTicket):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ticket
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTicket,
) -> Response[Problem | Ticket]:
    """Queue the token's player for a game (the body does not name the player: a ``player_id`` in it is
    400).
    One live (queued) ticket per player of a tenant: a second one is a 409. The ticket meets only
    players of the
    same tenant, or of every shared-pool tenant if its tenant is one.

    Args:
        body (CreateTicket):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ticket]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateTicket,
) -> Problem | Ticket | None:
    """Queue the token's player for a game (the body does not name the player: a ``player_id`` in it is
    400).
    One live (queued) ticket per player of a tenant: a second one is a 409. The ticket meets only
    players of the
    same tenant, or of every shared-pool tenant if its tenant is one.

    Args:
        body (CreateTicket):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ticket
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
