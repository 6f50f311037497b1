from enum import StrEnum


class ReadyGameService(StrEnum):
    READY = "ready"

    def __str__(self) -> str:
        return str(self.value)
