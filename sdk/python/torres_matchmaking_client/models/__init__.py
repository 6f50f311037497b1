"""Contains all the data models used in inputs/outputs"""

from .create_ticket import CreateTicket
from .create_ticket_edition import CreateTicketEdition
from .create_ticket_player_counts_item import CreateTicketPlayerCountsItem
from .get_v1_tickets_ticket_id_stream_response_200 import (
    GetV1TicketsTicketIdStreamResponse200,
)
from .get_v1_tickets_ticket_id_stream_response_200_event import (
    GetV1TicketsTicketIdStreamResponse200Event,
)
from .get_v1_tickets_ticket_id_wait_status import GetV1TicketsTicketIdWaitStatus
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
from .ticket import Ticket
from .ticket_status import TicketStatus

__all__ = (
    "CreateTicket",
    "CreateTicketEdition",
    "CreateTicketPlayerCountsItem",
    "GetV1TicketsTicketIdStreamResponse200",
    "GetV1TicketsTicketIdStreamResponse200Event",
    "GetV1TicketsTicketIdWaitStatus",
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
    "Ticket",
    "TicketStatus",
)
