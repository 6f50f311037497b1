"""One configuration mechanism for every process: docs/settings.md is the generated table, each
declared variable is read, a bad value names its variable, and the defaults are the dataclasses' own."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from torres_ai.config import LEVEL_SETTINGS
from torres_ai.config import Settings as AiSettings
from torres_game.config import Config as GameConfig
from torres_matchmaking.config import Config as MatchmakingConfig
from torres_service import cors, healthcheck, limits, ratelimit_identity, settings
from torres_service.limits import InputLimits
from torres_service.principals import Registries
from torres_service.settings import Setting, SettingError, fields_of, values

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = (GameConfig, MatchmakingConfig, AiSettings)


def test_docs_settings_md_is_the_generated_table() -> None:
    """Regenerate with ``.venv/bin/python -m torres_service.settings --markdown > docs/settings.md``."""
    assert (ROOT / "docs" / "settings.md").read_text() == settings.markdown()


def test_the_command_prints_the_table() -> None:
    out = subprocess.run([sys.executable, "-m", "torres_service.settings", "--markdown"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert out == settings.markdown()


def test_every_process_is_in_the_table_and_each_variable_once() -> None:
    rows = settings.rows()
    assert len({row.var for row in rows}) == len(rows)
    assert {p for row in rows for p in row.processes} == set(settings.processes())
    assert set(settings.processes()) == {"game", "matchmaking", "ai-worker", "gunicorn", "healthcheck", "keys"}
    by_var = {row.var: row for row in rows}
    assert by_var["DB_POOL_MAX"].default == "`16`" and by_var["DB_POOL_MAX"].kind == "integer"
    assert by_var["TORRES_TENANTS_FILE"].processes == ["game", "keys", "matchmaking"]
    assert by_var["TORRES_AI_HARD"].default == "`mcts`"


def test_a_variable_declared_twice_must_agree() -> None:
    declarations = {"one": settings.Process("one", (cors.ORIGINS,)), "two": settings.Process("two", (_OTHER_ORIGINS,))}
    with pytest.raises(SettingError, match="TORRES_CORS_ORIGINS is declared twice"):
        settings.rows(declarations)


_OTHER_ORIGINS = Setting("TORRES_CORS_ORIGINS", "the same variable with another default", default="*")


# -- bad values -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("cls", "env", "message"), [
    (GameConfig, {"DB_POOL_MAX": "x"}, "DB_POOL_MAX='x' is not an integer"),
    (GameConfig, {"TORRES_SEND_TIMEOUT": "soon"}, "TORRES_SEND_TIMEOUT='soon' is not a number"),
    (GameConfig, {"TORRES_AUTO_MIGRATE": "maybe"}, "TORRES_AUTO_MIGRATE='maybe' is not a flag"),
    (MatchmakingConfig, {"MM_BAND_EDGES": "21,x"}, "MM_BAND_EDGES='21,x' is not a comma-separated list of numbers"),
    (MatchmakingConfig, {"REDIS_CLUSTER": "yes please"}, "REDIS_CLUSTER='yes please' is not a flag"),
    (AiSettings, {"TORRES_AI_HARD": "genius"}, "TORRES_AI_HARD='genius' is not a bot kind"),
    (AiSettings, {"TORRES_AI_HARD_ITERATIONS": "1.5"}, "TORRES_AI_HARD_ITERATIONS='1.5' is not an integer"),
    (InputLimits, {"TORRES_MAX_BODY_BYTES": "64k"}, "TORRES_MAX_BODY_BYTES='64k' is not an integer"),
    (ratelimit_identity.Settings, {"TORRES_TRUSTED_PROXIES": "one"}, "TORRES_TRUSTED_PROXIES='one' is not an integer"),
])
def test_a_bad_value_names_its_variable(cls: Any, env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        cls.from_env(env)


def test_setting_errors_are_value_errors() -> None:
    """Callers that caught ``ValueError`` from the hand-written parsers still do."""
    assert issubclass(SettingError, ValueError)


# -- each variable is read ------------------------------------------------------------------------------------

def _another(kind: Any, default: Any) -> tuple[str, Any]:
    """A value unlike the default, as text and as the field should hold it."""
    if kind is bool:
        return ("0", False) if default else ("1", True)
    if kind is int:
        return str(default + 7), default + 7
    if kind is float:
        return str(default + 1.5), default + 1.5
    if kind is Path:
        return "/elsewhere", Path("/elsewhere")
    if kind == tuple[float, ...]:
        return "1.5, 2.5", (1.5, 2.5)
    if kind == tuple[str, ...]:
        return "a b", ("a", "b")
    return "other-value", "other-value"


@pytest.mark.parametrize("cls", CONFIGS)
def test_every_field_setting_is_read_from_its_variable(cls: Any) -> None:
    """Each field's own variable, set alone, changes that field and no other."""
    plain = cls.from_env({"TORRES_API_KEY": "k", "TORRES_ADMIN_KEY": "a"})
    for f, s, kind in fields_of(cls):
        text, expected = _another(kind, settings.default_of(f))
        if s.parse is not None:  # a parser of its own: a value it takes
            text, expected = {"MM_BAND_EDGES": ("29, 21", (21.0, 29.0)),
                              "GAME_SERVICE_URL": ("http://game:8000/", "http://game:8000"),
                              "TORRES_FRAME_ANCESTORS": ("https://portal.example/", ("https://portal.example",))}[s.var]
        env = {"TORRES_API_KEY": "k", "TORRES_ADMIN_KEY": "a", s.var: text}
        read = cls.from_env(env)
        assert getattr(read, f.name) == expected, s.var
        others = {g.name for g in dataclasses.fields(cls)} - {f.name}
        if s.var in ("TORRES_API_KEY", "TORRES_ADMIN_KEY"):
            continue
        assert {n: getattr(read, n) for n in others if n != "game_service_api_key"} == \
            {n: getattr(plain, n) for n in others if n != "game_service_api_key"}, s.var


def test_levels_are_read() -> None:
    env = {"TORRES_AI_EASY": "greedy", "TORRES_AI_MEDIUM_SECONDS": "2", "TORRES_AI_HARD_ITERATIONS": "50"}
    levels = AiSettings.from_env(env).levels
    assert levels["easy"].bot == "greedy" and levels["medium"].budget.seconds == 2.0
    assert levels["hard"].budget.iterations == 50 and levels["hard"].bot == "mcts"
    assert len(LEVEL_SETTINGS) == 3


def test_derived_and_fallback_values(tmp_path: Path) -> None:
    game = GameConfig.from_env({"TORRES_DATA_DIR": str(tmp_path)})
    assert game.database_url == f"sqlite:///{tmp_path / 'torres.sqlite3'}" and game.backend == "sqlite"
    assert len(game.api_key) >= 24 and len(game.admin_key) >= 24  # generated, as before
    assert GameConfig.from_env({"DATABASE_URL": "postgresql://h/db"}).database_url == "postgresql://h/db"
    assert GameConfig.from_env({"REDIS_URL": "redis://r/0"}).broker_url == "redis://r/0"
    assert GameConfig.from_env({"REDIS_URL": "redis://r/0", "CELERY_BROKER_URL": "redis://c/0"}).broker_url == \
        "redis://c/0"
    assert AiSettings.from_env({"CELERY_BROKER_URL": "", "REDIS_URL": "redis://r/0"}).broker_url == "redis://r/0"
    mm = MatchmakingConfig.from_env({"TORRES_API_KEY": "k"})
    assert mm.game_service_api_key == "k" and mm.api_key == "k"
    assert MatchmakingConfig.from_env({"TORRES_API_KEY": "k", "GAME_SERVICE_API_KEY": "g"}).game_service_api_key == "g"


def test_empty_values() -> None:
    """An empty number or flag is the default; an empty string is a value."""
    assert GameConfig.from_env({"DB_POOL_MAX": "", "TORRES_JSON_LOGS": " "}).pool_max == 16
    assert GameConfig.from_env({"TORRES_JSON_LOGS": ""}).json_logs is True
    assert ratelimit_identity.Settings.from_env({"TORRES_RATELIMIT_EXEMPT": ""}).exempt == ()
    assert ratelimit_identity.Settings.from_env({"TORRES_RATELIMIT_ADDRESS": ""}).limit("address") is None


def test_shared_modules_read_their_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    assert InputLimits.from_env({"TORRES_JSON_MAX_DEPTH": "5"}, max_body_bytes=100) == \
        InputLimits(max_json_depth=5, max_body_bytes=100)
    assert InputLimits.from_env({"TORRES_MAX_BODY_BYTES": "200"}, max_body_bytes=100).max_body_bytes == 200
    rl = ratelimit_identity.Settings.from_env({"TORRES_RATELIMIT_SHARED": "tenant",
                                               "TORRES_MAX_STREAMS_PER_PLAYER": "3"}, storage_uri="redis://r")
    assert (rl.shared, rl.streams_per_player, rl.storage_uri) == (("tenant",), 3, "redis://r")
    registries = Registries.from_env({"TORRES_PLAYER_TOKEN_SECRET": "s" * 32}, api_key="k")
    assert registries.current is not None
    monkeypatch.setenv("TORRES_CORS_ORIGINS", "https://a.example, https://b.example")
    assert cors.ORIGINS.read() == ("https://a.example", "https://b.example")
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.delenv("HEALTHCHECK_URL", raising=False)
    assert healthcheck.PORT.read() == 8123 and healthcheck.URL.read() == ""
    monkeypatch.setenv("HEALTHCHECK_TIMEOUT", "nope")
    with pytest.raises(SettingError, match="HEALTHCHECK_TIMEOUT='nope' is not a number"):
        healthcheck.TIMEOUT.read()


# -- defaults -------------------------------------------------------------------------------------------------

def test_defaults_are_the_dataclasses() -> None:
    """An empty environment gives the dataclass's own defaults: nothing is written twice to disagree."""
    assert MatchmakingConfig.from_env({}) == MatchmakingConfig()
    assert AiSettings.from_env({}) == AiSettings()
    assert InputLimits.from_env({}) == InputLimits()
    assert ratelimit_identity.Settings.from_env({}) == ratelimit_identity.Settings()
    game = GameConfig.from_env({"TORRES_API_KEY": "k", "TORRES_ADMIN_KEY": "a", "DATABASE_URL": "sqlite:///x"})
    assert game == GameConfig(api_key="k", admin_key="a", database_url="sqlite:///x")


def test_shared_settings_default_alike() -> None:
    """A setting several dataclasses hold (API key, tenants file, log level, broker URL, AI delay) has one
    default, its declaration's."""
    for cls in CONFIGS:
        for f, s, _ in fields_of(cls):
            if s.default is not None:
                assert f.default == s.default, (cls.__name__, s.var)
    for mapping, cls in ((limits.VARIABLES, InputLimits), (ratelimit_identity.VARIABLES, ratelimit_identity.Settings)):
        assert set(mapping) <= {f.name for f in dataclasses.fields(cls)}
        assert values(cls, {}, mapping) == {}
