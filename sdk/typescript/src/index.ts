/**
 * Typed clients of the Torres game service and matchmaker (docs/sdk.md).
 *
 * The types are generated (`make sdk`: openapi-typescript writes game.gen.ts and matchmaking.gen.ts from
 * sdk/openapi/*.json); the clients are openapi-fetch's, typed by them: every path, parameter, body and response
 * is checked by the compiler against the service's OpenAPI document. This file only names them.
 */
import createClient, { type ClientOptions } from "openapi-fetch";

import type { components as GameComponents, paths as GamePaths } from "./game.gen";
import type { components as MatchmakingComponents, paths as MatchmakingPaths } from "./matchmaking.gen";

export type { GameComponents, GamePaths, MatchmakingComponents, MatchmakingPaths };
/** The game service's schemas by name, e.g. `GameSchemas["GameCreated"]`. */
export type GameSchemas = GameComponents["schemas"];
/** The matchmaker's schemas by name, e.g. `MatchmakingSchemas["Ticket"]`. */
export type MatchmakingSchemas = MatchmakingComponents["schemas"];

/** A client of the game service: `baseUrl` and, for a portal's server, `headers: {"X-API-Key": key}`; for a
 * seat, `headers: {Authorization: \`Bearer ${token}\`}`. */
export function createGameClient(options: ClientOptions) {
  return createClient<GamePaths>(options);
}

/** A client of the matchmaker: `baseUrl` and the portal's key or a player's token in `headers`. */
export function createMatchmakingClient(options: ClientOptions) {
  return createClient<MatchmakingPaths>(options);
}

export type GameClient = ReturnType<typeof createGameClient>;
export type MatchmakingClient = ReturnType<typeof createMatchmakingClient>;
