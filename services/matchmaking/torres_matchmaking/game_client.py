"""The game service, seen from here: create a game, read the notification log. Nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from .errors import GameRefused, GameServiceError


@dataclass(frozen=True)
class CreatedGame:
    game_id: str
    seats: list[dict[str, Any]]  # as returned: seat, kind, player_id / level, token (humans)


class GameCreator(Protocol):
    def create_game(
        self, edition: str, master: bool, seats: list[dict[str, Any]], request_key: str | None = None,
        tenant: str | None = None,
    ) -> CreatedGame:
        """Create a game or raise :class:`GameServiceError`. The same ``request_key`` and request create at
        most one game: a retry after a lost answer gets the game the first attempt created. ``tenant``: whose
        game it is (the game service requires it from the matcher's internal key)."""
        ...

    def abandon_game(self, game_id: str, reason: str) -> None:
        """End a game nobody will play (the lifecycle's abandon), or raise :class:`GameServiceError`."""
        ...


class GameServiceClient:
    """HTTP client for the game service's ``/v1`` API (service key in ``X-API-Key``)."""

    def __init__(self, base_url: str, api_key: str, timeout: float = 5.0) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=timeout, headers={"X-API-Key": api_key})

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise GameServiceError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
        if 400 <= response.status_code < 500 and response.status_code not in (408, 429):
            raise GameRefused(f"{method} {path}: HTTP {response.status_code}: {response.text[:300]}",
                              response.status_code)
        if response.status_code >= 300:
            raise GameServiceError(f"{method} {path}: HTTP {response.status_code}: {response.text[:300]}")
        try:
            return response.json()
        except ValueError as exc:
            raise GameServiceError(f"{method} {path}: not JSON") from exc

    def create_game(
        self, edition: str, master: bool, seats: list[dict[str, Any]], request_key: str | None = None,
        tenant: str | None = None,
    ) -> CreatedGame:
        headers = {"Idempotency-Key": request_key} if request_key else {}
        body = self._call("POST", "/v1/games", headers=headers,
                          json={"edition": edition, "master": master, "options": {}, "seats": seats,
                                **({"tenant": tenant} if tenant else {})})
        return CreatedGame(body["game_id"], body["seats"])

    def abandon_game(self, game_id: str, reason: str) -> None:
        self._call("POST", f"/v1/games/{game_id}/abandon", json={"reason": reason})

    def ready(self) -> bool:
        """Whether the game service says it is ready (its own /readyz)."""
        try:
            return self._http.get("/readyz", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def notifications(self, after: int, limit: int = 200) -> dict[str, Any]:
        return self._call("GET", "/v1/notifications", params={"after": after, "limit": limit})
