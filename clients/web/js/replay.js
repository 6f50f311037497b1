// Replay and audit: step through any version of a game (finished: the full positions; running: the reader's
// view), the phase scorings explained, /verify as a badge, and the seed commitment checked against its reveal.
// Its move log and step line are the live game's words (movelog.js, words.js), the turn so far marked on the board.

import { AnalysisPanel } from './analysis.js';
import { sha256Hex } from './api.js';
import { auditGame, renderAudit } from './audit.js';
import { renderBoard, renderTrack, seatBadge } from './board.js';
import { h, showAlert } from './dom.js';
import { appendToLog, lastTurn, logBox } from './movelog.js';
import { seatTitle, seatsPanel, turnLine } from './panels.js';
import { t } from './strings.js';
import { eventWords } from './words.js';

export class Replay {
  constructor(api, main, { id, token, admin, analysis = null }) {
    this.api = api;
    this.main = main;
    this.id = id;
    this.creds = admin ? { admin } : token ? { token } : {};
    this.states = new Map();
    this.at = 1;
    this.want = 1;
    this.touched = 0;  // focus and edits of the jump box so far: what a person typed there is not overwritten
    this.analysisDepth = analysis;  // `&analysis=quick|deep` in the link: ask for that analysis at once
  }

  path(suffix = '') { return `/v1/games/${encodeURIComponent(this.id)}${suffix}`; }

  async start(version = null) {
    const [summary, events, verify] = await Promise.all([
      this.api.get(this.path(), this.creds), this.api.allEvents(this.id, this.creds),
      this.api.get(this.path('/verify'), this.creds),
    ]);
    this.summary = summary;
    this.events = events;
    this.last = events.length ? events[events.length - 1].version : 1;
    this.verify = verify;
    this.layout();
    renderAudit(this.auditBox, null);  // the record checked in this browser, beside the server's own /verify
    auditGame(this.api, this.id, this.creds).then((r) => renderAudit(this.auditBox, r), (e) => renderAudit(this.auditBox, null, e));
    // The first position is asked for at once, in the same task as the controls appear, so that a version a
    // person asks for from them supersedes it. Asked for after the seed check (an await), it overrode a jump
    // made meanwhile and the page stayed on the last version.
    await Promise.all([this.go(version ?? this.last), this.renderSeed()]);
  }

  stop() { if (this.keys) document.removeEventListener("keydown", this.keys); }

  layout() {
    this.boardBox = h('div', { class: 'board-box' });
    this.trackBox = h('div', { class: 'track-box' });
    this.turnBox = h('p', { class: 'turn', id: 'turn' });
    this.stepText = h('p', { class: 'step', id: 'step', 'aria-live': 'polite' });
    this.scoringBox = h('div', { id: 'scoring' });
    this.seatsBox = h('div', { id: 'seats' });
    this.seedBox = h('div', { class: 'seed', id: 'seed' });
    this.auditBox = h('div', { id: 'browser-audit' });
    this.analysisBox = h('section', { id: 'analysis', 'aria-labelledby': 'analysis-title' });
    this.slider = h('input', { type: 'range', min: '1', max: String(this.last), value: '1', id: 'slider',
      'aria-label': 'Version', oninput: () => this.go(Number(this.slider.value)) });
    this.jump = h('input', { type: 'number', min: '1', max: String(this.last), id: 'jump', 'aria-label': 'Jump to version',
      onfocus: () => { this.touched += 1; }, oninput: () => { this.touched += 1; } });
    const badge = this.verify.ok
      ? h('span', { class: 'badge-ok', id: 'verify' }, `✔ verified: ${this.verify.events} events, hash chain and re-fold consistent`)
      : h('span', { class: 'badge-bad', id: 'verify' }, `✘ verification failed at version ${this.verify.first_inconsistency?.version}: ${this.verify.first_inconsistency?.reason}`);
    this.logList = logBox('Moves');
    appendToLog(this.logList, this.events, { seats: this.summary.seats, onClick: (v) => this.go(v) });
    const controls = h('div', { class: 'replay-controls', role: 'group', 'aria-label': 'Replay controls' },
      h('button', { onclick: () => this.go(1), id: 'first', 'aria-label': 'First version' }, '◀◀ first'),
      h('button', { onclick: () => this.go(this.want - 1), id: 'back', 'aria-label': 'Step back' }, '◀ back'),
      h('span', { id: 'at', class: 'at' }),
      h('button', { onclick: () => this.go(this.want + 1), id: 'forward', 'aria-label': 'Step forward' }, 'forward ▶'),
      h('button', { onclick: () => this.go(this.last), id: 'end', 'aria-label': 'Last version' }, 'last ▶▶'),
      this.slider,
      h('form', { class: 'inline', onsubmit: (e) => { e.preventDefault(); this.go(Number(this.jump.value)); } },
        this.jump, h('button', { type: 'submit' }, 'Jump')));
    const who = this.summary.status === 'over' || this.creds.admin ? 'everything (the game is over, or the admin key)'
      : this.creds.token ? 'your seat' : 'spectator';
    this.main.replaceChildren(h('section', { class: 'game replay', 'aria-label': 'Replay' },
      h('div', { class: 'col-board' }, controls, this.stepText, this.boardBox, h('h2', {}, 'Score track'), this.trackBox),
      h('div', { class: 'col-side' },
        h('h2', {}, `Replay of game ${this.id.slice(0, 8)}`),
        h('p', {}, badge), this.auditBox, h('p', { class: 'muted' }, `${this.summary.status === 'over' ? 'finished' : 'running'} · read as ${who}`),
        this.seedBox, this.analysisBox, this.turnBox, this.scoringBox, this.seatsBox, h('h2', {}, 'Moves'), this.logList)));
    if (this.summary.status === 'over') {
      new AnalysisPanel(this, this.analysisBox, this.analysisDepth).render(Boolean(this.analysisDepth));
    } else {  // refused by the server too (409): an analysis of a running game would be a cheating aid
      this.analysisBox.replaceChildren(h('h2', { id: 'analysis-title' }, 'Analysis'),
        h('p', { class: 'muted' }, 'An analysis is offered once the game is over.'));
    }
    document.addEventListener('keydown', this.keys = (e) => {
      if (e.target.closest?.('input, select, textarea')) return;
      if (e.key === 'ArrowRight' && e.altKey) this.go(this.want + 1);
      if (e.key === 'ArrowLeft' && e.altKey) this.go(this.want - 1);
    });
  }

  async renderSeed() {
    const created = this.events.find((e) => e.type === 'game_created');
    const ended = this.events.find((e) => e.type === 'game_ended');
    const commitment = created?.payload.seed_commitment;
    const rows = [h('div', {}, 'Seed commitment (SHA-256, published at creation): ', h('code', {}, commitment || '?'))];
    if (ended?.payload.seed) {
      const digest = await sha256Hex(ended.payload.seed);
      const ok = digest === commitment;
      rows.push(h('div', {}, 'Seed revealed at the end: ', h('code', {}, ended.payload.seed)),
        h('div', { class: ok ? 'badge-ok' : 'badge-bad', id: 'seed-check' },
          ok ? '✔ its SHA-256 matches the commitment' : `✘ its SHA-256 is ${digest}, not the commitment`));
    } else {
      rows.push(h('div', { class: 'muted' }, 'The seed is revealed when the game ends.'));
    }
    this.seedBox.replaceChildren(h('h3', {}, 'Seed'), ...rows);
  }

  /** The response of `GET /state?version=`: the position (or view), its castles and any scoring, cached. */
  async state(version) {
    if (!this.states.has(version)) {
      this.states.set(version, await this.api.get(this.path(`/state?version=${version}`), this.creds));
    }
    return this.states.get(version);
  }

  async go(version) {
    const v = Math.max(1, Math.min(this.last, version));
    this.want = v;  // steps count from the version asked for last, so quick clicks are never lost
    const token = (this.pending = {});
    const touched = this.touched;
    let doc;
    try {
      doc = await this.state(v);
    } catch (err) {
      showAlert(err.message);
      return;
    }
    if (token !== this.pending) return;
    const pos = doc.position || doc.view;
    this.at = v;
    this.pos = pos;
    this.slider.value = String(v);
    // Not over a version typed (or about to be: the box has focus) since this one was asked for, as the first
    // position of a long game on a slow server: the answer replaced the typed number (or, arriving between the
    // focus and the keys, took "5" to "1565"), and "Jump" then went to the version already shown.
    if (this.touched === touched) this.jump.value = String(v);
    this.main.querySelector('#at').textContent = `version ${v} of ${this.last}`;
    const event = this.events.find((e) => e.version === v);
    this.stepText.textContent = event ? `v${v}: ${eventWords(event, this.summary.seats)}` : '';
    if (event) this.stepText.title = event.text || '';
    renderBoard(this.boardBox, pos, { castles: doc.castles || [], lastTurn: lastTurn(this.events.filter((e) => e.version <= v)) });
    renderTrack(this.trackBox, pos.scores);
    this.turnBox.textContent = turnLine(pos, this.summary.seats, pos.seat ?? null);
    this.seatsBox.replaceChildren(seatsPanel(pos, this.summary.seats, pos.seat ?? null));
    this.scoringBox.replaceChildren(...this.scoring(doc.scoring, doc.castles || []));
    for (const li of this.logList.querySelectorAll('li')) li.classList.toggle('current', Number(li.dataset.version) === v);
    this.logList.querySelector('.current')?.scrollIntoView({ block: 'nearest' });
  }

  /**
   * When the step ended a phase: the rules engine's breakdown of that scoring (the API's `scoring`), in words.
   * Only words here: the arithmetic is the engine's, so the page cannot explain a score the rules did not give.
   */
  scoring(scoring, castles) {
    if (!scoring) return [];
    const items = scoring.seats.map((part) => {
      const parts = part.castles.map((c) => t('preview.castle', {
        area: c.area, at: castles[c.castle]?.squares?.[0] ?? '?', level: c.level, points: c.points,
      }));
      if (part.king_bonus) parts.push(`king bonus ${part.king_bonus} (a knight at level ${scoring.phase} in the king's castle)`);
      if (part.master_points) parts.push(`master card ${scoring.master_card.replace(/_/g, ' ')} ${part.master_points}`);
      if (part.collision) parts.push(`+${part.collision} from the rule that no two players share a score`);
      return h('li', { 'data-seat': String(part.seat) }, seatBadge(part.seat), ` ${seatTitle(this.summary.seats, part.seat, null)}: `,
        parts.length ? parts.join('; ') : 'no knight in a castle', ` → +${part.gained} (score ${part.score})`);
    });
    return [h('div', { class: 'scoring', id: 'scoring-explained' }, h('h3', {}, `Scoring of phase ${scoring.phase}`), h('ul', {}, ...items))];
  }
}
