from enum import StrEnum


class CreateGameOptionsPersonalRest(StrEnum):
    BOTTOM = "bottom"
    TOP_OR_BOTTOM = "top_or_bottom"

    def __str__(self) -> str:
        return str(self.value)
