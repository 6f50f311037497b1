// The post-game analysis in the replay (`POST`/`GET /v1/games/<id>/analysis`): every seat's expected final score
// share turn by turn as a curve, the turns that lost the most, and "show the better turn" playing the turn the
// analysis found out on the board. Only words and drawing here: every figure is the server's.

import { renderBoard, renderTrack, SEATS, seatBadge } from './board.js';
import { h, showAlert } from './dom.js';
import { seatTitle } from './panels.js';
import { actionWords } from './words.js';

const SVG = 'http://www.w3.org/2000/svg';
const POLL_MS = 1000;
const STEP_MS = 700;
const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
const pct = (x) => `${Math.round(x * 100)}%`;

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

/** The curve: one line per seat, its expected final score share after each turn (x: turns, y: 0 … 100 %),
 * the marked turns as vertical lines. A picture for the eye; the same figures are in the table below it. */
function curve(result, seats) {
  const width = 420;
  const height = 180;
  const pad = 28;
  const turns = result.turns;
  const n = Math.max(1, turns.length);
  const x = (i) => pad + (i * (width - 2 * pad)) / n;
  const y = (share) => height - pad - share * (height - 2 * pad);
  const names = seats.map((_, s) => seatTitle(seats, s, null));
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', id: 'analysis-curve',
    'aria-label': `Expected final score share after each of ${turns.length} turns; at the end: `
      + names.map((name, s) => `${name} ${pct(turns.at(-1)?.share_after[s] ?? 0)}`).join(', ')
      + `. Marked turns: ${result.marked.map((m) => m + 1).join(', ') || 'none'}.` });
  el('line', { x1: pad, y1: y(0.5), x2: width - pad, y2: y(0.5), stroke: '#888', 'stroke-dasharray': '4 4' }, svg);
  el('line', { x1: pad, y1: y(0), x2: width - pad, y2: y(0), stroke: '#444' }, svg);
  for (const m of result.marked) {
    el('line', { x1: x(m + 0.5), y1: y(1), x2: x(m + 0.5), y2: y(0), stroke: '#b00020', 'stroke-width': 2,
      class: 'marked-line' }, svg);
  }
  seats.forEach((_, s) => {
    const points = [[x(0), y(turns[0]?.share_before[s] ?? 0)],
      ...turns.map((turn, i) => [x(i + 1), y(turn.share_after[s])])];
    el('polyline', { points: points.map((p) => p.join(',')).join(' '), fill: 'none', stroke: SEATS[s].color,
      'stroke-width': 2.5, 'stroke-dasharray': ['', '6 3', '2 3', '8 3 2 3'][s] }, svg);
  });
  const label = (text, tx, ty) => { const node = el('text', { x: tx, y: ty, 'font-size': 11 }, svg); node.textContent = text; };
  label('100 %', 0, y(1) + 4);
  label('50 %', 2, y(0.5) + 4);
  label('0', 12, y(0) + 4);
  label(`turn ${turns.length}`, width - pad - 30, height - 8);
  return svg;
}

function curveTable(result, seats) {
  const head = h('tr', {}, h('th', { scope: 'col' }, 'Turn'), h('th', { scope: 'col' }, 'Played by'),
    ...seats.map((_, s) => h('th', { scope: 'col' }, `${seatTitle(seats, s, null)} after`)),
    h('th', { scope: 'col' }, 'Lost'));
  const rows = result.turns.map((turn) => h('tr', { class: result.marked.includes(turn.turn) ? 'marked' : null },
    h('th', { scope: 'row' }, String(turn.turn + 1)), h('td', {}, seatTitle(seats, turn.seat, null)),
    ...turn.share_after.map((share) => h('td', {}, pct(share))), h('td', {}, turn.loss ? turn.loss.toFixed(1) : '')));
  return h('details', { class: 'analysis-table' }, h('summary', {}, 'The curve as a table'),
    h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'The curve as a table' },
      h('table', {}, h('thead', {}, head), h('tbody', {}, ...rows))));
}

export class AnalysisPanel {
  constructor(replay, box, depth = null) {
    this.replay = replay;
    this.box = box;
    this.depth = depth === 'deep' ? 'deep' : 'quick';
    this.showing = null;  // the better turn being played out, so that a second click or "back" stops it
  }

  path() { return this.replay.path('/analysis'); }

  render(autostart) {
    this.select = h('select', { id: 'analysis-depth' },
      h('option', { value: 'quick' }, 'quick (seconds)'), h('option', { value: 'deep' }, 'deep (a minute or more)'));
    this.select.value = this.depth;
    this.status = h('p', { id: 'analysis-status', 'aria-live': 'polite' });
    this.body = h('div', { id: 'analysis-body' });
    this.box.replaceChildren(h('h2', { id: 'analysis-title' }, 'Analysis'),
      h('p', { class: 'muted' }, 'Where the game was won and lost: each seat\'s expected final score share turn by turn, '
        + 'and the turns that lost the most with a better turn found from what that seat could see then.'),
      h('div', { class: 'inline' }, h('label', { for: 'analysis-depth' }, 'Depth '), this.select, ' ',
        h('button', { id: 'analyse', onclick: () => this.request() }, 'Analyse this game')),
      this.status, this.body);
    if (autostart) this.request();
  }

  async request() {
    this.depth = this.select.value;
    const creds = this.replay.creds;
    this.status.textContent = `Asking for the ${this.depth} analysis…`;
    try {
      let doc = await this.replay.api.post(this.path(), { depth: this.depth }, creds);
      while (doc.status !== 'ready') {
        this.status.textContent = `The ${this.depth} analysis is being computed (${doc.turns_done} turns so far)…`;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        doc = await this.replay.api.get(`${this.path()}?depth=${this.depth}`, creds);
      }
      this.status.textContent = `The ${this.depth} analysis is ready (${doc.cpu_seconds.toFixed(1)} s of CPU; ${doc.cost}).`;
      this.show(doc.result);
    } catch (err) {
      this.status.textContent = '';
      showAlert(err.message);
    }
  }

  show(result) {
    const seats = this.replay.summary.seats;
    this.result = result;
    const marked = result.marked.map((index) => {
      const turn = result.turns[index];
      const who = seatTitle(seats, turn.seat, null);
      const better = turn.better;
      return h('li', { 'data-turn': String(index) }, seatBadge(turn.seat),
        ` Turn ${index + 1}, ${who} (phase ${turn.phase}, round ${turn.round}): lost ${turn.loss.toFixed(1)} points. `,
        h('span', { class: 'muted' }, `Played: ${turn.actions.map((a) => actionWords(a.action)).join(', ')}. `),
        h('span', {}, `Better: ${better.actions.map((a) => actionWords(a.action)).join(', ')}`
          + `${better.continues_after_draw ? ', then play on after seeing the card' : ''}: `
          + `${who}'s expected share ${pct(turn.share_after[turn.seat])} → ${pct(better.share_after[turn.seat])}. `),
        h('button', { class: 'go-turn', onclick: () => this.replay.go(turn.to_version) }, `Go to turn ${index + 1}`), ' ',
        h('button', { class: 'show-better', onclick: () => this.playBetter(turn) }, `Show the better turn ${index + 1}`));
    });
    this.body.replaceChildren(curve(result, seats), curveTable(result, seats),
      h('h3', {}, 'The turns that lost the most'),
      marked.length ? h('ol', { id: 'marked-turns' }, ...marked) : h('p', { id: 'marked-turns' }, 'No turn lost much: '
        + 'the analysis found no clearly better turn.'));
  }

  /** The better turn played out on the board, action by action, from the position before the played turn. */
  async playBetter(turn) {
    const run = (this.showing = {});
    const replay = this.replay;
    await replay.go(turn.from_version);
    if (run !== this.showing) return;
    const back = h('button', { id: 'analysis-back', onclick: () => { this.showing = null; back.remove(); replay.go(turn.to_version); } },
      'Back to the game as played');
    replay.stepText.after(back);
    const boards = turn.better.boards;
    const steps = reducedMotion() ? [boards.length - 1] : boards.map((_, i) => i);
    for (const i of steps) {
      if (run !== this.showing) return;
      const { position, castles } = boards[i];
      renderBoard(replay.boardBox, position, { castles });
      renderTrack(replay.trackBox, position.scores);
      replay.stepText.textContent = `Better turn ${turn.turn + 1}, action ${i + 1} of ${boards.length}: `
        + actionWords(turn.better.actions[i].action);
      if (i < boards.length - 1) await new Promise((resolve) => setTimeout(resolve, STEP_MS));
    }
    if (run === this.showing) back.focus();
  }
}
