// The live game: the board, the seat's legal actions chosen by clicks, the push channel (SSE /stream) and
// the move log. Every action carries expected_version and a fresh command id; a 4xx is shown in words.
// Others' actions are played back one at a time (PLAYBACK_MS each, skippable, instant with reduced motion), and
// the last turn's changes stay marked on the board until the next turn.

import { commandId } from './api.js';
import { MARK_KINDS, markIcon, renderBoard, renderTrack, seatBadge } from './board.js';
import { announce, h, showAlert } from './dom.js';
import { appendToLog, lastTurn, logBox } from './movelog.js';
import { clockLine, keepTiles, previewPanel, seatTitle, seatsPanel, turnLine } from './panels.js';
import { STRINGS, language, t } from './strings.js';
import { actionWords, cardName, eventWords, outcomeWords, refusalWords, seatName, turnsWords } from './words.js';

const AT_TYPES = new Set(['place_foundation', 'place_start_knight', 'place_king', 'place_knight', 'build']);
/** How long each action of another seat stays on the board when its turn is played back. */
export const PLAYBACK_MS = 400;

/** The kind of an action a square offers, as the board marks it (board.js MARK_KINDS). */
export function actionKind(a) {
  switch (a.type) {
    case 'build': return 'build';
    case 'place_foundation': case 'place_start_knight': case 'place_king': case 'place_knight': return 'place';
    case 'move_knight': case 'move_king': return 'move';
    case 'play_card': return 'card';
    default: return null;
  }
}

/** Whether an applied action ends its seat's turn (the end of the turn, or the king's move between phases). */
const endsTurn = (e) => ['end_turn', 'move_king'].includes(e.payload?.action?.type);

const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

export class LiveGame {
  constructor(api, main, { id, token, embed = false, host = null }) {
    this.api = api;
    this.embed = embed;  // no way out of the game: no replay link
    this.host = host;  // the embedding page, told of turns, moves and the end (embed.js)
    this.main = main;
    this.id = id;
    this.token = token || null;
    this.creds = this.token ? { token: this.token } : {};
    this.seat = null;
    this.pos = null;
    this.version = 0;
    this.legal = [];
    this.events = [];
    this.sel = { from: null, card: null };
    this.stackPick = null;
    this.chooser = null;
    this.busy = false;
    this.changed = new Set();
    this.mode = null;  // the kind of action the board offers (the mode switch); null: every kind
    this.playing = null;  // a playback of others' actions under way: {skipped, next}
    this.steps = null;
    this.skipping = null;  // the seat whose turn's playback was skipped, until that turn ends
    this.queue = Promise.resolve();
    this.source = null;
    this.closed = false;
  }

  path(suffix = '') { return `/v1/games/${encodeURIComponent(this.id)}${suffix}`; }

  async start() {
    this.escape = (e) => {
      if (e.key === 'Escape' && this.playing) { this.skipPlayback(); return; }
      if (e.key === 'Escape' && (this.sel.from || this.sel.card || this.chooser)) {
        this.sel = { from: null, card: null };
        this.chooser = null;
        announce(t('say.cancelled'));
        this.render();
      }
    };
    document.addEventListener('keydown', this.escape);
    this.summary = await this.api.get(this.path(), this.creds);
    this.layout();
    await this.refresh();
    this.listen();
  }

  stop() {
    this.closed = true;
    this.source?.close();
    document.removeEventListener('keydown', this.escape);
  }

  layout() {
    this.boardBox = h('div', { class: 'board-box' });
    this.trackBox = h('div', { class: 'track-box' });
    this.turnBox = h('p', { class: 'turn', role: 'status', 'aria-live': 'polite', id: 'turn', tabindex: '-1' });
    this.masterBox = h('p', { class: 'master-card muted', id: 'master-card', hidden: true });
    this.controls = h('div', { class: 'controls', id: 'controls' });
    this.seatsBox = h('div', { id: 'seats' });
    this.previewBox = h('section', { id: 'preview', class: 'preview', 'aria-labelledby': 'preview-heading' });
    this.logList = logBox(t('moves.heading'));
    this.logShown = 0;
    const replay = this.embed ? null : h('p', {}, h('a', {
      href: `#game=${encodeURIComponent(this.id)}${this.token ? `&token=${encodeURIComponent(this.token)}` : ''}&replay=1`,
    }, t('replay.link')));
    this.main.replaceChildren(h('section', { class: 'game', 'aria-label': t('game.label') },
      h('div', { class: 'col-board' }, this.boardBox, h('h2', {}, t('track.heading')), this.trackBox),
      h('div', { class: 'col-side' },
        h('h2', {}, t('game.heading', { id: this.id.slice(0, 8) })), this.turnBox, this.masterBox, this.controls, this.seatsBox, this.previewBox,
        h('h2', {}, t('moves.heading')), this.logList, replay)));
  }

  // -- reading ---------------------------------------------------------------------------------------------

  /** One refresh at a time; a push that arrives meanwhile queues exactly one more. */
  refresh() {
    if (this.pendingRefresh) return this.pendingRefresh;
    this.pendingRefresh = this.queue = this.queue.then(async () => {
      this.pendingRefresh = null;
      try {
        await this.load();
      } catch (err) {
        showAlert(refusalWords(err, language()));
      }
      if (this.steps) {
        const steps = this.steps;
        this.steps = null;
        await this.playBack(steps);
        this.changed = new Set();  // the frames showed each change, and the marks keep them: no flash at the end
      }
      this.render();
      if (this.pos) this.host?.update(this);
    });
    return this.pendingRefresh;
  }

  async load() {
    const known = this.events.length ? this.events[this.events.length - 1].version : 0;
    const [summary, view, legal, read] = await Promise.all([
      this.api.get(this.path(), this.creds),
      this.api.get(this.path('/view'), this.creds),
      this.token ? this.api.get(this.path('/legal-actions'), this.creds) : Promise.resolve(null),
      this.api.allEvents(this.id, this.creds, known),
    ]);
    // Asked together, answered apart: the events may stop short of the view's version (others appended between
    // the two answers) or go past it. The log and the playback describe the view's version exactly: the events
    // missing are read now, newer ones wait for the next refresh (the push that announced them queued it).
    const last = read.length ? read[read.length - 1].version : known;
    if (last < view.version) read.push(...await this.api.allEvents(this.id, this.creds, last));
    const events = read.filter((e) => e.version <= view.version);
    const old = this.pos;
    const shown = this.version;  // the position holds no version: the view's answer does
    this.summary = summary;
    this.pos = view.view;
    this.castles = view.castles || [];
    this.preview = view.preview || null;  // the engine's scoring of the phase as if it ended now
    this.life = view.lifecycle || null;
    this.seat = view.seat;
    this.version = view.version;
    // legal actions belong to one version: keep them only when they describe the view we show
    this.legal = legal && legal.version === view.version ? legal.actions : [];
    if (legal && legal.version !== view.version) this.refreshSoon();
    this.changed = old ? diffSquares(old, this.pos) : new Set();
    const fresh = events.filter((e) => e.version > known);
    this.events.push(...fresh);
    if (fresh.length && old) announce(turnsWords(fresh, this.summary.seats));
    this.newEvents = old ? fresh.length : 0;
    // others' actions that arrived with this refresh are played back one at a time, unless the reader asked
    // the browser for reduced motion: then the board shows the outcome at once (the marks tell what changed)
    const others = old ? fresh.filter((e) => e.type === 'action_applied' && e.payload?.seat !== this.seat) : [];
    const steps = [];
    for (const e of others) {  // a turn whose playback was skipped stays skipped until it ends
      if (this.skipping === e.payload.seat) { if (endsTurn(e)) this.skipping = null; } else steps.push(e);
    }
    this.steps = steps.length && !reducedMotion() ? steps : null;
    // A pick (a knight, a card, a square's chooser) is undone by a new version only: a refresh of the version shown
    // (a push that arrived while the last refresh already read its version, a reopened stream) keeps it.
    if (old && shown !== this.version) { this.sel = { from: null, card: null }; this.chooser = null; }
    if (old && old.to_move !== this.pos.to_move) this.mode = null;  // a new turn offers every kind again
  }

  // -- playing others' turns back ----------------------------------------------------------------------------

  /** Show each of `steps` (others' applied actions) on the board in turn, from the reader's view at its version
   * (`GET /state?version=`: never more than the reader may see), PLAYBACK_MS each, until done or skipped. The
   * refresh queue waits for it, so a push meanwhile is shown after it. */
  async playBack(steps) {
    const playing = { skipped: false, next: null };
    this.playing = playing;
    try {
      const docs = await Promise.all(steps.map((e) => this.api.get(this.path(`/state?version=${e.version}`), this.creds)
        .catch(() => null)));
      for (let i = 0; i < steps.length && !playing.skipped && !this.closed; i += 1) {
        if (!docs[i]) continue;
        this.renderFrame(docs[i], steps[i]);
        await new Promise((resolve) => { playing.next = resolve; setTimeout(resolve, PLAYBACK_MS); });
        // skipped before the turn's end arrived: its actions still to come are not played either
        if (playing.skipped && !steps.slice(i).some(endsTurn)) this.skipping = steps[i].payload.seat;
      }
    } finally {
      this.playing = null;
      delete this.main.dataset.playback;
      this.logList.querySelectorAll('li.playing').forEach((li) => li.classList.remove('playing'));
    }
  }

  skipPlayback() {
    if (!this.playing) return;
    this.playing.skipped = true;
    this.playing.next?.();
  }

  /** One frame of a playback: the board, track and seats as they were after `event`, the action in words, a
   * button to skip the rest. The focus, if it was on the controls, goes to that button. */
  renderFrame(doc, event) {
    const pos = doc.view || doc.position;
    const active = document.activeElement;
    const focusHere = Boolean(active) && (this.controls.contains(active) || active.id === 'skip-playback');
    Object.assign(this.main.dataset, { busy: '1', playback: String(event.version) });
    renderBoard(this.boardBox, pos, {
      castles: doc.castles || [], changed: new Set([event.payload.action.at, event.payload.action.to].filter(Boolean)),
      lastTurn: lastTurn(this.events.filter((e) => e.version <= event.version), this.seat), onSquare: () => this.skipPlayback(),
    });
    renderTrack(this.trackBox, pos.scores);
    this.turnBox.textContent = turnLine(pos, this.summary.seats, this.seat);
    this.seatsBox.replaceChildren(seatsPanel(pos, this.summary.seats, this.seat));
    const skip = h('button', { id: 'skip-playback', class: 'secondary', onclick: () => this.skipPlayback() }, t('playback.skip'));
    const name = seatName(this.summary.seats, event.payload.seat);
    this.controls.replaceChildren(h('div', { class: 'playback', role: 'group', 'aria-label': t('playback.label', { name }) },
      seatBadge(event.payload.seat), h('p', { id: 'playback-line' }, eventWords(event, this.summary.seats)), skip));
    if (focusHere) skip.focus();
    this.renderLog(event.version);
    this.logList.querySelectorAll('li.playing').forEach((li) => li.classList.remove('playing'));  // the line shown
    this.logList.querySelector(`li[data-version="${event.version}"]`)?.classList.add('playing');
  }

  refreshSoon() { setTimeout(() => this.refresh(), 150); }

  /** The push channel: one `version` event per change. The stream closes with `game-over` (done), or with
   * `timeout` / `shutdown` (the stream's own time ran out, or the server drains): then it is reopened from the
   * version we hold, until the game ends. Closing it ourselves keeps EventSource from reconnecting on its own.
   * A private game answers 404 to a stream without credentials, and an EventSource cannot send the seat token:
   * each connection then opens with a fresh single-use stream ticket in its URL (never the token itself). */
  async listen() {
    if (this.closed || this.summary.status === 'over') return;
    let url = this.api.streamUrl(this.id, this.version);
    if (this.summary.visibility === 'private') {
      try {
        url += `&stream_ticket=${encodeURIComponent(await this.api.gameStreamTicket(this.id, this.creds))}`;
      } catch (err) {
        this.poll();  // no ticket (an old server, a lost token): the long-poll carries the token instead
        return;
      }
      if (this.closed) return;
    }
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener('version', (e) => {
      const data = JSON.parse(e.data);
      if (data.version > this.version) this.refresh();
    });
    const ended = () => {
      source.close();
      this.refresh().then(() => { if (this.summary.status !== 'over') setTimeout(() => this.listen(), 500); });
    };
    for (const name of ['game-over', 'timeout', 'shutdown']) source.addEventListener(name, ended);
    // A dropped connection: EventSource would retry with the spent ticket (401, then it gives up), so reopen
    // ourselves with a new one.
    source.addEventListener('error', () => {
      if (this.summary.visibility === 'private' && !this.closed) {
        source.close();
        setTimeout(() => this.listen(), 2000);
      }
    });
  }

  /** The long-poll (`/wait`, woken by the same appends), which carries the seat token in its header: a private
   * game's push channel when no stream ticket can be had. */
  async poll() {
    while (!this.closed && this.summary.status !== 'over') {
      try {
        const wait = await this.api.get(this.path(`/wait?version=${this.version}&timeout=25`), this.creds);
        if (wait.changed) await this.refresh();
      } catch (err) {
        await new Promise((resolve) => { setTimeout(resolve, 1000); });
      }
    }
  }

  // -- acting ----------------------------------------------------------------------------------------------

  /** Over by the rules, or ended by the service (resignations, abandonment): the summary's status says which. */
  over() { return this.pos.stage === 'over' || this.summary.status === 'over'; }

  myTurn() { return this.seat !== null && this.pos && !this.over() && this.pos.to_move === this.seat; }

  async submit(action) {
    if (this.busy) return;
    this.busy = true;
    this.main.dataset.busy = '1';
    showAlert('');
    this.chooser = null;
    this.sel = { from: null, card: null };
    announce(actionWords(action));
    try {
      await this.api.post(this.path('/actions'), {
        seat: this.seat, action, expected_version: this.version, command_id: `web-${commandId()}`,
      }, this.creds);
    } catch (err) {
      showAlert(t('error.refused', { action: actionWords(action), reason: refusalWords(err, language()) }));
      this.refusals = (this.refusals || 0) + 1;
    } finally {
      this.busy = false;
    }
    await this.refresh();
  }

  stackChoices(actions) {
    return [...new Set(actions.filter((a) => 'stack' in a).map((a) => a.stack))].sort((a, b) => a - b);
  }

  withStack(actions) {
    const choices = this.stackChoices(actions);
    if (choices.length < 2) return actions;
    if (!choices.includes(this.stackPick)) this.stackPick = choices[0];
    return actions.filter((a) => !('stack' in a) || a.stack === this.stackPick);
  }

  /** Square -> {actions, select, kinds}: the only squares a click acts on, and the kinds of action each offers
   * (its marks). With a kind chosen (`mode`: the mode switch, or the kind chooser of one square) only that kind's
   * squares and actions are left; `this.kinds` keeps every kind on offer, for the switch. */
  targets(mode = this.mode) {
    const out = new Map();
    const entry = (sq) => { if (!out.has(sq)) out.set(sq, { actions: [], select: false, kinds: new Set() }); return out.get(sq); };
    this.kinds = [];
    if (!this.myTurn() || this.busy) return out;
    const acts = this.legal;
    if (this.sel.card) {  // every target of a card is the card's, whatever it does there
      const cardActs = acts.filter((a) => a.type === 'play_card' && a.card === this.sel.card);
      if (cardActs.some((a) => 'from' in a)) {
        if (!this.sel.from) cardActs.forEach((a) => { entry(a.from).select = true; });
        else cardActs.filter((a) => a.from === this.sel.from).forEach((a) => entry(a.to).actions.push(a));
      } else {
        this.withStack(cardActs.filter((a) => 'at' in a)).forEach((a) => entry(a.at).actions.push(a));
      }
      out.forEach((e) => e.kinds.add('card'));
      return out;
    }
    if (this.sel.from) {
      acts.filter((a) => a.type === 'move_knight' && a.from === this.sel.from).forEach((a) => entry(a.to).actions.push(a));
      out.forEach((e) => e.kinds.add('move'));
      return out;
    }
    const builds = this.withStack(acts.filter((a) => a.type === 'build'));
    for (const a of acts) {
      if (a.type === 'move_knight') { entry(a.from).select = true; entry(a.from).kinds.add('move'); }
      else if (AT_TYPES.has(a.type) && (a.type !== 'build' || builds.includes(a))) entry(a.at).actions.push(a);
      else if (a.type === 'move_king' && a.to) entry(a.to).actions.push(a);
    }
    out.forEach((e) => e.actions.forEach((a) => e.kinds.add(actionKind(a))));
    this.kinds = MARK_KINDS.filter((kind) => [...out.values()].some((e) => e.kinds.has(kind)));
    if (!this.kinds.includes(mode)) return out;  // a kind no longer on offer (a new turn): every kind again
    for (const [sq, e] of out) {
      if (!e.kinds.has(mode)) { out.delete(sq); continue; }
      e.actions = e.actions.filter((a) => actionKind(a) === mode);
      e.select = e.select && mode === 'move';
      e.kinds = new Set([mode]);
    }
    return out;
  }

  clickSquare(sq, targets) {
    if (this.busy) return;
    if (this.sel.from === sq) { this.sel.from = null; this.render(); return; }
    const target = targets.get(sq);
    if (!target) { this.nothingThere(sq, this.myTurn() ? t('say.no-action', { sq }) : t('say.not-your-turn', { sq })); return; }
    showAlert('');  // a new choice: the last refusal is past
    if (target.kinds.size > 1) {  // several kinds here (build or place, say): the player chooses the kind first
      this.chooser = { sq, kinds: MARK_KINDS.filter((kind) => target.kinds.has(kind)) };
      this.render();
      return;
    }
    const options = [...target.actions];
    if (target.select && options.length === 0) { this.sel.from = sq; announce(t('say.knight-selected', { sq })); this.render(); return; }
    if (options.length === 1 && !target.select) { this.submit(options[0]); return; }
    this.chooser = { sq, options, select: target.select };
    this.render();
  }

  /** A click on a square that offers nothing: said to a screen reader, and shown to the eye beside the controls
   *  (the square outlined for a moment), so that a sighted player is not left wondering whether it registered. */
  nothingThere(sq, text) {
    announce(text);
    let note = document.getElementById('square-note');
    if (!note) {
      note = h('p', { id: 'square-note', class: 'square-note' });
      this.controls.prepend(note);
    }
    note.textContent = text;
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => note.remove(), 3000);
    const square = this.boardBox.querySelector(`[data-square="${sq}"]`);
    square?.classList.add('refused');
    setTimeout(() => square?.classList.remove('refused'), 700);
  }

  // -- drawing ---------------------------------------------------------------------------------------------

  render() {
    if (!this.pos) return;
    // Focus stays sensible across a redraw: on the same control if it is drawn again, else on a chooser that just
    // opened, else on the turn line (never on <body>, where a keyboard user would have to start over).
    const before = document.activeElement;
    const focused = before && before !== document.body && this.main.contains(before) ? before.id || null : undefined;
    const wasOpen = this.controls?.querySelector('.chooser, .keep');  // the keep tiles are a chooser too
    const chooserWasOpen = wasOpen ? wasOpen.dataset.key || 'keep' : null;
    // what a test (or an extension) can wait on, without reading the words
    Object.assign(this.main.dataset, {
      version: String(this.version), refusals: String(this.refusals || 0), stage: this.pos.stage, phase: String(this.pos.phase), busy: this.busy ? '1' : '0',
      turn: this.pos.stage === 'over' ? 'over' : this.myTurn() ? 'mine' : 'other',
    });
    const targets = this.targets();
    const labels = new Map([...targets].map(([sq, target]) => [sq, {
      kinds: MARK_KINDS.filter((kind) => target.kinds.has(kind)),
      label: target.kinds.size > 1 ? t('square.kinds', { list: MARK_KINDS.filter((k) => target.kinds.has(k)).map((k) => t(`mode.${k}`)).join(', ') })
        : target.select ? (this.sel.card ? t('square.choose-knight-for', { card: cardName(this.sel.card) }) : t('square.your-knight'))
          : target.actions.length === 1 ? actionWords(target.actions[0]) : t('square.choices', { n: target.actions.length }),
    }]));
    renderBoard(this.boardBox, this.pos, {
      castles: this.castles, targets: labels, selected: this.sel.from, changed: this.changed, onSquare: (sq) => this.clickSquare(sq, targets),
      lastTurn: lastTurn(this.events, this.seat),
    });
    this.changed = new Set();
    renderTrack(this.trackBox, this.pos.scores);
    const clock = clockLine(this.life, this.summary.seats);
    this.turnBox.textContent = turnLine(this.pos, this.summary.seats, this.seat) + (clock ? ` · ${clock}` : '');
    this.turnBox.prepend(this.seat !== null ? seatBadge(this.seat) : '', ' ');
    const master = this.pos.master_card;
    this.masterBox.hidden = !master || !STRINGS[`master-effect.${master}`];
    if (!this.masterBox.hidden) this.masterBox.textContent = t('master.explained', { card: t(`master.${master}`), effect: t(`master-effect.${master}`) });
    this.turnBox.title = this.masterBox.hidden ? '' : t(`master-effect.${master}`);  // the turn line names the card: its effect on hover
    const playable = new Set(this.myTurn() ? this.legal.filter((a) => a.type === 'play_card').map((a) => a.card) : []);
    this.seatsBox.replaceChildren(seatsPanel(this.pos, this.summary.seats, this.seat, {
      playable, selectedCard: this.sel.card, playCard: (card) => this.pickCard(card),
    }));
    this.previewBox.replaceChildren(...previewPanel(this.preview, this.castles, this.summary.seats, this.seat));
    this.previewBox.hidden = !this.preview;
    this.renderControls(targets);
    this.renderLog();
    const chooser = this.controls.querySelector('.chooser, .keep');
    if (chooser && (chooser.dataset.key || 'keep') !== chooserWasOpen) chooser.querySelector('button').focus();
    else if (focused !== undefined && !this.main.contains(document.activeElement)) {
      ((focused && document.getElementById(focused)) || this.turnBox).focus();
    }
  }

  pickCard(card) {
    showAlert('');
    if (this.sel.card === card) { this.sel = { from: null, card: null }; this.render(); return; }
    const acts = this.legal.filter((a) => a.type === 'play_card' && a.card === card);
    if (acts.length === 1 && !('from' in acts[0]) && !('at' in acts[0])) { this.submit(acts[0]); return; }
    this.sel = { from: null, card };
    announce(t('say.card-chosen', { card: cardName(card) }));
    this.render();
  }

  renderControls(targets) {
    const box = this.controls;
    box.replaceChildren();
    if (this.over()) {
      box.append(h('div', { class: 'final', id: 'final' },
        h('h3', {}, t('final.heading')),
        h('ol', {}, ...this.pos.scores.map((s, seat) => ({ s, seat })).sort((a, b) => b.s - a.s)
          .map(({ s, seat }) => h('li', {}, seatBadge(seat), ` ${seatTitle(this.summary.seats, seat, this.seat)}: ${s}`))),
        h('p', {}, outcomeWords(this.summary.winners || [], this.pos.scores, this.seat, this.summary.seats))));
      return;
    }
    if (this.seat === null) { box.append(h('p', { class: 'muted' }, t('controls.spectator'))); return; }
    if (!this.myTurn()) {
      box.append(h('p', { class: 'waiting' }, t('controls.waiting', { seat: seatTitle(this.summary.seats, this.pos.to_move, this.seat) })));
      return;
    }
    if (this.chooser?.kinds) {
      const { sq, kinds } = this.chooser;
      box.append(h('div', { class: 'chooser', 'data-key': `${sq} kinds`, role: 'group', 'aria-label': t('chooser.label', { sq }) },
        h('p', {}, t('chooser.kind', { sq })),
        ...kinds.map((kind) => h('button', { 'data-kind': kind, onclick: () => { this.chooser = null; this.clickSquare(sq, this.targets(kind)); } },
          markIcon(kind), ' ', t(`kind.${kind}`, { sq }))),
        h('button', { class: 'secondary', onclick: () => { this.chooser = null; this.render(); } }, t('cancel'))));
    } else if (this.chooser) {
      box.append(h('div', { class: 'chooser', 'data-key': `${this.chooser.sq} actions`, role: 'group', 'aria-label': t('chooser.label', { sq: this.chooser.sq }) },
        h('p', {}, t('chooser.question', { sq: this.chooser.sq })),
        this.chooser.select ? h('button', { onclick: () => { this.sel.from = this.chooser.sq; this.chooser = null; this.render(); } },
          t('chooser.select-knight', { sq: this.chooser.sq })) : null,
        ...this.chooser.options.map((a) => h('button', { onclick: () => this.submit(a) }, actionWords(a))),
        h('button', { class: 'secondary', onclick: () => { this.chooser = null; this.render(); } }, t('cancel'))));
    }
    const hint = this.sel.card ? t(this.sel.from ? 'hint.card-destination' : 'hint.card-board', { card: cardName(this.sel.card) })
      : this.sel.from ? t('hint.knight', { sq: this.sel.from })
        : targets.size ? t('hint.targets') : '';
    if (hint) box.append(h('p', { class: 'hint' }, hint));
    if (this.kinds.length > 1 && !this.sel.from && !this.sel.card) {  // the mode switch: which kind the board offers
      box.append(h('fieldset', { class: 'modes', id: 'modes' }, h('legend', {}, t('mode.legend')),
        ...[null, ...this.kinds].map((kind) => h('label', {}, h('input', {
          type: 'radio', name: 'mode', value: kind || 'all', checked: this.mode === kind || (!this.kinds.includes(this.mode) && !kind),
          onchange: () => { this.mode = kind; this.chooser = null; this.render(); },
        }), ' ', kind ? markIcon(kind) : null, ' ', t(`mode.${kind || 'all'}`)))));
    }
    if (this.sel.from || this.sel.card) {
      box.append(h('button', { class: 'secondary', onclick: () => { this.sel = { from: null, card: null }; this.render(); } }, t('cancel.selection')));
    }
    const relevant = this.sel.card ? this.legal.filter((a) => a.type === 'play_card' && a.card === this.sel.card && 'at' in a)
      : this.legal.filter((a) => a.type === 'build');
    const stacks = this.stackChoices(relevant);
    if (stacks.length > 1 && !this.sel.from) {
      box.append(h('fieldset', { class: 'stacks' }, h('legend', {}, t('stacks.legend')),
        ...stacks.map((i) => h('label', {}, h('input', {
          type: 'radio', name: 'stack', checked: this.stackPick === i,
          onchange: () => { this.stackPick = i; this.render(); },
        }), ` ${t('stacks.option', { n: i + 1, blocks: this.pos.stacks[this.seat][i] })}`))));
    }
    const buttons = h('div', { class: 'buttons' });
    for (const a of this.legal) {
      if (a.type === 'buy_card' || a.type === 'advance_track' || (a.type === 'move_king' && !a.to)) {
        buttons.append(h('button', { onclick: () => this.submit(a) }, actionWords(a)));
      }
    }
    if (buttons.childNodes.length) box.append(buttons);
    const keeps = this.legal.filter((a) => a.type === 'keep_card');
    if (keeps.length) {  // the seen cards as tiles (panels.js), the choice kept across redraws of this version
      if (this.keepChoice?.version !== this.version) this.keepChoice = { version: this.version };
      box.append(keepTiles(this.pos.seen || [...new Set(keeps.map((a) => a.card))], keeps, this.keepChoice, {
        submit: (a) => this.submit(a),
        redraw: (id) => { this.render(); document.getElementById(id)?.focus(); },
      }));
    }
    const endTurn = this.legal.find((a) => a.type === 'end_turn');
    if (endTurn) box.append(this.endTurnForm(endTurn));
  }

  /** End turn with the choice of stack (if none chosen yet) and the spread of leftover blocks. */
  endTurnForm(action) {
    const stackOptions = this.stackChoices(this.legal.filter((a) => a.type === 'end_turn'));
    const form = h('form', { class: 'end-turn', 'aria-label': t('end.label') });
    let stackSelect = null;
    if ('stack' in action && this.pos.stack_chosen === null && stackOptions.length > 1) {
      stackSelect = h('select', { name: 'stack', 'aria-label': t('end.stack-label') },
        ...stackOptions.map((i) => h('option', { value: String(i) }, t('stacks.option', { n: i + 1, blocks: this.pos.stacks[this.seat][i] }))));
      form.append(h('label', {}, t('end.use-up'), stackSelect));
    }
    // what the player typed survives a re-render of the same version (a push, say)
    if (this.draft?.version !== this.version) this.draft = { version: this.version, spread: [...(action.spread || [])] };
    // Where the edition spreads the leftovers itself (Yucata: `stack_choice` "largest"), they are shown, not asked.
    const fixed = this.pos.options?.stack_choice === 'largest';
    const spreadInputs = (action.spread || []).map((n, i) => h('input', {
      type: 'number', min: '0', max: '3', value: String(fixed ? n : this.draft.spread[i] ?? n), class: 'spread',
      'aria-label': t('end.spread-label', { n: i + 1 }), readonly: fixed,
      oninput: (e) => { this.draft.spread[i] = Number(e.target.value) || 0; },
    }));
    if (spreadInputs.length) form.append(h('span', { class: 'spread-label' }, t(fixed ? 'end.spread-fixed' : 'end.spread')), ...spreadInputs);
    form.append(h('button', { type: 'submit', id: 'end-turn' }, t('end.button')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const chosen = { type: 'end_turn' };
      if ('stack' in action) chosen.stack = stackSelect ? Number(stackSelect.value) : action.stack;
      if ('spread' in action) chosen.spread = spreadInputs.map((input) => Number(input.value) || 0);
      this.submit(chosen);
    });
    return form;
  }

  /** The log grows by the events not shown yet, up to `upTo` (a playback's frame) or all. */
  renderLog(upTo = Infinity) {
    const fresh = this.events.slice(this.logShown).filter((e) => e.version <= upTo);
    if (!fresh.length) return;
    this.logShown += fresh.length;
    appendToLog(this.logList, fresh, { seats: this.summary.seats, mine: this.seat, fresh: this.newEvents ? fresh.length : 0 });
  }
}

/** Squares whose height or figure changed: animated briefly. */
export function diffSquares(a, b) {
  const out = new Set();
  for (const sq of new Set([...Object.keys(a.heights), ...Object.keys(b.heights)])) {
    if ((a.heights[sq] || 0) !== (b.heights[sq] || 0)) out.add(sq);
  }
  for (const sq of new Set([...Object.keys(a.knights), ...Object.keys(b.knights)])) {
    if (a.knights[sq] !== b.knights[sq]) out.add(sq);
  }
  if (a.king !== b.king) { if (a.king) out.add(a.king); if (b.king) out.add(b.king); }
  return out;
}
