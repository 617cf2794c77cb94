// The replay's fold (src/fold.ts) on hand-built streams: what a seat's stream reveals is all it
// shows, cards leave the hand when played, tricks go to the right seat, the sheet adds up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { Folder, trickWinner } from '../src/fold';
import { WatchGameResponseSchema, type WatchGameResponse } from '../src/gen/preferans/v1/game_pb';

type Init = Parameters<typeof create<typeof WatchGameResponseSchema>>[1];
const msg = (init: Init): WatchGameResponse => create(WatchGameResponseSchema, init);

let version = 0;
const ev = (event: NonNullable<Init>['event'], extra: Omit<NonNullable<Init>, 'event'> = {}): WatchGameResponse =>
  msg({ version: BigInt(++version), event, ...extra });
const act = (seat: number, kind: object, extra: Omit<NonNullable<Init>, 'event'> = {}): WatchGameResponse =>
  ev({ case: 'action', value: { seat, actor: seat, hand: seat, decider: seat, action: { kind: kind as never } } }, extra);
const play = (seat: number, card: string, extra: Omit<NonNullable<Init>, 'event'> = {}) =>
  act(seat, { case: 'playCard', value: card }, extra);

const HAND0 = ['7♠', '8♠', '9♠', '10♠', 'J♠', '7♣', '8♣', '9♣', '10♣', 'J♣'];

function opening(): WatchGameResponse[] {
  version = 0;
  return [
    ev({ case: 'gameCreated', value: { players: [{ playerId: 'ann' }, { playerId: 'bob' }, { playerId: 'cid' }], seats: 3 } }),
    ev({ case: 'dealDealt', value: { dealNumber: 1, dealer: 2 } }, { revealed: [{ seat: 0, cards: HAND0 }] }),
  ];
}

test('trick winner: the highest trump, else the highest card of the suit led', () => {
  const trick = [
    { seat: 0, card: '10♥' },
    { seat: 1, card: 'A♣' },
    { seat: 2, card: 'Q♥' },
  ];
  assert.equal(trickWinner(trick, ''), 2); // Q♥ over 10♥; A♣ is off suit
  assert.equal(trickWinner(trick, '♣'), 1); // clubs trump
  assert.equal(trickWinner(trick, '♠'), 2);
  assert.equal(trickWinner([{ seat: 1, card: '7♦' }, { seat: 2, card: '8♦' }, { seat: 0, card: 'K♦' }], 'NT'), 0);
  // Raspasy's first tricks: the talon card turned up sets the suit led.
  assert.equal(trickWinner(trick, '', '♣'), 1);
});

test('a seat sees its own hand and nobody else’s until the stream reveals it', () => {
  const f = new Folder(3, 0, ['ann', 'bob', 'cid']);
  for (const m of opening()) f.add(m);
  const frame = f.frames.at(-1)!;
  assert.deepEqual(frame.board.hand, HAND0);
  assert.equal(frame.board.visibleHands.size, 0);
  assert.deepEqual(frame.board.talon, ['', '']); // face down
  assert.equal(frame.board.dealer, 2);
  assert.equal(frame.board.dealNumber, 1);
});

test('a contract deal: auction, talon, contract, whisting, tricks, scoring', () => {
  const f = new Folder(3, 0, ['ann', 'bob', 'cid']);
  const stream = [
    ...opening(),
    act(0, { case: 'pass', value: {} }),
    act(1, { case: 'bid', value: '6♥' }),
    act(2, { case: 'pass', value: {} }),
    act(1, { case: 'takeTalon', value: {} }, { talon: ['7♦', '8♦'] }),
    act(1, { case: 'discard', value: { cards: [] } }), // another seat's discard: no cards
    act(1, { case: 'declare', value: '6♥' }),
    act(2, { case: 'whist', value: {} }),
    act(0, { case: 'pass', value: {} }),
    play(0, '7♣'),
    play(1, 'A♥'), // bob trumps
    play(2, 'K♣'),
    play(1, 'K♥'),
  ];
  for (const m of stream) f.add(m);
  const frames = f.frames;
  const last = frames.at(-1)!;
  assert.deepEqual(
    last.board.auction.map((c) => [c.seat, c.call]),
    [
      [0, 'pass'],
      [1, '6♥'],
      [2, 'pass'],
    ],
  );
  assert.deepEqual(
    last.board.whistCalls.map((c) => [c.seat, c.call]),
    [
      [2, 'whist'],
      [0, 'pass'],
    ],
  );
  assert.equal(last.board.declarer, 1);
  assert.equal(last.board.contract, '6♥');
  assert.deepEqual(last.board.talon, ['7♦', '8♦']);
  // Bob's hand was never revealed to ann: no card of it is shown.
  assert.equal(last.board.visibleHands.size, 0);
  // Ann's 7♣ left her hand; bob took the first trick with a trump and leads the second.
  assert.ok(!last.board.hand.includes('7♣'));
  assert.equal(last.board.hand.length, 9);
  assert.deepEqual(last.board.tricks, [0, 1, 0]);
  assert.deepEqual(last.board.lastTrick.map((p) => p.card), ['7♣', 'A♥', 'K♣']);
  assert.deepEqual(last.board.trick, [{ seat: 1, card: 'K♥' }]);
  // The frame of the third card still shows the whole trick.
  const third = frames[frames.length - 2];
  assert.equal(third.board.trick.length, 3);
  // Stepping back shows the table as it was: the first frame has no hand at all.
  assert.deepEqual(frames[0].board.hand, []);
  assert.equal(frames[0].version, 0);
});

test('raspasy: the talon card turned up sets the first trick’s suit', () => {
  const f = new Folder(3, 0, ['ann', 'bob', 'cid']);
  const stream = [
    ...opening(),
    act(0, { case: 'pass', value: {} }),
    act(1, { case: 'pass', value: {} }),
    act(2, { case: 'pass', value: {} }),
    play(0, '7♠', { talon: ['A♦'] }), // the talon's A♦ turned up: diamonds led
    play(1, '8♦'),
    play(2, 'K♠'),
  ];
  for (const m of stream) f.add(m);
  const last = f.frames.at(-1)!;
  assert.deepEqual(last.board.talon, ['A♦', '']);
  assert.deepEqual(last.board.tricks, [0, 1, 0]); // bob's 8♦ is the only diamond
});

test('the scoresheet adds up each scored deal and the rulings; the next deal starts afresh', () => {
  const f = new Folder(3, 0, ['ann', 'bob', 'cid']);
  const row = (seat: number, pool: number, gora: number, whists: number[]) => ({ seat, pool, gora, whists });
  const stream = [
    ...opening(),
    ev(
      { case: 'dealScored', value: { dealNumber: 1, kind: 'game', declarer: 1, contract: '6♥', tricks: [2, 6, 2], entries: [row(0, 0, 0, [0, 4, 0]), row(1, 2, 0, [0, 0, 0]), row(2, 0, 0, [0, 4, 0])], talon: ['7♦', '8♦'] } },
      { revealed: [{ seat: 1, cards: [] }] },
    ),
    ev({ case: 'dealDealt', value: { dealNumber: 2, dealer: 0 } }, { revealed: [{ seat: 0, cards: HAND0 }] }),
    ev(
      { case: 'dealScored', value: { dealNumber: 2, kind: 'raspasy', declarer: -1, tricks: [1, 4, 5], entries: [row(0, 1, 0, [0, 0, 0]), row(1, 0, 4, [0, 0, 0]), row(2, 0, 5, [0, 0, 0])] } },
    ),
    ev({ case: 'rulingRecorded', value: { dealNumber: 2, reason: 'r', adjustment: [row(0, 0, 0, [0, 0, 0]), row(1, 0, -2, [0, 0, 0]), row(2, 0, 0, [0, 0, 0])] } }),
    ev({ case: 'gameFinished', value: { settlement: ['1', '2', '-3'] } }),
  ];
  for (const m of stream) f.add(m);
  const frames = f.frames;
  const last = frames.at(-1)!;
  assert.deepEqual(
    last.totals.map((r) => [r.pool, r.gora, r.whists]),
    [
      [1, 0, [0, 4, 0]],
      [2, 2, [0, 0, 0]],
      [0, 5, [0, 4, 0]],
    ],
  );
  assert.equal(last.deals.length, 2);
  assert.deepEqual(last.settlement, ['1', '2', '-3']);
  assert.equal(last.scored?.dealNumber, 2);
  const deal2 = frames.find((fr) => fr.board.dealNumber === 2)!;
  assert.deepEqual(deal2.board.auction, []);
  assert.deepEqual(deal2.board.tricks, [0, 0, 0]);
  assert.equal(deal2.scored?.dealNumber, 1);
});

test('open hands come with the event that reveals them, and shrink as their cards are played', () => {
  const f = new Folder(3, 2, ['ann', 'bob', 'cid']);
  const stream = [
    ...opening(), // reveals seat 0's hand to ... seat 0's stream; here the viewer is seat 2
  ];
  for (const m of stream) f.add(m);
  // Seat 0's cards arrived in the stream: the fold shows them as an open hand.
  assert.deepEqual(f.frames.at(-1)!.board.visibleHands.get(0), HAND0);
  f.add(play(0, '7♠'));
  assert.equal(f.frames.at(-1)!.board.visibleHands.get(0)?.includes('7♠'), false);
});
