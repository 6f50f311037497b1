from enum import StrEnum


class HumanSeatSpecKind(StrEnum):
    HUMAN = "human"

    def __str__(self) -> str:
        return str(self.value)
