#!/usr/bin/env node
// A small Node.js client of the Preferans gRPC API (no Python involved): it loads the public
// contract proto/preferans/v1/game.proto at run time, creates a game for three players, plays
// one full deal through the API with a simple random policy, shows the error model once (an
// illegal move answers FAILED_PRECONDITION), prints the first deal of the scoresheet and reads
// the game's events back in batches (WatchGameBatches).
//
//   node play.js [HOST:PORT]        (or PREF_SERVER=HOST:PORT; default 127.0.0.1:50051)
//   node play.js HOST:PORT --tls-ca ca.pem [--tls-cert me.pem --tls-key me.key]
//                                   (TLS, trusting that CA; mTLS with a client certificate;
//                                    or PREF_TLS_CA, PREF_TLS_CLIENT_CERT, PREF_TLS_CLIENT_KEY)
//
// Exit status: 0 when the deal was played and scored, 1 on any gRPC error or check failure.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const {
  CALL_DEADLINE_MS,
  PROTO_DIR,
  callOf,
  channelCredentials,
  chooseAction,
  errorInfo,
  loadContract,
  metadataOf,
  newRequestId,
  parseArgs,
  runMain,
  toProtoAction,
} = require('./lib');

const OVERALL_TIMEOUT_MS = Number(process.env.PREF_TIMEOUT_MS || 60_000);
const WATCH_BATCH_SIZE = 5; // small, so that the watch below spans several batches
const MAX_ACTIONS = 500; // a deal needs about 40 decisions; this only guards against a loop
const PROTO_FILE = path.join(PROTO_DIR, 'game.proto');

// Arguments: an optional HOST:PORT and the --tls-* options (each also an environment variable).
const { options, positional } = parseArgs(process.argv);
const address = positional[0] || process.env.PREF_SERVER || '127.0.0.1:50051';

const overall = setTimeout(() => {
  console.error(`timeout: no result after ${OVERALL_TIMEOUT_MS / 1000} s (server ${address})`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS);

// The contract, loaded from the .proto file (no generated code).
const { GameService } = loadContract(['game.proto']);
const client = new GameService(address, channelCredentials(options));
const call = (method, request, token) => callOf(client, method, request, token);

// ---------------------------------------------------------------------------------------

function describeView(view) {
  return `deal ${view.deal_number}, ${view.phase.replace('PHASE_', '').toLowerCase()}`;
}

async function main() {
  console.log(`server ${address}, contract ${path.relative(process.cwd(), PROTO_FILE)}`);

  // 1. Create a game: three players, the default rules; one secret token per seat.
  const created = await call('CreateGame', {
    players: ['node-a', 'node-b', 'node-c'].map((id) => ({ player_id: id, display_name: id })),
    rules: { name: 'default' },
    request_id: newRequestId(),
    // A retry with the same request_id returns the seat tokens only with the same secret.
    creator_secret: crypto.randomBytes(16).toString('hex'),
  });
  const name = created.game.name;
  const tokens = created.seat_tokens;
  if (tokens.length !== 3) throw new Error(`expected 3 seat tokens, got ${tokens.length}`);
  console.log(`created ${name} (deal ${created.game.deal_number}, dealer seat ${created.game.dealer}, ` +
    `seed commitment ${created.game.seed_commitment.slice(0, 16)}…)`);
  for (let seat = 0; seat < 3; seat++) {
    const joined = await call('JoinGame', { name }, tokens[seat]);
    if (joined.seat !== seat) throw new Error(`token ${seat} joined seat ${joined.seat}`);
  }

  const view = (seat, minVersion) =>
    call('GetSeatView', { name, min_version: minVersion }, tokens[seat]).then((r) => r.view);

  // 2. Play until the deal number advances (or the game is over).
  let version = Number(created.game.version);
  let shownError = false;
  let actions = 0;
  let lastView = null;
  for (;;) {
    if (actions > MAX_ACTIONS) throw new Error(`no end of the deal after ${MAX_ACTIONS} actions`);
    const game = (await call('GetGame', { name })).game;
    const first = await view(0, version);
    if (game.status === 'GAME_STATUS_FINISHED' || game.deal_number >= 2 || first.deal_number >= 2) {
      break;
    }
    if (first.actor < 0) {
      // Nobody to act in deal 1: the deal is scored and the next is being dealt; read again.
      version = Math.max(version, Number(game.version));
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const actor = first.actor;
    const actorView = actor === 0 ? first : await view(actor, version);
    if (actorView.legal_actions.length === 0) {
      throw new Error(`seat ${actor} is the actor but has no legal actions (${describeView(actorView)})`);
    }
    lastView = actorView;

    if (!shownError && actorView.phase === 'PHASE_BIDDING') {
      // 3. The error model, once: a card during the auction is against the rules.
      const card = actorView.hand[0];
      try {
        await call('SubmitAction', { name, action: { play_card: card }, request_id: newRequestId() },
          tokens[actor]);
        throw new Error('an illegal card during the auction was accepted');
      } catch (err) {
        if (err.code !== grpc.status.FAILED_PRECONDITION) throw err;
        const info = errorInfo(err);
        console.log(`illegal move (seat ${actor} plays ${card} in the auction) → ` +
          `${grpc.status[err.code]} (${err.code}): ${err.details}`);
        if (info) {
          console.log(`  ErrorInfo reason ${info.reason}, allowed: ${info.metadata.allowed}`);
        }
      }
      shownError = true;
    }

    const choice = chooseAction(actorView);
    const action = toProtoAction(choice, actorView.phase);
    const response = await call('SubmitAction', { name, action, request_id: newRequestId() },
      tokens[actor]);
    version = Number(response.version);
    actions += 1;
    if (actorView.phase !== 'PHASE_PLAY') {
      console.log(`  seat ${actor} [${describeView(actorView)}] ${choice}`);
    }
  }

  // 4. The first deal on the scoresheet.
  const sheet = (await call('GetScoresheet', { name, min_version: version })).scoresheet;
  const deal = sheet.deals.find((d) => d.deal_number === 1);
  if (!deal) throw new Error('the scoresheet has no entry for deal 1');
  if (deal.entries.length !== 3) throw new Error(`deal 1 has ${deal.entries.length} entries, not 3`);
  const final = await call('GetGame', { name });
  console.log(`deal 1 played in ${actions} actions; the game is now at deal ${final.game.deal_number}, ` +
    `version ${final.game.version}, status ${final.game.status}`);
  const played = deal.tricks.some((t) => t > 0);
  console.log(`deal 1: ${deal.kind}` +
    (deal.declarer >= 0 && deal.contract ? `, declarer seat ${deal.declarer}, contract ${deal.contract}` : '') +
    (played ? `, tricks by seat ${deal.tricks.join('-')}` : ', not played out (no whist)'));
  const players = created.game.players.map((p) => p.player_id);
  for (const row of deal.entries) {
    console.log(`  seat ${row.seat} (${players[row.seat]}): pool ${row.pool}, gora ${row.gora}, ` +
      `whists ${row.whists.join(' / ')}`);
  }
  console.log(`totals: ${sheet.totals.map((r) => `seat ${r.seat} pool ${r.pool} gora ${r.gora}`).join('; ')}`);
  if (lastView === null) throw new Error('no action was played');

  // 5. The game's events as seat 0 may see them, from the start, in batches (WatchGameBatches):
  // every version once, in order, across batch boundaries; seat 0 is dealt only its own hand.
  const latest = Number(final.game.version);
  const { events, batches } = await watchBatches(name, tokens[0], latest, WATCH_BATCH_SIZE);
  const versions = events.map((e) => Number(e.version));
  if (versions.length !== latest || versions.some((v, i) => v !== i + 1)) {
    throw new Error(`the batched watch sent versions ${versions.join(',')}, not 1 to ${latest}`);
  }
  for (const e of events) {
    if (e.event === 'deal_dealt' && e.revealed.some((hand) => hand.seat !== 0)) {
      throw new Error(`seat 0 was shown another seat's hand at version ${e.version}`);
    }
  }
  console.log(`watched ${events.length} events as seat 0 in ${batches} batches ` +
    `(max_batch_size ${WATCH_BATCH_SIZE})`);
}

// Reads WatchGameBatches from version 0 until `latest`: the events (heartbeats skipped) and the
// number of stream messages; then cancels the stream.
function watchBatches(name, token, latest, maxBatchSize) {
  const metadata = metadataOf(token);
  const stream = client.WatchGameBatches(
    { name, from_version: 0, heartbeat_seconds: 300, max_batch_size: maxBatchSize },
    metadata,
    { deadline: new Date(Date.now() + CALL_DEADLINE_MS) },
  );
  const events = [];
  let batches = 0;
  return new Promise((resolve, reject) => {
    let done = false;
    stream.on('data', (batch) => {
      batches += 1;
      if (batch.updates.length < 1 || batch.updates.length > maxBatchSize) {
        done = true;
        stream.cancel();
        reject(new Error(`a batch of ${batch.updates.length} updates (max ${maxBatchSize})`));
        return;
      }
      for (const update of batch.updates) if (update.event !== 'heartbeat') events.push(update);
      if (events.length > 0 && Number(events[events.length - 1].version) >= latest && !done) {
        done = true;
        stream.cancel();
        resolve({ events, batches });
      }
    });
    stream.on('error', (err) => {
      if (done && err.code === grpc.status.CANCELLED) return;
      done = true;
      err.method = 'WatchGameBatches';
      reject(err);
    });
  });
}

runMain(main, () => {
  clearTimeout(overall);
  client.close();
});
