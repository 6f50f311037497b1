// Panels shared by the live game and the replay: seats (score, stacks, reserve, cards, AP) and the move log.

import { colourName, seatBadge } from './board.js';
import { h } from './dom.js';
import { STRINGS, t } from './strings.js';
import { actionWords, cardEffect, cardName, seatName, stageWords } from './words.js';

/** A seat's heading: the name the portal gave it, else "Seat n"; its colour; who plays it. */
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
      ? h('ul', { class: 'hand', 'aria-label': t('seat.cards-label', { name: seatName(seats, seat) }) }, hand.length ? hand.map((card, at) => {
        const canPlay = playCard && playable.has(card);
        // the card's effect under its name, so the rules are on screen, not only in a tooltip
        return h('li', {}, canPlay
          // an id (on the first of equal cards: a common deck deals copies), so that a redraw gives the focus back
          // to the card a keyboard user is on (game.js, render)
          ? h('button', { class: `card${selectedCard === card ? ' selected' : ''}`, 'aria-pressed': String(selectedCard === card),
            id: hand.indexOf(card) === at ? `play-card-${card}` : null, title: cardEffect(card), 'data-card': card,
            onclick: () => playCard(card) },
          t('card.play', { card: cardName(card) }),
          h('small', { class: 'effect' }, cardEffect(card)))
          : h('span', { class: 'card', title: cardEffect(card), 'data-card': card }, cardName(card), h('small', { class: 'effect' }, cardEffect(card))));
      }) : h('li', { class: 'muted' }, t('seat.no-cards')))
      : h('span', {}, t('seat.hidden', { n: handSize }));
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

/** The clock and the seats that left, from the view's public `lifecycle`, each seat by its name; '' for an untimed
 * game. */
export function clockLine(life, seats) {
  if (!life) return '';
  const parts = [];
  const clock = life.clock;
  if (clock && clock.to_move !== null && clock.seconds_left !== null) {
    parts.push(t('clock.left', { s: Math.ceil(clock.seconds_left), name: seatName(seats, clock.to_move) }));
  }
  if (clock && clock.banks) parts.push(t('clock.banks', { list: clock.banks.map((b) => `${Math.ceil(b)} s`).join(' / ') }));
  if (life.forfeited && life.forfeited.length) parts.push(t('clock.forfeited', { list: life.forfeited.map((s) => seatName(seats, s)).join(', ') }));
  if (life.ai_controlled && life.ai_controlled.length) parts.push(t('clock.ai', { list: life.ai_controlled.map((s) => seatName(seats, s)).join(', ') }));
  return parts.join(' · ');
}

/**
 * "If the phase ended now": the view's `preview`, the rules engine's scoring of the phase under way as if it ended in
 * this position (castles, king bonus, master card, the no-shared-scores rule), in words. Like the replay's scoring it
 * is words only: the arithmetic is the engine's, so the page can never promise points the rules would not give.
 */
export function previewPanel(preview, castles, seats, mine) {
  if (!preview) return [];
  const items = preview.seats.map((part) => {
    const parts = part.castles.map((c) => t('preview.castle', {
      area: c.area, at: castles[c.castle]?.squares?.[0] ?? '?', level: c.level, points: c.points,
    }));
    if (part.king_bonus) parts.push(t('preview.king', { points: part.king_bonus }));
    if (part.master_points) parts.push(t('preview.master', { points: part.master_points }));
    if (part.collision) parts.push(t('preview.collision', { points: part.collision }));
    return h('li', { 'data-seat': String(part.seat), 'data-gained': String(part.gained) }, seatBadge(part.seat),
      ` ${seatTitle(seats, part.seat, mine)}: `, parts.length ? parts.join('; ') : t('preview.nothing'),
      ` → ${t('preview.total', { gained: part.gained, score: part.score })}`);
  });
  return [h('h2', { id: 'preview-heading' }, t('preview.heading', { phase: preview.phase })),
    h('p', { class: 'muted' }, t('preview.note')), h('ul', { class: 'preview-list' }, ...items)];
}

/**
 * Keeping a card (a personal deck's buy): the seen cards as tiles, each with its effect and a "keep" toggle; the
 * others in an order the player sets with "earlier"/"later" (the first goes back on top), and top or bottom of the
 * deck where the rules leave it open. `actions` are the legal keep_card actions (complete, docs/rules-contract.md);
 * what the tiles say is sent as one of them, in its wire form {card, rest, order}, so 12 permutation buttons become
 * three tiles. `choice` ({card, order, rest}) is the page's, kept across redraws; `redraw()` shows a change.
 */
export function keepTiles(seen, actions, choice, { submit, redraw }) {
  const rests = [...new Set(actions.map((a) => a.rest).filter((r) => r !== undefined))];
  if (!seen.includes(choice.card)) Object.assign(choice, { card: seen[0], order: seen.slice(1) });
  if (!rests.includes(choice.rest)) choice.rest = rests[0];
  const others = choice.order;
  const tile = (card) => {
    const kept = card === choice.card;
    const at = others.indexOf(card);
    const move = (by) => {
      const to = at + by;
      [others[at], others[to]] = [others[to], others[at]];
      // the focus stays with the card, on the arrow that can still move it
      const edge = to === 0 ? 'down' : to === others.length - 1 ? 'up' : by < 0 ? 'up' : 'down';
      redraw(`keep-${card}-${edge}`);
    };
    return h('li', { class: `keep-tile${kept ? ' kept' : ''}`, 'data-card': card },
      h('strong', {}, cardName(card)), h('p', { class: 'effect' }, cardEffect(card)),
      h('button', {
        type: 'button', id: `keep-${card}`, 'aria-pressed': String(kept),
        onclick: () => {
          if (kept) return;
          choice.order = [choice.card, ...others.filter((c) => c !== card)];
          choice.card = card;
          redraw(`keep-${card}`);
        },
      }, t(kept ? 'keep.kept' : 'do.keep_card', { card: cardName(card) })),
      kept ? null : h('span', { class: 'keep-order' }, t('keep.position', { n: at + 1, of: others.length }),
        h('button', { type: 'button', class: 'secondary', id: `keep-${card}-up`, disabled: at === 0, onclick: () => move(-1),
          'aria-label': t('keep.earlier', { card: cardName(card) }) }, '↑'),
        h('button', { type: 'button', class: 'secondary', id: `keep-${card}-down`, disabled: at === others.length - 1,
          onclick: () => move(1), 'aria-label': t('keep.later', { card: cardName(card) }) }, '↓')));
  };
  const action = { type: 'keep_card', card: choice.card, order: [...others] };
  if (choice.rest !== undefined) action.rest = choice.rest;
  const where = others.length && rests.length > 1
    ? h('fieldset', { class: 'keep-rest' }, h('legend', {}, t('keep.rest-legend')),
      ...rests.map((rest) => h('label', {}, h('input', {
        type: 'radio', name: 'keep-rest', value: rest, checked: choice.rest === rest, id: `keep-rest-${rest}`,
        onchange: () => { choice.rest = rest; redraw(`keep-rest-${rest}`); },
      }), ` ${t(`keep.rest.${rest}`)}`)))
    : others.length && choice.rest ? h('p', { class: 'muted' }, t(`keep.rest-fixed.${choice.rest}`)) : null;
  return h('div', { class: 'keep', role: 'group', 'aria-labelledby': 'keep-heading' },
    h('h3', { id: 'keep-heading' }, t('keep.heading', { n: seen.length })),
    h('ol', { class: 'keep-tiles' }, ...[choice.card, ...others].map(tile)),  // the kept card, then the rest in order
    where,
    h('button', { type: 'button', id: 'keep-confirm', onclick: () => submit(action) }, actionWords(action)));
}
