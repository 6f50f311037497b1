from enum import StrEnum


class ReadyRedis(StrEnum):
    EMBEDDED = "embedded"
    EXTERNAL = "external"

    def __str__(self) -> str:
        return str(self.value)
