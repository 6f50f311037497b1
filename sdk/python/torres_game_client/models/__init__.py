"""Contains all the data models used in inputs/outputs"""

from .abandon_request import AbandonRequest
from .action_request import ActionRequest
from .action_request_action import ActionRequestAction
from .action_result import ActionResult
from .ai_seat_spec import AiSeatSpec
from .ai_seat_spec_kind import AiSeatSpecKind
from .ai_seat_spec_level import AiSeatSpecLevel
from .analysis import Analysis
from .analysis_action import AnalysisAction
from .analysis_action_action import AnalysisActionAction
from .analysis_depth import AnalysisDepth
from .analysis_request import AnalysisRequest
from .analysis_request_depth import AnalysisRequestDepth
from .analysis_result import AnalysisResult
from .analysis_result_scorings_item import AnalysisResultScoringsItem
from .analysis_result_type_0_type_0 import AnalysisResultType0Type0
from .analysis_status import AnalysisStatus
from .analysis_turn import AnalysisTurn
from .analysis_turn_better_type_1_type_0 import AnalysisTurnBetterType1Type0
from .better_turn import BetterTurn
from .better_turn_boards_item import BetterTurnBoardsItem
from .castle import Castle
from .clock import Clock
from .consistency_proof import ConsistencyProof
from .create_game import CreateGame
from .create_game_edition import CreateGameEdition
from .create_game_options import CreateGameOptions
from .create_game_options_deck import CreateGameOptionsDeck
from .create_game_options_jump_over import CreateGameOptionsJumpOver
from .create_game_options_personal_rest import CreateGameOptionsPersonalRest
from .create_game_options_stack_choice import CreateGameOptionsStackChoice
from .create_game_options_start_player import CreateGameOptionsStartPlayer
from .create_game_visibility import CreateGameVisibility
from .event import Event
from .event_page import EventPage
from .event_payload import EventPayload
from .game_created import GameCreated
from .game_created_visibility import GameCreatedVisibility
from .game_list import GameList
from .game_record import GameRecord
from .game_record_creation import GameRecordCreation
from .game_record_head import GameRecordHead
from .game_record_inclusion_type_0 import GameRecordInclusionType0
from .game_record_reader import GameRecordReader
from .game_record_result_type_0 import GameRecordResultType0
from .game_record_signature import GameRecordSignature
from .game_socket_connection import GameSocketConnection
from .game_socket_sec_web_socket_version import GameSocketSecWebSocketVersion
from .game_socket_upgrade import GameSocketUpgrade
from .game_summary import GameSummary
from .game_summary_options import GameSummaryOptions
from .game_summary_visibility import GameSummaryVisibility
from .get_analysis_depth import GetAnalysisDepth
from .health import Health
from .health_status import HealthStatus
from .human_seat_spec import HumanSeatSpec
from .human_seat_spec_kind import HumanSeatSpecKind
from .inclusion_proof import InclusionProof
from .inconsistency import Inconsistency
from .legal_actions import LegalActions
from .lifecycle_result import LifecycleResult
from .list_games_status import ListGamesStatus
from .list_games_visibility import ListGamesVisibility
from .notification import Notification
from .notification_page import NotificationPage
from .notification_payload import NotificationPayload
from .pagination_metadata import PaginationMetadata
from .problem import Problem
from .problem_errors import ProblemErrors
from .ready import Ready
from .ready_backend import ReadyBackend
from .ready_status import ReadyStatus
from .record_event import RecordEvent
from .record_event_payload import RecordEventPayload
from .resign_request import ResignRequest
from .scored_castle import ScoredCastle
from .scoring import Scoring
from .seat import Seat
from .seat_scoring import SeatScoring
from .seat_token import SeatToken
from .seat_token_revoked import SeatTokenRevoked
from .spectator_token import SpectatorToken
from .spectator_token_request import SpectatorTokenRequest
from .state import State
from .state_position import StatePosition
from .state_scoring_type_1_type_0 import StateScoringType1Type0
from .state_view import StateView
from .stream_game_response_200 import StreamGameResponse200
from .stream_game_response_200_event import StreamGameResponse200Event
from .stream_ticket import StreamTicket
from .timeout_policy import TimeoutPolicy
from .timeout_policy_level import TimeoutPolicyLevel
from .timeout_policy_policy import TimeoutPolicyPolicy
from .timeout_policy_scope import TimeoutPolicyScope
from .undo_request import UndoRequest
from .verify import Verify
from .verify_first_inconsistency_type_0_type_0 import VerifyFirstInconsistencyType0Type0
from .view import View
from .view_lifecycle import ViewLifecycle
from .view_preview_type_1_type_0 import ViewPreviewType1Type0
from .view_view import ViewView
from .wait import Wait
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_page import WebhookDeliveryPage
from .webhook_delivery_payload import WebhookDeliveryPayload
from .webhook_delivery_status import WebhookDeliveryStatus
from .webhook_delivery_type import WebhookDeliveryType

__all__ = (
    "AbandonRequest",
    "ActionRequest",
    "ActionRequestAction",
    "ActionResult",
    "AiSeatSpec",
    "AiSeatSpecKind",
    "AiSeatSpecLevel",
    "Analysis",
    "AnalysisAction",
    "AnalysisActionAction",
    "AnalysisDepth",
    "AnalysisRequest",
    "AnalysisRequestDepth",
    "AnalysisResult",
    "AnalysisResultScoringsItem",
    "AnalysisResultType0Type0",
    "AnalysisStatus",
    "AnalysisTurn",
    "AnalysisTurnBetterType1Type0",
    "BetterTurn",
    "BetterTurnBoardsItem",
    "Castle",
    "Clock",
    "ConsistencyProof",
    "CreateGame",
    "CreateGameEdition",
    "CreateGameOptions",
    "CreateGameOptionsDeck",
    "CreateGameOptionsJumpOver",
    "CreateGameOptionsPersonalRest",
    "CreateGameOptionsStackChoice",
    "CreateGameOptionsStartPlayer",
    "CreateGameVisibility",
    "Event",
    "EventPage",
    "EventPayload",
    "GameCreated",
    "GameCreatedVisibility",
    "GameList",
    "GameRecord",
    "GameRecordCreation",
    "GameRecordHead",
    "GameRecordInclusionType0",
    "GameRecordReader",
    "GameRecordResultType0",
    "GameRecordSignature",
    "GameSocketConnection",
    "GameSocketSecWebSocketVersion",
    "GameSocketUpgrade",
    "GameSummary",
    "GameSummaryOptions",
    "GameSummaryVisibility",
    "GetAnalysisDepth",
    "Health",
    "HealthStatus",
    "HumanSeatSpec",
    "HumanSeatSpecKind",
    "InclusionProof",
    "Inconsistency",
    "LegalActions",
    "LifecycleResult",
    "ListGamesStatus",
    "ListGamesVisibility",
    "Notification",
    "NotificationPage",
    "NotificationPayload",
    "PaginationMetadata",
    "Problem",
    "ProblemErrors",
    "Ready",
    "ReadyBackend",
    "ReadyStatus",
    "RecordEvent",
    "RecordEventPayload",
    "ResignRequest",
    "ScoredCastle",
    "Scoring",
    "Seat",
    "SeatScoring",
    "SeatToken",
    "SeatTokenRevoked",
    "SpectatorToken",
    "SpectatorTokenRequest",
    "State",
    "StatePosition",
    "StateScoringType1Type0",
    "StateView",
    "StreamGameResponse200",
    "StreamGameResponse200Event",
    "StreamTicket",
    "TimeoutPolicy",
    "TimeoutPolicyLevel",
    "TimeoutPolicyPolicy",
    "TimeoutPolicyScope",
    "UndoRequest",
    "Verify",
    "VerifyFirstInconsistencyType0Type0",
    "View",
    "ViewLifecycle",
    "ViewPreviewType1Type0",
    "ViewView",
    "Wait",
    "WebhookDelivery",
    "WebhookDeliveryPage",
    "WebhookDeliveryPayload",
    "WebhookDeliveryStatus",
    "WebhookDeliveryType",
)
