from enum import StrEnum


class CreateGameOptionsStackChoice(StrEnum):
    LARGEST = "largest"
    PLAYER = "player"

    def __str__(self) -> str:
        return str(self.value)
