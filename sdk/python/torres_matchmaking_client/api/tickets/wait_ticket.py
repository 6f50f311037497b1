from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.ticket import Ticket
from ...models.wait_ticket_status import WaitTicketStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    ticket_id: str,
    *,
    status: WaitTicketStatus | Unset = UNSET,
    timeout: float | Unset = 25.0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["timeout"] = timeout

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tickets/{ticket_id}/wait".format(
            ticket_id=quote(str(ticket_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Ticket | None:
    if response.status_code == 200:
        response_200 = Ticket.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    status: WaitTicketStatus | Unset = UNSET,
    timeout: float | Unset = 25.0,
) -> Response[Problem | Ticket]:
    """Long-poll: the player's ticket as soon as its status differs from ``status``, or at ``timeout``.

    Args:
        ticket_id (str):
        status (WaitTicketStatus | Unset):
        timeout (float | Unset):  Default: 25.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ticket]
    """

    kwargs = _get_kwargs(
        ticket_id=ticket_id,
        status=status,
        timeout=timeout,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    status: WaitTicketStatus | Unset = UNSET,
    timeout: float | Unset = 25.0,
) -> Problem | Ticket | None:
    """Long-poll: the player's ticket as soon as its status differs from ``status``, or at ``timeout``.

    Args:
        ticket_id (str):
        status (WaitTicketStatus | Unset):
        timeout (float | Unset):  Default: 25.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ticket
    """

    return sync_detailed(
        ticket_id=ticket_id,
        client=client,
        status=status,
        timeout=timeout,
    ).parsed


async def asyncio_detailed(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    status: WaitTicketStatus | Unset = UNSET,
    timeout: float | Unset = 25.0,
) -> Response[Problem | Ticket]:
    """Long-poll: the player's ticket as soon as its status differs from ``status``, or at ``timeout``.

    Args:
        ticket_id (str):
        status (WaitTicketStatus | Unset):
        timeout (float | Unset):  Default: 25.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ticket]
    """

    kwargs = _get_kwargs(
        ticket_id=ticket_id,
        status=status,
        timeout=timeout,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    status: WaitTicketStatus | Unset = UNSET,
    timeout: float | Unset = 25.0,
) -> Problem | Ticket | None:
    """Long-poll: the player's ticket as soon as its status differs from ``status``, or at ``timeout``.

    Args:
        ticket_id (str):
        status (WaitTicketStatus | Unset):
        timeout (float | Unset):  Default: 25.0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ticket
    """

    return (
        await asyncio_detailed(
            ticket_id=ticket_id,
            client=client,
            status=status,
            timeout=timeout,
        )
    ).parsed
