// The lobby, `#/`: the open public tables (ListTables, then WatchTables live), a form to open a
// table (CreateTable taking seat 0, optionally FillWithBots), joining a table (JoinTable), and
// the latest games (ListGames) with their replays. Once a table the player sits at starts, the
// page goes to its game.
import { tables, games, withAuth, jwt, player, newRequestId, rememberSeatToken, describeError, ConnectError, Code } from './api';
import { h, fill } from './dom';
import { TableState, Visibility, type Table } from './gen/preferans/v1/table_pb';
import { GameStatus, type GameSummary } from './gen/preferans/v1/game_pb';

// The named rule sets (domain/rules/systems.py RULE_SETS; docs/SYSTEMS.md compares them).
export const RULE_SETS = ['default', 'sochi', 'leningrad', 'leningrad-s000', 'rostov', 'classic', 'hooligan', 'classic-simple', 'classic-robber'];

const idOf = (name: string): string => name.slice(name.indexOf('/') + 1);

// An invitation link: `#/invite/<table_id>/<code>` (CreateInvitation's code for one seat).
export interface Invitation {
  table: string; // tables/{id}
  code: string;
}

export function lobbyView(root: HTMLElement, invitation?: Invitation): () => void {
  const lifetime = new AbortController();
  const known = new Map<string, Table>();
  let position = 0n;
  let error = '';
  let waitingFor: string | null = null; // a table the player sits at, not started yet
  let formOpen = false;
  let busy = false;
  let recent: GameSummary[] = [];
  let links: { seat: number; url: string }[] = []; // invitations to the player's private table
  const me = player();

  const formBox = h('div', { class: 'create-box' });
  const listBox = h('div', { class: 'tables-box' });
  const gamesBox = h('div', { class: 'games-box' });
  const messageBox = h('div', { class: 'message-box' });

  // The form keeps its inputs across redraws of the list.
  const playersSelect = h(
    'select',
    { 'data-testid': 'create-players', 'aria-label': 'players' },
    [3, 4, 2, 5].map((n) => h('option', { value: n }, `${n} players`)),
  );
  const rulesSelect = h(
    'select',
    { 'data-testid': 'create-rules', 'aria-label': 'rule set' },
    RULE_SETS.map((r) => h('option', { value: r }, r)),
  );
  const poolInput = h('input', { type: 'number', min: 0, max: 200, value: 0, 'data-testid': 'create-pool', 'aria-label': 'pool target (0: the rule set’s)' });
  const botsBox = h('input', { type: 'checkbox', 'data-testid': 'create-fill-bots', checked: true });
  const privateBox = h('input', { type: 'checkbox', 'data-testid': 'create-private' });
  const moveInput = h('input', { type: 'number', min: 0, max: 86400, value: 0, 'data-testid': 'create-move-seconds', 'aria-label': 'seconds per move (0: no clock)' });
  const bankInput = h('input', { type: 'number', min: 0, max: 604800, value: 0, 'data-testid': 'create-bank-seconds', 'aria-label': 'seconds in the bank' });
  const leagueInput = h('input', { type: 'text', maxlength: 64, placeholder: 'none', 'data-testid': 'create-league', 'aria-label': 'league' });

  fill(
    root,
    h(
      'div',
      { class: 'lobby-page' },
      h(
        'section',
        { class: 'panel lobby-tables' },
        h(
          'div',
          { class: 'section-head' },
          h('h2', null, 'Open tables'),
          h(
            'button',
            {
              type: 'button',
              class: 'primary',
              'data-testid': 'create-table',
              onclick: () => {
                formOpen = !formOpen;
                renderForm();
              },
            },
            'New table',
          ),
        ),
        messageBox,
        formBox,
        listBox,
      ),
      h('section', { class: 'panel lobby-games' }, h('h2', null, 'Latest games'), gamesBox),
    ),
  );

  function go(game: string): void {
    location.hash = `#/game/${idOf(game)}`;
  }

  function renderMessage(): void {
    fill(
      messageBox,
      error ? h('p', { class: 'error', 'data-testid': 'error' }, error) : null,
      !jwt() ? h('p', { class: 'notice' }, 'Sign in (top right) to open or join a table.') : null,
      waitingFor ? h('p', { class: 'notice', 'data-testid': 'waiting' }, `Waiting for players at ${idOf(waitingFor)}… the game opens here when every seat is taken.`) : null,
      links.length
        ? h(
            'div',
            { class: 'notice invitations' },
            'Send each player one link (one seat each):',
            h('ul', null, links.map((l) => h('li', null, `seat ${l.seat}: `, h('input', { type: 'text', readonly: true, value: l.url, 'data-testid': 'invite-link', 'data-seat': l.seat, onfocus: (e: Event) => (e.target as HTMLInputElement).select() })))),
          )
        : null,
    );
  }

  function renderForm(): void {
    if (!formOpen) {
      fill(formBox);
      return;
    }
    fill(
      formBox,
      h(
        'form',
        {
          class: 'create-form',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void create();
          },
        },
        h('label', null, 'Players ', playersSelect),
        h('label', null, 'Rules ', rulesSelect),
        h('label', null, 'Pool ', poolInput),
        h('label', null, 'League ', leagueInput),
        h('label', { title: '0 and 0: no clock' }, 'Clock ', moveInput, ' s a move + ', bankInput, ' s bank'),
        h('label', { class: 'check' }, botsBox, ' fill the empty seats with bots'),
        h('label', { class: 'check', title: 'not listed: players join with an invitation link' }, privateBox, ' private'),
        h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-submit', disabled: busy || !jwt() }, 'Open the table'),
      ),
    );
  }

  function renderList(): void {
    const open = [...known.values()]
      .filter((t) => t.state === TableState.OPEN)
      .sort((a, b) => Number(b.position - a.position));
    fill(
      listBox,
      h(
        'table',
        { class: 'list', 'data-testid': 'table-list' },
        h('thead', null, h('tr', null, h('th', null, 'Table'), h('th', null, 'Rules'), h('th', null, 'Pool'), h('th', null, 'Seats'), h('th', null, ''))),
        h(
          'tbody',
          null,
          open.length === 0 ? h('tr', { class: 'empty' }, h('td', { colspan: 5 }, 'No open table: open one.')) : null,
          open.map((t) => {
            const seated = me !== null && t.playerIds.includes(me);
            return h(
              'tr',
              { 'data-testid': 'table-row', 'data-table-id': idOf(t.name), 'data-table-name': t.name },
              h('td', null, h('span', { class: 'mono' }, idOf(t.name).slice(0, 8)), h('span', { class: 'by' }, ` by ${t.creator}`)),
              h('td', null, t.rules?.name || 'default', t.league ? h('span', { class: 'league' }, ` · ${t.league}`) : null),
              h('td', null, String(t.rules?.poolTarget || '—')),
              h(
                'td',
                { class: 'seats-cell' },
                t.playerIds.map((p, i) => h('span', { class: p ? 'taken' : 'free', 'data-seat': i }, p || 'free')),
              ),
              h(
                'td',
                null,
                h(
                  'button',
                  { type: 'button', 'data-testid': 'join-button', disabled: busy || seated || !jwt(), onclick: () => void join(t) },
                  seated ? 'seated' : 'Join',
                ),
              ),
            );
          }),
        ),
      ),
    );
  }

  function renderGames(): void {
    fill(
      gamesBox,
      h(
        'table',
        { class: 'list', 'data-testid': 'game-list' },
        h('thead', null, h('tr', null, h('th', null, 'Players'), h('th', null, 'Deal'), h('th', null, 'Status'), h('th', null, ''))),
        h(
          'tbody',
          null,
          recent.map((g) =>
            h(
              'tr',
              { 'data-testid': 'game-row', 'data-game-id': idOf(g.name) },
              h('td', null, g.playerIds.join(', ')),
              h('td', null, String(g.dealNumber)),
              h('td', null, g.status === GameStatus.FINISHED ? `over ${g.settlement.join(' / ')}` : g.status === GameStatus.ABORTED ? 'aborted' : 'playing'),
              h(
                'td',
                null,
                me && g.playerIds.includes(me) && g.status === GameStatus.PLAYING ? [h('a', { href: `#/game/${idOf(g.name)}` }, 'play'), ' · '] : null,
                h('a', { href: `#/replay/${idOf(g.name)}`, 'data-testid': 'replay-link' }, 'replay'),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function render(): void {
    renderMessage();
    renderForm();
    renderList();
  }

  function seen(t: Table): void {
    known.set(t.name, t);
    if (t.position > position) position = t.position;
    if (waitingFor === t.name) {
      if (t.state === TableState.STARTED) go(t.game);
      else if (t.state === TableState.CLOSED) {
        waitingFor = null;
        error = 'The table was closed.';
      }
    }
  }

  async function create(): Promise<void> {
    const token = jwt();
    if (!token || busy) return;
    busy = true;
    error = '';
    render();
    try {
      const players = Number(playersSelect.value);
      const requestId = newRequestId();
      const created = await tables.createTable(
        {
          rules: {
            name: rulesSelect.value,
            poolTarget: Math.max(0, Math.min(200, Number(poolInput.value) || 0)),
            optionsJson: players === 3 ? '' : JSON.stringify({ players }),
          },
          league: leagueInput.value.trim(),
          visibility: privateBox.checked ? Visibility.PRIVATE : Visibility.PUBLIC,
          timeControl:
            Number(moveInput.value) > 0 || Number(bankInput.value) > 0
              ? { moveSeconds: Math.max(0, Number(moveInput.value) || 0), bankSeconds: Math.max(0, Number(bankInput.value) || 0) }
              : undefined,
          takeSeat: true,
          requestId,
        },
        withAuth(token, requestId),
      );
      let table = created.table;
      if (!table) throw new Error('the server answered without a table');
      rememberSeatToken(table.game, created.seatToken);
      if (botsBox.checked) {
        const fillId = newRequestId();
        table = (await tables.fillWithBots({ name: table.name, requestId: fillId }, withAuth(token, fillId))).table ?? table;
      }
      seen(table);
      if (table.state === TableState.STARTED) {
        go(table.game);
        return;
      }
      waitingFor = table.name;
      formOpen = false;
      if (table.visibility === Visibility.PRIVATE) {
        links = [];
        for (let seat = 0; seat < table.seats; seat++) {
          if (table.playerIds[seat]) continue;
          const inviteId = newRequestId();
          const invitation = await tables.createInvitation({ name: table.name, seat, requestId: inviteId }, withAuth(token, inviteId));
          links.push({ seat: invitation.seat, url: `${location.origin}${location.pathname}#/invite/${idOf(table.name)}/${encodeURIComponent(invitation.invitationCode)}` });
        }
      }
    } catch (err) {
      error = describeError(err);
    } finally {
      busy = false;
      if (!lifetime.signal.aborted) render();
    }
  }

  async function join(t: Pick<Table, 'name'>, invitationCode = ''): Promise<void> {
    const token = jwt();
    if (!token || busy) return;
    busy = true;
    error = '';
    render();
    try {
      const requestId = newRequestId();
      const answer = await tables.joinTable({ name: t.name, invitationCode, requestId }, withAuth(token, requestId));
      const table = answer.table;
      if (!table) throw new Error('the server answered without a table');
      rememberSeatToken(table.game, answer.seatToken);
      seen(table);
      if (table.state === TableState.STARTED) {
        go(table.game);
        return;
      }
      waitingFor = table.name;
    } catch (err) {
      error = describeError(err);
    } finally {
      busy = false;
      if (!lifetime.signal.aborted) render();
    }
  }

  async function loadList(): Promise<void> {
    let pageToken = '';
    do {
      const page = await tables.listTables({ pageSize: 200, pageToken }, { signal: lifetime.signal });
      for (const t of page.tables) seen(t);
      pageToken = page.nextPageToken;
    } while (pageToken && known.size < 1000);
    render();
  }

  // WatchTables, resumed after the last position on a drop.
  async function watch(): Promise<void> {
    let attempt = 0;
    while (!lifetime.signal.aborted) {
      try {
        for await (const msg of tables.watchTables({ afterPosition: position }, { signal: lifetime.signal })) {
          attempt = 0;
          if (msg.kind.case === 'table') {
            seen(msg.kind.value);
            render();
          }
        }
      } catch (err) {
        if (lifetime.signal.aborted) return;
        const e = ConnectError.from(err);
        if (e.code === Code.Unimplemented) return;
      }
      await new Promise((r) => setTimeout(r, Math.min(8000, 500 * 2 ** attempt++)));
    }
  }

  // The table the player waits at, read now and then besides the stream (which follows the
  // lobby read model a moment behind).
  const poll = window.setInterval(() => {
    if (!waitingFor) return;
    void tables
      .getTable({ name: waitingFor }, { signal: lifetime.signal })
      .then((answer) => {
        if (answer.table) seen(answer.table);
        render();
      })
      .catch(() => undefined);
  }, 2000);

  async function loadGames(): Promise<void> {
    try {
      recent = (await games.listGames({ pageSize: 20 }, { signal: lifetime.signal })).games;
      renderGames();
    } catch {
      /* the list of games is a convenience; the lobby works without it */
    }
  }

  render();
  if (invitation) {
    if (jwt()) void join({ name: invitation.table }, invitation.code);
    else error = 'Sign in (top right) to take the seat of this invitation.';
    render();
  }
  void loadList()
    .catch((err) => {
      if (!lifetime.signal.aborted) {
        error = describeError(err);
        render();
      }
    })
    .finally(() => void watch());
  void loadGames();
  return () => {
    lifetime.abort();
    window.clearInterval(poll);
  };
}
