// The green-felt table both the live game and the replay draw: the seats around it (the viewer
// at the bottom, the next seat clockwise on the left), the trick in the middle, the talon, the
// viewer's hand, the auction and the tricks taken. It draws only what it is given: the live
// table gives the seat's own view (SeatView), the replay the seat's own event stream, so
// nothing here can show a card the seat was not shown.
import { h, type Child } from './dom';
import { cardEl, suitText } from './cards';

export interface PlayedCard {
  seat: number;
  card: string;
}

export interface Call {
  seat: number;
  call: string;
}

export interface BoardState {
  seats: number; // seats at the table (2 to 5); with two, position 2 is the dummy
  bottom: number; // the viewer's seat, drawn at the bottom (0 for a spectator)
  viewer: number; // the viewer's seat, -1 for a spectator
  names: string[]; // by seat
  dealNumber: number;
  dealer: number;
  declarer: number; // -1: none (yet)
  toAct: number; // the hand on turn, -1: nobody
  hand: string[]; // the viewer's cards
  visibleHands: Map<number, string[]>; // other hands the viewer may see now
  trick: PlayedCard[];
  lastTrick: PlayedCard[];
  talon: string[]; // talon cards shown to the viewer ("" for one face down)
  tricks: number[]; // tricks taken, by position
  auction: Call[];
  whistCalls: Call[];
  contract: string;
  // The game's clocks (a table with a time control): each seat's bank at the start of its
  // turn, and the running seat's deadline (ms since the epoch).
  clocks?: { bankMs: number[]; running: number; deadlineMs: number };
}

// m:ss (or h:mm:ss) of a duration in ms, never negative.
export function clockText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export interface HandHandlers {
  // Cards legal to play now: card → the legal action's string (`data-action`).
  playable?: Map<string, string>;
  onPlay?: (action: string) => void;
  // Cards to pick for a discard (the declarer's twelve).
  selectable?: boolean;
  selected?: Set<string>;
  onSelect?: (card: string) => void;
}

// Where a position sits around the felt, relative to the viewer (clockwise: bottom, left, top, right).
export function placeOf(state: BoardState, seat: number): string {
  const n = state.seats;
  if (n === 2) return seat === 2 ? 'right' : seat === state.bottom ? 'bottom' : 'top';
  const k = (seat - state.bottom + n) % n;
  const layouts: Record<number, string[]> = {
    3: ['bottom', 'left', 'right'],
    4: ['bottom', 'left', 'top', 'right'],
    5: ['bottom', 'left', 'topleft', 'topright', 'right'],
  };
  return (layouts[n] ?? layouts[3])[k] ?? 'top';
}

export function positions(state: BoardState): number[] {
  const count = state.seats === 2 ? 3 : state.seats;
  return Array.from({ length: count }, (_, i) => i);
}

export function nameOf(state: BoardState, seat: number): string {
  if (state.seats === 2 && seat === 2) return 'dummy';
  const name = state.names[seat] || `seat ${seat}`;
  return seat === state.viewer ? `${name} (you)` : name;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function seatEl(state: BoardState, seat: number, handlers: HandHandlers): HTMLElement {
  const badges: Child[] = [];
  if (seat === state.dealer) badges.push(h('span', { class: 'badge dealer', title: 'dealer' }, 'D'));
  if (seat === state.declarer) badges.push(h('span', { class: 'badge declarer', title: 'declarer' }, state.contract ? suitText(state.contract) : 'decl.'));
  const visible = state.visibleHands.get(seat);
  const classes = ['seat', `at-${placeOf(state, seat)}`];
  if (seat === state.toAct) classes.push('to-act');
  if (seat === state.viewer) classes.push('me');
  return h(
    'div',
    { class: classes.join(' '), 'data-testid': 'seat', 'data-seat': seat },
    h('div', { class: 'seat-name' }, nameOf(state, seat), badges),
    h('div', { class: 'seat-tricks', title: 'tricks taken' }, plural(state.tricks[seat] ?? 0, 'trick')),
    state.clocks && seat < state.clocks.bankMs.length
      ? seat === state.clocks.running
        ? h('div', { class: 'clock running', 'data-testid': 'clock', 'data-seat': seat, 'data-deadline': state.clocks.deadlineMs, title: 'time left for this decision' }, clockText(state.clocks.deadlineMs - Date.now()))
        : h('div', { class: 'clock', 'data-testid': 'clock', 'data-seat': seat, title: 'time in the bank' }, clockText(state.clocks.bankMs[seat]))
      : null,
    visible && visible.length && seat !== state.viewer
      ? h(
          'div',
          { class: 'visible-hand', 'data-testid': 'visible-hand', 'data-seat': seat },
          visible.map((c) => {
            // Open defence: the sole whister plays his partner's cards too.
            const action = seat === state.toAct ? handlers.playable?.get(c) : undefined;
            const play = handlers.onPlay;
            return action !== undefined && play
              ? cardEl(c, { 'data-seat': seat, 'data-action': action, class: 'playable', title: `play ${c}` }, () => play(action))
              : cardEl(c, { 'data-seat': seat });
          }),
        )
      : null,
  );
}

function trickEl(state: BoardState): HTMLElement {
  return h(
    'div',
    { class: 'trick', 'data-testid': 'trick' },
    state.trick.map((p) => h('div', { class: `trick-slot at-${placeOf(state, p.seat)}` }, cardEl(p.card, { 'data-seat': p.seat }))),
  );
}

export function handEl(state: BoardState, handlers: HandHandlers = {}): HTMLElement {
  const cards = state.hand.map((card) => {
    const action = handlers.playable?.get(card);
    if (action !== undefined && handlers.onPlay) {
      const play = handlers.onPlay;
      return cardEl(card, { 'data-action': action, class: 'playable', title: `play ${card}` }, () => play(action));
    }
    if (handlers.selectable && handlers.onSelect) {
      const select = handlers.onSelect;
      const chosen = handlers.selected?.has(card);
      return cardEl(card, { 'data-select': card, class: chosen ? 'selected' : 'selectable', 'aria-pressed': chosen ? 'true' : 'false' }, () =>
        select(card),
      );
    }
    return cardEl(card);
  });
  return h('div', { class: 'hand', 'data-testid': 'hand', 'data-seat': state.viewer }, cards);
}

export function feltEl(state: BoardState, handlers: HandHandlers = {}, centreExtra?: Child): HTMLElement {
  // `talon` only once a talon card is face up; face down it is two backs.
  const talon = state.talon.some((c) => c)
    ? h('div', { class: 'talon', 'data-testid': 'talon' }, h('span', { class: 'label' }, 'talon'), state.talon.map((c) => cardEl(c)))
    : state.talon.length
      ? h('div', { class: 'talon face-down' }, h('span', { class: 'label' }, 'talon'), state.talon.map((c) => cardEl(c)))
      : null;
  const last = state.lastTrick.length
    ? h(
        'div',
        { class: 'last-trick', 'data-testid': 'last-trick' },
        h('span', { class: 'label' }, 'last trick'),
        state.lastTrick.map((p) => cardEl(p.card, { 'data-seat': p.seat, class: 'small' })),
      )
    : null;
  return h(
    'div',
    { class: `felt seats-${state.seats}` },
    positions(state).map((seat) => seatEl(state, seat, handlers)),
    h('div', { class: 'middle' }, trickEl(state), talon, last, centreExtra),
    h('div', { class: 'hand-row' }, handEl(state, handlers)),
  );
}

function callsEl(state: BoardState, calls: Call[]): Child {
  return calls.map((c) =>
    h('li', { class: 'call', 'data-seat': c.seat, 'data-call': c.call }, h('span', { class: 'who' }, nameOf(state, c.seat)), ' ', h('span', { class: 'what' }, suitText(c.call))),
  );
}

export function auctionEl(state: BoardState): HTMLElement {
  return h(
    'div',
    { class: 'panel auction-panel' },
    h('h3', null, 'Auction'),
    h('ol', { class: 'auction', 'data-testid': 'auction' }, callsEl(state, state.auction)),
    state.contract ? h('p', { class: 'contract' }, 'Contract: ', suitText(state.contract), ` by ${nameOf(state, state.declarer)}`) : null,
    state.whistCalls.length ? [h('h3', null, 'Whisting'), h('ol', { class: 'whist-calls', 'data-testid': 'whist-calls' }, callsEl(state, state.whistCalls))] : null,
  );
}

export function tricksTakenEl(state: BoardState): HTMLElement {
  return h(
    'div',
    { class: 'tricks-taken', 'data-testid': 'tricks-taken' },
    positions(state).map((seat) =>
      h('span', { class: 'taken', 'data-seat': seat, 'data-value': state.tricks[seat] ?? 0 }, `${nameOf(state, seat)}: `, h('b', null, String(state.tricks[seat] ?? 0))),
    ),
  );
}
