// The move log of the live game and of the replay, drawn one way: the events grouped by turn under the seat's
// name (words.js: turnGroups, eventLine, the same words as the announcements and the replay's step line), each
// line carrying the engine's wire notation (the event's `text`, e.g. "build F1 stack 0") as its tooltip.

import { seatBadge } from './board.js';
import { h } from './dom.js';
import { t } from './strings.js';
import { eventLine, seatName, turnGroups } from './words.js';

/** The log's box: a scrollable region that a keyboard can reach and scroll (the live log holds no control). */
export function logBox(label) {
  return h('div', { class: 'log', id: 'log', role: 'region', 'aria-label': label, tabindex: '0' });
}

/** A turn's heading: the seat's badge and name ("you" for the reader's own), or "Game" for the game's events. */
function turnHead(group, seats, mine) {
  if (group.seat === undefined) return h('p', { class: 'turn-head' }, t('log.game'));
  const name = seatName(seats, group.seat);
  return h('p', { class: 'turn-head' }, seatBadge(group.seat, 14), ' ',
    group.seat === mine ? t('log.turn-you', { name }) : name);
}

/** Append `events` to the log `box`: an event that goes on with the last turn joins its list, another opens a
 * turn under a new heading. `onClick(version)` makes each line a button (the replay); the last `fresh` lines are
 * marked new (the live game). */
export function appendToLog(box, events, { seats = null, mine = null, onClick = null, fresh = 0 } = {}) {
  box.turns = box.turns || [];
  events.forEach((event, i) => {
    const before = box.turns.length;
    turnGroups([event], box.turns);
    const group = box.turns[box.turns.length - 1];
    if (box.turns.length > before) {
      const name = group.seat === undefined ? t('log.game') : seatName(seats, group.seat);
      box.append(h('div', { class: 'turn-group', 'data-seat': group.seat ?? 'game' }, turnHead(group, seats, mine),
        h('ol', { class: 'moves', 'aria-label': name })));
    }
    const body = [h('span', { class: 'v' }, `v${event.version}`), h('span', { class: 'words' }, eventLine(event))];
    const li = h('li', { 'data-version': event.version, title: event.text || '' },
      onClick ? h('button', { class: 'linklike', onclick: () => onClick(event.version) }, ...body) : body);
    if (i >= events.length - fresh) li.classList.add('new');
    box.lastElementChild.querySelector('ol').append(li);
  });
  box.scrollTop = box.scrollHeight;
}

/** What the last turn of a seat other than `mine` changed, from the log's actions alone (the squares they name,
 * their moves from → to as arrows), for the board to mark. A turn ends with its end_turn or the king's move, or
 * when another seat acts; the reader's own actions end it but leave it standing, so that the opponents' last turn
 * stays marked while the reader plays, until the next turn of another seat replaces it. */
export function lastTurn(events, mine = null) {
  let turn = null;
  for (const event of events) {
    const a = event.payload?.action;
    if (event.type !== 'action_applied' || !a) continue;
    const { seat } = event.payload;
    if (seat === mine) { if (turn) turn.closed = true; continue; }
    if (!turn || turn.closed || turn.seat !== seat) turn = { seat, squares: new Set(), arrows: [], closed: false };
    for (const sq of [a.at, a.from, a.to]) if (sq) turn.squares.add(sq);
    if (a.from && a.to) turn.arrows.push({ from: a.from, to: a.to });
    if (a.type === 'end_turn' || a.type === 'move_king') turn.closed = true;
  }
  return turn;
}
