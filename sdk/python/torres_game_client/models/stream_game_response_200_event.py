from enum import StrEnum


class StreamGameResponse200Event(StrEnum):
    GAME_OVER = "game-over"
    SHUTDOWN = "shutdown"
    TIMEOUT = "timeout"
    VERSION = "version"

    def __str__(self) -> str:
        return str(self.value)
