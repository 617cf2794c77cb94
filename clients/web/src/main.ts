// The reference web table of the Preferans service. Routes by hash: `#/` the lobby,
// `#/game/<game_id>` a table, `#/replay/<game_id>` a replay, `#/leaderboard/<league>`.
import { devSignIn, player, signIn, signOut } from './api';
import { h, fill } from './dom';
import { lobbyView } from './lobby';
import { gameView } from './table';
import { replayView } from './replay';
import { leaderboardView } from './leaderboard';

const header = h('header', { class: 'top' });
const main = h('main', { id: 'view' });
document.body.replaceChildren(header, main);

let stopView: (() => void) | null = null;
let signInError = '';

function renderHeader(): void {
  const who = player();
  const nameInput = h('input', { type: 'text', 'data-testid': 'signin-name', placeholder: 'your name', maxlength: 64, 'aria-label': 'name' });
  const tokenInput = h('input', { type: 'password', 'data-testid': 'signin-token', placeholder: 'or paste a JWT', 'aria-label': 'JWT' });
  const signInBox = h(
    'div',
    { class: 'signin' },
    who ? h('span', { class: 'who' }, 'Signed in as ') : null,
    h('strong', { 'data-testid': 'whoami', 'data-player': who ?? '' }, who ?? ''),
    who
      ? h(
          'button',
          {
            type: 'button',
            class: 'link-button',
            'data-testid': 'signout-button',
            onclick: () => {
              signOut();
              route();
            },
          },
          'sign out',
        )
      : [
          h(
            'form',
            {
              class: 'inline',
              onsubmit: (e: Event) => {
                e.preventDefault();
                devSignIn(nameInput.value.trim())
                  .then(() => {
                    signInError = '';
                    route();
                  })
                  .catch((err: Error) => {
                    signInError = err.message;
                    renderHeader();
                  });
              },
            },
            nameInput,
            h('button', { type: 'submit', 'data-testid': 'signin-button', title: 'development sign-in (pref serve --dev-auth)' }, 'Sign in'),
          ),
          h(
            'form',
            {
              class: 'inline',
              onsubmit: (e: Event) => {
                e.preventDefault();
                try {
                  signIn(tokenInput.value);
                  signInError = '';
                  route();
                } catch (err) {
                  signInError = (err as Error).message;
                  renderHeader();
                }
              },
            },
            tokenInput,
            h('button', { type: 'submit', 'data-testid': 'signin-token-button' }, 'Use token'),
          ),
        ],
    signInError ? h('span', { class: 'error', 'data-testid': 'signin-error' }, signInError) : null,
  );
  fill(
    header,
    h('a', { href: '#/', class: 'brand' }, h('span', { class: 'suit spades' }, '♠'), h('span', { class: 'suit hearts' }, '♥'), ' Preferans'),
    h('nav', null, h('a', { href: '#/' }, 'Lobby'), h('a', { href: '#/leaderboard/' }, 'Leaderboard')),
    signInBox,
  );
}

function route(): void {
  stopView?.();
  stopView = null;
  renderHeader();
  const hash = location.hash.replace(/^#/, '') || '/';
  const parts = hash.split('/').filter((p, i) => i > 0 || p);
  const [page, arg = ''] = parts;
  const id = decodeURIComponent(arg);
  if (page === 'game' && id) stopView = gameView(main, id);
  else if (page === 'replay' && id) stopView = replayView(main, id);
  else if (page === 'leaderboard') stopView = leaderboardView(main, id);
  else if (page === 'invite' && id && parts[2]) stopView = lobbyView(main, { table: `tables/${id}`, code: decodeURIComponent(parts[2]) });
  else stopView = lobbyView(main);
}

window.addEventListener('hashchange', route);
route();
