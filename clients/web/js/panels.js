// Panels shared by the live game and the replay: seats (score, stacks, reserve, cards, AP) and the move log.

import { SEATS, seatBadge } from './board.js';
import { h } from './dom.js';
import { cardName, stageWords } from './words.js';

/** A seat's heading: the name the portal gave it (issue 29), else "Seat n"; its colour; who plays it. */
export function seatTitle(seats, seat, mine) {
  const info = seats?.[seat] || {};
  const who = info.kind === 'ai' ? `AI, ${info.level || 'easy'}` : (info.player_id || 'human');
  return `${info.display_name || `Seat ${seat}`} · ${SEATS[seat].name}${seat === mine ? ' · you' : ''} (${who})`;
}

/** Each seat's score, stacks, knights in reserve, cards (the reader's face up, others' counts). */
export function seatsPanel(pos, seats, mine, { playCard = null, playable = new Set(), selectedCard = null } = {}) {
  const list = h('ul', { class: 'seats', 'aria-label': 'Players' });
  for (let seat = 0; seat < pos.players; seat += 1) {
    const onBoard = Object.values(pos.knights).filter((s) => s === seat).length;
    const hand = pos.hands ? pos.hands[seat] : (seat === pos.seat ? pos.hand : null);
    const handSize = pos.hand_sizes ? pos.hand_sizes[seat] : (pos.hands ? pos.hands[seat].length : 0);
    const stacks = pos.stacks[seat] || [];
    const moving = pos.to_move === seat && pos.stage !== 'over';
    const cards = hand
      ? h('ul', { class: 'hand', 'aria-label': `cards of seat ${seat}` }, hand.length ? hand.map((card) => {
        const canPlay = playCard && playable.has(card);
        return h('li', {}, canPlay
          ? h('button', { class: `card${selectedCard === card ? ' selected' : ''}`, 'aria-pressed': String(selectedCard === card),
            onclick: () => playCard(card) }, `Play ${cardName(card)}`)
          : h('span', { class: 'card' }, cardName(card)));
      }) : h('li', { class: 'muted' }, 'no cards'))
      : h('span', {}, `${handSize} card${handSize === 1 ? '' : 's'} (hidden)`);
    const deck = pos.deck_sizes ? ` · deck ${pos.deck_sizes[seat]}` : '';
    list.append(h('li', { class: `seat${moving ? ' moving' : ''}`, 'data-seat': seat },
      h('div', { class: 'seat-head' }, seatBadge(seat), h('strong', {}, seatTitle(seats, seat, mine)),
        moving ? h('span', { class: 'tag' }, 'to move') : null),
      h('div', {}, h('span', { class: 'score', 'data-score': seat }, `score ${pos.scores[seat]}`),
        ` · stacks ${stacks.length ? stacks.map((n, i) => (pos.stack_chosen === i && moving ? `[${n}]` : n)).join(' ') : 'none'}`,
        ` · knights in reserve ${6 - onBoard}${deck}`),
      h('div', { class: 'cards' }, 'Cards: ', cards)));
  }
  return list;
}

export function turnLine(pos, seats, mine) {
  const parts = [stageWords(pos)];
  if (pos.master_card) parts.push(`master card: ${pos.master_card.replace(/_/g, ' ')}`);
  if (pos.stage !== 'over' && pos.to_move !== null && pos.to_move !== undefined) {
    parts.push(pos.to_move === mine ? 'your turn' : `${seatTitle(seats, pos.to_move, mine)} to move`);
    if (pos.stage === 'turn') parts.push(`AP left ${pos.ap - pos.ap_spent} of ${pos.ap}`);
  }
  return parts.join(' · ');
}

export function logEntry(event, onClick = null) {
  const seat = event.payload?.seat;
  const body = [
    h('span', { class: 'v' }, `v${event.version}`),
    seat !== undefined ? seatBadge(seat, 14) : null,
    seat !== undefined ? `Seat ${seat}: ` : '',
    event.text || event.type,
  ];
  return h('li', { 'data-version': event.version },
    onClick ? h('button', { class: 'linklike', onclick: () => onClick(event.version) }, ...body) : body);
}


/** The clock and the seats that left, from the view's public `lifecycle` (issue 15); '' for an untimed game. */
export function clockLine(life) {
  if (!life) return '';
  const parts = [];
  const clock = life.clock;
  if (clock && clock.to_move !== null && clock.seconds_left !== null) {
    parts.push(`clock: ${Math.ceil(clock.seconds_left)} s left for seat ${clock.to_move}`);
  }
  if (clock && clock.banks) parts.push(`banks ${clock.banks.map((b) => `${Math.ceil(b)} s`).join(' / ')}`);
  if (life.forfeited && life.forfeited.length) parts.push(`left the game: seat ${life.forfeited.join(', ')}`);
  if (life.ai_controlled && life.ai_controlled.length) parts.push(`AI plays for seat ${life.ai_controlled.join(', ')}`);
  return parts.join(' · ');
}
