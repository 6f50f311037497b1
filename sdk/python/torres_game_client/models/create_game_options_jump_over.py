from enum import StrEnum


class CreateGameOptionsJumpOver(StrEnum):
    ANY = "any"
    FOREIGN_KNIGHT = "foreign_knight"

    def __str__(self) -> str:
        return str(self.value)
