from enum import StrEnum


class GetV1GamesStatus(StrEnum):
    ACTIVE = "active"
    OVER = "over"

    def __str__(self) -> str:
        return str(self.value)
