from enum import StrEnum


class GetV1GamesGameIdWsSecWebSocketVersion(StrEnum):
    VALUE_0 = "13"

    def __str__(self) -> str:
        return str(self.value)
