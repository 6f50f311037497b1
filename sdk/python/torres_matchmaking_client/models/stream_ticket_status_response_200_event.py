from enum import StrEnum


class StreamTicketStatusResponse200Event(StrEnum):
    FINISHED = "finished"
    TICKET = "ticket"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
