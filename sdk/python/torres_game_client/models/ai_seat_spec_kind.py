from enum import StrEnum


class AiSeatSpecKind(StrEnum):
    AI = "ai"

    def __str__(self) -> str:
        return str(self.value)
