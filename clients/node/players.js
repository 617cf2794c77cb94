#!/usr/bin/env node
// Three separately authenticated players (no Python involved): each has its own JWT (from the
// server's OpenID Connect issuer; for a local `pref serve --dev-auth`, `pref token NAME`) and
// uses only that credential. The first opens a public table (TableService.CreateTable, taking
// seat 0), the others find it in the lobby (ListTables) and join it (JoinTable); when the last
// seat is taken the game starts, and each player plays its own seat (GetSeatView, SubmitAction,
// WatchGame with its JWT) with a simple random policy until the game is over (a short pool). A
// spectator watches the game meanwhile without any credential (WatchGame without
// `authorization`), and the check at the end is that it never received a card that some seat
// could not see at that moment (every seat's own stream says what it sees).
//
//   PREF_TOKENS=JWT1,JWT2,JWT3 node players.js [HOST:PORT] [--tls-ca ca.pem …]
//   PREF_TOKENS=… node players.js HOST:PORT --no-lobby   (no TableService: the first player
//                                                         creates the game with CreateGame)
//
// Exit status: 0 when the game was played to its end and every check held, 1 otherwise.
'use strict';

const {
  callOf,
  channelCredentials,
  chooseAction,
  loadContract,
  metadataOf,
  newRequestId,
  parseArgs,
  runMain,
  toProtoAction,
} = require('./lib');

const OVERALL_TIMEOUT_MS = Number(process.env.PREF_TIMEOUT_MS || 120_000);
const POOL_TARGET = Number(process.env.PREF_POOL || 1);
const LOBBY_WAIT_MS = 10_000;
const CARD = /^(10|[7-9JQKA])[♠♣♦♥]$/u;

const { options, positional } = parseArgs(process.argv);
const noLobby = positional.includes('--no-lobby');
const address = positional.find((a) => !a.startsWith('--')) || process.env.PREF_SERVER || '127.0.0.1:50051';
const tokens = (process.env.PREF_TOKENS || '').split(',').filter(Boolean);

const overall = setTimeout(() => {
  console.error(`timeout: the game did not end within ${OVERALL_TIMEOUT_MS / 1000} s (server ${address})`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS);

const contract = loadContract(noLobby ? ['game.proto'] : ['game.proto', 'table.proto']);
const credentials = channelCredentials(options);
const games = new contract.GameService(address, credentials);
const tables = noLobby ? null : new contract.TableService(address, credentials);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The JWT's subject (its player id), read from the token's payload; only to print and, without
// the lobby, to name the players of CreateGame. The server verifies the token itself.
function subjectOf(jwt) {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
  return payload.sub;
}

// ---------------------------------------------------------------------------------------
// A game's stream (WatchGame, with or without a credential): every message kept, and a way to
// wait for the next one past a version.

class Stream {
  constructor(name, token) {
    const metadata = metadataOf(token);
    this.messages = [];
    this.waiters = [];
    this.error = null;
    this.ended = false;
    this.call = games.WatchGame({ name, from_version: 0, heartbeat_seconds: 5 }, metadata);
    this.call.on('data', (message) => {
      if (message.event !== 'heartbeat') this.messages.push(message);
      this.wake();
    });
    this.call.on('error', (err) => {
      if (!this.ended) this.error = err;
      this.ended = true;
      this.wake();
    });
    this.call.on('end', () => {
      this.ended = true;
      this.wake();
    });
  }

  wake() {
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  last() {
    return this.messages[this.messages.length - 1];
  }

  finished() {
    return this.messages.some((m) => m.event === 'game_finished');
  }

  // Until a message after `version` (or the game's end) is here.
  async after(version) {
    for (;;) {
      if (this.error) throw this.error;
      const last = this.last();
      if ((last && Number(last.version) > version) || this.finished() || this.ended) return;
      await new Promise((resolve) => this.waiters.push(resolve));
    }
  }

  close() {
    this.ended = true;
    this.call.cancel();
  }
}

// ---------------------------------------------------------------------------------------
// One player: its own JWT for every call.

class Player {
  constructor(token) {
    this.token = token;
    this.id = subjectOf(token);
    this.seat = -1;
    this.actions = 0;
  }

  call(service, method, request) {
    return callOf(service, method, request, this.token);
  }

  // Plays its seat until the game is over: a decision whenever its view says it is on turn,
  // otherwise waits for the next event of its own stream.
  async play(name, stream) {
    let version = 0;
    while (!stream.finished()) {
      const { view } = await this.call(games, 'GetSeatView', { name, min_version: version });
      version = Math.max(version, Number(view.version));
      if (view.seat !== this.seat) throw new Error(`${this.id}: the view is of seat ${view.seat}, not ${this.seat}`);
      if (view.actor === this.seat && view.legal_actions.length > 0) {
        const choice = chooseAction(view);
        const answer = await this.call(games, 'SubmitAction', {
          name,
          action: toProtoAction(choice, view.phase),
          request_id: newRequestId(),
        });
        version = Number(answer.version);
        this.actions += 1;
        continue;
      }
      await stream.after(version);
      const last = stream.last();
      if (last) version = Math.max(version, Number(last.version));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The lobby: a public table found and joined by the others.

async function findInLobby(player, tableName) {
  const deadline = Date.now() + LOBBY_WAIT_MS;
  for (;;) {
    let pageToken = '';
    do {
      const page = await player.call(tables, 'ListTables', {
        page_size: 50,
        page_token: pageToken,
        free_seat_only: true,
      });
      if (page.tables.some((t) => t.name === tableName)) return;
      pageToken = page.next_page_token;
    } while (pageToken);
    // The lobby read model is a moment behind the commands.
    if (Date.now() > deadline) throw new Error(`${player.id} did not find ${tableName} in ListTables`);
    await sleep(100);
  }
}

async function seatAtTable(players) {
  const [host, ...guests] = players;
  const created = await host.call(tables, 'CreateTable', {
    rules: { name: 'default', pool_target: POOL_TARGET },
    visibility: 'VISIBILITY_PUBLIC',
    take_seat: true,
    request_id: newRequestId(),
  });
  const table = created.table;
  host.seat = created.seat;
  console.log(`${host.id} opened ${table.name} (public, ${table.seats} seats, pool ${POOL_TARGET}), seat ${host.seat}`);
  let joined = null;
  for (const guest of guests) {
    await findInLobby(guest, table.name);
    joined = await guest.call(tables, 'JoinTable', { name: table.name, request_id: newRequestId() });
    guest.seat = joined.seat;
    console.log(`${guest.id} found it with ListTables and joined seat ${guest.seat}`);
  }
  const started = (await host.call(tables, 'GetTable', { name: table.name })).table;
  if (started.state !== 'TABLE_STATE_STARTED') throw new Error(`the full table is ${started.state}`);
  const seated = players.map((p) => started.player_ids[p.seat]);
  if (seated.join() !== players.map((p) => p.id).join()) {
    throw new Error(`the table seats ${started.player_ids}, not the players at their seats`);
  }
  return started.game;
}

async function createGame(players) {
  // Without the lobby: the first player names all three in CreateGame (the seat tokens it gets
  // back are not used: each player acts with its JWT).
  const created = await players[0].call(games, 'CreateGame', {
    players: players.map((p) => ({ player_id: p.id })),
    rules: { name: 'default', pool_target: POOL_TARGET },
    request_id: newRequestId(),
    creator_secret: newRequestId(),
  });
  players.forEach((p, seat) => {
    p.seat = seat;
  });
  return created.game.name;
}

// ---------------------------------------------------------------------------------------
// The spectator's check: every card it was shown at a version was seen by every seat by then,
// within the same deal.

function cardsOf(message) {
  const found = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (CARD.test(value)) found.add(value);
    } else if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (value && typeof value === 'object') {
      if (typeof value.rank === 'string' && typeof value.suit === 'string') {
        if (value.rank !== 'RANK_UNSPECIFIED') found.add(`${value.rank}/${value.suit}`);
      } else {
        Object.values(value).forEach(walk);
      }
    }
  };
  walk(message);
  return found;
}

function checkSpectator(spectator, seatStreams) {
  const bySeat = seatStreams.map((s) => new Map(s.messages.map((m) => [Number(m.version), m])));
  const seen = seatStreams.map(() => new Set());
  let shown = 0;
  for (const message of spectator.messages) {
    const version = Number(message.version);
    bySeat.forEach((messages, seat) => {
      const own = messages.get(version);
      if (!own) throw new Error(`seat ${seat}'s stream lacks version ${version}`);
      if (own.event === 'deal_dealt') seen[seat] = new Set();
      for (const card of cardsOf(own)) seen[seat].add(card);
    });
    for (const card of cardsOf(message)) {
      shown += 1;
      const blind = seen.findIndex((cards) => !cards.has(card));
      if (blind >= 0) {
        throw new Error(`the spectator was shown ${card} at version ${version}, hidden from seat ${blind}`);
      }
    }
  }
  if (shown === 0) throw new Error('the spectator was shown no card at all');
  return shown;
}

// ---------------------------------------------------------------------------------------

async function main() {
  if (tokens.length !== 3) throw new Error('PREF_TOKENS must hold three JWTs, comma-separated');
  const players = tokens.map((t) => new Player(t));
  console.log(`server ${address}; players ${players.map((p) => p.id).join(', ')}, each with its own JWT`);
  const name = noLobby ? await createGame(players) : await seatAtTable(players);
  console.log(`the game ${name} starts`);

  const spectator = new Stream(name, null);
  const streams = players.map((p) => new Stream(name, p.token));
  await Promise.all(players.map((p, i) => p.play(name, streams[i])));
  const final = Number((await players[0].call(games, 'GetGame', { name })).game.version);
  await Promise.all([spectator, ...streams].map((s) => s.after(final - 1)));

  const { scoresheet } = await players[0].call(games, 'GetScoresheet', { name, min_version: final });
  console.log(`game over after ${scoresheet.deals.length} deals (${players.map((p) => `${p.id} ${p.actions}`).join(', ')} decisions); ` +
    `settlement ${scoresheet.settlement.join(' / ')}`);
  if (scoresheet.settlement.length !== 3) throw new Error('the finished game has no settlement');
  const shown = checkSpectator(spectator, streams);
  console.log(`the spectator watched ${spectator.messages.length} events (${shown} cards shown) ` +
    'without a credential and never saw a card some seat could not see');
  [spectator, ...streams].forEach((s) => s.close());
}

runMain(main, () => {
  clearTimeout(overall);
  games.close();
  if (tables) tables.close();
});
