from enum import StrEnum


class GetV1TicketsTicketIdStreamResponse200Event(StrEnum):
    FINISHED = "finished"
    TICKET = "ticket"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
