// What the browser remembers: the games it holds seat tokens for (localStorage: tokens exist nowhere else,
// the server keeps only their hashes), and the keys typed into the lobby (sessionStorage: this tab only).

const GAMES = 'torres.games';

export function myGames() {
  try { return JSON.parse(localStorage.getItem(GAMES)) || []; } catch { return []; }
}

export function rememberGame(entry) {
  // One entry per seat: a link opened later (its seat not known yet) is the same seat if it holds the same token.
  const same = (g) => g.id === entry.id
    && (g.token === entry.token || (entry.seat !== null && entry.seat !== undefined && g.seat === entry.seat));
  const known = myGames().find(same);
  const games = myGames().filter((g) => !same(g));
  games.unshift({ ...known, ...entry, seat: entry.seat ?? known?.seat ?? null, mine: entry.mine ?? known?.mine,
    saved: new Date().toISOString() });
  localStorage.setItem(GAMES, JSON.stringify(games.slice(0, 100)));
}

export function forgetGame(id, seat) {
  localStorage.setItem(GAMES, JSON.stringify(myGames().filter((g) => !(g.id === id && g.seat === seat))));
}

export function tokenFor(id) {
  return myGames().find((g) => g.id === id && g.token)?.token || null;
}

export const keys = {
  get service() { return sessionStorage.getItem('torres.key') || ''; },
  set service(v) { sessionStorage.setItem('torres.key', v); },
  get admin() { return sessionStorage.getItem('torres.admin') || ''; },
  set admin(v) { sessionStorage.setItem('torres.admin', v); },
};
