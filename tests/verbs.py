"""The verb methods of a test client (``get``, ``post`` ...), for the clients the tests build over something else
(a served process, a Flask test client with credentials filled in): each is ``open`` with its method."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

Response = TypeVar("Response")


class Verbs(Generic[Response]):
    """A client that has ``open(path, method, **kw)`` gets ``get``, ``post``, ``put``, ``patch`` and ``delete``."""

    def open(self, path: str, method: str = "GET", **kw: Any) -> Response:
        raise NotImplementedError

    def get(self, path: str, **kw: Any) -> Response:
        return self.open(path, "GET", **kw)

    def post(self, path: str, **kw: Any) -> Response:
        return self.open(path, "POST", **kw)

    def put(self, path: str, **kw: Any) -> Response:
        return self.open(path, "PUT", **kw)

    def patch(self, path: str, **kw: Any) -> Response:
        return self.open(path, "PATCH", **kw)

    def delete(self, path: str, **kw: Any) -> Response:
        return self.open(path, "DELETE", **kw)
