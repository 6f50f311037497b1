from enum import StrEnum


class AnalysisDepth(StrEnum):
    DEEP = "deep"
    QUICK = "quick"

    def __str__(self) -> str:
        return str(self.value)
