// What the Node.js clients share (play.js, players.js): the contract loaded from the .proto
// files at run time (no generated code), calls with a deadline and a bearer credential, the
// google.rpc.ErrorInfo of a refusal, and a simple random policy with the notation → Action map.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const CALL_DEADLINE_MS = 10_000;
const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_DIR = path.join(PROTO_ROOT, 'preferans', 'v1');

// The package preferans.v1 of the given files (e.g. ['game.proto', 'table.proto']).
function loadContract(files) {
  const definition = protoLoader.loadSync(
    files.map((file) => path.join(PROTO_DIR, file)),
    { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_ROOT] },
  );
  return grpc.loadPackageDefinition(definition).preferans.v1;
}

// `--tls-ca`, `--tls-cert`, `--tls-key` (each also an environment variable) and the positional
// arguments of a command line.
function parseArgs(argv) {
  const options = {
    ca: process.env.PREF_TLS_CA,
    cert: process.env.PREF_TLS_CLIENT_CERT,
    key: process.env.PREF_TLS_CLIENT_KEY,
  };
  const positional = [];
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    const flag = { '--tls-ca': 'ca', '--tls-cert': 'cert', '--tls-key': 'key' }[arg];
    if (flag) options[flag] = argv[++i];
    else positional.push(arg);
  }
  return { options, positional };
}

function channelCredentials(options) {
  if (!options.ca && !options.cert && !options.key) return grpc.credentials.createInsecure();
  if (!options.cert !== !options.key) {
    throw new Error('a client certificate needs both --tls-cert and --tls-key');
  }
  const read = (file) => (file ? fs.readFileSync(file) : null);
  return grpc.credentials.createSsl(read(options.ca), read(options.key), read(options.cert));
}

// The call metadata of `token` (a seat token or a JWT) as `authorization: Bearer <token>`; none
// for a spectator (no token).
function metadataOf(token) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

// A unary call of `client` as a promise, with `token`'s metadata and the command's request_id as
// `x-request-id` (the server logs calls under it, so both ends' logs line up).
function callOf(client, method, request, token) {
  const metadata = metadataOf(token);
  if (request.request_id) metadata.set('x-request-id', request.request_id);
  const deadline = new Date(Date.now() + CALL_DEADLINE_MS);
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline }, (err, response) => {
      if (err) {
        err.method = method;
        reject(err);
      } else {
        resolve(response);
      }
    });
  });
}

const newRequestId = () => `node-${crypto.randomUUID()}`;

// ---------------------------------------------------------------------------------------
// Error details: the server sends a google.rpc.Status in the `grpc-status-details-bin`
// trailer. Its protos are not part of the contract file, so decode the few fields needed
// (Status.details → Any → google.rpc.ErrorInfo {reason, domain, metadata}) from the wire format.

function readFields(buf) {
  const fields = [];
  let i = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) fields.push([field, varint()]);
    else if (wire === 2) {
      const len = varint();
      fields.push([field, buf.subarray(i, i + len)]);
      i += len;
    } else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return fields;
}

function errorInfo(err) {
  const raw = err.metadata && err.metadata.get('grpc-status-details-bin')[0];
  if (!raw) return null;
  try {
    for (const [field, any] of readFields(Buffer.from(raw))) {
      if (field !== 3) continue; // Status.details
      const parts = Object.fromEntries(readFields(any)); // Any {type_url = 1, value = 2}
      if (!String(parts[1]).endsWith('/google.rpc.ErrorInfo')) continue;
      const info = { reason: '', domain: '', metadata: {} };
      for (const [f, v] of readFields(parts[2] || Buffer.alloc(0))) {
        if (f === 1) info.reason = v.toString('utf8');
        else if (f === 2) info.domain = v.toString('utf8');
        else if (f === 3) {
          const entry = Object.fromEntries(readFields(v));
          info.metadata[String(entry[1] || '')] = String(entry[2] || '');
        }
      }
      return info;
    }
  } catch (e) {
    return null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// The policy: a random legal choice, never a claim, passing often in the auction.

function pick(list) {
  return list[crypto.randomInt(list.length)];
}

function chooseAction(view) {
  const legal = view.legal_actions.filter((a) => !a.startsWith('claim'));
  if (legal.length === 0) throw new Error(`seat ${view.seat} has only claims: ${view.legal_actions}`);
  if (view.phase === 'PHASE_BIDDING' && legal.includes('pass') && crypto.randomInt(3) > 0) {
    return 'pass';
  }
  if (view.phase === 'PHASE_BIDDING') {
    // Not misère (only to keep most deals ordinary), and the cheapest call otherwise.
    const calls = legal.filter((a) => a !== 'misère');
    return calls.find((a) => a !== 'pass') || calls[0] || legal[0];
  }
  if (view.phase === 'PHASE_CONTRACT') return legal[0]; // the lowest contract allowed
  return pick(legal);
}

function toProtoAction(notation, phase) {
  switch (notation) {
    case 'pass':
      return { pass: {} };
    case 'here':
      return { here: {} };
    case 'whist':
      return { whist: {} };
    case 'half-whist':
      return { half_whist: {} };
    case 'own whist':
      return { own_whist: {} };
    case 'allow':
      return { own_whist_answer: { allow: true } };
    case 'refuse':
      return { own_whist_answer: { allow: false } };
    case 'take talon':
      return { take_talon: {} };
    case 'open':
      return { choose_defence: { open: true } };
    case 'closed':
      return { choose_defence: { open: false } };
    case 'accept':
      return { accept_claim: {} };
    case 'reject':
      return { reject_claim: {} };
    case 'write off':
      return { write_off: { off: true } };
    case 'to pool':
      return { write_off: { off: false } };
    default:
      break;
  }
  if (notation.startsWith('discard ')) return { discard: { cards: notation.split(' ').slice(1) } };
  if (notation.startsWith('declare ')) return { declare: notation.slice('declare '.length) };
  if (notation.startsWith('claim ')) {
    return { claim: { tricks: notation.slice('claim '.length).split('-').map(Number) } };
  }
  if (phase === 'PHASE_PLAY') return { play_card: notation };
  return { bid: notation };
}

// Runs `main` (async): exit 0 after `cleanup()`, or exit 1 printing the gRPC status or the
// error's message.
function runMain(main, cleanup) {
  main()
    .then(() => {
      cleanup();
      process.exit(0);
    })
    .catch((err) => {
      if (typeof err.code === 'number' && err.method) {
        console.error(`gRPC error in ${err.method}: ${grpc.status[err.code]} (${err.code}): ${err.details}`);
      } else {
        console.error(`error: ${err.message}`);
      }
      process.exit(1);
    });
}

module.exports = {
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
};
