from enum import StrEnum


class GameSocketSecWebSocketVersion(StrEnum):
    VALUE_0 = "13"

    def __str__(self) -> str:
        return str(self.value)
