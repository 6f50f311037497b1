from enum import StrEnum


class GetAnalysisDepth(StrEnum):
    DEEP = "deep"
    QUICK = "quick"

    def __str__(self) -> str:
        return str(self.value)
