from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.consistency_proof import ConsistencyProof
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    first: int,
    second: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["first"] = first

    params["second"] = second

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/proof/consistency",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConsistencyProof | Problem | None:
    if response.status_code == 200:
        response_200 = ConsistencyProof.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

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
) -> Response[ConsistencyProof | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int | Unset = UNSET,
) -> Response[ConsistencyProof | Problem]:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of
    ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with.

    Args:
        first (int):
        second (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsistencyProof | Problem]
    """

    kwargs = _get_kwargs(
        first=first,
        second=second,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int | Unset = UNSET,
) -> ConsistencyProof | Problem | None:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of
    ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with.

    Args:
        first (int):
        second (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsistencyProof | Problem
    """

    return sync_detailed(
        client=client,
        first=first,
        second=second,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int | Unset = UNSET,
) -> Response[ConsistencyProof | Problem]:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of
    ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with.

    Args:
        first (int):
        second (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConsistencyProof | Problem]
    """

    kwargs = _get_kwargs(
        first=first,
        second=second,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    first: int,
    second: int | Unset = UNSET,
) -> ConsistencyProof | Problem | None:
    """The RFC 9162 consistency proof that the tree of ``first`` leaves is a prefix of the tree of
    ``second``
    (default: the latest checkpoint's): what a monitor checks each new checkpoint with.

    Args:
        first (int):
        second (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConsistencyProof | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            first=first,
            second=second,
        )
    ).parsed
