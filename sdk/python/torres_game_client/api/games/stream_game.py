from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.stream_game_response_200 import StreamGameResponse200
from ...types import UNSET, Response, Unset


def _get_kwargs(
    game_id: str,
    *,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    timeout: float | Unset = 300.0,
    last_event_id: int | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = str(last_event_id)

    params: dict[str, Any] = {}

    params["version"] = version

    params["stream_ticket"] = stream_ticket

    params["timeout"] = timeout

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/games/{game_id}/stream".format(
            game_id=quote(str(game_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | StreamGameResponse200 | None:
    if response.status_code == 200:
        response_200 = StreamGameResponse200.from_dict(response.text)

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
) -> Response[Problem | StreamGameResponse200]:
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
    timeout: float | Unset = 300.0,
    last_event_id: int | Unset = UNSET,
) -> Response[Problem | StreamGameResponse200]:
    """Server-sent events: every version once, in order, resumable with ``Last-Event-ID``. A browser passes
    a
    stream ticket (``?stream_ticket=``, single use: a reconnecting EventSource gets a new one) instead
    of the
    Authorization header its EventSource cannot send.

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        timeout (float | Unset):  Default: 300.0.
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamGameResponse200]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        version=version,
        stream_ticket=stream_ticket,
        timeout=timeout,
        last_event_id=last_event_id,
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
    timeout: float | Unset = 300.0,
    last_event_id: int | Unset = UNSET,
) -> Problem | StreamGameResponse200 | None:
    """Server-sent events: every version once, in order, resumable with ``Last-Event-ID``. A browser passes
    a
    stream ticket (``?stream_ticket=``, single use: a reconnecting EventSource gets a new one) instead
    of the
    Authorization header its EventSource cannot send.

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        timeout (float | Unset):  Default: 300.0.
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamGameResponse200
    """

    return sync_detailed(
        game_id=game_id,
        client=client,
        version=version,
        stream_ticket=stream_ticket,
        timeout=timeout,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    timeout: float | Unset = 300.0,
    last_event_id: int | Unset = UNSET,
) -> Response[Problem | StreamGameResponse200]:
    """Server-sent events: every version once, in order, resumable with ``Last-Event-ID``. A browser passes
    a
    stream ticket (``?stream_ticket=``, single use: a reconnecting EventSource gets a new one) instead
    of the
    Authorization header its EventSource cannot send.

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        timeout (float | Unset):  Default: 300.0.
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamGameResponse200]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        version=version,
        stream_ticket=stream_ticket,
        timeout=timeout,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    *,
    client: AuthenticatedClient,
    version: int | Unset = 0,
    stream_ticket: str | Unset = UNSET,
    timeout: float | Unset = 300.0,
    last_event_id: int | Unset = UNSET,
) -> Problem | StreamGameResponse200 | None:
    """Server-sent events: every version once, in order, resumable with ``Last-Event-ID``. A browser passes
    a
    stream ticket (``?stream_ticket=``, single use: a reconnecting EventSource gets a new one) instead
    of the
    Authorization header its EventSource cannot send.

    Args:
        game_id (str):
        version (int | Unset):  Default: 0.
        stream_ticket (str | Unset):
        timeout (float | Unset):  Default: 300.0.
        last_event_id (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamGameResponse200
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            client=client,
            version=version,
            stream_ticket=stream_ticket,
            timeout=timeout,
            last_event_id=last_event_id,
        )
    ).parsed
