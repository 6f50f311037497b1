// The public REST API of the game service and the matchmaker, and nothing else: what a portal would call.
// Every failure becomes an ApiError whose message is the server's problem details in words (RFC 9457).

export class ApiError extends Error {
  constructor(status, problem) {
    super(describeProblem(status, problem));
    this.status = status;
    this.problem = problem;
    this.code = problem.code || `http_${status}`;
  }
}

export function describeProblem(status, problem) {
  const title = problem.title || `HTTP ${status}`;
  let text = problem.detail && problem.detail !== title ? `${title}: ${problem.detail}` : title;
  if (problem.errors && typeof problem.errors === 'object') {
    const fields = Object.entries(problem.errors).map(([k, v]) => `${k} ${[].concat(v).join(', ')}`);
    if (fields.length) text += ` (${fields.join('; ')})`;
  }
  return `${text} [${status} ${problem.code || ''}]`.replace(' ]', ']');
}

export class Api {
  constructor(base = '') { this.base = base.replace(/\/$/, ''); }

  async request(method, path, { token, key, admin, body, signal } = {}) {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (key) headers['X-API-Key'] = key;
    if (admin) headers['X-Admin-Key'] = admin;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
      response = await fetch(this.base + path, {
        method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, { title: 'The server cannot be reached', detail: String(err.message || err), code: 'network' });
    }
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = { title: text.slice(0, 200) }; }
    if (!response.ok) throw new ApiError(response.status, data || {});
    return data;
  }

  get(path, opts) { return this.request('GET', path, opts); }
  post(path, body, opts = {}) { return this.request('POST', path, { ...opts, body }); }
  del(path, opts) { return this.request('DELETE', path, opts); }

  streamUrl(gameId, version) {
    return `${this.base}/v1/games/${encodeURIComponent(gameId)}/stream?version=${version}`;
  }

  /** The matchmaker's server-sent events for one ticket: a `ticket` event now and at each change. EventSource
   * cannot send the player token, so the URL carries a single-use stream ticket instead (never the token). */
  ticketStreamUrl(ticketId, streamTicket) {
    return `${this.base}/v1/tickets/${encodeURIComponent(ticketId)}/stream?timeout=300`
      + `&stream_ticket=${encodeURIComponent(streamTicket)}`;
  }

  /** A single-use stream ticket for a game's SSE stream (valid for about a minute), obtained with the seat
   * token (or other credentials) the page holds: a private game's EventSource carries it, never the token. */
  async gameStreamTicket(gameId, creds) {
    return (await this.post(`/v1/games/${encodeURIComponent(gameId)}/stream-tickets`, undefined, creds)).stream_ticket;
  }

  /** A single-use stream ticket for one of the player's tickets (valid for about a minute). */
  async streamTicket(ticketId, token) {
    return (await this.post(`/v1/tickets/${encodeURIComponent(ticketId)}/stream-tickets`, undefined, { token })).stream_ticket;
  }

  /** A player token from the matchmaker's development issuer (`make run`), with the portal's key: what a
   * portal's own server does for its logged-in players. {token, expires_at, player_id, tenant}. */
  devPlayerToken(playerId, key) {
    // the name the other seats see in the games it is matched into (the token's `name` claim)
    return this.post('/v1/dev/player-tokens', { player_id: playerId, name: playerId }, { key });
  }

  /** Every event of a game after `after`, page by page, as `creds` may read them. */
  async allEvents(gameId, creds, after = 0) {
    const out = [];
    for (;;) {
      const page = await this.get(`/v1/games/${encodeURIComponent(gameId)}/events?after=${after}&limit=1000`, creds);
      out.push(...page.events);
      if (!page.events.length || page.next_after >= page.version) return out;
      after = page.next_after;
    }
  }
}

export function commandId() {
  return (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`).replace(/[^A-Za-z0-9-]/g, '');
}

export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
