from enum import StrEnum


class ReadyBackend(StrEnum):
    POSTGRES = "postgres"
    SQLITE = "sqlite"

    def __str__(self) -> str:
        return str(self.value)
