from enum import StrEnum


class CreateGameOptionsStartPlayer(StrEnum):
    RANDOM = "random"
    SEAT0 = "seat0"

    def __str__(self) -> str:
        return str(self.value)
