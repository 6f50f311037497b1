// Actions, cards, stages and moves in words (strings.js: English or German), for buttons, choosers, the move
// log and screen readers.

import { STRINGS, t } from './strings.js';

export const CARD_KEYS = ['climb_two', 'block_under_knight', 'extra_block', 'castle_gate', 'diagonal', 'six_ap',
  'seven_ap', 'move_block', 'reposition_knight', 'jump'];

export const cardName = (card) => (STRINGS[`card.${card}`] ? t(`card.${card}`) : String(card).replace(/_/g, ' '));
export const cardEffect = (card) => (STRINGS[`card.${card}.effect`] ? t(`card.${card}.effect`) : '');

const stackWords = (a) => ('stack' in a ? t('do.from-stack', { n: a.stack + 1 }) : '');

function cardTarget(a) {
  if ('from' in a) return t('do.target-move', { from: a.from, to: a.to });
  if ('at' in a) return t('do.target-at', { at: a.at, stack: stackWords(a) });
  return '';
}

export function actionWords(a) {
  switch (a.type) {
    case 'place_foundation': case 'place_start_knight': case 'place_king': case 'place_knight':
      return t(`do.${a.type}`, { at: a.at });
    case 'move_knight': return t('do.move_knight', { from: a.from, to: a.to });
    case 'build': return t('do.build', { at: a.at, stack: stackWords(a) });
    case 'buy_card': case 'advance_track': case 'end_turn': return t(`do.${a.type}`);
    case 'keep_card': {
      const rest = (a.order || []).map(cardName).join(', ');
      if (!rest) return t('do.keep_card', { card: cardName(a.card) });
      const where = STRINGS[`do.rest.${a.rest}`] ? t(`do.rest.${a.rest}`) : a.rest;
      return t('do.keep_card-rest', { card: cardName(a.card), rest, where });
    }
    case 'play_card': return t('do.play_card', { card: cardName(a.card), target: cardTarget(a) });
    case 'move_king': return a.to ? t('do.move_king', { to: a.to }) : t('do.leave_king');
    default: return a.type.replace(/_/g, ' ');
  }
}

/** An applied action as the move log says it, from the payload as the reader got it: a kept card is named only
 * when the payload names it (the reader's own), never worked out from anything else. */
export function moveWords(a) {
  switch (a.type) {
    case 'place_foundation': case 'place_start_knight': case 'place_king': case 'place_knight':
      return t(`log.${a.type}`, { at: a.at });
    case 'move_knight': return t('log.move_knight', { from: a.from, to: a.to });
    case 'build': return t('log.build', { at: a.at, stack: stackWords(a) });
    case 'buy_card': case 'advance_track': case 'end_turn': return t(`log.${a.type}`);
    case 'keep_card': return a.card ? t('log.keep_card', { card: cardName(a.card) }) : t('log.keep_card-hidden');
    case 'play_card': return t('log.play_card', { card: cardName(a.card), target: cardTarget(a) });
    case 'move_king': return a.to ? t('log.move_king', { to: a.to }) : t('log.leave_king');
    default: return String(a.type).replace(/_/g, ' ');
  }
}

/** What the page calls a seat: the name the portal gave it (the game summary's `display_name`), else "Seat n". */
export const seatName = (seats, seat) => seats?.[seat]?.display_name || t('seat.name', { n: seat });

/** A log event in words without the seat's name: a line of the move log, under the heading of its turn (which
 * names the seat). Unknown events keep the server's `text`. */
export function eventLine(event) {
  const p = event.payload || {};
  switch (event.type) {
    case 'action_applied':
      return p.action && p.action.type ? moveWords(p.action) + (p.auto ? t('log.auto') : '') : event.text || event.type;
    case 'game_created': return t('log.game_created', { n: p.players });
    case 'game_ended': return t('log.game_ended', { scores: (p.scores || []).join(', ') });
    case 'resigned': case 'timed_out': case 'action_undone': return t(`log.${event.type}`);
    case 'abandoned': return t('log.abandoned');
    default: return event.text || event.type;
  }
}

/** A log event in words with the seat's name: "Seat 0: places a first knight on D1", or the seat's display name
 * from `seats` (the game summary's). The replay's step line and the embedding page's `move` text say the same. */
export function eventWords(event, seats = null) {
  const seat = event.payload?.seat;
  return (seat !== undefined ? t('log.seat', { name: seatName(seats, seat) }) : '') + eventLine(event);
}

/** The events grouped by turn, for the move log and the announcements: a group is one seat's consecutive actions
 * up to its end of the turn (or the king's move between phases); an event of no seat (the game's creation, its
 * end) stands alone. [{seat, events, open}]: `open` while the turn may go on, so a later event joins it. */
export function turnGroups(events, groups = []) {
  for (const event of events) {
    const seat = event.payload?.seat;
    const last = groups[groups.length - 1];
    if (seat !== undefined && last && last.open && last.seat === seat) last.events.push(event);
    else groups.push({ seat, events: [event], open: seat !== undefined });
    const group = groups[groups.length - 1];
    const type = event.payload?.action?.type;
    if (event.type !== 'action_applied' || type === 'end_turn' || type === 'move_king') group.open = false;
  }
  return groups;
}

/** Several events in words for a screen reader, one sentence per turn: "Ada: builds a block on D4, ends the turn." */
export function turnsWords(events, seats = null) {
  return turnGroups(events).map((g) => (g.seat !== undefined ? t('log.seat', { name: seatName(seats, g.seat) }) : '')
    + g.events.map(eventLine).join(', ')).join('. ');
}

export function stageWords(pos) {
  switch (pos.stage) {
    case 'setup': return t('stage.setup');
    case 'turn': case 'keep_card': return t(`stage.${pos.stage}`, { phase: pos.phase, round: pos.round });
    case 'move_king': return t('stage.move_king', { before: pos.phase - 1, phase: pos.phase });
    case 'over': return t('stage.over');
    default: return pos.stage;
  }
}

/** Who won, from the summary's `winners` (every seat ranked first): one seat wins, or several share the first
 * place (an abandoned game with equal scores). Each seat by its name, as the seats panel shows it. */
export function outcomeWords(winners, scores, me, seats = null) {
  if (winners.length === 1) {
    const [seat] = winners;
    return seat === me ? t('outcome.win-you', { points: scores[seat] }) : t('outcome.win-seat', { name: seatName(seats, seat), points: scores[seat] });
  }
  if (winners.length > 1) {
    const names = winners.map((seat) => (seat === me ? t('outcome.tie-you') : seatName(seats, seat)));
    return t('outcome.tie', { names: names.join(t('outcome.and')), points: scores[winners[0]] });
  }
  return t('outcome.none');
}

/** The message for a refused request: the server's problem details in English; in German the words for its
 * code (the server's detail is English), with the status and code either way. */
export function refusalWords(err, lang) {
  if (lang === 'en' || err.status === undefined) return lang === 'en' ? err.message : t('error.other');
  const code = err.code || '';
  const key = STRINGS[`error.${code}`] ? `error.${code}`
    : err.status === 401 || err.status === 403 ? 'error.unauthorized'
      : err.status === 404 ? 'error.not_found' : code === 'network' ? 'error.network' : 'error.other';
  return `${t(key)} [${err.status} ${code}]`.replace(' ]', ']');
}
