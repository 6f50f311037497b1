"""Contains all the data models used in inputs/outputs"""

from .create_ticket import CreateTicket
from .create_ticket_edition import CreateTicketEdition
from .create_ticket_player_counts_item import CreateTicketPlayerCountsItem
from .health import Health
from .health_status import HealthStatus
from .leaderboard import Leaderboard
from .leaderboard_entry import LeaderboardEntry
from .pagination_metadata import PaginationMetadata
from .problem import Problem
from .problem_errors import ProblemErrors
from .queues import Queues
from .queues_queues import QueuesQueues
from .rating import Rating
from .ready import Ready
from .ready_game_service import ReadyGameService
from .ready_redis import ReadyRedis
from .ready_status import ReadyStatus
from .stream_ticket import StreamTicket
from .stream_ticket_status_response_200 import StreamTicketStatusResponse200
from .stream_ticket_status_response_200_event import StreamTicketStatusResponse200Event
from .ticket import Ticket
from .ticket_status import TicketStatus
from .wait_ticket_status import WaitTicketStatus

__all__ = (
    "CreateTicket",
    "CreateTicketEdition",
    "CreateTicketPlayerCountsItem",
    "Health",
    "HealthStatus",
    "Leaderboard",
    "LeaderboardEntry",
    "PaginationMetadata",
    "Problem",
    "ProblemErrors",
    "Queues",
    "QueuesQueues",
    "Rating",
    "Ready",
    "ReadyGameService",
    "ReadyRedis",
    "ReadyStatus",
    "StreamTicket",
    "StreamTicketStatusResponse200",
    "StreamTicketStatusResponse200Event",
    "Ticket",
    "TicketStatus",
    "WaitTicketStatus",
)
