from enum import StrEnum


class GetV1GamesGameIdWsConnection(StrEnum):
    UPGRADE = "Upgrade"

    def __str__(self) -> str:
        return str(self.value)
