from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.stream_ticket_status_response_200 import StreamTicketStatusResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    ticket_id: str,
    *,
    timeout: float | Unset = 300.0,
    stream_ticket: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["timeout"] = timeout

    params["stream_ticket"] = stream_ticket

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/tickets/{ticket_id}/stream".format(
            ticket_id=quote(str(ticket_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | StreamTicketStatusResponse200 | None:
    if response.status_code == 200:
        response_200 = StreamTicketStatusResponse200.from_dict(response.text)

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
) -> Response[Problem | StreamTicketStatusResponse200]:
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
    timeout: float | Unset = 300.0,
    stream_ticket: str | Unset = UNSET,
) -> Response[Problem | StreamTicketStatusResponse200]:
    """Server-sent events for the player's ticket, in the game service's stream format; opened with the
    player
    token, or with a stream ticket in the query (EventSource). One subscription for the whole stream:
    Redis is
    read once now and once per change of this ticket, never while it idles.

    Args:
        ticket_id (str):
        timeout (float | Unset):  Default: 300.0.
        stream_ticket (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamTicketStatusResponse200]
    """

    kwargs = _get_kwargs(
        ticket_id=ticket_id,
        timeout=timeout,
        stream_ticket=stream_ticket,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = 300.0,
    stream_ticket: str | Unset = UNSET,
) -> Problem | StreamTicketStatusResponse200 | None:
    """Server-sent events for the player's ticket, in the game service's stream format; opened with the
    player
    token, or with a stream ticket in the query (EventSource). One subscription for the whole stream:
    Redis is
    read once now and once per change of this ticket, never while it idles.

    Args:
        ticket_id (str):
        timeout (float | Unset):  Default: 300.0.
        stream_ticket (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamTicketStatusResponse200
    """

    return sync_detailed(
        ticket_id=ticket_id,
        client=client,
        timeout=timeout,
        stream_ticket=stream_ticket,
    ).parsed


async def asyncio_detailed(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = 300.0,
    stream_ticket: str | Unset = UNSET,
) -> Response[Problem | StreamTicketStatusResponse200]:
    """Server-sent events for the player's ticket, in the game service's stream format; opened with the
    player
    token, or with a stream ticket in the query (EventSource). One subscription for the whole stream:
    Redis is
    read once now and once per change of this ticket, never while it idles.

    Args:
        ticket_id (str):
        timeout (float | Unset):  Default: 300.0.
        stream_ticket (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamTicketStatusResponse200]
    """

    kwargs = _get_kwargs(
        ticket_id=ticket_id,
        timeout=timeout,
        stream_ticket=stream_ticket,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    ticket_id: str,
    *,
    client: AuthenticatedClient,
    timeout: float | Unset = 300.0,
    stream_ticket: str | Unset = UNSET,
) -> Problem | StreamTicketStatusResponse200 | None:
    """Server-sent events for the player's ticket, in the game service's stream format; opened with the
    player
    token, or with a stream ticket in the query (EventSource). One subscription for the whole stream:
    Redis is
    read once now and once per change of this ticket, never while it idles.

    Args:
        ticket_id (str):
        timeout (float | Unset):  Default: 300.0.
        stream_ticket (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamTicketStatusResponse200
    """

    return (
        await asyncio_detailed(
            ticket_id=ticket_id,
            client=client,
            timeout=timeout,
            stream_ticket=stream_ticket,
        )
    ).parsed
