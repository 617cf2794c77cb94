// The replay's model: a seat's (or a spectator's) own event stream folded, event by event, into
// what the table looked like to that viewer after each event. Only the stream's contents are
// used — the hands and talon cards it revealed to this viewer, the actions as redacted for it —
// so a step never shows more than the viewer was shown at that moment.
import type { BoardState, Call, PlayedCard } from './board';
import type { SheetRow } from './scoresheet';
import { parseCard, rankValue, strainOf } from './cards';
import type { ActionEvent, DealScoredEvent, ScoresheetRow, WatchGameResponse } from './gen/preferans/v1/game_pb';

export interface Frame {
  version: number;
  what: string; // the event, in words
  board: BoardState;
  scored: DealScoredEvent | null; // the last scored deal so far
  totals: SheetRow[];
  deals: SheetRow[][];
  settlement: string[];
  accounts: string[];
}

type Stage = 'auction' | 'contract' | 'whisting' | 'play' | 'scored';

function emptyRows(n: number): SheetRow[] {
  return Array.from({ length: n }, () => ({ pool: 0, gora: 0, whists: Array(n).fill(0) as number[] }));
}

function rowsOf(rows: ScoresheetRow[], n: number): SheetRow[] {
  const out = emptyRows(n);
  for (const r of rows) if (r.seat >= 0 && r.seat < n) out[r.seat] = { pool: r.pool, gora: r.gora, whists: [...r.whists] };
  return out;
}

function addRows(a: SheetRow[], b: SheetRow[]): SheetRow[] {
  return a.map((row, i) => ({
    pool: row.pool + (b[i]?.pool ?? 0),
    gora: row.gora + (b[i]?.gora ?? 0),
    whists: row.whists.map((w, j) => w + (b[i]?.whists[j] ?? 0)),
  }));
}

function cloneBoard(b: BoardState): BoardState {
  return {
    ...b,
    names: [...b.names],
    hand: [...b.hand],
    visibleHands: new Map([...b.visibleHands].map(([k, v]) => [k, [...v]])),
    trick: b.trick.map((p) => ({ ...p })),
    lastTrick: b.lastTrick.map((p) => ({ ...p })),
    talon: [...b.talon],
    tricks: [...b.tricks],
    auction: b.auction.map((c) => ({ ...c })),
    whistCalls: b.whistCalls.map((c) => ({ ...c })),
  };
}

// The winner of a complete trick: the highest trump, else the highest card of the suit led
// (`led`, when a talon card turned up for the trick sets it, as in raspasy's first tricks;
// else the first card's suit).
export function trickWinner(trick: PlayedCard[], trump: string, led = ''): number {
  const suitLed = led || parseCard(trick[0].card)?.suit || '';
  let best: PlayedCard | null = null;
  for (const p of trick) {
    const c = parseCard(p.card);
    if (!c || (c.suit !== suitLed && c.suit !== trump)) continue;
    const top = best ? parseCard(best.card) : null;
    if (!top || (c.suit === top.suit ? rankValue(c.rank) > rankValue(top.rank) : c.suit === trump)) best = p;
  }
  return (best ?? trick[0]).seat;
}

export class Folder {
  readonly frames: Frame[] = [];
  private board: BoardState;
  private stage: Stage = 'auction';
  private trump = '';
  private pendingBid: Call | null = null;
  private trickDone = false;
  private raspasy = false;
  private trickIndex = 0;
  private scored: DealScoredEvent | null = null;
  private totals: SheetRow[];
  private deals: SheetRow[][] = [];
  private settlement: string[] = [];
  private accounts: string[];

  constructor(
    private seats: number,
    viewer: number,
    names: string[],
  ) {
    this.board = {
      seats,
      bottom: viewer >= 0 ? viewer : 0,
      viewer,
      names: [...names],
      dealNumber: 0,
      dealer: -1,
      declarer: -1,
      toAct: -1,
      hand: [],
      visibleHands: new Map(),
      trick: [],
      lastTrick: [],
      talon: [],
      tricks: [],
      auction: [],
      whistCalls: [],
      contract: '',
    };
    this.totals = emptyRows(seats);
    this.accounts = [...names];
    this.snapshot(0, 'The start of the game');
  }

  private name(seat: number): string {
    if (this.seats === 2 && seat === 2) return 'dummy';
    return this.board.names[seat] || `seat ${seat}`;
  }

  private snapshot(version: number, what: string): void {
    this.frames.push({
      version,
      what,
      board: cloneBoard(this.board),
      scored: this.scored,
      totals: this.totals.map((r) => ({ ...r, whists: [...r.whists] })),
      deals: this.deals,
      settlement: [...this.settlement],
      accounts: [...this.accounts],
    });
  }

  private setHand(seat: number, cards: string[]): void {
    if (seat === this.board.viewer) this.board.hand = [...cards];
    else this.board.visibleHands.set(seat, [...cards]);
  }

  private handOf(seat: number): string[] | undefined {
    return seat === this.board.viewer ? this.board.hand : this.board.visibleHands.get(seat);
  }

  private removeCards(seat: number, cards: string[]): void {
    const hand = this.handOf(seat);
    if (!hand) return;
    this.setHand(
      seat,
      hand.filter((c) => !cards.includes(c)),
    );
  }

  private addCards(seat: number, cards: string[]): void {
    const hand = this.handOf(seat);
    if (!hand) return;
    this.setHand(seat, [...hand, ...cards.filter((c) => c && !hand.includes(c))]);
  }

  private leaveAuction(): void {
    if (this.stage !== 'auction') return;
    this.stage = 'contract';
    if (this.pendingBid) {
      this.board.declarer = this.pendingBid.seat;
      this.board.contract = this.pendingBid.call;
    }
  }

  add(msg: WatchGameResponse): void {
    const e = msg.event;
    if (!e.case || e.case === 'heartbeat') return;
    const version = Number(msg.version);
    const b = this.board;
    let what = '';
    switch (e.case) {
      case 'gameCreated': {
        const players = e.value.players.map((p) => p.playerId);
        players.forEach((p, i) => (b.names[i] = p));
        this.accounts = [...players];
        what = `The game is created: ${players.join(', ')}`;
        break;
      }
      case 'dealDealt':
        b.dealNumber = e.value.dealNumber;
        b.dealer = e.value.dealer;
        b.declarer = -1;
        b.contract = '';
        b.hand = [];
        b.visibleHands = new Map();
        b.trick = [];
        b.lastTrick = [];
        b.talon = ['', ''];
        b.tricks = Array(this.seats === 2 ? 3 : this.seats).fill(0) as number[];
        b.auction = [];
        b.whistCalls = [];
        this.stage = 'auction';
        this.trump = '';
        this.pendingBid = null;
        this.trickDone = false;
        this.raspasy = false;
        this.trickIndex = 0;
        what = `Deal ${e.value.dealNumber} is dealt by ${this.name(e.value.dealer)}`;
        break;
      case 'action':
        what = this.action(e.value, msg.talon);
        break;
      case 'dealScored':
        this.scored = e.value;
        this.stage = 'scored';
        b.tricks = [...e.value.tricks];
        if (e.value.talon.length) b.talon = [...e.value.talon];
        {
          const rows = rowsOf(e.value.entries, this.seats);
          this.deals = [...this.deals, rows];
          this.totals = addRows(this.totals, rows);
        }
        what = `Deal ${e.value.dealNumber} is scored (${e.value.kind}${e.value.contract ? ` ${e.value.contract}` : ''})`;
        break;
      case 'gameFinished':
        this.settlement = [...e.value.settlement];
        what = `The game is over: ${e.value.settlement.join(' / ')}`;
        break;
      case 'gameAborted':
        what = `${this.name(e.value.seat)} aborted the game`;
        break;
      case 'rulingRecorded':
        if (!e.value.noChange) this.totals = addRows(this.totals, rowsOf(e.value.adjustment, this.seats));
        what = `Ruling on deal ${e.value.dealNumber}: ${e.value.reason}`;
        break;
      case 'dealFlagged':
        what = `${this.name(e.value.seat)} flagged deal ${e.value.dealNumber}: ${e.value.reason}`;
        break;
      case 'playerReplaced':
        if (e.value.player) {
          b.names[e.value.seat] = e.value.player.playerId;
          this.accounts[e.value.account] = e.value.player.playerId;
        }
        what = `${e.value.player?.playerId ?? 'a player'} takes seat ${e.value.seat}${e.value.reason ? ` (${e.value.reason})` : ''}`;
        break;
      case 'timeExpired':
        what = `${this.name(e.value.seat)} ran out of time`;
        break;
      case 'timeCalled':
        what = `Time is called: deal ${e.value.dealNumber} is the last`;
        break;
      case 'earlyStopAgreed':
        what = `${this.name(e.value.seat)} agrees to stop early`;
        break;
      case 'gameOrdered':
        what = `${this.name(e.value.seat)} orders the game: pool ${e.value.pool}`;
        break;
      case 'adjournment':
        what = `${this.name(e.value.seat)} ${e.value.adjourn ? 'agrees to adjourn' : 'asks to resume'}`;
        break;
      case 'stakesMoved':
        what = 'Stakes settled';
        break;
    }
    // Hands and talon cards this event revealed to the viewer.
    for (const hand of msg.revealed) this.setHand(hand.seat, hand.cards);
    if (msg.talon.length && e.case !== 'action') this.showTalon(msg.talon);
    this.snapshot(version, what);
  }

  private showTalon(cards: string[]): void {
    const shown = this.board.talon.filter((c) => c);
    const next = [...shown, ...cards.filter((c) => c && !shown.includes(c))];
    while (next.length < 2) next.push('');
    this.board.talon = next;
  }

  private call(list: Call[], seat: number, call: string): void {
    list.push({ seat, call });
  }

  private action(ev: ActionEvent, talon: string[]): string {
    const b = this.board;
    const seat = ev.hand ?? ev.seat;
    const who = this.name(seat);
    const kind = ev.action?.kind;
    if (!kind || !kind.case) return `${who} acts`;
    if (talon.length) this.showTalon(talon);
    const inAuction = this.stage === 'auction';
    const calls = inAuction ? b.auction : b.whistCalls;
    switch (kind.case) {
      case 'bid':
        this.pendingBid = { seat, call: kind.value };
        this.call(b.auction, seat, kind.value);
        return `${who} bids ${kind.value}`;
      case 'darkBid':
        this.pendingBid = { seat, call: kind.value };
        this.call(b.auction, seat, `dark ${kind.value}`);
        return `${who} bids ${kind.value} in the dark`;
      case 'noTalonBid':
        this.pendingBid = { seat, call: kind.value };
        this.call(b.auction, seat, `${kind.value} without talon`);
        return `${who} bids ${kind.value} without talon`;
      case 'pass':
        this.call(calls, seat, 'pass');
        return `${who} passes`;
      case 'here':
        this.call(b.auction, seat, 'here');
        return `${who}: here`;
      case 'bomb':
        this.call(b.auction, seat, 'bomb');
        return `${who}: bomb`;
      case 'look':
        return `${who} looks at the cards`;
      case 'retractPass':
        this.call(calls, seat, 'retract pass');
        return `${who} takes the pass back`;
      case 'takeTalon':
        this.leaveAuction();
        b.declarer = seat;
        this.addCards(seat, talon);
        return `${who} takes the talon`;
      case 'returnTalon':
        this.leaveAuction();
        return `${who} leaves the talon`;
      case 'giveCards':
        this.removeCards(seat, kind.value.cards);
        this.addCards(b.dealer, kind.value.cards);
        return `${who} gives two cards`;
      case 'discard':
        this.leaveAuction();
        this.removeCards(seat, kind.value.cards);
        return kind.value.cards.length ? `${who} discards ${kind.value.cards.join(' ')}` : `${who} discards two cards`;
      case 'declare':
        this.leaveAuction();
        b.declarer = seat;
        b.contract = kind.value;
        this.trump = kind.value.startsWith('mis') ? '' : strainOf(kind.value);
        this.stage = 'whisting';
        return `${who} declares ${kind.value}`;
      case 'concede':
        this.leaveAuction();
        return `${who} goes without three`;
      case 'declarePreferans':
        return `${who} declares preferans`;
      case 'whist':
        this.call(b.whistCalls, seat, 'whist');
        return `${who}: whist`;
      case 'halfWhist':
        this.call(b.whistCalls, seat, 'half-whist');
        return `${who}: half-whist`;
      case 'ownWhist':
        this.call(b.whistCalls, seat, 'own whist');
        return `${who}: own whist`;
      case 'ownWhistAnswer':
        this.call(b.whistCalls, seat, kind.value.allow ? 'allow' : 'refuse');
        return `${who} ${kind.value.allow ? 'allows' : 'refuses'} the own whist`;
      case 'ownCardsWhist':
        this.call(b.whistCalls, seat, 'whist on own cards');
        return `${who} whists on own cards`;
      case 'viewHand':
        return `${who} looks at ${this.name(kind.value.seat)}'s cards`;
      case 'inviteDealer':
        return `${who} invites the dealer to share the misère`;
      case 'chooseDefence':
        return `${who} defends ${kind.value.open ? 'open' : 'closed'}`;
      case 'writeOff':
        return `${who} writes ${kind.value.off ? 'off the gora' : 'to the pool'}`;
      case 'playCard': {
        if (this.stage === 'auction') {
          this.leaveAuction();
          this.raspasy = true;
        }
        this.stage = 'play';
        if (this.trickDone) {
          b.lastTrick = b.trick;
          b.trick = [];
          this.trickDone = false;
        }
        b.trick = [...b.trick, { seat, card: kind.value }];
        this.removeCards(seat, [kind.value]);
        let text = `${who} plays ${kind.value}`;
        if (b.trick.length === 3) {
          // Raspasy: the talon card turned up for each of the first tricks sets its suit.
          const led = this.raspasy && this.trickIndex < 2 ? (parseCard(b.talon[this.trickIndex] ?? '')?.suit ?? '') : '';
          const winner = trickWinner(b.trick, this.trump, led);
          this.trickIndex += 1;
          b.tricks[winner] = (b.tricks[winner] ?? 0) + 1;
          this.trickDone = true;
          text += `; ${this.name(winner)} takes the trick`;
        }
        return text;
      }
      case 'claim':
        return `${who} claims ${kind.value.tricks.join('-')}`;
      case 'acceptClaim':
        return `${who} accepts`;
      case 'rejectClaim':
        return `${who} rejects`;
      case 'claimUnderbid':
        return `${who} claims an underbid`;
    }
    return `${who} acts`;
  }
}
