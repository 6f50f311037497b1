"""The game service's domain metrics (the HTTP ones are in ``torres_service.metrics``).

Counted where the outcome is decided (``service.py``), so a request, an AI task and a replay all count the
same way whichever entry point they came through.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

APPENDS = Counter("torres_game_appends_total", "Commands appended to a game's log (new events written).",
                  ["actor"])
EVENTS = Counter("torres_game_events_appended_total", "Events written to the event store.")
VERSION_CONFLICTS = Counter("torres_game_version_conflicts_total",
                            "Commands refused because the game had moved past their expected_version.")
REPLAYS = Counter("torres_game_idempotent_replays_total",
                  "Commands whose command_id was already applied: the original result was returned, nothing appended.")
FOLD_SECONDS = Histogram("torres_game_fold_seconds", "Time to fold events onto a cached or snapshot state.",
                         buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
FOLD_EVENTS = Histogram("torres_game_fold_events", "Events folded per fold (how far caches and snapshots lag).",
                        buckets=(0, 1, 2, 5, 10, 20, 50, 100, 200, 500))
# Post-game analyses, counted by :func:`torres_game.analyses.advance` in whichever process runs the slices (an AI
# worker, or the game service with the in-process driver): a slice holds a worker, and a human's AI turn queued
# behind it waits for it, so its CPU is the figure to watch.
ANALYSIS_SLICES = Counter("torres_game_analysis_slices_total",
                          "Slices of post-game analyses run, by depth and outcome (continues, done, settled).",
                          ["depth", "outcome"])
ANALYSIS_SLICE_CPU = Histogram("torres_game_analysis_slice_cpu_seconds",
                               "CPU seconds of one slice of a post-game analysis, by depth.", ["depth"],
                               buckets=(0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5))
