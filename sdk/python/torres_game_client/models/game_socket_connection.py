from enum import StrEnum


class GameSocketConnection(StrEnum):
    UPGRADE = "Upgrade"

    def __str__(self) -> str:
        return str(self.value)
