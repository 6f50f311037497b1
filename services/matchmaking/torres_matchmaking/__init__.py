"""Torres matchmaking: Redis-backed tickets, atomic pairing via Lua, openskill ratings."""
