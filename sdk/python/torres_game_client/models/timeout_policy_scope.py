from enum import StrEnum


class TimeoutPolicyScope(StrEnum):
    GAME = "game"
    TURN = "turn"

    def __str__(self) -> str:
        return str(self.value)
