// The live game table, `#/game/<game_id>`: the seat's own view (GetSeatView) redrawn after
// every event of the seat's stream (WatchGame, with the seat token the table gave, or the JWT),
// legal actions as buttons (SubmitAction sends the Action the server listed with them), the
// scoresheet (GetScoresheet) after each scored deal.
import {
  games,
  withAuth,
  credentialFor,
  forgetSeatToken,
  jwt,
  newRequestId,
  describeError,
  Code,
  ConnectError,
} from './api';
import { h, fill, type Child } from './dom';
import { cardEl, suitText } from './cards';
import { auctionEl, clockText, feltEl, nameOf, tricksTakenEl, type BoardState } from './board';
import { scoresheetEl, type SheetData, type SheetRow } from './scoresheet';
import { GameStream, type ConnectionState } from './stream';
import { Folder } from './fold';
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ActionSchema,
  GameStatus,
  Phase,
  PhaseSchema,
  type DealScoredEvent,
  type Game,
  type Scoresheet,
  type ScoresheetRow,
  type SeatView,
  type WatchGameResponse,
} from './gen/preferans/v1/game_pb';

declare global {
  interface Window {
    __prefDropStream?: () => void;
  }
}

const PHASE_LABEL: Record<number, string> = {
  [Phase.BIDDING]: 'Auction',
  [Phase.TALON]: 'Talon',
  [Phase.DISCARD]: 'Discard',
  [Phase.CONTRACT]: 'Contract',
  [Phase.WHISTING]: 'Whisting',
  [Phase.DEFENCE]: 'Defence',
  [Phase.PLAY]: 'Play',
  [Phase.CLAIM]: 'Claim',
  [Phase.SCORED]: 'Scored',
  [Phase.WRITE_OFF]: 'Write-off',
  [Phase.REVIEW]: 'Review',
};

export function phaseName(phase: Phase): string {
  return PhaseSchema.values.find((v) => v.number === phase)?.name ?? 'PHASE_UNSPECIFIED';
}

export function sheetRows(rows: ScoresheetRow[], seats: number): SheetRow[] {
  const out: SheetRow[] = Array.from({ length: seats }, () => ({ pool: 0, gora: 0, whists: Array(seats).fill(0) as number[] }));
  for (const r of rows) {
    if (r.seat < 0 || r.seat >= seats) continue;
    out[r.seat] = { pool: r.pool, gora: r.gora, whists: [...r.whists] };
  }
  return out;
}

export function dealResultEl(deal: DealScoredEvent, names: (seat: number) => string): HTMLElement {
  const kind = deal.kind;
  const headline: Child[] =
    kind === 'raspasy'
      ? ['All passed: raspasy']
      : kind === 'redeal'
        ? ['Redealt without play']
        : [deal.declarer >= 0 ? `${names(deal.declarer)}: ` : '', suitText(deal.contract), ` — ${kind}`];
  return h(
    'div',
    { class: 'panel deal-result', 'data-testid': 'deal-result', 'data-deal': deal.dealNumber },
    h('h3', null, `Deal ${deal.dealNumber} scored`),
    h('p', null, headline),
    h(
      'table',
      { class: 'entries' },
      h('tr', null, h('th', null, ''), h('th', null, 'tricks'), h('th', null, 'pool'), h('th', null, 'gora'), h('th', null, 'whists')),
      deal.entries.map((e) =>
        h(
          'tr',
          { 'data-seat': e.seat },
          h('td', null, names(e.seat)),
          h('td', null, String(deal.tricks[e.seat] ?? '')),
          h('td', null, e.pool ? String(e.pool) : ''),
          h('td', null, e.gora ? String(e.gora) : ''),
          h('td', null, e.whists.some((w) => w) ? e.whists.map((w, on) => (w ? `${w} on ${names(on)}` : '')).filter(Boolean).join(', ') : ''),
        ),
      ),
    ),
    deal.dealtHands.length
      ? h(
          'details',
          { class: 'dealt' },
          h('summary', null, 'The deal as dealt'),
          deal.dealtHands.map((hand) => h('div', { class: 'dealt-hand' }, h('span', { class: 'who' }, names(hand.seat)), hand.cards.map((c) => cardEl(c, { class: 'small' })))),
          deal.talon.length ? h('div', { class: 'dealt-hand' }, h('span', { class: 'who' }, 'talon'), deal.talon.map((c) => cardEl(c, { class: 'small' }))) : null,
          deal.discard.length ? h('div', { class: 'dealt-hand' }, h('span', { class: 'who' }, 'discard'), deal.discard.map((c) => cardEl(c, { class: 'small' }))) : null,
        )
      : null,
  );
}

function sameCards(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c));
}

export function gameView(root: HTMLElement, gameId: string): () => void {
  const name = `games/${gameId}`;
  let game: Game | null = null;
  let view: SeatView | null = null;
  let sheet: Scoresheet | null = null;
  let lastScored: DealScoredEvent | null = null;
  let lastEventVersion = 0;
  let connection: ConnectionState = 'reconnecting';
  let error = ''; // the last refused command, until the next one
  let readError = ''; // the last failed read, until a read succeeds
  let info = ''; // what the last command did, when the table does not show it
  let notice: Child = null;
  let busy = false;
  let stopped = false;
  let spectating = false;
  let stream: GameStream | null = null;
  const replaced = new Map<number, string>();
  const selected = new Set<string>();
  let credential = credentialFor(name);

  const statusBar = h('div', { class: 'status-bar' });
  const board = h('div', { class: 'board' });
  const side = h('div', { class: 'side' });
  const actionsBox = h('div', { class: 'actions-box' });
  fill(
    root,
    h(
      'div',
      { class: 'game-page' },
      statusBar,
      h('div', { class: 'game-main' }, h('div', { class: 'table-col' }, board, actionsBox), side),
    ),
  );

  const names = (seat: number): string => {
    if (replaced.has(seat)) return replaced.get(seat) as string;
    return game?.players[seat]?.playerId ?? `seat ${seat}`;
  };
  const seatCount = (): number => view?.seats || game?.seats || 3;

  function boardState(v: SeatView): BoardState {
    const visible = new Map<number, string[]>();
    for (const hand of v.visibleHands) visible.set(hand.seat, hand.cards);
    const n = v.seats || seatCount();
    return {
      seats: n,
      bottom: v.seat,
      viewer: v.seat,
      names: Array.from({ length: n }, (_, i) => names(i)),
      dealNumber: v.dealNumber,
      dealer: v.dealer,
      declarer: v.declarer,
      toAct: v.toAct,
      hand: v.hand,
      visibleHands: visible,
      trick: v.currentTrick.map((p) => ({ seat: p.seat, card: p.card })),
      lastTrick: v.lastTrick?.cards.map((p) => ({ seat: p.seat, card: p.card })) ?? [],
      talon: v.talon,
      tricks: v.result && v.result.tricks.length ? v.result.tricks : v.tricks,
      auction: v.auction.map((c) => ({ seat: c.seat, call: c.call })),
      whistCalls: v.whistCalls.map((c) => ({ seat: c.seat, call: c.call })),
      contract: v.contract || v.winningBid,
      clocks: v.clock
        ? {
            bankMs: v.clock.remaining.map((d) => Number(d.seconds) * 1000 + Math.floor(d.nanos / 1e6)),
            running: v.clock.seat,
            deadlineMs: v.clock.deadline ? timestampDate(v.clock.deadline).getTime() : 0,
          }
        : undefined,
    };
  }

  // The running clock counts down between redraws.
  const ticker = window.setInterval(() => {
    for (const el of board.querySelectorAll<HTMLElement>('.clock.running[data-deadline]')) {
      el.textContent = clockText(Number(el.dataset.deadline) - Date.now());
    }
  }, 500);

  function render(): void {
    if (stopped || spectating) return;
    const v = view;
    const finished = game?.status === GameStatus.FINISHED || game?.status === GameStatus.ABORTED;
    const phase = v ? v.phase : Phase.UNSPECIFIED;
    const toAct = v ? v.toAct : -1;
    const mine = v !== null && v.actor === v.seat && v.legalActions.length > 0;
    let turn = '';
    if (v) {
      if (finished) turn = game?.status === GameStatus.ABORTED ? 'game aborted' : 'game over';
      else if (v.orderer >= 0 && v.orderer === v.seat) turn = 'you order the game';
      else if (mine) turn = 'your turn';
      else if (v.actor >= 0) turn = `${nameOf(boardState(v), v.actor)} to act`;
      else if (v.orderer >= 0) turn = `${names(v.orderer)} orders the game`;
    }
    fill(
      statusBar,
      h(
        'div',
        { class: `status${mine ? ' mine' : ''}`, 'data-testid': 'status', 'data-phase': phaseName(phase), 'data-to-act': toAct, 'data-actor': v?.actor ?? -1 },
        v ? `Deal ${v.dealNumber} · ${PHASE_LABEL[phase] ?? phaseName(phase)}` : 'loading…',
        turn ? h('span', { class: 'turn' }, ` · ${turn}`) : null,
      ),
      h('span', { class: `connection ${connection}`, 'data-testid': 'connection', 'data-state': connection, title: 'live updates' }, connection),
      h('span', { class: 'version', 'data-testid': 'version', 'data-version': lastEventVersion }, `v${lastEventVersion}`),
      h('a', { href: `#/replay/${gameId}`, class: 'link' }, 'replay'),
      h('a', { href: '#/', class: 'link' }, 'lobby'),
    );

    if (!v) {
      fill(board, notice ?? h('p', { class: 'loading' }, 'Loading the table…'));
      fill(actionsBox, error ? h('p', { class: 'error', 'data-testid': 'error' }, error) : null);
      fill(side);
      return;
    }
    const state = boardState(v);

    // The hand: cards legal to play are buttons sending that action; in the discard the
    // declarer picks two cards.
    const playable = new Map<string, string>();
    const discardPhase = mine && v.phase === Phase.DISCARD;
    if (mine && (v.phase === Phase.PLAY || v.phase === Phase.CLAIM)) {
      v.legal.forEach((action, i) => {
        if (action.kind.case === 'playCard') playable.set(action.kind.value, v.legalActions[i]);
      });
    }
    for (const card of [...selected]) if (!v.hand.includes(card) || !discardPhase) selected.delete(card);
    const centreExtra: Child = finished
      ? h('div', { class: 'game-over' }, h('strong', null, game?.status === GameStatus.ABORTED ? 'Game aborted' : 'Game over'), ' ', h('a', { href: `#/replay/${gameId}` }, 'watch the replay'))
      : null;
    fill(
      board,
      feltEl(
        state,
        {
          playable,
          onPlay: busy ? undefined : (action) => void act(action),
          selectable: discardPhase && !busy,
          selected,
          onSelect: (card) => {
            if (selected.has(card)) selected.delete(card);
            else if (selected.size < 2) selected.add(card);
            render();
            if (selected.size === 2) {
              const chosen = [...selected];
              const i = v.legal.findIndex((a) => a.kind.case === 'discard' && sameCards(a.kind.value.cards, chosen));
              if (i >= 0) void act(v.legalActions[i]);
            }
          },
        },
        centreExtra,
      ),
    );

    // Every legal action as a button carrying its exact string.
    const buttons = v.legalActions.map((text, i) =>
      h(
        'button',
        {
          type: 'button',
          class: `action${v.legal[i]?.kind.case === 'playCard' ? ' card-action' : ''}`,
          'data-action': text,
          disabled: busy || !mine,
          onclick: () => void act(text),
        },
        suitText(text),
      ),
    );
    fill(
      actionsBox,
      error || readError ? h('p', { class: 'error', 'data-testid': 'error' }, error || readError) : null,
      info ? h('p', { class: 'notice', 'data-testid': 'info' }, info) : null,
      !finished && v.orderer >= 0 && v.orderer === v.seat ? orderForm() : null,
      mine && v.canClaim ? claimForm(v, state) : null,
      discardPhase ? h('p', { class: 'hint' }, 'Pick two cards of your hand to discard (or a button below).') : null,
      h('div', { class: `actions${buttons.length > 12 ? ' many' : ''}`, 'data-testid': 'actions' }, buttons),
      !mine && !finished && v.actor >= 0 && v.actor !== v.seat ? h('p', { class: 'hint waiting' }, `Waiting for ${nameOf(state, v.actor)}…`) : null,
      finished ? null : seatCommands(v),
    );

    const scored = lastScored;
    const n = v.seats || seatCount();
    const sheetData: SheetData = {
      seats: n,
      bottom: v.seat,
      names: Array.from({ length: n }, (_, i) => names(i)),
      poolTarget: v.poolTarget || v.rules?.poolTarget || 0,
      totals: sheetRows(sheet?.totals ?? [], n),
      deals: (sheet?.deals ?? []).map((d) => sheetRows(d.entries, n)),
      settlement: sheet?.settlement ?? [],
      accounts: sheet?.accounts.map((a) => a.playerId) ?? [],
    };
    fill(
      side,
      auctionEl(state),
      h('div', { class: 'panel' }, h('h3', null, 'Tricks taken'), tricksTakenEl(state)),
      scored ? dealResultEl(scored, (seat) => nameOf(state, seat)) : null,
      scored ? flagForm(scored.dealNumber) : null,
      h('div', { class: 'panel sheet-panel' }, h('h3', null, 'Scoresheet'), scoresheetEl(sheetData)),
    );
  }

  // The largest gora orders the game (OrderGame): the pool length and, in a game played until
  // time, the end time.
  function orderForm(): HTMLElement {
    const untilTime = (() => {
      try {
        return Boolean((JSON.parse(game?.rules?.optionsJson || '{}') as Record<string, unknown>).ending_by_time);
      } catch {
        return false;
      }
    })();
    const pool = h('input', { type: 'number', min: 1, max: 200, value: 20, 'data-testid': 'order-pool', 'aria-label': 'pool length' });
    const inAnHour = new Date(Date.now() + 3600_000);
    const local = new Date(inAnHour.getTime() - inAnHour.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    const end = h('input', { type: 'datetime-local', value: local, 'data-testid': 'order-end', 'aria-label': 'end time' });
    return h(
      'form',
      {
        class: 'order-form',
        'data-testid': 'order-game',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void command(async (requestId) => {
            await games.orderGame(
              { name, requestId, pool: Number(pool.value), endTime: untilTime ? timestampFromDate(new Date(end.value)) : undefined },
              withAuth(credential, requestId),
            );
          });
        },
      },
      h('strong', null, 'You order the game: '),
      h('label', null, 'pool ', pool),
      untilTime ? h('label', null, ' until ', end) : null,
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'order-submit', disabled: busy }, 'Order'),
    );
  }

  // A claim of the remaining tricks: one number per position, summing to what is left.
  function claimForm(v: SeatView, state: BoardState): HTMLElement {
    const left = 10 - v.tricksPlayed;
    const count = v.tricks.length || v.seats || 3;
    const inputs = Array.from({ length: count }, (_, seat) =>
      h('input', { type: 'number', min: 0, max: left, value: seat === v.seat ? left : 0, 'data-seat': seat, 'aria-label': `tricks for ${nameOf(state, seat)}` }),
    );
    return h(
      'details',
      { class: 'claim-box', 'data-testid': 'claim' },
      h('summary', null, `Claim the ${left} tricks left…`),
      h(
        'form',
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            const tricks = inputs.map((i) => Number(i.value) || 0);
            if (tricks.reduce((a, b) => a + b, 0) !== left) {
              error = `a claim gives out exactly the ${left} tricks left`;
              render();
              return;
            }
            const action = create(ActionSchema, { kind: { case: 'claim', value: { tricks } } });
            void command(async (requestId) => {
              const answer = await games.submitAction({ name, action, requestId }, withAuth(credential, requestId));
              if (answer.view && view && answer.view.version >= view.version) view = answer.view;
            });
          },
        },
        inputs.map((input, seat) => h('label', null, `${nameOf(state, seat)} `, input)),
        h('button', { type: 'submit', disabled: busy }, 'Claim'),
      ),
    );
  }

  // What a seat may do besides its decisions: adjourn or resume (every person agrees), resign
  // (the server's bot plays on; the leaver is settled by the early-leave rule).
  function seatCommands(v: SeatView): HTMLElement {
    const agreed = game?.adjournmentAgreed.includes(v.seat) ?? false;
    return h(
      'div',
      { class: 'seat-commands' },
      v.adjourned ? h('span', { class: 'notice' }, 'The game is adjourned.') : null,
      h(
        'button',
        {
          type: 'button',
          'data-testid': v.adjourned ? 'resume-button' : 'adjourn-button',
          disabled: busy || agreed,
          onclick: () =>
            void command(async (requestId) => {
              if (v.adjourned) await games.resumeGame({ name, requestId }, withAuth(credential, requestId));
              else await games.adjournGame({ name, requestId }, withAuth(credential, requestId));
              await refreshGame();
            }),
        },
        v.adjourned ? 'Ask to resume' : agreed ? 'Adjournment asked' : 'Ask to adjourn',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'early-stop-button',
          disabled: busy || (game?.stopAgreed.includes(v.seat) ?? false),
          title: 'the game ends at once when every seat has agreed during this deal',
          onclick: () =>
            void command(async (requestId) => {
              await games.agreeEarlyStop({ name, requestId }, withAuth(credential, requestId));
              await refreshGame();
            }),
        },
        game?.stopAgreed.includes(v.seat) ? 'Stop agreed' : 'Agree to stop',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-testid': 'resign-button',
          class: 'danger',
          disabled: busy,
          onclick: () => {
            if (!window.confirm('Resign? The server’s bot takes your seat and plays on; your account is settled by the early-leave rule.')) return;
            void command(async (requestId) => {
              await games.resignGame({ name, requestId }, withAuth(credential, requestId));
              location.hash = '#/';
            });
          },
        },
        'Resign',
      ),
    );
  }

  // Disputing a scored deal (FlagDeal): an auditor rules on it (docs/AUDIT.md).
  function flagForm(deal: number): HTMLElement {
    const reason = h('input', { type: 'text', maxlength: 500, placeholder: 'why', 'data-testid': 'flag-reason', 'aria-label': 'reason' });
    return h(
      'details',
      { class: 'flag-box', 'data-testid': 'flag' },
      h('summary', null, `Flag deal ${deal} for a referee…`),
      h(
        'form',
        {
          onsubmit: (e: Event) => {
            e.preventDefault();
            const why = reason.value.trim();
            if (!why) return;
            void command(async (requestId) => {
              await games.flagDeal({ name, dealNumber: deal, reason: why, requestId }, withAuth(credential, requestId));
              info = `Deal ${deal} flagged: a referee will rule on it.`;
            });
          },
        },
        reason,
        h('button', { type: 'submit', 'data-testid': 'flag-submit', disabled: busy }, 'Flag'),
      ),
    );
  }

  // Runs one command with a fresh request id; a refusal is shown and the view read again.
  async function command(run: (requestId: string) => Promise<void>): Promise<void> {
    if (busy) return;
    busy = true;
    error = '';
    info = '';
    render();
    try {
      await run(newRequestId());
    } catch (err) {
      error = describeError(err);
      void refresh();
    } finally {
      busy = false;
      render();
    }
  }

  async function act(text: string): Promise<void> {
    if (!view) return;
    const v = view;
    const i = v.legalActions.indexOf(text);
    if (i < 0 || !v.legal[i]) return;
    await command(async (requestId) => {
      const answer = await games.submitAction({ name, action: v.legal[i], requestId }, withAuth(credential, requestId));
      if (answer.view && view && answer.view.version >= view.version) view = answer.view;
      selected.clear();
    });
  }

  // The view after the last event seen; calls that arrive meanwhile fold into one more read.
  let reading = false;
  let again = false;
  async function refresh(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const answer = await games.getSeatView({ name, minVersion: BigInt(lastEventVersion) }, withAuth(credential));
        if (answer.view && (!view || answer.view.version >= view.version)) view = answer.view;
        readError = '';
        render();
      } while (again && !stopped);
    } catch (err) {
      // Shown until a read succeeds; the next event (or the reconnect) reads again.
      readError = describeError(err);
      render();
    } finally {
      reading = false;
    }
  }

  async function refreshSheet(): Promise<void> {
    try {
      const answer = await games.getScoresheet({ name, minVersion: BigInt(lastEventVersion) });
      // Answers may arrive out of order: never draw an older sheet over a newer one.
      if (answer.scoresheet && (!sheet || answer.scoresheet.version >= sheet.version)) sheet = answer.scoresheet;
      render();
    } catch (err) {
      readError = describeError(err);
      render();
    }
  }

  async function refreshGame(): Promise<void> {
    try {
      const answer = await games.getGame({ name, minVersion: BigInt(lastEventVersion) });
      game = answer.game ?? game;
    } catch (err) {
      readError = describeError(err);
    }
    render();
  }

  function onMessage(msg: WatchGameResponse): void {
    const event = msg.event;
    if (event.case === 'heartbeat' || !event.case) return;
    lastEventVersion = Math.max(lastEventVersion, Number(msg.version));
    switch (event.case) {
      case 'dealScored': {
        // The deal's result is shown together with the sheet that includes it.
        const scored = event.value;
        void refreshSheet().finally(() => {
          if (!lastScored || scored.dealNumber >= lastScored.dealNumber) lastScored = scored;
          render();
        });
        break;
      }
      case 'rulingRecorded':
        void refreshSheet();
        break;
      case 'gameFinished':
      case 'gameAborted':
        void refreshSheet();
        void refreshGame();
        break;
      case 'adjournment':
      case 'earlyStopAgreed':
      case 'dealDealt':
        void refreshGame();
        break;
      case 'playerReplaced':
        if (event.value.player) replaced.set(event.value.seat, event.value.player.playerId);
        void refreshSheet();
        break;
      default:
        break;
    }
    void refresh();
  }

  function onFatal(err: ConnectError): boolean {
    // A seat token refused (expired, revoked): the JWT may still be good here.
    if ((err.code === Code.Unauthenticated || err.code === Code.PermissionDenied) && credential && credential !== jwt() && jwt()) {
      forgetSeatToken(name);
      credential = jwt();
      return true;
    }
    error = describeError(err);
    render();
    return false;
  }

  async function start(): Promise<void> {
    try {
      game = (await games.getGame({ name })).game ?? null;
    } catch (err) {
      notice = h('p', { class: 'error' }, describeError(err));
      render();
      return;
    }
    if (!credential) {
      spectate('You are watching as a spectator: sign in to play your seat here.');
      return;
    }
    let first: SeatView | undefined;
    for (;;) {
      try {
        first = (await games.getSeatView({ name }, withAuth(credential))).view;
        break;
      } catch (err) {
        const e = ConnectError.from(err);
        if ((e.code === Code.Unauthenticated || e.code === Code.PermissionDenied) && credential !== jwt() && jwt()) {
          forgetSeatToken(name);
          credential = jwt();
          continue;
        }
        if (e.code === Code.PermissionDenied) {
          spectate('You do not sit at this game: you are watching it as a spectator.');
        } else {
          notice = h('p', { class: 'notice' }, `${describeError(e)} `, h('a', { href: `#/replay/${gameId}` }, 'Watch it instead'), '.');
          render();
        }
        return;
      }
    }
    if (stopped || !first) return;
    view = first;
    lastEventVersion = Number(first.version);
    render();
    const previous = first.previousDeal;
    void refreshSheet().finally(() => {
      if (previous && !lastScored) lastScored = previous;
      render();
    });
    stream = new GameStream({
      name,
      fromVersion: lastEventVersion,
      credential: () => credential,
      onMessage,
      onState: (state) => {
        if (state !== connection) {
          const resumed = state === 'live' && connection !== 'live';
          connection = state;
          render();
          if (resumed) void refresh();
        }
      },
      onFatal,
    });
    window.__prefDropStream = () => stream?.drop();
  }

  // A visitor who does not sit at the game follows it live as a spectator: the spectator's
  // stream (no credential: public information only) folded as the replay folds it.
  function spectate(why: string): void {
    if (!game) return;
    const folder = new Folder(game.seats || 3, -1, game.players.map((p) => p.playerId));
    let drawing = false;
    const draw = () => {
      drawing = false;
      if (stopped) return;
      const frame = folder.frames[folder.frames.length - 1];
      const over = game?.status === GameStatus.FINISHED || game?.status === GameStatus.ABORTED;
      fill(
        statusBar,
        h('div', { class: 'status', 'data-testid': 'status', 'data-phase': phaseName(Phase.UNSPECIFIED), 'data-to-act': -1 }, `Deal ${frame.board.dealNumber} · spectator`, over ? ' · game over' : ''),
        h('span', { class: `connection ${connection}`, 'data-testid': 'connection', 'data-state': connection }, connection),
        h('span', { class: 'version', 'data-testid': 'version', 'data-version': lastEventVersion }, `v${lastEventVersion}`),
        h('a', { href: `#/replay/${gameId}`, class: 'link' }, 'replay'),
        h('a', { href: '#/', class: 'link' }, 'lobby'),
      );
      fill(board, feltEl(frame.board));
      fill(actionsBox, h('p', { class: 'notice', 'data-testid': 'spectator' }, why), h('p', { class: 'hint' }, frame.what));
      const n = frame.board.seats;
      fill(
        side,
        auctionEl(frame.board),
        h('div', { class: 'panel' }, h('h3', null, 'Tricks taken'), tricksTakenEl(frame.board)),
        frame.scored ? dealResultEl(frame.scored, (seat) => frame.board.names[seat] || `seat ${seat}`) : null,
        h(
          'div',
          { class: 'panel sheet-panel' },
          h('h3', null, 'Scoresheet'),
          scoresheetEl({
            seats: n,
            bottom: 0,
            names: frame.board.names,
            poolTarget: game?.rules?.poolTarget ?? 0,
            totals: frame.totals,
            deals: frame.deals,
            settlement: frame.settlement,
            accounts: frame.accounts,
          }),
        ),
      );
    };
    const schedule = () => {
      if (!drawing) {
        drawing = true;
        requestAnimationFrame(draw);
      }
    };
    stream = new GameStream({
      name,
      fromVersion: 0,
      credential: () => null,
      onMessage: (msg) => {
        if (msg.event.case && msg.event.case !== 'heartbeat') lastEventVersion = Math.max(lastEventVersion, Number(msg.version));
        if (msg.event.case === 'gameFinished' || msg.event.case === 'gameAborted') void refreshGame().then(schedule);
        folder.add(msg);
        schedule();
      },
      onState: (state) => {
        connection = state;
        schedule();
      },
      onFatal: (err) => {
        readError = describeError(err);
        fill(actionsBox, h('p', { class: 'error', 'data-testid': 'error' }, readError));
        return false;
      },
    });
    window.__prefDropStream = () => stream?.drop();
    // The table's own redraw must not draw over the spectator's.
    spectating = true;
    schedule();
  }

  void start();
  return () => {
    stopped = true;
    window.clearInterval(ticker);
    stream?.stop();
    delete window.__prefDropStream;
  };
}
