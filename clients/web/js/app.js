// The router and the lobby. Routes live in the URL fragment, which never reaches a server (seat tokens and
// keys stay out of access logs): #game=<id>&token=<seat token> plays, #game=<id>&replay=1 replays, # is the lobby.
// `&embed=1` is the embedded client of a portal (embed.js): the game only, no lobby, no link out, no
// storage, postMessage to the host; `&lang=de|en` the language of the game view (strings.js).

import { Api } from './api.js';
import { LiveGame } from './game.js';
import { h, params, showAlert } from './dom.js';
import { Host, applyTheme } from './embed.js';
import { chooseLanguage, language, setLanguage, t } from './strings.js';
import { refusalWords, seatName } from './words.js';
import { Replay } from './replay.js';
import { forgetGame, keys, myGames, rememberGame, tokenFor } from './store.js';

let config = { api_base: '', matchmaking_url: '' };
let api;
let current = null;
let embeddedOnce = false;  // a page that was embedded stays so, whatever its fragment becomes
const main = document.getElementById('main');

async function boot() {
  if (params().embed === '1') {  // before anything is fetched: the lobby's header never shows in a portal's frame
    document.querySelector('header.top')?.remove();
    main.replaceChildren();
  }
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (response.ok) config = { ...config, ...(await response.json()) };
  } catch { /* static hosting without config.json: same-origin API, no matchmaking */ }
  api = new Api(config.api_base || '');
  window.addEventListener('hashchange', route);
  route();
}

async function route() {
  current?.stop();
  current = null;
  showAlert('');
  for (const key of Object.keys(main.dataset)) delete main.dataset[key];
  const p = params();
  const embed = embeddedOnce || p.embed === '1';
  embeddedOnce = embed;
  setLanguage(chooseLanguage(p.lang, embed));  // embedded: the host's language, else the browser's
  document.title = t('page.title');
  if (embed) {
    document.body.classList.add('embed');
    document.querySelector('header.top')?.remove();  // no way back to a lobby, no link out of the game
    applyTheme(p.theme);
    await embedded(p);
    return;
  }
  if (p.key) {  // `make run` prints /play/#key=...: keep it for this tab, then drop it from the address bar
    keys.service = p.key;
    history.replaceState(null, '', location.pathname);
  }
  try {
    if (p.game && p.replay) {
      current = new Replay(api, main, { id: p.game, token: p.token || tokenFor(p.game), admin: keys.admin || null,
        analysis: p.analysis || null });
      await current.start(p.version ? Number(p.version) : null);
    } else if (p.game) {
      const token = p.token || tokenFor(p.game);
      if (p.token) rememberGame({ id: p.game, seat: null, token: p.token });
      current = new LiveGame(api, main, { id: p.game, token });
      await current.start();
    } else {
      lobby();
    }
  } catch (err) {
    showAlert(err.message);
    if (!main.childNodes.length || main.textContent === 'Loading…') lobby();
  }
  main.focus();
}

// -- lobby ------------------------------------------------------------------------------------------------

function select(name, options, value, label) {
  return h('select', { name, 'aria-label': label }, ...options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}

const EDITIONS = [['rio_grande', 'Rio Grande'], ['ravensburger', 'Ravensburger / FX'], ['yucata', 'Yucata']];

function lobby() {
  main.replaceChildren(h('section', { class: 'lobby' },
    h('h2', {}, 'Lobby'), newGameForm(), matchmakingForm(), openForm(), gamesList()));
}

function newGameForm() {
  const key = h('input', { name: 'key', type: 'password', value: keys.service, autocomplete: 'off', id: 'service-key' });
  const players = select('players', [['2', '2 players'], ['3', '3 players'], ['4', '4 players']], '2', 'Players');
  // The name the other seats see for "me" (a seat shows its player's name, never the form's word "me").
  const myName = h('input', { name: 'my-name', id: 'my-name', value: localStorage.getItem('torres.player') || 'player-1', maxlength: '64' });
  const seatsBox = h('div', { class: 'seat-specs' });
  const edition = select('edition', EDITIONS, 'rio_grande', 'Edition');
  const master = h('input', { type: 'checkbox', name: 'master' });
  const drawSeats = () => {
    const n = Number(players.value);
    seatsBox.replaceChildren(...Array.from({ length: n }, (_, i) => h('div', { class: 'seat-spec' },
      h('span', {}, `Seat ${i}`),
      select(`kind${i}`, [['me', 'me'], ['human', 'another person (link)'], ['ai', 'AI']], i === 0 ? 'me' : 'ai', `Seat ${i} player`),
      select(`level${i}`, [['easy', 'easy'], ['medium', 'medium'], ['hard', 'hard']], 'easy', `Seat ${i} AI level`))));
  };
  players.addEventListener('change', drawSeats);
  drawSeats();
  // Time controls: a limit per turn and/or a Fischer bank; all blank is an untimed game.
  const seconds = (name, label) => h('input', { type: 'number', min: '0', step: 'any', name, id: name, 'aria-label': label, size: 6 });
  const turnSeconds = seconds('turn-seconds', 'Seconds per turn');
  const bankSeconds = seconds('bank-seconds', 'Time bank per seat, seconds');
  const increment = seconds('increment-seconds', 'Increment per turn, seconds');
  const onTimeout = select('on-timeout', [['forfeit', 'the seat forfeits'], ['ai-turn', 'the AI plays that turn'],
    ['ai-game', 'the AI plays the rest of the game']], 'forfeit', 'When time runs out');
  const clockBox = h('fieldset', { class: 'clock-spec' }, h('legend', {}, 'Clock (blank: none)'),
    h('label', {}, 'per turn ', turnSeconds, ' s'), h('label', {}, ' bank ', bankSeconds, ' s'),
    h('label', {}, ' + ', increment, ' s a turn'), h('label', {}, ' when time runs out: ', onTimeout));
  const result = h('div', { id: 'created' });
  const form = h('form', { class: 'card-box', id: 'new-game', 'aria-labelledby': 'new-game-title' },
    h('h3', { id: 'new-game-title' }, 'New game against the AI'),
    h('label', {}, 'Service key ', key, h('small', {}, ' (a portal creates games with it; `make run` prints a /play/ link that fills it in)')),
    h('label', {}, 'Your name ', myName), h('label', {}, 'Players ', players), seatsBox,
    h('label', {}, 'Edition ', edition), h('label', {}, master, ' master version'), clockBox,
    h('button', { type: 'submit', id: 'start-game' }, 'Start game'), result);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    keys.service = key.value.trim();
    const n = Number(players.value);
    const kinds = Array.from({ length: n }, (_, i) => form.elements[`kind${i}`].value);
    const name = myName.value.trim().slice(0, 64) || 'player-1';
    localStorage.setItem('torres.player', name);
    const playerId = name.replace(/[^A-Za-z0-9_.:@-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64) || 'player-1';
    const seats = kinds.map((kind, i) => (kind === 'ai'
      ? { kind: 'ai', level: form.elements[`level${i}`].value }
      : kind === 'me' ? { kind: 'human', player_id: playerId, display_name: name }
        : { kind: 'human', player_id: `guest-${i}`, display_name: `Guest ${i}` }));
    try {
      const body = { edition: edition.value, master: master.checked, seats };
      const clock = {};
      if (turnSeconds.value) clock.turn_seconds = Number(turnSeconds.value);
      if (bankSeconds.value) clock.bank_seconds = Number(bankSeconds.value);
      if (increment.value) clock.increment_seconds = Number(increment.value);
      if (Object.keys(clock).length) {
        body.clock = clock;
        body.timeout = onTimeout.value === 'forfeit' ? { policy: 'forfeit' }
          : { policy: 'ai', scope: onTimeout.value === 'ai-game' ? 'game' : 'turn', level: 'easy' };
      }
      const game = await api.post('/v1/games', body, { key: keys.service });
      const mine = kinds.indexOf('me');
      for (const seat of game.seats.filter((s) => s.token)) rememberGame({ id: game.game_id, seat: seat.seat, token: seat.token, mine: seat.seat === mine });
      const own = game.seats.find((s) => s.seat === mine);
      const others = game.seats.filter((s) => s.token && s.seat !== mine);
      const link = (s) => `${location.origin}${location.pathname}#game=${game.game_id}&token=${s.token}`;
      if (!others.length && own) { location.hash = `game=${game.game_id}&token=${own.token}`; return; }
      result.replaceChildren(h('p', {}, `Game ${game.game_id.slice(0, 8)} created. Send each person their link (it holds their secret seat token):`),
        h('ul', {}, ...others.map((s) => h('li', {}, `Seat ${s.seat}: `, h('a', { href: link(s), class: 'invite', 'data-seat': s.seat }, link(s)), ' ',
          copyButton(link(s), `Copy seat ${s.seat}'s link`)))),
        own ? h('a', { href: `#game=${game.game_id}&token=${own.token}`, class: 'button', id: 'enter-game' }, 'Enter the game') : null);
    } catch (err) {
      showAlert(`Could not create the game: ${err.message}`);
    }
  });
  return form;
}

function matchmakingForm() {
  if (!config.matchmaking_url) {
    return h('div', { class: 'card-box' }, h('h3', {}, 'Matchmaking'), h('p', { class: 'muted' }, 'No matchmaker is configured (config.json: matchmaking_url).'));
  }
  const mm = new Api(config.matchmaking_url);
  const player = h('input', { name: 'player', value: localStorage.getItem('torres.player') || 'player-1', id: 'player-id' });
  const counts = [2, 3, 4].map((n) => h('input', { type: 'checkbox', name: 'count', value: String(n), checked: n === 2 }));
  const edition = select('mm-edition', EDITIONS, 'rio_grande', 'Edition');
  const master = h('input', { type: 'checkbox', name: 'mm-master' });
  // At most the ticket's lifetime (the matchmaker's default 300 s), which the matchmaker enforces with a 400.
  const wait = h('input', { type: 'number', name: 'wait', min: '0', max: '300', value: '10', id: 'max-wait' });
  const status = h('p', { id: 'ticket-status', role: 'status', 'aria-live': 'polite' });
  const cancel = h('button', { type: 'button', hidden: true, id: 'cancel-ticket' }, 'Leave the queue');
  // The matchmaker knows a player only by a token their portal signs. Here the portal is `make run`'s
  // development issuer, asked with the service key for the name typed; a real portal's server issues it instead.
  let identity = null;  // { player, token, expires_at } of the player this page queues
  const playerToken = async (name) => {
    if (identity && identity.player === name && identity.expires_at - Date.now() / 1000 > 60) return identity.token;
    const key = keys.service || document.getElementById('service-key')?.value.trim() || '';
    if (!key) throw new Error('the matchmaker needs a player token: open the /play/ link `make run` prints (it holds the service key the development issuer asks for), or fill in the service key above');
    const issued = await mm.devPlayerToken(name, key);
    identity = { player: name, token: issued.token, expires_at: issued.expires_at };
    return identity.token;
  };
  // The ticket's server-sent events (one `ticket` event now and at each change), not polling: the page hears of
  // its match the moment the matcher records it. Only the "waiting N s" counter ticks locally. EventSource cannot
  // send the player token, so each connection opens with a fresh single-use stream ticket in its URL; the
  // browser's own reconnect would reuse a spent one, so the page reconnects by itself instead.
  let ticket = null; let source = null; let clock = null; let shown = null; let retry = null; let failures = 0;
  const stopWatching = () => {
    if (source) source.close();
    source = null; clearInterval(clock); clock = null; clearTimeout(retry); retry = null; cancel.hidden = true;
  };
  const show = () => {
    const t = shown;
    if (!t) return;
    const waited = Math.max(0, Math.round(Date.now() / 1000 - t.created_at));
    status.textContent = `Ticket ${t.ticket_id.slice(0, 8)}: ${t.status}, waiting ${waited} s${t.status === 'queued' && t.max_wait_seconds !== null ? ` (AI seats may fill after ${t.max_wait_seconds} s)` : ''}`;
  };
  const watch = async () => {
    if (!document.body.contains(status)) return stopWatching();  // left the lobby
    const watched = ticket;
    let streamTicket;
    try {
      streamTicket = await mm.streamTicket(watched.ticket_id, await playerToken(watched.player_id));
    } catch (err) {
      if (ticket === watched) { status.textContent = `Ticket status unavailable: ${err.message}`; stopWatching(); }
      return;
    }
    if (ticket !== watched || !document.body.contains(status)) return;  // another ticket, or left, meanwhile
    if (source) source.close();
    const current = new EventSource(mm.ticketStreamUrl(watched.ticket_id, streamTicket));
    source = current;
    current.addEventListener('ticket', (e) => {
      const t = JSON.parse(e.data);
      shown = t; failures = 0;
      if (t.status === 'matched') {
        stopWatching();
        status.textContent = `Matched: game ${t.game_id.slice(0, 8)}, you are seat ${t.seat}.`;
        rememberGame({ id: t.game_id, seat: t.seat, token: t.seat_token, mine: true });
        location.hash = `game=${t.game_id}&token=${t.seat_token}`;
        return;
      }
      show();
      if (t.status !== 'queued') stopWatching();
    });
    // The stream's own time ran out (or the server drains): open it again while the ticket is queued.
    current.addEventListener('timeout', () => { current.close(); if (source === current) watch(); });
    current.addEventListener('finished', () => { if (source === current) stopWatching(); });
    current.addEventListener('error', () => {
      current.close();  // its stream ticket is spent: reconnect with a new one, a few times, 2 s apart
      if (source !== current) return;
      source = null;
      if (++failures > 5) {
        status.textContent = 'Ticket status unavailable: the matchmaker closed the stream.';
        stopWatching();
      } else {
        retry = setTimeout(watch, 2000);
      }
    });
  };
  cancel.addEventListener('click', async () => {
    stopWatching();
    const leaving = ticket;
    if (!leaving) return;  // nothing queued (the button is hidden then)
    ticket = null;
    try {
      await mm.del(`/v1/tickets/${encodeURIComponent(leaving.ticket_id)}`, { token: await playerToken(leaving.player_id) });
      status.textContent = 'Left the queue.';
    } catch (err) { showAlert(err.message); }
  });
  const form = h('form', { class: 'card-box', id: 'matchmaking' },
    h('h3', {}, 'Find a match'),
    h('label', {}, 'Player id ', player),
    h('fieldset', {}, h('legend', {}, 'Players per game'), ...counts.map((c) => h('label', {}, c, ` ${c.value}`))),
    h('label', {}, 'Edition ', edition), h('label', {}, master, ' master version'),
    h('label', {}, 'Fill with AI after (seconds) ', wait),
    h('button', { type: 'submit', id: 'find-match' }, 'Find a match'), cancel, status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    localStorage.setItem('torres.player', player.value);
    try {
      const token = await playerToken(player.value.trim());
      const created = await mm.post('/v1/tickets', {
        player_counts: counts.filter((c) => c.checked).map((c) => Number(c.value)),
        edition: edition.value, master: master.checked, max_wait_seconds: Number(wait.value),
      }, { token });
      stopWatching();
      ticket = created; failures = 0;
      shown = ticket; show(); cancel.hidden = false;
      clock = setInterval(() => { if (document.body.contains(status)) show(); else stopWatching(); }, 1000);
      watch();
    } catch (err) {
      showAlert(`Matchmaking refused the ticket: ${err.message}`);
    }
  });
  return form;
}

/** A button that copies ``text`` to the clipboard and says so on itself for a moment. */
function copyButton(text, label) {
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': label }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed: select the link';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  });
  return button;
}

function openForm() {
  const link = h('input', { name: 'link', id: 'open-link', placeholder: 'a game link, or a game id' });
  const token = h('input', { name: 'token', id: 'open-token', type: 'password', autocomplete: 'off' });
  const admin = h('input', { name: 'admin', id: 'admin-key', type: 'password', autocomplete: 'off', value: keys.admin });
  const parse = () => {
    const text = link.value.trim();
    const frag = new URLSearchParams(text.includes('#') ? text.split('#')[1] : '');
    return { id: frag.get('game') || text, token: frag.get('token') || token.value.trim() };
  };
  const open = (replay) => (e) => {
    e.preventDefault();
    keys.admin = admin.value.trim();
    const { id, token: tok } = parse();
    if (!id) { showAlert('Give a game link or id.'); return; }
    location.hash = `game=${encodeURIComponent(id)}${tok ? `&token=${encodeURIComponent(tok)}` : ''}${replay ? '&replay=1' : ''}`;
  };
  return h('form', { class: 'card-box', id: 'open-game', onsubmit: open(false) },
    h('h3', {}, 'Open a game'),
    h('label', {}, 'Link or id ', link),
    h('label', {}, 'Seat token ', token, h('small', {}, ' (none: watch as a spectator)')),
    h('label', {}, 'Admin key ', admin, h('small', {}, ' (optional: audit any game in full)')),
    h('button', { type: 'submit' }, 'Play or watch'), ' ',
    h('button', { type: 'button', onclick: open(true) }, 'Replay'));
}

function gamesList() {
  const games = myGames();
  const body = h('tbody');
  const box = h('div', { class: 'card-box', id: 'my-games' }, h('h3', {}, 'My games'),
    games.length ? h('table', {}, h('thead', {}, h('tr', {}, ...['game', 'seat', 'status', ''].map((t) => h('th', {}, t)))), body)
      : h('p', { class: 'muted' }, 'None yet: the games this browser holds a seat token for appear here.'));
  for (const g of games) {
    const status = h('td', {}, '…');
    body.append(h('tr', {},
      h('td', {}, h('code', {}, g.id.slice(0, 8))), h('td', {}, g.seat ?? '?'), status,
      h('td', {}, h('a', { href: `#game=${g.id}&token=${g.token}` }, 'open'), ' · ',
        h('a', { href: `#game=${g.id}&token=${g.token}&replay=1` }, 'replay'), ' · ',
        h('button', { class: 'linklike', onclick: () => { forgetGame(g.id, g.seat); lobby(); } }, 'forget'))));
    api.get(`/v1/games/${encodeURIComponent(g.id)}`, { token: g.token }).then((s) => {  // a private game: its seat token
      status.textContent = s.status === 'over'
        ? `over, scores ${s.scores.join(' / ')}` : `${s.to_move === g.seat ? 'your turn' : `${seatName(s.seats, s.to_move)} to move`} (phase ${s.phase ?? '-'})`;
    }).catch((err) => { status.textContent = err.status === 404 ? 'not on this server' : 'unavailable'; });
  }
  return box;
}

/** The embedded game: a portal's link with the game and its seat (or spectator) token; nothing else. */
async function embedded(p) {
  if (!p.game) {
    main.replaceChildren();
    showAlert(t('embed.no-game'));
    return;
  }
  try {
    current = new LiveGame(api, main, { id: p.game, token: p.token || null, embed: true, host: new Host(p.game, { origin: p.origin }) });
    await current.start();
  } catch (err) {
    showAlert(refusalWords(err, language()));
  }
}

boot();
