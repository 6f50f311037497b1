/**
 * A complete game against a running game service through the TypeScript SDK only (tests/sdk runs it:
 * `tsx test/play.ts BASE_URL SERVICE_KEY`, after `tsc --noEmit` has checked it against the generated types).
 * The portal creates the game with its key; each seat plays with its seat token, choosing among the legal
 * actions the API lists (no rules engine here); every seat follows the game on its SSE stream, opened with a
 * stream ticket as a browser's EventSource would. Before the game ends its analysis is refused; after, it is
 * requested and read once ready. Prints one JSON line: actions, versions seen, scores, turns analysed.
 */
import { createGameClient, type GameClient, type GameSchemas } from "../src/index";

const [baseUrl, serviceKey] = process.argv.slice(2);
if (!baseUrl || !serviceKey) throw new Error("usage: play.ts BASE_URL SERVICE_KEY");

/** A small seeded generator (mulberry32), so that a failing game can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

type SseEvent = { event: string; data: string; id?: string };

/** Server-sent events from a streamed body (comments skipped). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  let buffer = "";
  let event: Partial<SseEvent> = {};
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (event.data !== undefined) yield { event: event.event ?? "message", data: event.data, id: event.id };
        event = {};
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "event" || name === "data" || name === "id") event[name] = value;
      }
    }
  }
}

/** One seat's stream to its end: a fresh single-use ticket per connection, Last-Event-ID on a reconnect after
 * `timeout` or `shutdown`, until `game-over`. Resolves to the versions seen and the events they carried. */
async function follow(seat: GameClient, gameId: string, opened: () => void) {
  const versions: number[] = [];
  const events: unknown[] = [];
  for (;;) {
    const { data: ticket, error } = await seat.POST("/v1/games/{game_id}/stream-tickets", {
      params: { path: { game_id: gameId } },
    });
    check(ticket?.stream_url, `no stream ticket: ${JSON.stringify(error)}`);
    const headers: Record<string, string> = versions.length ? { "Last-Event-ID": String(versions.at(-1)) } : {};
    const response = await fetch(new URL(ticket.stream_url, baseUrl), { headers });
    check(response.ok && response.body, `stream answered ${response.status}`);
    check(response.headers.get("content-type")?.startsWith("text/event-stream"), "not an event stream");
    opened();
    for await (const event of sseEvents(response.body)) {
      if (event.event === "version") {
        versions.push(Number(event.id));
        events.push(...((JSON.parse(event.data) as { events?: unknown[] }).events ?? []));
      } else if (event.event === "game-over") {
        return { versions, events };
      }
    }
  }
}

const next = random(29);
const portal = createGameClient({ baseUrl, headers: { "X-API-Key": serviceKey } });
const create: GameSchemas["CreateGame"] = {
  edition: "yucata",
  seats: [
    { kind: "human", player_id: "ada", display_name: "Ada" },
    { kind: "human", player_id: "bob", display_name: "Bob" },
  ],
  external_id: "sdk-typescript-1",
  labels: ["sdk"],
};
const { data: created, error: refused } = await portal.POST("/v1/games", { body: create });
check(created?.game_id && created.seats, `the game was not created: ${JSON.stringify(refused)}`);
const gameId = created.game_id;
const seats = new Map<number, GameClient>();
for (const seat of created.seats) {
  check(seat.seat !== undefined && seat.token, "a human seat comes with its token");
  seats.set(seat.seat, createGameClient({ baseUrl, headers: { Authorization: `Bearer ${seat.token}` } }));
}
const seat = (n: number): GameClient => {
  const client = seats.get(n);
  check(client, `no seat ${n}`);
  return client;
};

const followers = [...seats.values()].map((client) => {
  let opened!: () => void;
  const connected = new Promise<void>((resolve) => (opened = resolve));
  return { connected, finished: follow(client, gameId, opened) };
});
await Promise.all(followers.map((f) => f.connected));

// While the game runs its analysis would be a cheating aid: refused, with a problem a client can branch on.
const early = await portal.POST("/v1/games/{game_id}/analysis", {
  params: { path: { game_id: gameId } }, body: { depth: "quick" },
});
check(early.response.status === 409 && early.error?.code === "game_running",
  `a running game's analysis was not refused: ${early.response.status} ${JSON.stringify(early.error)}`);

let actions = 0;
let summary: GameSchemas["GameSummary"];
for (;;) {
  const { data } = await seat(0).GET("/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
  check(data, "no summary");
  summary = data;
  if (summary.status === "over") break;
  const toMove = summary.to_move;
  check(typeof toMove === "number", "a running game has a seat to move");
  const { data: legal } = await seat(toMove).GET("/v1/games/{game_id}/legal-actions", {
    params: { path: { game_id: gameId } },
  });
  check(legal && typeof legal.version === "number" && Array.isArray(legal.actions), "no legal actions");
  const chosen = legal.actions[Math.floor(next() * legal.actions.length)] as GameSchemas["ActionRequest"]["action"];
  const { data: result, error } = await seat(toMove).POST("/v1/games/{game_id}/actions", {
    params: { path: { game_id: gameId } },
    body: { seat: toMove, action: chosen, expected_version: legal.version, command_id: `sdk-ts-${actions}` },
  });
  check(result?.version !== undefined && result.version > legal.version, `refused: ${JSON.stringify(error)}`);
  actions += 1;
  check(actions < 3000, "the game did not end");
}

check(summary.stage === "over" && summary.scores?.length === 2 && summary.winners?.length, "not a finished game");
check(summary.external_id === "sdk-typescript-1", "the portal's id is kept");
const { data: verified } = await portal.GET("/v1/games/{game_id}/verify", { params: { path: { game_id: gameId } } });
check(verified?.ok === true && verified.version === summary.version, "the record verifies");
// The post-game analysis (computed by the server's AI driver): requested, then read once ready.
const asked = await portal.POST("/v1/games/{game_id}/analysis", {
  params: { path: { game_id: gameId } }, body: { depth: "quick" },
});
check(asked.data?.status === "pending" || asked.data?.status === "ready", `not requested: ${JSON.stringify(asked.error)}`);
let analysis: GameSchemas["Analysis"] | undefined;
for (const deadline = Date.now() + 120_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
  const { data } = await seat(1).GET("/v1/games/{game_id}/analysis", {
    params: { path: { game_id: gameId }, query: { depth: "quick" } },
  });
  if (data?.status === "ready") {
    analysis = data;
    break;
  }
  check(Date.now() < deadline, "the analysis was not ready in 2 minutes");
}
const result = analysis.result as GameSchemas["AnalysisResult"] | null | undefined;
check(result?.turns && result.turns.length >= 20, "an analysis has a point per turn");
check(JSON.stringify(result.final_scores) === JSON.stringify(summary.scores), "its final scores are the game's");
check(result.turns.every((t) => t.share_after?.length === 2), "each turn has both seats' shares");
const seen = await Promise.all(followers.map((f) => f.finished));
for (const { versions, events } of seen) {
  const expected = Array.from({ length: summary.version! - versions[0] + 1 }, (_, i) => versions[0] + i);
  check(JSON.stringify(versions) === JSON.stringify(expected), `versions once and in order: ${versions}`);
  check(events.length > 0, "a seat's stream opened with a ticket carries the version's events");
}
console.log(JSON.stringify({ game_id: gameId, actions, version: summary.version, scores: summary.scores,
  streamed: seen.map((s) => s.versions.length), analysed_turns: result.turns.length }));
