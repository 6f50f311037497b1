from enum import StrEnum


class WaitTicketStatus(StrEnum):
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    MATCHED = "matched"
    QUEUED = "queued"

    def __str__(self) -> str:
        return str(self.value)
