// The league leaderboard, `#/leaderboard/<league>` (empty: the untagged league):
// StatsService.ListLeaderboard, by rating unless another order is chosen, page by page.
import { stats, describeError } from './api';
import { h, fill } from './dom';
import { whistsText } from './cards';
import { LeaderboardOrder, type LeaderboardEntry } from './gen/preferans/v1/stats_pb';

const ORDERS: [LeaderboardOrder, string][] = [
  [LeaderboardOrder.RATING, 'rating'],
  [LeaderboardOrder.SETTLEMENT_TOTAL, 'settlement'],
  [LeaderboardOrder.GAMES, 'games'],
  [LeaderboardOrder.DEALS, 'deals'],
  [LeaderboardOrder.CONTRACTS_MADE, 'contracts made'],
];

export function leaderboardView(root: HTMLElement, league: string): () => void {
  const lifetime = new AbortController();
  let entries: LeaderboardEntry[] = [];
  let next = '';
  let order = LeaderboardOrder.RATING;
  let error = '';
  let leagues: string[] = [];
  const body = h('div');
  fill(root, h('section', { class: 'panel leaderboard-page' }, body));

  function render(): void {
    const choices = [...new Set(['', ...leagues, league])];
    fill(
      body,
      h(
        'div',
        { class: 'section-head' },
        h('h2', null, `Leaderboard · ${league || 'games without a league'}`),
        h(
          'select',
          {
            'aria-label': 'league',
            'data-testid': 'leaderboard-league',
            onchange: (e: Event) => (location.hash = `#/leaderboard/${encodeURIComponent((e.target as HTMLSelectElement).value)}`),
          },
          choices.map((l) => h('option', { value: l, selected: l === league }, l || '(no league)')),
        ),
        h(
          'select',
          {
            'aria-label': 'order',
            onchange: (e: Event) => {
              order = Number((e.target as HTMLSelectElement).value) as LeaderboardOrder;
              void load(true);
            },
          },
          ORDERS.map(([o, label]) => h('option', { value: o, selected: o === order }, `by ${label}`)),
        ),
      ),
      error ? h('p', { class: 'error', 'data-testid': 'error' }, error) : null,
      h(
        'table',
        { class: 'list leaderboard', 'data-testid': 'leaderboard' },
        h(
          'thead',
          null,
          h('tr', null, ['#', 'Player', 'Rating', 'Games', 'Deals', 'Settlement', 'Made', 'Failed'].map((c) => h('th', null, c))),
        ),
        h(
          'tbody',
          null,
          entries.length === 0 ? h('tr', { class: 'empty' }, h('td', { colspan: 8 }, 'No finished game in this league yet.')) : null,
          entries.map((e) =>
            h(
              'tr',
              { 'data-testid': 'leaderboard-row', 'data-player': e.playerId, 'data-rank': Number(e.rank) },
              h('td', null, String(e.rank)),
              h('td', { class: 'player' }, e.playerId),
              h('td', { class: 'num' }, e.rating.toFixed(1)),
              h('td', { class: 'num' }, String(e.games)),
              h('td', { class: 'num' }, String(e.deals)),
              h('td', { class: 'num', 'data-value': e.settlementTotal }, whistsText(e.settlementTotal)),
              h('td', { class: 'num' }, String(e.contractsMade)),
              h('td', { class: 'num' }, String(e.contractsFailed)),
            ),
          ),
        ),
      ),
      next ? h('button', { type: 'button', onclick: () => void load(false) }, 'More') : null,
    );
  }

  async function load(fresh: boolean): Promise<void> {
    try {
      const page = await stats.listLeaderboard({ league, orderBy: order, pageSize: 50, pageToken: fresh ? '' : next }, { signal: lifetime.signal });
      entries = fresh ? page.entries : [...entries, ...page.entries];
      next = page.nextPageToken;
      error = '';
    } catch (err) {
      if (lifetime.signal.aborted) return;
      error = describeError(err);
    }
    render();
  }

  render();
  void load(true);
  void stats
    .listLeagues({ pageSize: 100 }, { signal: lifetime.signal })
    .then((answer) => {
      leagues = answer.leagues;
      render();
    })
    .catch(() => undefined);
  return () => lifetime.abort();
}
