// The replay viewer, `#/replay/<game_id>`: the seat's own event stream from version 0 (with the
// seat token this tab holds, else the JWT; a spectator's stream when neither sits at the game),
// read to the game's current version, folded into one table per event (fold.ts), stepped
// forward and back.
import { games, withAuth, credentialFor, describeError, ConnectError, Code } from './api';
import { h, fill } from './dom';
import { auctionEl, feltEl, tricksTakenEl } from './board';
import { scoresheetEl } from './scoresheet';
import { dealResultEl } from './table';
import { Folder, type Frame } from './fold';
import type { Game, WatchGameResponse } from './gen/preferans/v1/game_pb';

async function readAll(name: string, target: number, token: string | null, signal: AbortSignal): Promise<WatchGameResponse[]> {
  const out: WatchGameResponse[] = [];
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop);
  try {
    const stream = games.watchGameBatches(
      { name, fromVersion: 0n, heartbeatSeconds: 1, maxBatchSize: 1000 },
      withAuth(token, undefined, controller.signal),
    );
    for await (const batch of stream) {
      let caughtUp = false;
      for (const msg of batch.updates) {
        if (msg.event.case === 'heartbeat') caughtUp = true;
        else out.push(msg);
        if (Number(msg.version) >= target) caughtUp = true;
      }
      if (caughtUp) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    signal.removeEventListener('abort', stop);
    controller.abort();
  }
  return out;
}

export function replayView(root: HTMLElement, gameId: string): () => void {
  const name = `games/${gameId}`;
  const lifetime = new AbortController();
  let frames: Frame[] = [];
  let position = 0;
  let seatLabel = '';
  let game: Game | null = null;
  const body = h('div', { class: 'replay-body' }, h('p', { class: 'loading' }, 'Loading the game…'));
  fill(root, h('div', { class: 'replay-page' }, body));

  function go(to: number): void {
    position = Math.max(0, Math.min(frames.length - 1, to));
    render();
  }

  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'ArrowLeft') go(position - 1);
    else if (e.key === 'ArrowRight') go(position + 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(frames.length - 1);
  };
  document.addEventListener('keydown', onKey);

  function render(): void {
    const frame = frames[position];
    if (!frame) return;
    const last = frames.length - 1;
    const deals = frames
      .map((f, i) => ({ f, i }))
      .filter(({ f, i }) => i > 0 && f.board.dealNumber !== frames[i - 1].board.dealNumber);
    const n = frame.board.seats;
    fill(
      body,
      h(
        'div',
        { class: 'replay-controls' },
        h('button', { type: 'button', 'data-testid': 'replay-start', onclick: () => go(0), disabled: position === 0, title: 'the start (Home)' }, '«'),
        h('button', { type: 'button', 'data-testid': 'replay-back', onclick: () => go(position - 1), disabled: position === 0, title: 'one event back (←)' }, '◀'),
        h(
          'span',
          { class: 'replay-position', 'data-testid': 'replay-position', 'data-version': frame.version, 'data-index': position },
          `event ${position} of ${last} · v${frame.version}`,
        ),
        h('button', { type: 'button', 'data-testid': 'replay-forward', onclick: () => go(position + 1), disabled: position === last, title: 'one event forward (→)' }, '▶'),
        h('button', { type: 'button', 'data-testid': 'replay-end', onclick: () => go(last), disabled: position === last, title: 'the end (End)' }, '»'),
        deals.length
          ? h(
              'select',
              {
                class: 'replay-deal',
                'data-testid': 'replay-deal',
                'aria-label': 'jump to a deal',
                onchange: (e: Event) => go(Number((e.target as HTMLSelectElement).value)),
              },
              h('option', { value: '' }, 'jump to a deal…'),
              deals.map(({ f, i }) => h('option', { value: i }, `deal ${f.board.dealNumber}`)),
            )
          : null,
        h('span', { class: 'replay-seat' }, seatLabel),
        h('a', { href: `#/game/${gameId}`, class: 'link' }, 'the table'),
      ),
      h('p', { class: 'replay-what', 'data-testid': 'replay-event' }, frame.what),
      h(
        'div',
        { class: 'game-main' },
        h('div', { class: 'table-col' }, h('div', { class: 'board' }, feltEl(frame.board))),
        h(
          'div',
          { class: 'side' },
          auctionEl(frame.board),
          h('div', { class: 'panel' }, h('h3', null, 'Tricks taken'), tricksTakenEl(frame.board)),
          frame.scored ? dealResultEl(frame.scored, (s) => frame.board.names[s] || `seat ${s}`) : null,
          h(
            'div',
            { class: 'panel sheet-panel' },
            h('h3', null, 'Scoresheet'),
            scoresheetEl({
              seats: n,
              bottom: frame.board.bottom,
              names: frame.board.names,
              poolTarget: game?.rules?.poolTarget ?? 0,
              totals: frame.totals,
              deals: frame.deals,
              settlement: frame.settlement,
              accounts: frame.accounts,
            }),
          ),
        ),
      ),
    );
  }

  async function load(): Promise<void> {
    try {
      game = (await games.getGame({ name })).game ?? null;
      if (!game) throw new Error('no such game');
      const target = Number(game.version);
      // Which seat the credential is (JoinGame); a spectator if it sits nowhere here.
      let token = credentialFor(name);
      let seat = -1;
      if (token) {
        try {
          seat = (await games.joinGame({ name }, withAuth(token))).seat;
        } catch (err) {
          const e = ConnectError.from(err);
          if (e.code !== Code.PermissionDenied && e.code !== Code.Unauthenticated) throw err;
          token = null;
        }
      }
      seatLabel = seat >= 0 ? `as seen from seat ${seat} (${game.players[seat]?.playerId ?? ''})` : 'as a spectator sees it';
      const messages = await readAll(name, target, token, lifetime.signal);
      const seats = game.seats || 3;
      const folder = new Folder(seats, seat, game.players.map((p) => p.playerId));
      for (const msg of messages) folder.add(msg);
      frames = folder.frames;
      position = 0;
      render();
    } catch (err) {
      if (lifetime.signal.aborted) return;
      fill(body, h('p', { class: 'error', 'data-testid': 'error' }, describeError(err)));
    }
  }

  void load();
  return () => {
    lifetime.abort();
    document.removeEventListener('keydown', onKey);
  };
}
