from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.inclusion_proof import InclusionProof
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    leaf_hash: str,
    tree_size: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["leaf_hash"] = leaf_hash

    params["tree_size"] = tree_size

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/proof/inclusion",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> InclusionProof | Problem | None:
    if response.status_code == 200:
        response_200 = InclusionProof.from_dict(response.json())

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
) -> Response[InclusionProof | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    leaf_hash: str,
    tree_size: int | Unset = UNSET,
) -> Response[InclusionProof | Problem]:
    """The RFC 9162 audit path of the leaf ``leaf_hash`` (hex SHA-256 of 0x00 || a finished game's head
    statement) in the tree of ``tree_size`` leaves (default: the latest checkpoint's). The answer names
    no game;
    a game's proof by id is the ``inclusion`` member of its record.

    Args:
        leaf_hash (str):
        tree_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InclusionProof | Problem]
    """

    kwargs = _get_kwargs(
        leaf_hash=leaf_hash,
        tree_size=tree_size,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    leaf_hash: str,
    tree_size: int | Unset = UNSET,
) -> InclusionProof | Problem | None:
    """The RFC 9162 audit path of the leaf ``leaf_hash`` (hex SHA-256 of 0x00 || a finished game's head
    statement) in the tree of ``tree_size`` leaves (default: the latest checkpoint's). The answer names
    no game;
    a game's proof by id is the ``inclusion`` member of its record.

    Args:
        leaf_hash (str):
        tree_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InclusionProof | Problem
    """

    return sync_detailed(
        client=client,
        leaf_hash=leaf_hash,
        tree_size=tree_size,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    leaf_hash: str,
    tree_size: int | Unset = UNSET,
) -> Response[InclusionProof | Problem]:
    """The RFC 9162 audit path of the leaf ``leaf_hash`` (hex SHA-256 of 0x00 || a finished game's head
    statement) in the tree of ``tree_size`` leaves (default: the latest checkpoint's). The answer names
    no game;
    a game's proof by id is the ``inclusion`` member of its record.

    Args:
        leaf_hash (str):
        tree_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[InclusionProof | Problem]
    """

    kwargs = _get_kwargs(
        leaf_hash=leaf_hash,
        tree_size=tree_size,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    leaf_hash: str,
    tree_size: int | Unset = UNSET,
) -> InclusionProof | Problem | None:
    """The RFC 9162 audit path of the leaf ``leaf_hash`` (hex SHA-256 of 0x00 || a finished game's head
    statement) in the tree of ``tree_size`` leaves (default: the latest checkpoint's). The answer names
    no game;
    a game's proof by id is the ``inclusion`` member of its record.

    Args:
        leaf_hash (str):
        tree_size (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        InclusionProof | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            leaf_hash=leaf_hash,
            tree_size=tree_size,
        )
    ).parsed
