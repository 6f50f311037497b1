"""The settings every HTTP service reads through this kit (the input guard, who the rate limits count, CORS), one
collection for a component's declaration of its processes' settings (:data:`torres_service.settings.GROUP`)."""

from __future__ import annotations

from . import cors, limits, ratelimit_identity
from .settings import Fields

HTTP_SETTINGS = (Fields(limits.InputLimits, limits.VARIABLES),
                 Fields(ratelimit_identity.Settings, ratelimit_identity.VARIABLES), cors.ORIGINS)
