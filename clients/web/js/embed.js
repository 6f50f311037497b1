// The embedded client: a portal opens /play/#game=<id>&token=<seat token>&embed=1 in an iframe (or a
// window of its own) and hears of the game through postMessage, as {source: 'torres', type, game_id, version, …}:
//   turn       the seat to move changed: {seat, mine, stage, phase, round}
//   move       an action was applied: {seat, action, text, auto}, the action in public words only (a kept card
//              is {type: 'keep_card'}, even the reader's own), text in the page's language
//   game-over  the game ended: {scores, ranks, winners, reason, rated}
// Only to one origin, never '*': the `origin=` of the fragment, else the embedding page's own origin
// (location.ancestorOrigins, else document.referrer); with none known nothing is sent.
// Theming: `theme=accent:%238a2be2;radius:0` (URL-encoded, `;` between pairs) sets the page's CSS custom properties of THEMED (style.css, :root).

import { moveWords } from './words.js';

/** The custom properties a host may set through `theme=`; anything else is ignored. */
export const THEMED = ['ink', 'muted', 'paper', 'surface', 'line', 'accent', 'target', 'ok', 'bad', 'bar', 'bar-ink',
  'radius', 'font', 'height-0', 'height-1', 'height-2', 'height-3', 'height-4', 'height-5', 'height-6', 'height-7'];
// A colour, length or font list; nothing that could end the declaration or load anything (no ; { } url( ).
const THEME_VALUE = /^[#\w\s.,%()'"-]{1,80}$/;

export function applyTheme(spec, root = document.documentElement) {
  for (const pair of String(spec || '').split(';')) {
    const at = pair.indexOf(':');
    if (at < 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (THEMED.includes(name) && THEME_VALUE.test(value) && !/url\s*\(/i.test(value)) root.style.setProperty(`--${name}`, value);
  }
}

function originOf(url) {
  try {
    const { origin } = new URL(url);
    return origin && origin !== 'null' ? origin : null;
  } catch { return null; }
}

/** The action as anyone may know it: a kept card stays unnamed (and its deck order secret). */
export function publicAction(action) {
  if (!action || action.type === 'keep_card') return { type: action ? action.type : 'unknown' };
  return { ...action };
}

export class Host {
  constructor(gameId, { origin = null } = {}) {
    this.gameId = gameId;
    this.target = window.parent !== window ? window.parent : window.opener;
    this.origin = originOf(origin) || originOf(location.ancestorOrigins?.[0]) || originOf(document.referrer);
    this.turnKey = null;
    this.ended = false;
    this.seenVersion = null;
  }

  post(type, body) {
    if (!this.target || !this.origin) return;
    this.target.postMessage({ source: 'torres', type, game_id: this.gameId, ...body }, this.origin);
  }

  /** After each load of the live game: the moves since the last one, the turn if it changed, the end. */
  update(game) {
    const events = game.events;
    if (this.seenVersion === null) {
      this.seenVersion = events.length ? events[events.length - 1].version : 0;  // the moves before are history
    }
    for (const e of events.filter((x) => x.version > this.seenVersion)) {
      if (e.type === 'action_applied' && e.payload?.action) {
        const action = publicAction(e.payload.action);
        this.post('move', { version: e.version, seat: e.payload.seat, action, text: moveWords(action), auto: e.payload.auto || null });
      }
      this.seenVersion = e.version;
    }
    const pos = game.pos;
    if (game.over()) {
      if (!this.ended) {
        this.ended = true;
        const ended = [...events].reverse().find((e) => e.type === 'game_ended')?.payload || {};
        this.post('game-over', {
          version: game.version, scores: ended.scores || pos.scores, ranks: ended.ranks || null,
          winners: ended.winners || game.summary.winners || [], reason: ended.reason || null, rated: ended.rated ?? null,
        });
      }
      return;
    }
    const key = `${pos.stage}:${pos.to_move}`;
    if (key !== this.turnKey) {
      this.turnKey = key;
      this.post('turn', { version: game.version, seat: pos.to_move, mine: pos.to_move === game.seat, stage: pos.stage, phase: pos.phase, round: pos.round });
    }
  }
}
