from enum import StrEnum


class GetV1TicketsTicketIdWaitStatus(StrEnum):
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    MATCHED = "matched"
    QUEUED = "queued"

    def __str__(self) -> str:
        return str(self.value)
