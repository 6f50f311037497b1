from enum import StrEnum


class TimeoutPolicyPolicy(StrEnum):
    AI = "ai"
    FORFEIT = "forfeit"

    def __str__(self) -> str:
        return str(self.value)
