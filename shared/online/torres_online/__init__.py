"""The online play rules of Torres: what a game on a portal adds to the rules package's game.

A game played online is a log of events; these modules say what the events are and what they mean beyond the board,
once, for everyone who reads a log: the game service enforces them, the offline verifier (torres_audit) checks a
record against them, and the AI worker plays the levels they allow.

* :mod:`torres_online.events`    the event types and the seed (commitment, deal, deck orders)
* :mod:`torres_online.lifecycle` the fold of a log: clocks, timeouts, forfeits, undo, the result, the AI levels
"""
