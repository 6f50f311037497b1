from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.analysis import Analysis
from ...models.get_analysis_depth import GetAnalysisDepth
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    game_id: str,
    *,
    depth: GetAnalysisDepth | Unset = GetAnalysisDepth.QUICK,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_depth: str | Unset = UNSET
    if not isinstance(depth, Unset):
        json_depth = depth.value

    params["depth"] = json_depth

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/games/{game_id}/analysis".format(
            game_id=quote(str(game_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Analysis | Problem | None:
    if response.status_code == 200:
        response_200 = Analysis.from_dict(response.json())

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
) -> Response[Analysis | Problem]:
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
    depth: GetAnalysisDepth | Unset = GetAnalysisDepth.QUICK,
) -> Response[Analysis | Problem]:
    """The analysis at ``depth``: ``pending`` (with the turns done so far) or ``ready`` with the result:
    per turn each
    seat's expected final score share before and after it, the turns that lost the most with a better
    turn found
    from the seat's view at the time, and the phase scorings explained. 404 ``analysis_not_found``
    before a request.

    Args:
        game_id (str):
        depth (GetAnalysisDepth | Unset):  Default: GetAnalysisDepth.QUICK.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Analysis | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        depth=depth,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    *,
    client: AuthenticatedClient,
    depth: GetAnalysisDepth | Unset = GetAnalysisDepth.QUICK,
) -> Analysis | Problem | None:
    """The analysis at ``depth``: ``pending`` (with the turns done so far) or ``ready`` with the result:
    per turn each
    seat's expected final score share before and after it, the turns that lost the most with a better
    turn found
    from the seat's view at the time, and the phase scorings explained. 404 ``analysis_not_found``
    before a request.

    Args:
        game_id (str):
        depth (GetAnalysisDepth | Unset):  Default: GetAnalysisDepth.QUICK.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Analysis | Problem
    """

    return sync_detailed(
        game_id=game_id,
        client=client,
        depth=depth,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient,
    depth: GetAnalysisDepth | Unset = GetAnalysisDepth.QUICK,
) -> Response[Analysis | Problem]:
    """The analysis at ``depth``: ``pending`` (with the turns done so far) or ``ready`` with the result:
    per turn each
    seat's expected final score share before and after it, the turns that lost the most with a better
    turn found
    from the seat's view at the time, and the phase scorings explained. 404 ``analysis_not_found``
    before a request.

    Args:
        game_id (str):
        depth (GetAnalysisDepth | Unset):  Default: GetAnalysisDepth.QUICK.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Analysis | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        depth=depth,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    *,
    client: AuthenticatedClient,
    depth: GetAnalysisDepth | Unset = GetAnalysisDepth.QUICK,
) -> Analysis | Problem | None:
    """The analysis at ``depth``: ``pending`` (with the turns done so far) or ``ready`` with the result:
    per turn each
    seat's expected final score share before and after it, the turns that lost the most with a better
    turn found
    from the seat's view at the time, and the phase scorings explained. 404 ``analysis_not_found``
    before a request.

    Args:
        game_id (str):
        depth (GetAnalysisDepth | Unset):  Default: GetAnalysisDepth.QUICK.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Analysis | Problem
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            client=client,
            depth=depth,
        )
    ).parsed
