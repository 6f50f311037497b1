"""The HTTP edge every Torres service shares, so that the game service and the matchmaker log, fail and
validate the same way: one JSON log line per record, one error base class with a stable `code`, one mapping of
errors to RFC 9457 problem details, strict request schemas."""
