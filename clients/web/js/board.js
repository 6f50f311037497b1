// The board in SVG: heights as shading plus stacked blocks plus the number, castles outlined, the king's castle
// in a double gold line, knights as seat-coloured shapes (colour-blind-safe Okabe-Ito colours AND a distinct
// shape per seat) carrying their level, each castle's base area in a tag. The board is an ARIA grid: one tab stop,
// the arrow keys inside, every square a gridcell with a spoken name.

import { t } from './strings.js';

const SVG = 'http://www.w3.org/2000/svg';
export const COLUMNS = 'ABCDEFGH';
export const SEATS = [
  { color: '#0072B2', shape: 'circle' },
  { color: '#E69F00', shape: 'square' },
  { color: '#009E73', shape: 'triangle' },
  { color: '#CC79A7', shape: 'diamond' },
];
const CELL = 64;
const MARGIN = 26;

/** A seat's colour in words (blue, orange, green, purple). */
export const colourName = (seat) => t(`colour.${seat}`);

export const squareName = (x, y) => `${COLUMNS[x]}${y + 1}`;
export const squareXY = (name) => [COLUMNS.indexOf(name[0]), Number(name.slice(1)) - 1];

export function figureWords(pos, sq) {
  const seat = pos.knights[sq];
  if (seat !== undefined) return t('square.knight', { colour: colourName(seat) });
  if (pos.king === sq) return t('square.king');
  return null;
}

/** The spoken name of a square, e.g. "C3, height 2, blue knight". */
export function squareLabel(pos, sq, extra) {
  const parts = [sq, t('square.height', { n: pos.heights[sq] || 0 })];
  const figure = figureWords(pos, sq);
  if (figure) parts.push(figure);
  if (extra) parts.push(extra);
  return parts.join(', ');
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function seatShape(seat, cx, cy, r, parent, extra = {}) {
  const { color, shape } = SEATS[seat];
  const common = { fill: color, stroke: '#fff', 'stroke-width': 2.5, ...extra };
  if (shape === 'circle') return el('circle', { cx, cy, r, ...common }, parent);
  if (shape === 'square') return el('rect', { x: cx - r * 0.9, y: cy - r * 0.9, width: r * 1.8, height: r * 1.8, rx: 3, ...common }, parent);
  if (shape === 'triangle') {
    return el('polygon', { points: `${cx},${cy - r * 1.1} ${cx + r * 1.1},${cy + r * 0.85} ${cx - r * 1.1},${cy + r * 0.85}`, ...common }, parent);
  }
  return el('polygon', { points: `${cx},${cy - r * 1.15} ${cx + r * 1.15},${cy} ${cx},${cy + r * 1.15} ${cx - r * 1.15},${cy}`, ...common }, parent);
}

/** A small inline SVG of a seat's shape, for panels and the log. */
export function seatBadge(seat, size = 18) {
  const svg = el('svg', { width: size, height: size, viewBox: '0 0 20 20', 'aria-hidden': 'true', class: 'badge' });
  seatShape(seat, 10, 10, 7, svg, { 'stroke-width': 1.5, stroke: '#222' });
  return svg;
}

/** The mark of each kind of action a square offers: a filled shape each, so that build, place, move and
 * a card's target look different, drawn dark with a light halo (style.css `.mark`) so that it shows on every
 * height, the darkest squares included. Centred on (cx, cy), about 16 px across. */
export const MARK_KINDS = ['build', 'place', 'move', 'card'];
const MARKS = {
  // a plus: a block to add
  build: (cx, cy) => ['path', { d: `M${cx - 2.5} ${cy - 7}h5v4.5h4.5v5h-4.5v4.5h-5v-4.5h-4.5v-5h4.5z` }],
  // a disc with a hole: a spot to put a figure on
  place: (cx, cy) => ['path', { 'fill-rule': 'evenodd',
    d: `M${cx - 7} ${cy}a7 7 0 1 0 14 0a7 7 0 1 0 -14 0zM${cx - 2.5} ${cy}a2.5 2.5 0 1 0 5 0a2.5 2.5 0 1 0 -5 0z` }],
  // an arrow: a knight (or the king) to move, or where it goes
  move: (cx, cy) => ['polygon', { points: `${cx - 7},${cy - 2.5} ${cx + 1},${cy - 2.5} ${cx + 1},${cy - 7} ${cx + 8},${cy} ${cx + 1},${cy + 7} ${cx + 1},${cy + 2.5} ${cx - 7},${cy + 2.5}` }],
  // a card standing up: the target of the action card being played
  card: (cx, cy) => ['rect', { x: cx - 5, y: cy - 7, width: 10, height: 14, rx: 2 }],
};

/** A kind's mark as a small inline SVG, for the mode switch and the choosers (the legend of the board's marks). */
export function markIcon(kind, size = 18) {
  const svg = el('svg', { width: size, height: size, viewBox: '0 0 20 20', 'aria-hidden': 'true', class: 'mark-icon' });
  const [tag, attrs] = MARKS[kind](10, 10);
  el(tag, { ...attrs, class: `mark mark-${kind}` }, svg);
  return svg;
}

/**
 * Draw `pos` (a position JSON or a view) into `container`.
 * opts.castles: the response's `castles` (the rules engine's: squares and whether the king is in it), outlined;
 * the page never works out castles itself, so it cannot disagree with the rules.
 * opts.targets: Map square -> {label: words of what a click does, kinds: the kinds of action (MARK_KINDS) it
 * offers, each drawn as its own mark} (only those squares act);
 * opts.selected: a square; opts.changed: squares to animate; opts.onSquare(square);
 * opts.lastTurn: {seat, squares, arrows: [{from, to}]}: what the last turn changed, outlined in the seat's colour,
 * its moves drawn as arrows (until the next turn replaces them).
 */
export function renderBoard(container, pos, opts = {}) {
  const { castles = [], targets = new Map(), selected = null, changed = new Set(), onSquare = () => {}, lastTurn = null } = opts;
  const previousFocus = document.activeElement?.dataset?.square;
  container.textContent = '';
  const size = MARGIN + 8 * CELL + 4;
  // The ARIA grid pattern: the board is a grid of 8 rows of 8 gridcells (aria-selected on the selected knight's square);
  // what is only drawn (coordinates, castle outlines, base areas) is hidden from the accessibility tree, since a
  // grid may hold rows only and every fact in them is in the cells' names.
  const svg = el('svg', { viewBox: `0 0 ${size} ${size}`, class: 'board', role: 'grid', 'aria-label': t('board.label') });
  container.appendChild(svg);
  const coords = el('g', { 'aria-hidden': 'true' }, svg);
  // One tab stop for the whole board (a roving tabindex): the square last focused, else the selected one, else
  // the first target, else A1; the arrow keys move within the board, Tab leaves it.
  const tabStop = previousFocus || selected || targets.keys().next().value || 'A1';
  const of = {};  // square -> index of its castle
  castles.forEach((castle, id) => { for (const sq of castle.squares) of[sq] = id; });

  for (let i = 0; i < 8; i += 1) {
    el('text', { x: MARGIN + i * CELL + CELL / 2, y: 18, class: 'coord', 'text-anchor': 'middle' }, coords).textContent = COLUMNS[i];
    el('text', { x: 12, y: MARGIN + i * CELL + CELL / 2 + 5, class: 'coord', 'text-anchor': 'middle' }, coords).textContent = String(i + 1);
  }

  for (let y = 0; y < 8; y += 1) {
    const row = el('g', { role: 'row' }, svg);
    for (let x = 0; x < 8; x += 1) {
      const sq = squareName(x, y);
      const h = pos.heights[sq] || 0;
      const px = MARGIN + x * CELL; const py = MARGIN + y * CELL;
      const target = targets.get(sq);
      const cls = ['square'];
      if (target) cls.push('target');
      if (selected === sq) cls.push('selected');
      if (changed.has(sq)) cls.push('changed');
      const castle = of[sq] !== undefined ? t('square.castle', { area: castles[of[sq]].area }) : null;
      const g = el('g', {
        class: cls.join(' '), role: 'gridcell', tabindex: sq === tabStop ? '0' : '-1', 'data-square': sq,
        'aria-selected': String(selected === sq),
        'aria-label': squareLabel(pos, sq, [castle, selected === sq ? t('square.selected') : target ? target.label : null,
          lastTurn?.squares.has(sq) ? t('square.last-turn') : null].filter(Boolean).join(', ')),
      }, row);
      if (!target && selected !== sq) g.setAttribute('aria-disabled', 'true');
      el('rect', { x: px, y: py, width: CELL, height: CELL, class: `cell h${Math.min(h, 7)}` }, g);  // style.css: --height-n
      if (lastTurn?.squares.has(sq)) {  // under the blocks, the height and the figure, which stay readable
        const color = SEATS[lastTurn.seat]?.color || 'currentColor';
        el('rect', { x: px + 6, y: py + 6, width: CELL - 12, height: CELL - 12, rx: 3, class: 'last-turn-halo' }, g);
        el('rect', { x: px + 6, y: py + 6, width: CELL - 12, height: CELL - 12, rx: 3, class: 'last-turn', stroke: color }, g);
      }
      for (let b = 0; b < h; b += 1) {  // the stack, drawn as blocks at the right edge
        el('rect', { x: px + CELL - 13, y: py + CELL - 8 - b * 7, width: 9, height: 5.5, class: 'block' }, g);
      }
      if (h > 0) {
        el('text', { x: px + 5, y: py + 17, class: `height${h >= 3 ? ' light' : ''}` }, g).textContent = String(h);
      }
      const seat = pos.knights[sq];
      if (seat !== undefined) {
        seatShape(seat, px + CELL / 2 - 2, py + CELL / 2 + 2, 15, g);
        el('text', { x: px + CELL / 2 - 2, y: py + CELL / 2 + 8, class: 'level', 'text-anchor': 'middle' }, g).textContent = String(h);
      } else if (pos.king === sq) {
        const cx = px + CELL / 2 - 2; const cy = py + CELL / 2 + 4;
        el('polygon', {
          points: `${cx - 16},${cy + 10} ${cx - 16},${cy - 8} ${cx - 8},${cy} ${cx},${cy - 14} ${cx + 8},${cy} ${cx + 16},${cy - 8} ${cx + 16},${cy + 10}`,
          class: 'king',
        }, g);
        el('text', { x: cx, y: cy + 7, class: 'king-text', 'text-anchor': 'middle' }, g).textContent = t('king.letter');
      }
      (target?.kinds || []).forEach((kind, i) => {
        const [tag, attrs] = MARKS[kind](px + 13 + i * 19, py + CELL - 12);
        el(tag, { ...attrs, class: `mark mark-${kind}`, 'data-kind': kind }, g);
      });
      if (target) el('rect', { x: px + 3, y: py + 3, width: CELL - 6, height: CELL - 6, class: 'target-halo', rx: 4 }, g);
      el('rect', { x: px + 3, y: py + 3, width: CELL - 6, height: CELL - 6, class: 'focus-ring', rx: 4 }, g);
      g.addEventListener('click', () => onSquare(sq));
      g.addEventListener('keydown', (event) => keyOnSquare(event, svg, sq, onSquare));
    }
  }

  // Castle outlines: every edge between a castle square and a square outside that castle; each castle's base area
  // in a tag on its first square (the API's, like the outline: RULES 6.1 scores area x level).
  const drawn = el('g', { 'aria-hidden': 'true' }, svg);
  castles.forEach(({ squares, king }, id) => {
    for (const sq of squares) {
      const [x, y] = squareXY(sq);
      const px = MARGIN + x * CELL; const py = MARGIN + y * CELL;
      const sides = [[0, -1, px, py, px + CELL, py], [0, 1, px, py + CELL, px + CELL, py + CELL],
        [-1, 0, px, py, px, py + CELL], [1, 0, px + CELL, py, px + CELL, py + CELL]];
      for (const [dx, dy, x1, y1, x2, y2] of sides) {
        const nx = x + dx; const ny = y + dy;
        const inside = nx >= 0 && ny >= 0 && nx < 8 && ny < 8 && of[squareName(nx, ny)] === id;
        if (!inside) {
          el('line', { x1, y1, x2, y2, class: king ? 'castle-edge king-castle' : 'castle-edge' }, drawn);
          if (king) el('line', { x1, y1, x2, y2, class: 'king-castle-inner' }, drawn);
        }
      }
    }
  });
  castles.forEach(({ squares, area }) => {
    const [x, y] = squareXY(squares[0]);
    // top middle, between the height and the stack: clear of the marks (bottom left), the stack and the figure
    const cx = MARGIN + x * CELL + CELL / 2 + 1; const cy = MARGIN + y * CELL + 11;
    const tag = el('g', { class: 'castle-area', 'data-castle-at': squares[0] }, drawn);
    el('rect', { x: cx - 9, y: cy - 8, width: 18, height: 16, rx: 3, class: 'castle-area-tag' }, tag);
    el('text', { x: cx, y: cy + 4.5, class: 'castle-area-text', 'text-anchor': 'middle' }, tag).textContent = String(area);
  });
  if (lastTurn?.arrows?.length) drawArrows(svg, lastTurn);
  if (previousFocus) svg.querySelector(`[data-square="${previousFocus}"]`)?.focus();
  return svg;
}

/** The last turn's moves as arrows from square centre to square centre, in the seat's colour on a light halo. */
function drawArrows(svg, { seat, arrows }) {
  const color = SEATS[seat]?.color || '#000';
  const defs = el('defs', {}, svg);
  const marker = el('marker', { id: 'arrow-head', viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 3.2, markerHeight: 3.2,
    orient: 'auto-start-reverse', markerUnits: 'strokeWidth' }, defs);
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: color, stroke: '#fff', 'stroke-width': 1 }, marker);
  const layer = el('g', { class: 'arrows', 'aria-hidden': 'true' }, svg);
  const centre = (sq) => { const [x, y] = squareXY(sq); return [MARGIN + x * CELL + CELL / 2, MARGIN + y * CELL + CELL / 2]; };
  for (const { from, to } of arrows) {
    const [x1, y1] = centre(from); const [x2, y2] = centre(to);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const end = [x2 - ((x2 - x1) / len) * 14, y2 - ((y2 - y1) / len) * 14];  // the head stops short of the figure
    const arrow = el('g', { class: 'move-arrow', 'data-from': from, 'data-to': to }, layer);
    el('line', { x1, y1, x2: end[0], y2: end[1], class: 'move-arrow-halo' }, arrow);
    el('line', { x1, y1, x2: end[0], y2: end[1], class: 'move-arrow-line', stroke: color, 'marker-end': 'url(#arrow-head)' }, arrow);
  }
}

/** The grid's keys (WAI-ARIA grid pattern): arrows move one cell, Home/End to the row's ends, Ctrl+Home/End to the
 *  first and last cell; Enter or Space acts on the cell. */
function keyOnSquare(event, svg, sq, onSquare) {
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  const [x, y] = squareXY(sq);
  const ends = { Home: event.ctrlKey ? [0, 0] : [0, y], End: event.ctrlKey ? [7, 7] : [7, y] };
  if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    onSquare(sq);
  } else if (moves[event.key] || ends[event.key]) {
    event.preventDefault();
    const [nx, ny] = ends[event.key] || [Math.min(7, Math.max(0, x + moves[event.key][0])), Math.min(7, Math.max(0, y + moves[event.key][1]))];
    const next = svg.querySelector(`[data-square="${squareName(nx, ny)}"]`);
    if (next) {
      svg.querySelectorAll('[data-square][tabindex="0"]').forEach((square) => square.setAttribute('tabindex', '-1'));
      next.setAttribute('tabindex', '0');
      next.focus();
    }
  }
}

/** The score track: one line, each seat's marker (shape + colour) at its score. */
export function renderTrack(container, scores) {
  container.textContent = '';
  const top = Math.max(60, Math.ceil((Math.max(...scores) + 10) / 20) * 20);
  const width = 560; const lane = 13; const top0 = 10;
  const mid = top0 + ((scores.length - 1) * lane) / 2;
  const height = top0 + scores.length * lane + 14;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, class: 'track', role: 'img',
    'aria-label': t('track.label', { list: scores.map((s, i) => `${colourName(i)} ${s}`).join(', ') }) }, container);
  const x = (v) => 20 + (v / top) * (width - 40);
  el('line', { x1: x(0), y1: mid, x2: x(top), y2: mid, class: 'track-line' }, svg);
  for (let v = 0; v <= top; v += 10) {
    el('line', { x1: x(v), y1: top0 - 6, x2: x(v), y2: top0 + (scores.length - 1) * lane + 6, class: 'track-tick' }, svg);
    el('text', { x: x(v), y: height - 2, class: 'coord small', 'text-anchor': 'middle' }, svg).textContent = String(v);
  }
  scores.forEach((s, seat) => {  // one lane per seat, so equal scores never hide a marker
    seatShape(seat, x(s), top0 + seat * lane, 6, svg, { 'stroke-width': 1.5, stroke: '#222' });
  });
}
