// Actions, cards and stages in words, for buttons, choosers and screen readers.

export const CARDS = {
  climb_two: ['Climb two', 'a knight climbs onto an adjacent square exactly 2 levels higher'],
  block_under_knight: ['Block under knight', 'slide a block from one of your stacks under one of your knights'],
  extra_block: ['Extra block', 'build one extra block from the supply'],
  castle_gate: ['Castle gate', 'a gate move through an adjacent castle, climbing allowed'],
  diagonal: ['Diagonal', 'move a knight one square diagonally'],
  six_ap: ['Six AP', 'this turn has 6 action points'],
  seven_ap: ['Seven AP', 'this turn has 7 action points'],
  move_block: ['Move a block', 'move a free block to another legal place'],
  reposition_knight: ['Reposition knight', 'take one of your knights and place it again'],
  jump: ['Jump', 'jump over an adjacent figure in a straight line'],
};

export const cardName = (card) => (CARDS[card] ? CARDS[card][0] : card.replace(/_/g, ' '));

export function actionWords(a) {
  switch (a.type) {
    case 'place_foundation': return `Place a foundation block on ${a.at}`;
    case 'place_start_knight': return `Place your first knight on ${a.at}`;
    case 'place_king': return `Place the king on ${a.at}`;
    case 'place_knight': return `Place a new knight on ${a.at} (2 AP)`;
    case 'move_knight': return `Move the knight ${a.from} → ${a.to} (1 AP)`;
    case 'build': return `Build a block on ${a.at}${'stack' in a ? ` from stack ${a.stack + 1}` : ''} (1 AP)`;
    case 'buy_card': return 'Buy an action card (1 AP)';
    case 'keep_card': {
      const rest = (a.order || []).map(cardName).join(', ');
      return `Keep ${cardName(a.card)}${rest ? `; put ${rest} back on the ${a.rest}` : ''}`;
    }
    case 'play_card': {
      let target = '';
      if ('from' in a) target = ` ${a.from} → ${a.to}`;
      else if ('at' in a) target = ` on ${a.at}${'stack' in a ? ` from stack ${a.stack + 1}` : ''}`;
      return `Play ${cardName(a.card)}${target}`;
    }
    case 'advance_track': return 'Advance one step on the score track (1 AP)';
    case 'end_turn': return 'End the turn';
    case 'move_king': return a.to ? `Move the king to ${a.to}` : 'Leave the king where it is';
    default: return a.type.replace(/_/g, ' ');
  }
}

export function stageWords(pos) {
  switch (pos.stage) {
    case 'setup': return 'setup';
    case 'turn': return `phase ${pos.phase} of 3, round ${pos.round}`;
    case 'keep_card': return `phase ${pos.phase}, round ${pos.round}: choosing a card to keep`;
    case 'move_king': return `between phases ${pos.phase - 1} and ${pos.phase}: the king may move`;
    case 'over': return 'game over';
    default: return pos.stage;
  }
}

/** Who won, from the summary's `winners` (every seat ranked first): one seat wins, or several share the first
 * place (an abandoned game with equal scores). The same words as the service's event text. */
export function outcomeWords(winners, scores, me) {
  if (winners.length === 1) {
    const [seat] = winners;
    return `${seat === me ? 'You win' : `Seat ${seat} wins`} with ${scores[seat]} points.`;
  }
  if (winners.length > 1) {
    const names = winners.map((seat) => (seat === me ? 'you' : `seat ${seat}`));
    return `A tie for first place between ${names.join(' and ')} with ${scores[winners[0]]} points each.`;
  }
  return 'No winner.';
}
