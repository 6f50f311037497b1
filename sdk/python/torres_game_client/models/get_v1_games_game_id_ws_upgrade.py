from enum import StrEnum


class GetV1GamesGameIdWsUpgrade(StrEnum):
    WEBSOCKET = "websocket"

    def __str__(self) -> str:
        return str(self.value)
