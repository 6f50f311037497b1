from enum import StrEnum


class WebhookDeliveryType(StrEnum):
    GAME_ABANDONED = "game.abandoned"
    GAME_CREATED = "game.created"
    GAME_ENDED = "game.ended"
    SEAT_RESIGNED = "seat.resigned"
    SEAT_TIMED_OUT = "seat.timed_out"
    TURN_STARTED = "turn.started"

    def __str__(self) -> str:
        return str(self.value)
