// Panels shared by the live game and the replay: seats (score, stacks, reserve, cards, AP) and the move log.

import { colourName, seatBadge } from './board.js';
import { h } from './dom.js';
import { STRINGS, t } from './strings.js';
import { cardEffect, cardName, eventWords, stageWords } from './words.js';

/** A seat's heading: the name the portal gave it (issue 29), else "Seat n"; its colour; who plays it. */
export function seatTitle(seats, seat, mine) {
  const info = seats?.[seat] || {};
  const who = info.kind === 'ai' ? t('seat.ai', { level: t(`level.${info.level || 'easy'}`) }) : (info.player_id || t('seat.human'));
  return `${info.display_name || t('seat.name', { n: seat })} · ${colourName(seat)}${seat === mine ? ` · ${t('seat.you')}` : ''} (${who})`;
}

/** Each seat's score, stacks, knights in reserve, cards (the reader's face up, others' counts). */
export function seatsPanel(pos, seats, mine, { playCard = null, playable = new Set(), selectedCard = null } = {}) {
  const list = h('ul', { class: 'seats', 'aria-label': t('seats.label') });
  for (let seat = 0; seat < pos.players; seat += 1) {
    const onBoard = Object.values(pos.knights).filter((s) => s === seat).length;
    const hand = pos.hands ? pos.hands[seat] : (seat === pos.seat ? pos.hand : null);
    const handSize = pos.hand_sizes ? pos.hand_sizes[seat] : (pos.hands ? pos.hands[seat].length : 0);
    const stacks = pos.stacks[seat] || [];
    const moving = pos.to_move === seat && pos.stage !== 'over';
    const cards = hand
      ? h('ul', { class: 'hand', 'aria-label': t('seat.cards-label', { n: seat }) }, hand.length ? hand.map((card) => {
        const canPlay = playCard && playable.has(card);
        return h('li', {}, canPlay
          ? h('button', { class: `card${selectedCard === card ? ' selected' : ''}`, 'aria-pressed': String(selectedCard === card),
            title: cardEffect(card), onclick: () => playCard(card) }, t('card.play', { card: cardName(card) }))
          : h('span', { class: 'card', title: cardEffect(card) }, cardName(card)));
      }) : h('li', { class: 'muted' }, t('seat.no-cards')))
      : h('span', {}, t(handSize === 1 ? 'seat.hidden-one' : 'seat.hidden-many', { n: handSize }));
    const deck = pos.deck_sizes ? ` · ${t('seat.deck', { n: pos.deck_sizes[seat] })}` : '';
    list.append(h('li', { class: `seat${moving ? ' moving' : ''}`, 'data-seat': seat },
      h('div', { class: 'seat-head' }, seatBadge(seat), h('strong', {}, seatTitle(seats, seat, mine)),
        moving ? h('span', { class: 'tag' }, t('seat.to-move-tag')) : null),
      h('div', {}, h('span', { class: 'score', 'data-score': seat }, t('seat.score', { n: pos.scores[seat] })),
        ` · ${t('seat.stacks', { list: stacks.length ? stacks.map((n, i) => (pos.stack_chosen === i && moving ? `[${n}]` : n)).join(' ') : t('seat.stacks-none') })}`,
        ` · ${t('seat.reserve', { n: 6 - onBoard })}${deck}`),
      h('div', { class: 'cards' }, t('seat.cards'), cards)));
  }
  return list;
}

export function turnLine(pos, seats, mine) {
  const parts = [stageWords(pos)];
  if (pos.master_card) parts.push(t('turn.master', { card: STRINGS[`master.${pos.master_card}`] ? t(`master.${pos.master_card}`) : pos.master_card.replace(/_/g, ' ') }));
  if (pos.stage !== 'over' && pos.to_move !== null && pos.to_move !== undefined) {
    parts.push(pos.to_move === mine ? t('turn.yours') : t('turn.other', { seat: seatTitle(seats, pos.to_move, mine) }));
    if (pos.stage === 'turn') parts.push(t('turn.ap', { left: pos.ap - pos.ap_spent, all: pos.ap }));
  }
  return parts.join(' · ');
}

export function logEntry(event, onClick = null, seats = null) {
  const seat = event.payload?.seat;
  const body = [
    h('span', { class: 'v' }, `v${event.version}`),
    seat !== undefined ? seatBadge(seat, 14) : null,
    eventWords(event, seats),
  ];
  return h('li', { 'data-version': event.version, title: event.text || '' },
    onClick ? h('button', { class: 'linklike', onclick: () => onClick(event.version) }, ...body) : body);
}


/** The clock and the seats that left, from the view's public `lifecycle` (issue 15); '' for an untimed game. */
export function clockLine(life) {
  if (!life) return '';
  const parts = [];
  const clock = life.clock;
  if (clock && clock.to_move !== null && clock.seconds_left !== null) {
    parts.push(t('clock.left', { s: Math.ceil(clock.seconds_left), n: clock.to_move }));
  }
  if (clock && clock.banks) parts.push(t('clock.banks', { list: clock.banks.map((b) => `${Math.ceil(b)} s`).join(' / ') }));
  if (life.forfeited && life.forfeited.length) parts.push(t('clock.forfeited', { list: life.forfeited.join(', ') }));
  if (life.ai_controlled && life.ai_controlled.length) parts.push(t('clock.ai', { list: life.ai_controlled.join(', ') }));
  return parts.join(' · ');
}
