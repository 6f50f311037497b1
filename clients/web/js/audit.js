// The part of a game record's audit (docs/audit.md) a browser can do on its own, from the record's bytes: every
// event's content hash and the chain (section 4), the head (section 10), the service's Ed25519 signature over it
// (sections 7, 8), the seed commitment (section 5: a hash, not the deal), the result against game_ended, and the
// inclusion proof of the head in the transparency log against a signed checkpoint (sections 8, 9; RFC 9162).
// What it does not do: replay every action's legality through the rules engine (deals, draws, scores): that is
// `python -m torres_audit verify record.json` (offline), and the report says so.
// WebCrypto only (SHA-256, Ed25519): nothing here trusts the service's own /verify.

import { h } from './dom.js';

export const OK = 'ok'; export const FAIL = 'FAIL'; export const SKIP = 'skip'; export const WARN = 'warn';
const TIE_ORDER = { format: 0, chain: 1, seed: 2, replay: 3, result: 4, head: 5, signature: 6, inclusion: 7 };
const GENESIS = '0'.repeat(64);
const FORMAT = 'torres-game-record/1';
const RECORD_MEMBERS = ['format', 'game_id', 'status', 'reader', 'creation', 'seed', 'result', 'events', 'head',
  'signature', 'inclusion'];
const EM_DASH = '\u2014';
const enc = new TextEncoder();

/** A JSON number as the record's text wrote it (integers and floats hash differently: `60` is not `60.0`). */
export class RawNumber {
  constructor(source) { this.source = source; }
  valueOf() { return Number(this.source); }
}

/** The record's text parsed with each number kept as a RawNumber (JSON.parse's reviver `context.source`). */
export function parseKeepingNumbers(text) {
  if (JSON.parse('1.0', (key, value, context) => context?.source) !== '1.0') {
    throw new Error('this browser\'s JSON.parse does not give numbers\' source text (needed to hash 60 and 60.0 apart)');
  }
  return JSON.parse(text, (key, value, context) => (typeof value === 'number' ? new RawNumber(context.source) : value));
}

/** Python's repr of a float: the shortest round-trip digits, fixed notation for exponents -4..15, else d.ddde±XX. */
function pythonFloat(x) {
  if (!Number.isFinite(x)) throw new Error(`a record holds no NaN or Infinity (${x})`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1) || '0';
    return `${sign}${whole}.${frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function canonicalNumber(source) {
  if (/^-?(0|[1-9][0-9]*)$/.test(source)) return BigInt(source).toString();  // an integer, of any size
  return pythonFloat(Number(source));
}

function byCodePoint(a, b) {
  const x = Array.from(a); const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** docs/audit.md section 4: Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function canonicalJson(value) {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (value instanceof RawNumber) return canonicalNumber(value.source);
  if (typeof value === 'number') {
    return Number.isInteger(value) && !String(value).includes('e') ? String(value) : pythonFloat(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const names = Object.keys(value).sort(byCodePoint);
    return `{${names.map((n) => `${JSON.stringify(n)}:${canonicalJson(value[n])}`).join(',')}}`;
  }
  throw new Error(`not a JSON value: ${typeof value}`);
}

function hex(bytes) { return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join(''); }
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)); }
export async function sha256Hex(text) { return hex(await sha256(enc.encode(text))); }

/** Standard base64 with padding in its one canonical spelling (other spellings of the same bytes are refused). */
export function b64decode(text, what) {
  let raw;
  try { raw = atob(text); } catch { throw new Error(`${what} is not base64`); }
  const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
  if (btoa(raw) !== text) throw new Error(`${what} is not in canonical base64`);
  return bytes;
}

const num = (v) => (v instanceof RawNumber ? Number(v.source) : v);

/** Section 4: the content hash of an event (its fields but the chain link, and the record's game id). */
export function canonicalContent(gameId, event) {
  return canonicalJson({
    command_id: event.command_id, created_at: event.created_at, game_id: gameId, payload: event.payload,
    schema_version: event.schema_version, type: event.type, version: event.version,
  });
}
export async function contentHash(gameId, event) { return sha256Hex(canonicalContent(gameId, event)); }
export async function chainHash(prev, content) { return sha256Hex(prev + content); }

/** Section 7: the statement the service signs, and the log's leaf for a finished game. */
export function headText(gameId, version, hash, status) {
  return `torres-game-head/v1\ngame ${gameId}\nversion ${version}\nhash ${hash}\nstatus ${status}\n`;
}

// --- signed notes (c2sp.org/signed-note) and vkeys -------------------------------------------------------------

async function keyId(name, pub) {
  const digest = await sha256(concat(enc.encode(`${name}\n`), new Uint8Array([1]), pub));
  return ((digest[0] << 24) | (digest[1] << 16) | (digest[2] << 8) | digest[3]) >>> 0;
}
const idHex = (id) => id.toString(16).padStart(8, '0');

/** `<name>+<key ID>+base64(0x01 || public key)` → {name, id, pub, vkey}, its key ID checked. */
export async function parseVkey(text) {
  const vkey = text.trim();
  const first = vkey.indexOf('+'); const second = vkey.indexOf('+', first + 1);
  if (first < 1 || second < 0) throw new Error(`a vkey is <name>+<key ID>+<base64 key>, not ${JSON.stringify(vkey)}`);
  const name = vkey.slice(0, first); const hexId = vkey.slice(first + 1, second);
  if (/[\s+]/.test(name)) throw new Error(`a key name is without spaces or '+': ${JSON.stringify(name)}`);
  const raw = b64decode(vkey.slice(second + 1), 'the vkey\'s key');
  if (raw.length !== 33 || raw[0] !== 1) throw new Error('the vkey is not an Ed25519 key (0x01 followed by 32 bytes)');
  const pub = raw.slice(1);
  const id = await keyId(name, pub);
  if (!/^[0-9a-f]{8}$/.test(hexId) || parseInt(hexId, 16) !== id) {
    throw new Error(`the vkey's key ID ${hexId} is not the one its name and key give (${idHex(id)})`);
  }
  return { name, id, pub, vkey };
}

/** Split a signed note into text and signature lines, refusing any deviation from the format. */
export function parseNote(data) {
  if (/[\x00-\x09\x0b-\x1f]/.test(data)) throw new Error('a note must not contain control characters other than newline');
  if (!data.endsWith('\n')) throw new Error('a signed note must end with a newline');
  const cut = data.lastIndexOf('\n\n');
  if (cut < 0) throw new Error('a signed note needs a blank line between its text and its signatures');
  const text = data.slice(0, cut + 1);
  const lines = data.slice(cut + 2).split('\n').slice(0, -1);
  if (!lines.length) throw new Error('a signed note needs at least one signature line');
  if (lines.length > 100) throw new Error('more than 100 signatures');
  const signatures = lines.map((line) => {
    const parts = line.split(' ');
    if (parts.length !== 3 || parts[0] !== EM_DASH || !parts[1] || /\+/.test(parts[1])) {
      throw new Error(`a signature line is '— <name> <base64>', not ${JSON.stringify(line)}`);
    }
    const blob = b64decode(parts[2], `the signature of ${parts[1]}`);
    if (blob.length < 5) throw new Error(`the signature of ${parts[1]} is too short`);
    const id = ((blob[0] << 24) | (blob[1] << 16) | (blob[2] << 8) | blob[3]) >>> 0;
    return { name: parts[1], id, sig: blob.slice(4) };
  });
  return { text, signatures };
}

async function ed25519Verify(pub, sig, message) {
  const key = await crypto.subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify({ name: 'Ed25519' }, key, sig, message);
}

/** The note and the keys of `keys` that signed it: an unknown key's signature is ignored, a known key's that
 * fails refuses the note, and so does a note no known key signed. */
export async function openNote(data, keys) {
  const note = parseNote(data);
  const signed = [];
  for (const s of note.signatures) {
    for (const k of keys) {
      if (k.name !== s.name || k.id !== s.id) continue;
      if (s.sig.length !== 64 || !(await ed25519Verify(k.pub, s.sig, enc.encode(note.text)))) {
        throw new Error(`the signature by ${k.name} (${idHex(k.id)}) does not verify`);
      }
      if (!signed.includes(k)) signed.push(k);
    }
  }
  if (!signed.length) {
    const known = keys.map((k) => `${k.name}+${idHex(k.id)}`).join(', ') || 'none';
    const found = note.signatures.map((s) => `${s.name}+${idHex(s.id)}`).join(', ');
    throw new Error(`no signature by a trusted key (trusted: ${known}; signed by: ${found})`);
  }
  return { note, signed };
}

/** c2sp.org/tlog-checkpoint: {origin, size, root}. */
export function parseCheckpoint(text) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] !== '' || lines.length < 4) throw new Error('a checkpoint is at least three lines: origin, tree size, root hash');
  lines.pop();
  if (lines.some((l) => l === '')) throw new Error('a checkpoint\'s lines must be non-empty');
  const [origin, size, root] = lines;
  if (!/^(0|[1-9][0-9]*)$/.test(size)) throw new Error(`the tree size ${JSON.stringify(size)} is not a decimal number without leading zeros`);
  const raw = b64decode(root, 'the root hash');
  if (raw.length !== 32) throw new Error(`the root hash is ${raw.length} bytes, not 32`);
  return { origin, size: Number(size), root: raw };
}

/** A checkpoint signed by a trusted key named as its origin (the log's own), which is none of `headKeys` (the keys
 * that signed the game's head: a log key is never the record key, docs/audit.md sections 8 and 9). */
export async function openCheckpoint(data, keys, headKeys = []) {
  const { note, signed } = await openNote(data, keys);
  const cp = parseCheckpoint(note.text);
  const own = signed.filter((k) => k.name === cp.origin);
  if (own.length === 0) throw new Error(`the checkpoint of log ${cp.origin} is signed by ${signed.map((k) => k.name).join(', ')}, no trusted key named as the log`);
  if (headKeys.some((h) => h.name === own[0].name && h.id === own[0].id)) {
    throw new Error(`it is signed by ${own[0].name}+${idHex(own[0].id)}, the key that signed the game's head: a log has a key of its own, never the service's`);
  }
  return { cp, signed: [...own, ...signed.filter((k) => !own.includes(k))] };
}

// --- RFC 9162 section 2.1 ---------------------------------------------------------------------------------------

export async function leafHash(bytes) { return sha256(concat(new Uint8Array([0]), bytes)); }
export async function nodeHash(left, right) { return sha256(concat(new Uint8Array([1]), left, right)); }
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The root an inclusion proof leads to (RFC 9162 2.1.3.2, steps 1-4). */
export async function rootFromInclusionProof(index, size, leaf, proof) {
  if ([leaf, ...proof].some((p) => p.length !== 32)) throw new Error('the leaf hash and the proof\'s nodes must be 32-byte SHA-256 hashes');
  if (!(index >= 0 && index < size)) throw new Error(`leaf index ${index} is not inside a tree of size ${size}`);
  let fn = BigInt(index); let sn = BigInt(size - 1); let r = leaf;
  for (const p of proof) {
    if (sn === 0n) throw new Error(`the proof is longer than a tree of size ${size} allows for leaf ${index}`);
    if ((fn & 1n) || fn === sn) {
      r = await nodeHash(p, r);
      if (!(fn & 1n)) while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n; sn >>= 1n;
  }
  if (sn !== 0n) throw new Error(`the proof is shorter than a tree of size ${size} needs for leaf ${index}`);
  return r;
}

/** RFC 9162 2.1.4.2: the tree of size `first` (root firstRoot) is a prefix of the one of size `second`. */
export async function verifyConsistency(first, second, proof, firstRoot, secondRoot) {
  if (first > second) throw new Error(`a tree of size ${first} cannot be a prefix of one of size ${second}`);
  if (first === 0) throw new Error('a consistency proof from the empty tree is meaningless');
  if (first === second) {
    if (proof.length) throw new Error('equal tree sizes need an empty consistency proof');
    if (!same(firstRoot, secondRoot)) throw new Error(`two different roots for the same tree size ${first}`);
    return;
  }
  if (!proof.length) throw new Error('an empty consistency proof between different tree sizes');
  if ([firstRoot, secondRoot, ...proof].some((p) => p.length !== 32)) throw new Error('every hash in a proof is 32 bytes');
  const path = [...proof];
  if ((first & (first - 1)) === 0) path.unshift(firstRoot);
  let fn = BigInt(first - 1); let sn = BigInt(second - 1);
  while (fn & 1n) { fn >>= 1n; sn >>= 1n; }
  let fr = path[0]; let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) throw new Error(`the consistency proof is longer than sizes ${first} and ${second} allow`);
    if ((fn & 1n) || fn === sn) {
      fr = await nodeHash(c, fr); sr = await nodeHash(c, sr);
      if (!(fn & 1n)) while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn >>= 1n; sn >>= 1n;
  }
  if (sn !== 0n) throw new Error(`the consistency proof is shorter than sizes ${first} and ${second} need`);
  if (!same(fr, firstRoot) || !same(sr, secondRoot)) throw new Error(`the consistency proof from size ${first} to ${second} leads to other roots`);
}

// --- the report ----------------------------------------------------------------------------------------------------

const short = (digest) => `${String(digest).slice(0, 12)}…`;

class Report {
  constructor(gameId) { this.gameId = gameId; this.checks = []; }
  add(name, status, detail, problem = null) { this.checks.push({ name, status, detail, problem }); }
  fail(name, version, reason) { this.add(name, FAIL, `version ${version}: ${reason}`, { version, reason }); }
  get firstProblem() {
    const found = this.checks.filter((c) => c.problem)
      .map((c) => [c.problem.version, TIE_ORDER[c.name] ?? 9, c.problem]);
    found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return found.length ? found[0][2] : null;
  }
  result() {
    const first = this.firstProblem;
    return { game_id: this.gameId, ok: !first, checks: this.checks, first_problem: first,
      not_checked: 'The legality of every action (the deal, draws and scores replayed from the seed through the rules '
        + 'engine) is not checked in the browser: run `python -m torres_audit verify record.json` offline.' };
  }
}

function checkFormat(plain) {
  if (!plain || typeof plain !== 'object' || Array.isArray(plain)) return 'the record is not a JSON object';
  const names = Object.keys(plain);
  const missing = RECORD_MEMBERS.filter((m) => !names.includes(m));
  const unknown = names.filter((m) => !RECORD_MEMBERS.includes(m));
  if (missing.length) return `members missing: ${missing.join(', ')}`;
  if (unknown.length) return `unknown members: ${unknown.join(', ')}`;
  if (plain.format !== FORMAT) return `the format is ${JSON.stringify(plain.format)}, not ${FORMAT}`;
  if (!Array.isArray(plain.events) || !plain.events.length) return 'a record has at least one event';
  if (plain.status !== 'over' && plain.status !== 'active') return `the status is ${JSON.stringify(plain.status)}`;
  return null;
}

/**
 * Verify a record's text in the browser.
 * @param {string} recordText the body of GET /v1/games/<id>/record, as served
 * @param {object} opts
 *   checkpoint: the latest checkpoint's text (GET /v1/audit/checkpoint), or null;
 *   logKeys: vkey texts the page trusts for checkpoints and the head (e.g. /.well-known/torres-audit-key's lines);
 *   keySource: words for where those keys came from (shown in the report);
 *   consistency(first, second): a promise of {proof: [base64…]} (GET /v1/audit/proof/consistency), used when the
 *   latest checkpoint is larger than the record's.
 * @returns {{ok, checks: [{name, status, detail, problem}], first_problem: {version, reason}|null, not_checked}}
 */
export async function auditRecord(recordText, { checkpoint = null, logKeys = [], keySource = 'the page', consistency = null } = {}) {
  let raw; let plain;
  try {
    plain = JSON.parse(recordText);
    raw = parseKeepingNumbers(recordText);
  } catch (err) {
    const report = new Report(null);
    report.fail('format', 0, `the record is not JSON: ${err.message}`);
    return report.result();
  }
  const report = new Report(typeof plain?.game_id === 'string' ? plain.game_id : null);
  const bad = checkFormat(plain);
  if (bad) { report.fail('format', 0, bad); return report.result(); }
  const full = plain.reader?.kind === 'full';
  const withheld = plain.events.filter((e) => e.content_hash !== undefined).map((e) => e.version);
  if (full && withheld.length) { report.fail('format', withheld[0], 'a full record withholds this event\'s payload'); return report.result(); }
  report.add('format', OK, `well-formed${withheld.length ? `; ${withheld.length} payloads withheld from this reader, their content hashes given` : ''}`);
  const gameId = plain.game_id;
  const events = raw.events;

  // chain (section 4)
  let prev = GENESIS; let broken = null;
  for (let i = 0; i < events.length && !broken; i += 1) {
    const e = events[i]; const expected = i + 1; const v = num(e.version);
    if (v !== expected) { broken = [expected, `version gap: found ${v} where ${expected} was expected`]; break; }
    if (e.prev_hash !== prev) { broken = [v, 'prev_hash does not match the previous event\'s hash']; break; }
    const content = e.content_hash !== undefined ? e.content_hash : await contentHash(gameId, e);
    if (await chainHash(prev, content) !== e.hash) { broken = [v, 'hash mismatch: the stored event was altered']; break; }
    prev = e.hash;
  }
  if (broken) report.fail('chain', ...broken);
  else report.add('chain', OK, `${events.length} events linked from the genesis hash, every content hash recomputed in the browser`);

  // head (section 10)
  const last = plain.events[plain.events.length - 1];
  const headV = plain.head?.version;
  if (headV !== last.version || plain.head?.hash !== last.hash) {
    report.fail('head', last.version, `the head says version ${headV} hash ${short(plain.head?.hash)}, the events end at version ${last.version} hash ${short(last.hash)}`);
  } else if ((plain.status === 'over') !== (last.type === 'game_ended')) {
    report.fail('head', last.version, `the record says the game is ${plain.status}, but its last event is ${last.type}`);
  } else {
    report.add('head', OK, `version ${last.version}, hash ${short(last.hash)}, game ${plain.status}`);
  }
  const statement = headText(gameId, headV, plain.head?.hash, plain.status);

  // the page's keys
  const trusted = [];
  for (const line of logKeys) { try { trusted.push(await parseVkey(line)); } catch { /* a line that is no vkey */ } }
  const pinnedWords = `a key ${keySource} gave`;

  // signature (sections 7, 8)
  let headKeys = [];
  try {
    const own = await parseVkey(plain.signature?.key || '');
    const note = parseNote(plain.signature?.note || '');
    const known = note.signatures.some((s) => trusted.some((k) => k.name === s.name && k.id === s.id));
    const { note: opened, signed } = await openNote(plain.signature.note, known ? trusted : [own]);
    if (opened.text !== statement) {
      report.fail('signature', headV, `the signed head is not this record's head: it says ${opened.text.trim().split('\n').slice(1).join(' / ')}`);
    } else {
      headKeys = signed;
      const names = signed.map((k) => `${k.name}+${idHex(k.id)}`).join(', ');
      if (known) report.add('signature', OK, `head signed by ${names} (${pinnedWords})`);
      else report.add('signature', WARN, `head signed by ${names}, the key the record names itself (not one ${keySource} gave): anyone can sign a forgery with a key of their own`);
    }
  } catch (err) {
    report.fail('signature', headV, `the signature over the head does not verify: ${err.message}`);
  }

  // seed (section 5: the commitment only)
  const created = plain.events[0];
  const ended = plain.events.find((e) => e.type === 'game_ended');
  const commitment = created?.payload?.seed_commitment;
  if (created.type !== 'game_created' || canonicalJson(raw.creation) !== canonicalJson(raw.events[0].payload)) {
    report.fail('seed', 1, 'the record\'s creation parameters are not its game_created payload');
  } else if (plain.status !== 'over') {
    if (plain.seed !== null) report.fail('seed', headV, 'a running game\'s record reveals a seed');
    else report.add('seed', SKIP, `secret until the game ends (commitment ${short(commitment)})`);
  } else if (typeof plain.seed !== 'string') {
    report.fail('seed', headV, 'a finished game\'s record must reveal its seed');
  } else if (await sha256Hex(plain.seed) !== commitment) {
    report.fail('seed', 1, `the revealed seed does not match the commitment ${short(commitment)} made at creation`);
  } else if (ended && ended.payload?.seed !== plain.seed) {
    report.fail('seed', headV, 'the record\'s seed is not the one game_ended reveals');
  } else {
    report.add('seed', OK, `the revealed seed's SHA-256 matches the commitment ${short(commitment)} made at creation`);
  }

  report.add('replay', SKIP, 'not in the browser: the legality of every action, the deal and the scores are replayed by `python -m torres_audit verify` (offline)');

  // result
  if (plain.status !== 'over') {
    if (plain.result !== null) report.fail('result', headV, 'a running game\'s record has a result');
    else report.add('result', SKIP, 'the game is not over');
  } else if (!ended) {
    report.add('result', SKIP, 'no game_ended among the events (see the head)');
  } else if (canonicalJson(raw.result) !== canonicalJson(raw.events[plain.events.indexOf(ended)].payload)) {
    report.fail('result', ended.version, 'the record\'s result is not the one game_ended records');
  } else {
    const r = ended.payload;
    report.add('result', OK, `the record's result is game_ended's: scores ${JSON.stringify(r.scores)}, ${r.winner !== null ? `winner seat ${r.winner}` : `shared first place ${JSON.stringify(r.winners)}`}, ${r.reason} (the scores themselves are the replay's)`);
  }

  // inclusion (section 9)
  await checkInclusion(plain, statement, headV, trusted, headKeys, keySource, checkpoint, consistency, report);
  return report.result();
}

async function checkInclusion(plain, statement, headV, trusted, headKeys, keySource, checkpoint, consistency, report) {
  const inc = plain.inclusion;
  if (inc === null) {
    report.add('inclusion', SKIP, 'no inclusion proof in the record (the transparency log does not hold this head yet)');
    return;
  }
  if (plain.status !== 'over') { report.fail('inclusion', headV, 'only a finished game\'s head goes into the transparency log'); return; }
  let cp; let signed; let pinned = trusted.length > 0;
  try {
    const logKey = await parseVkey(inc.log_key || '');
    ({ cp, signed } = await openCheckpoint(inc.checkpoint, pinned ? trusted : [logKey], headKeys));
  } catch (err) {
    report.fail('inclusion', headV, `the record's checkpoint does not verify: ${err.message}`);
    return;
  }
  if (inc.tree_size !== cp.size) {
    report.fail('inclusion', headV, `the proof is for tree size ${inc.tree_size}, its checkpoint is of size ${cp.size}`);
    return;
  }
  try {
    const proof = inc.proof.map((p, i) => b64decode(p, `the proof's node ${i}`));
    const root = await rootFromInclusionProof(inc.leaf_index, inc.tree_size, await leafHash(enc.encode(statement)), proof);
    if (!same(root, cp.root)) throw new Error(`the inclusion proof of leaf ${inc.leaf_index} leads to another root than the tree of size ${cp.size} has`);
  } catch (err) {
    report.fail('inclusion', headV, `the inclusion proof does not verify: ${err.message}`);
    return;
  }
  let against = '';
  if (checkpoint) {
    try {
      const { cp: latest } = await openCheckpoint(checkpoint, pinned ? trusted : [await parseVkey(inc.log_key)], headKeys);
      if (latest.origin !== cp.origin) throw new Error(`the latest checkpoint is of ${latest.origin}, the record's of ${cp.origin}`);
      if (latest.size < cp.size) throw new Error(`the latest checkpoint (size ${latest.size}) is older than the record's (size ${cp.size})`);
      if (latest.size === cp.size) {
        if (!same(latest.root, cp.root)) throw new Error(`two roots for tree size ${cp.size}: the log shows two different histories (keep both as evidence)`);
        against = ', the latest checkpoint is the same tree';
      } else {
        if (!consistency) throw new Error(`the latest checkpoint is of size ${latest.size}, the record's of ${cp.size}, and no consistency proof was fetched`);
        const answer = await consistency(cp.size, latest.size);
        await verifyConsistency(cp.size, latest.size, answer.proof.map((p, i) => b64decode(p, `the consistency proof's node ${i}`)), cp.root, latest.root);
        against = `, and the log's latest checkpoint (size ${latest.size}) extends that tree (consistency proof checked)`;
      }
    } catch (err) {
      report.fail('inclusion', headV, `the latest checkpoint does not agree with the record's: ${err.message}`);
      return;
    }
  }
  const names = signed.map((k) => k.name).join(', ');
  report.add('inclusion', pinned ? OK : WARN,
    `the head is leaf ${inc.leaf_index} of ${cp.origin} at tree size ${cp.size}${against}; checkpoint signed by ${names} `
    + `(${pinned ? `a key ${keySource} gave` : 'the log key the record names itself'})`);
}

// --- the replay view's panel ----------------------------------------------------------------------------------------

const KEY_URL = '/.well-known/torres-audit-key';

async function fetchText(api, path, creds = {}) {
  const headers = {};
  if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
  if (creds.admin) headers['X-Admin-Key'] = creds.admin;
  const response = await fetch(api.base + path, { headers });
  if (!response.ok) throw new Error(`GET ${path.split('?')[0]}: HTTP ${response.status}`);
  return response.text();
}

/** Where a browser keeps the latest checkpoint it verified, per service and log. */
export const KEPT_PREFIX = 'torres-audit-checkpoint';

const describeCp = (cp) => `size ${cp.size} root ${btoa(String.fromCharCode(...cp.root))}`;

/**
 * Every browser a monitor (docs/audit.md, "The browser's kept checkpoint"): keep the latest checkpoint this browser
 * verified for this service in its storage, and check each later one against it: the same root at the same size,
 * or the log's consistency proof from the kept tree to the new one (RFC 9162 2.1.4.2). A rollback, a fork or a
 * proof that fails is an inconsistent history signed by the service: the kept checkpoint is left as it is (it is
 * the evidence) and both are returned for download. Returns {state: 'first' | 'consistent' | 'inconsistent' |
 * 'unavailable', detail, kept, latest}.
 */
export async function watchLog(service, checkpointText, logKeys, consistency, storage = window.localStorage) {
  if (!checkpointText) return { state: 'unavailable', detail: 'the log serves no checkpoint yet: nothing to keep' };
  const trusted = [];
  for (const text of logKeys) trusted.push(await parseVkey(text));
  const { cp: latest } = await openCheckpoint(checkpointText, trusted);
  const slot = `${KEPT_PREFIX}:${service}:${latest.origin}`;
  const keptText = storage.getItem(slot);
  if (keptText === null) {
    storage.setItem(slot, checkpointText);
    return { state: 'first', detail: `first visit: this browser now keeps the log's checkpoint (${describeCp(latest)}) and will check that every later one extends it`, latest: checkpointText };
  }
  const kept = parseCheckpoint(parseNote(keptText).text);
  const inconsistent = (why) => ({ state: 'inconsistent', kept: keptText, latest: checkpointText, keptSize: kept.size, latestSize: latest.size,
    detail: `${why}. Both checkpoints carry the service's own signature: the service has shown an inconsistent history. Keep both files as evidence.` });
  if (latest.size < kept.size) {
    return inconsistent(`the log was rolled back: this browser kept its checkpoint of ${describeCp(kept)} on an earlier visit, the service now serves ${describeCp(latest)}`);
  }
  if (latest.size === kept.size) {
    if (!same(latest.root, kept.root)) return inconsistent(`the log forked: two different roots for tree size ${kept.size}, the one this browser kept (${describeCp(kept)}) and the one served now (${describeCp(latest)})`);
    return { state: 'consistent', detail: `the log's checkpoint is the one this browser kept on an earlier visit (${describeCp(kept)})`, latest: checkpointText };
  }
  try {
    const answer = await consistency(kept.size, latest.size);
    await verifyConsistency(kept.size, latest.size, answer.proof.map((p, i) => b64decode(p, `the consistency proof's node ${i}`)), kept.root, latest.root);
  } catch (err) {
    return inconsistent(`the log forked: its checkpoint of ${describeCp(latest)} does not extend the one this browser kept (${describeCp(kept)}): ${err.message}`);
  }
  storage.setItem(slot, checkpointText);
  return { state: 'consistent', detail: `the log's checkpoint (size ${latest.size}) extends the one this browser kept on an earlier visit (size ${kept.size}): consistency proof checked`, latest: checkpointText };
}

/** Fetch the game's record (with the reader's credentials), the log's latest checkpoint and its published keys,
 * audit the record in this browser, and check the checkpoint against the one this browser kept. */
export async function auditGame(api, gameId, creds) {
  const recordText = await fetchText(api, `/v1/games/${encodeURIComponent(gameId)}/record`, creds);
  const [checkpoint, keys] = await Promise.all([
    fetchText(api, '/v1/audit/checkpoint').catch(() => null),
    fetchText(api, KEY_URL).catch(() => ''),
  ]);
  const consistency = async (first, second) => JSON.parse(
    await fetchText(api, `/v1/audit/proof/consistency?first=${first}&second=${second}`));
  const logKeys = keys.split('\n').filter(Boolean);
  const report = await auditRecord(recordText, {
    checkpoint, logKeys, keySource: `this server's ${KEY_URL}`, consistency,
  });
  const service = new URL(api.base || '/', location.href).origin;
  const history = await watchLog(service, checkpoint, logKeys, consistency)
    .catch((err) => ({ state: 'unavailable', detail: `the log's checkpoint could not be checked: ${err.message}` }));
  return { ...report, history };
}

function download(id, text, name, label) {
  return h('a', { id, href: `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`, download: name }, label);
}

/** The kept-checkpoint check (data-state: first, consistent, inconsistent, unavailable). */
function historyBox(history) {
  if (!history) return null;
  if (history.state !== 'inconsistent') {
    return h('p', { id: 'log-history', 'data-state': history.state, class: history.state === 'consistent' ? 'badge-ok' : 'muted' },
      `${history.state === 'consistent' ? '✔ ' : ''}The log's history: ${history.detail}.`);
  }
  return h('section', { id: 'log-history', 'data-state': 'inconsistent', role: 'alert', 'aria-labelledby': 'log-history-title' },
    h('h4', { id: 'log-history-title', class: 'badge-bad' }, '✘ Inconsistent history signed by the service'),
    h('p', {}, history.detail),
    h('ul', {},
      h('li', {}, download('log-history-kept', history.kept, `checkpoint-kept-size-${history.keptSize}.txt`,
        `Download the checkpoint this browser kept (size ${history.keptSize})`)),
      h('li', {}, download('log-history-latest', history.latest, `checkpoint-served-size-${history.latestSize}.txt`,
        `Download the checkpoint the service serves now (size ${history.latestSize})`))));
}

/** Text whose `quoted` parts become <code> elements. */
const words = (text) => text.split('`').map((part, i) => (i % 2 ? h('code', {}, part) : part));

const MARK = { [OK]: '✔', [FAIL]: '✘', [SKIP]: '–', [WARN]: '!' };

/** The report as the panel `#browser-audit` shows it (data-state: checking, ok, refused, error). */
export function renderAudit(box, result, error = null) {
  box.id = 'browser-audit';
  box.classList.add('browser-audit');
  const heading = h('h3', {}, 'Checked in this browser');
  if (error) {
    box.dataset.state = 'error';
    box.replaceChildren(heading, h('p', { class: 'badge-bad', id: 'browser-audit-verdict' }, `✘ the record could not be checked: ${error.message || error}`));
    return;
  }
  if (!result) {
    box.dataset.state = 'checking';
    box.replaceChildren(heading, h('p', { class: 'muted', id: 'browser-audit-verdict' }, 'Checking the game record…'));
    return;
  }
  const first = result.first_problem;
  const warned = result.checks.filter((c) => c.status === WARN).map((c) => c.name);
  box.dataset.state = first ? 'refused' : 'ok';
  const verdict = first
    ? h('p', { class: 'badge-bad', id: 'browser-audit-verdict' }, `✘ REFUSED at version ${first.version}: ${first.reason}`)
    : h('p', { class: 'badge-ok', id: 'browser-audit-verdict' }, `✔ VERIFIED in this browser${warned.length ? ` (with warnings: ${warned.join(', ')})` : ''}`);
  const list = h('ul', { class: 'audit-checks', id: 'browser-audit-checks' }, ...result.checks.map((c) => h('li',
    { 'data-check': c.name, 'data-status': c.status, class: c.status === FAIL ? 'badge-bad' : '' },
    `${MARK[c.status] || ''} ${c.name}: `, ...words(c.detail))));
  box.replaceChildren(heading, verdict, list, ...[historyBox(result.history)].filter(Boolean),
    h('p', { class: 'muted', id: 'browser-audit-not-checked' }, ...words(result.not_checked)),
    h('p', { class: 'muted', id: 'browser-audit-keys' }, ...words(`The log's key was fetched from this same server (${KEY_URL}): `
      + 'that proves less than a key you pinned yourself from the operator\'s published runbook '
      + '(`python -m torres_audit verify record.json --key <vkey> --checkpoint <checkpoint from a witness>`).')));
}
