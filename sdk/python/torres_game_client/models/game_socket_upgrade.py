from enum import StrEnum


class GameSocketUpgrade(StrEnum):
    WEBSOCKET = "websocket"

    def __str__(self) -> str:
        return str(self.value)
