from enum import StrEnum


class CreateTicketEdition(StrEnum):
    RAVENSBURGER = "ravensburger"
    RIO_GRANDE = "rio_grande"
    YUCATA = "yucata"

    def __str__(self) -> str:
        return str(self.value)
