// The real-browser test's driver (run by tests/browser/test_web_table.py; not meant to be run
// by hand, but it can be: see the environment below).
//
// Debian's chromium, driven by playwright-core (no browser download), signs in on the web
// table with the development issuer, creates a three-seat table filled with two bots, plays a
// whole deal by clicking the page's legal action buttons, drops the live stream and the network
// in the middle of it and checks that the page reconnects by itself, steps the replay viewer
// forward and back, and opens a league's leaderboard. It saves screenshots on the way.
//
// It judges nothing about hidden cards itself: it records what the page held and what it
// received, and the Python test compares that with the true hands read from the audit API after
// the deal. Recorded, into $PREF_BROWSER_OUT (JSON):
//   - `dom`: every distinct state of the page's cards, taken by a MutationObserver after each
//     change of the DOM (and on demand): the route, the `version` element's data-version, the
//     replay position, every element with a `data-card` (with the data-testids of its
//     ancestors) and the card names in the page's visible text outside the elements where bids
//     are written;
//   - `network`: every Connect response the page received, captured in the browser's network
//     layer through the DevTools protocol (unary bodies whole; streams chunk by chunk, with
//     Network.streamResourceContent, so a stream that never ends is captured too);
//   - `steps`: what was done and seen (game id, versions before and after the reconnects, replay
//     positions, leaderboard rows).
//
// Environment: PREF_WEB_URL (the server's Connect/web origin, e.g. http://127.0.0.1:8080/),
// PREF_PLAYER (the name to sign in with), PREF_LEAGUE (the leaderboard's league),
// PREF_BROWSER_OUT (the JSON file to write), PREF_SCREENSHOTS (folder), PREF_CHROMIUM
// (default /usr/bin/chromium), PREF_STEP_TIMEOUT_MS (default 20000).

import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.env.PREF_WEB_URL;
const PLAYER = process.env.PREF_PLAYER || 'browser-ann';
const LEAGUE = process.env.PREF_LEAGUE || '';
const OUT = process.env.PREF_BROWSER_OUT;
const SHOTS = process.env.PREF_SCREENSHOTS || 'artifacts/screenshots';
const EXECUTABLE = process.env.PREF_CHROMIUM || '/usr/bin/chromium';
const STEP = Number(process.env.PREF_STEP_TIMEOUT_MS || 20000);
const MAX_CLICKS = 200; // a deal is at most ~40 decisions of one seat

if (!BASE || !OUT) {
  console.error('play.mjs: PREF_WEB_URL and PREF_BROWSER_OUT are required');
  process.exit(2);
}

const tid = (id) => `[data-testid="${id}"]`;
const steps = [];
const network = [];
const log = (what, data = {}) => {
  const entry = { what, at: Date.now(), ...data };
  steps.push(entry);
  console.log(`play.mjs: ${what} ${JSON.stringify(data)}`);
};

// Runs in the page before any of its scripts: a MutationObserver that records every distinct
// state of the cards on the page.
function domRecorder() {
  const record = window.__prefRecord;
  const BID_REGIONS = ['auction', 'actions', 'status', 'scoresheet', 'deal-result', 'leaderboard'];
  const CARD = /(?:^|[^0-9A-Za-z])((?:7|8|9|10|J|Q|K|A)[♠♣♦♥])/gu;
  const seen = new Set();
  const attr = (id, name) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    return el ? el.getAttribute(name) : null;
  };
  const regionsOf = (el) => {
    const ids = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const id = n.getAttribute('data-testid');
      if (id) ids.push(id);
    }
    return ids;
  };
  const textCards = () => {
    // The visible text, without the regions where bids ("7♠") and contracts are written and
    // the elements that name cards by data-card (checked by attribute, with their region).
    const found = [];
    if (!document.body) return found;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      let skip = false;
      for (let n = node.parentElement; n; n = n.parentElement) {
        const id = n.getAttribute('data-testid');
        if (n.hasAttribute('data-card') || (id && BID_REGIONS.includes(id))) { skip = true; break; }
        if (n.tagName === 'SCRIPT' || n.tagName === 'STYLE' || n.tagName === 'OPTION') { skip = true; break; }
      }
      if (skip) continue;
      for (const m of node.textContent.matchAll(CARD)) {
        found.push({ card: m[1], regions: regionsOf(node.parentElement), text: node.textContent.slice(0, 80) });
      }
    }
    return found;
  };
  window.__prefSnapshot = (why) => {
    const cards = [];
    for (const el of document.querySelectorAll('[data-card]')) {
      cards.push({ card: el.getAttribute('data-card'), regions: regionsOf(el), seat: el.getAttribute('data-seat') });
    }
    const snap = {
      why,
      route: location.hash,
      version: attr('version', 'data-version'),
      replay: attr('replay-position', 'data-version'),
      deal: attr('deal-result', 'data-deal'),
      phase: attr('status', 'data-phase'),
      cards,
      text: textCards(),
    };
    const key = JSON.stringify([snap.route, snap.version, snap.replay, snap.deal, snap.cards, snap.text]);
    if (!seen.has(key)) {
      seen.add(key);
      snap.at = Date.now();
      record(snap);
    }
  };
  const start = () => {
    new MutationObserver(() => window.__prefSnapshot('mutation')).observe(document, {
      subtree: true, childList: true, attributes: true, characterData: true,
    });
    window.__prefSnapshot('load');
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}

// Network capture through the DevTools protocol: Connect responses (paths
// /preferans.v1.<Service>/<Method>), unary whole, streams chunk by chunk.
async function captureNetwork(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable', { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 });
  const requests = new Map();
  const pending = [];
  const isConnect = (url) => /\/preferans\.v1\.[A-Za-z]+\/[A-Za-z]+$/.test(new URL(url).pathname);
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!isConnect(e.request.url)) return;
    requests.set(e.requestId, {
      id: e.requestId,
      method: new URL(e.request.url).pathname,
      requestBody: e.request.postData || null,
      requestType: e.request.headers['Content-Type'] || e.request.headers['content-type'] || '',
      contentType: '',
      status: 0,
      chunks: [],
      body: null,
      done: false,
      failed: null,
    });
  });
  cdp.on('Network.responseReceived', (e) => {
    const r = requests.get(e.requestId);
    if (!r) return;
    r.status = e.response.status;
    r.contentType = e.response.headers['content-type'] || e.response.headers['Content-Type'] || e.response.mimeType;
    r.headers = e.response.headers;
    if (/^application\/(connect\+|grpc-web)/.test(r.contentType)) {
      r.streaming = true;
      pending.push(
        cdp.send('Network.streamResourceContent', { requestId: e.requestId })
          .then((answer) => { if (answer.bufferedData) r.chunks.unshift(answer.bufferedData); })
          .catch((err) => { r.streamError = String(err); }),
      );
    }
  });
  cdp.on('Network.dataReceived', (e) => {
    const r = requests.get(e.requestId);
    if (r && r.streaming && e.data) r.chunks.push(e.data);
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (!r) return;
    r.done = true;
    if (!r.streaming) {
      pending.push(
        cdp.send('Network.getResponseBody', { requestId: e.requestId })
          .then((b) => { r.body = b.base64Encoded ? b.body : Buffer.from(b.body, 'utf8').toString('base64'); })
          .catch((err) => { r.bodyError = String(err); }),
      );
    }
  });
  cdp.on('Network.loadingFailed', (e) => {
    const r = requests.get(e.requestId);
    if (r) { r.done = true; r.failed = e.errorText; }
  });
  return async () => {
    await Promise.allSettled(pending);
    for (const r of requests.values()) {
      if (r.streaming) r.body = Buffer.concat(r.chunks.map((c) => Buffer.from(c, 'base64'))).toString('base64');
      delete r.chunks;
      network.push(r);
    }
  };
}

async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  log('screenshot', { file });
}

const attr = (page, id, name) => page.locator(tid(id)).first().getAttribute(name, { timeout: STEP });
const version = async (page) => Number(await attr(page, 'version', 'data-version'));

async function waitState(page, state) {
  await page.waitForFunction(
    (s) => document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') === s,
    state, { timeout: STEP },
  );
}

// One decision of ours, among the page's legal actions. At our first call of the auction we
// bid the lowest bid offered, then pass: if the bots let us have it, the page's seat declares
// (the talon turned up, a discard picked on the hand's cards, the contract named); if not, the
// bots declare and we whist against them, or everyone plays raspasy. In play: a legal card,
// half of the time by clicking it in the hand (those card buttons carry data-action too).
let bidOnce = false;
async function decide(page) {
  const buttons = page.locator(`${tid('actions')} button[data-action]`);
  const actions = await buttons.evaluateAll((bs) => bs.map((b) => b.getAttribute('data-action')));
  if (!actions.length) return null;
  const phase = await attr(page, 'status', 'data-phase');
  const before = await version(page);
  let choice = actions[0];
  let how = 'actions';
  if (phase === 'PHASE_BIDDING') {
    const bids = actions.filter((a) => a !== 'pass' && a !== 'misère');
    choice = !bidOnce && bids.length ? bids[0] : (actions.includes('pass') ? 'pass' : actions[0]);
    bidOnce = true;
  } else if (phase === 'PHASE_WHISTING') {
    choice = actions.includes('whist') ? 'whist' : actions[0];
  } else if (phase === 'PHASE_DISCARD' && (await page.locator(`${tid('hand')} [data-select]`).count()) >= 2) {
    // Pick two cards on the hand: the second pick sends the discard.
    const picked = [];
    for (let i = 0; i < 2; i += 1) {
      const card = page.locator(`${tid('hand')} [data-select][aria-pressed="false"]`).first();
      picked.push(await card.getAttribute('data-select'));
      await card.click();
    }
    choice = `discard ${picked.join(' ')}`;
    how = 'hand selection';
  }
  if (how === 'actions') {
    const inHand = page.locator(`${tid('hand')} button[data-action="${choice}"]`);
    if (phase === 'PHASE_PLAY' && (await inHand.count()) > 0 && before % 2 === 0) {
      await inHand.first().click();
      how = 'hand card';
    } else {
      await buttons.locator(`xpath=self::*[@data-action=${JSON.stringify(choice)}]`).first().click();
    }
  }
  await page.waitForFunction(
    (v) => Number(document.querySelector('[data-testid="version"]')?.getAttribute('data-version')) > v,
    before, { timeout: STEP },
  );
  return { phase, choice, how, actions: actions.slice(0, 12), before };
}

// A dropped stream (window.__prefDropStream, as a network drop would close it), alone or while
// the browser is offline (an open stream survives Chromium's offline emulation, so the stream is
// dropped too and the page's reconnection attempts fail until the network is back). The page
// must leave "live", then come back to "live" by itself.
async function reconnect(page, context, how) {
  const before = await version(page);
  if (how === 'offline') await context.setOffline(true);
  await page.evaluate(() => window.__prefDropStream());
  const left = await page.waitForFunction(
    () => document.querySelector('[data-testid="connection"]')?.getAttribute('data-state') !== 'live',
    null, { timeout: STEP },
  ).then(() => true, () => false);
  const state = await attr(page, 'connection', 'data-state');
  log('stream dropped', { how, leftLive: left, state });
  if (how === 'offline') {
    if (!left) throw new Error('offline and the stream dropped, yet the connection stayed "live"');
    await page.waitForTimeout(1500); // a few failed attempts with backoff
    await shot(page, '05-offline');
    await context.setOffline(false);
  }
  await waitState(page, 'live');
  const after = await version(page);
  steps.push({ what: 'reconnect', how, leftLive: left, offlineState: state, before, after });
  log('reconnected', { how, before, after });
}

async function main() {
  const browser = await chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Snapshots go to Node at once (exposeBinding), so a reload loses none.
  const dom = [];
  await context.exposeBinding('__prefRecord', (_source, snap) => { dom.push(snap); });
  await context.addInitScript(domRecorder);
  const page = await context.newPage();
  const finishCapture = await captureNetwork(context, page);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const httpErrors = [];
  page.on('response', (r) => { if (r.status() >= 400) httpErrors.push({ url: r.url(), status: r.status() }); });
  let failure = null;
  let gameId = null;
  try {
    await page.goto(new URL('#/', BASE).href);
    await page.locator(tid('signin-name')).fill(PLAYER, { timeout: STEP });
    await shot(page, '01-signin');
    await page.locator(tid('signin-button')).click();
    await page.locator(tid('whoami')).filter({ hasText: PLAYER }).waitFor({ timeout: STEP });
    log('signed in', { player: PLAYER });

    await page.locator(tid('create-table')).click();
    await page.locator(tid('create-players')).selectOption('3', { timeout: STEP });
    const rules = await page.locator(`${tid('create-rules')} option`).evaluateAll((os) => os.map((o) => o.value));
    log('rule sets offered', { rules });
    await page.locator(tid('create-fill-bots')).check();
    await shot(page, '02-lobby-create');
    await page.locator(tid('create-submit')).click();
    await page.waitForURL(/#\/game\/[0-9a-f-]{36}$/, { timeout: STEP });
    gameId = page.url().match(/#\/game\/([0-9a-f-]{36})$/)[1];
    log('table created, game started', { gameId });
    await page.locator(`${tid('hand')} [data-card]`).first().waitFor({ timeout: STEP });
    await shot(page, '03-table');

    // The whole first deal, through the page's buttons, with two reconnects in the middle.
    let clicks = 0;
    let cardsPlayed = 0;
    let retries = 0;
    const reconnects = [];
    while (clicks < MAX_CLICKS) {
      const result = page.locator(`${tid('deal-result')}[data-deal="1"]`);
      if (await result.count()) break;
      // Our turn (a legal action button) or the deal's end, whichever comes first.
      await page.waitForFunction(
        () => document.querySelector('[data-testid="actions"] button[data-action]')
          || document.querySelector('[data-testid="deal-result"][data-deal="1"]'),
        null, { timeout: STEP * 3 },
      );
      if (await result.count()) break;
      const done = await decide(page).catch((e) => {
        // The turn may pass between reading the buttons and clicking (a bot's move re-renders).
        retries += 1;
        log('decision retried', { error: String(e).slice(0, 200) });
        if (retries > 10) throw e;
        return null;
      });
      if (!done) continue;
      clicks += 1;
      log('decided', done);
      if (done.phase === 'PHASE_PLAY') {
        cardsPlayed += 1;
        if (cardsPlayed === 2 && !reconnects.includes('drop')) {
          await shot(page, '04-playing');
          await reconnect(page, context, 'drop');
          reconnects.push('drop');
        } else if (cardsPlayed === 4 && !reconnects.includes('offline')) {
          await reconnect(page, context, 'offline');
          reconnects.push('offline');
          await shot(page, '06-reconnected');
        }
      }
    }
    await page.locator(`${tid('deal-result')}[data-deal="1"]`).waitFor({ timeout: STEP });
    if (!reconnects.length) {
      // Nobody played cards with us (everyone passed to a contract we did not whist): the
      // reconnect is checked between deals instead.
      await reconnect(page, context, 'drop');
      await reconnect(page, context, 'offline');
      reconnects.push('drop', 'offline');
    }
    const sheetSeats = await page.locator(`${tid('scoresheet')} [data-seat]`).count();
    // The scoresheet as drawn: per seat its pool and gora totals and the whists it wrote on
    // each other seat (the cells' data-value).
    const sheet = await page.locator(`${tid('scoresheet')} ${tid('whists')}`).evaluateAll((groups) => {
      const value = (el) => (el ? Number(el.getAttribute('data-value')) : null);
      const root = document.querySelector('[data-testid="scoresheet"]');
      return groups.map((g) => {
        const seat = Number(g.getAttribute('data-seat'));
        const whists = {};
        for (const w of g.querySelectorAll('[data-testid="whists-on"]')) whists[w.getAttribute('data-on')] = value(w);
        return {
          seat,
          pool: value(root.querySelector(`[data-testid="pool"][data-seat="${seat}"]`)),
          gora: value(root.querySelector(`[data-testid="gora"][data-seat="${seat}"]`)),
          whists,
        };
      });
    });
    log('deal 1 over', { clicks, cardsPlayed, reconnects, version: await version(page), sheetSeats, sheet });
    await page.evaluate(() => window.__prefSnapshot('deal over'));
    await shot(page, '07-deal-result');

    // The replay viewer: start, forward, back, end.
    await page.goto(new URL(`#/replay/${gameId}`, BASE).href);
    const position = async () => Number(await attr(page, 'replay-position', 'data-version'));
    await page.locator(tid('replay-position')).waitFor({ timeout: STEP });
    if (await page.locator(tid('replay-start')).isEnabled()) {
      const from = await position();
      await page.locator(tid('replay-start')).click();
      await page.waitForFunction((v) => Number(document.querySelector('[data-testid="replay-position"]')?.getAttribute('data-version')) < v, from, { timeout: STEP });
    }
    const start = await position();
    const forwards = [];
    for (let i = 0; i < 12; i += 1) {
      await page.locator(tid('replay-forward')).click();
      await page.waitForFunction((v) => Number(document.querySelector('[data-testid="replay-position"]')?.getAttribute('data-version')) !== v, forwards.at(-1) ?? start, { timeout: STEP });
      forwards.push(await position());
      await page.evaluate(() => window.__prefSnapshot('replay'));
    }
    await shot(page, '08-replay-forward');
    const backs = [];
    for (let i = 0; i < 3; i += 1) {
      await page.locator(tid('replay-back')).click();
      await page.waitForFunction((v) => Number(document.querySelector('[data-testid="replay-position"]')?.getAttribute('data-version')) !== v, backs.at(-1) ?? forwards.at(-1), { timeout: STEP });
      backs.push(await position());
      await page.evaluate(() => window.__prefSnapshot('replay'));
    }
    await page.locator(tid('replay-end')).click();
    await page.waitForFunction((v) => Number(document.querySelector('[data-testid="replay-position"]')?.getAttribute('data-version')) > v, backs.at(-1), { timeout: STEP });
    const end = await position();
    const replayHand = await page.locator(`${tid('hand')} [data-card]`).count();
    await page.evaluate(() => window.__prefSnapshot('replay'));
    await shot(page, '09-replay-end');
    log('replay', { start, forwards, backs, end, replayHand });

    // The leaderboard.
    await page.goto(new URL(`#/leaderboard/${encodeURIComponent(LEAGUE)}`, BASE).href);
    await page.locator(tid('leaderboard-row')).first().waitFor({ timeout: STEP });
    const players = await page.locator(tid('leaderboard-row')).evaluateAll((rs) => rs.map((r) => r.getAttribute('data-player')));
    await shot(page, '10-leaderboard');
    log('leaderboard', { league: LEAGUE, players });
  } catch (err) {
    failure = String(err && err.stack ? err.stack : err);
    log('failed', { error: failure.slice(0, 2000) });
    await shot(page, '99-failure').catch(() => {});
  }
  await page.evaluate(() => window.__prefSnapshot('end')).catch(() => {});
  await page.waitForTimeout(200); // the last bindings' calls
  await finishCapture();
  await browser.close();
  fs.writeFileSync(OUT, JSON.stringify({ gameId, player: PLAYER, failure, consoleErrors, httpErrors, steps, dom, network }));
  process.exit(failure ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
