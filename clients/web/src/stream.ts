// A game's event stream (WatchGame) that survives a dropped connection: on an error, the end of
// the stream, a silence longer than three heartbeats, or the browser going offline, it
// reconnects with backoff (0.5 s doubling to 8 s, with jitter) and resumes after the last
// version received, so nothing is missed and nothing repeated (the server's promise for
// `from_version`). `connection` tells the page its state: live, reconnecting, offline.
import { games, withAuth, Code, ConnectError } from './api';
import type { WatchGameResponse } from './gen/preferans/v1/game_pb';

export type ConnectionState = 'live' | 'reconnecting' | 'offline';

export interface GameStreamOptions {
  name: string; // games/{id}
  fromVersion: number;
  credential: () => string | null; // read at each (re)connection
  onMessage: (msg: WatchGameResponse) => void;
  onState: (state: ConnectionState) => void;
  // A refusal that reconnecting cannot cure (UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND,
  // INVALID_ARGUMENT): the stream stops; return true to try again at once (e.g. with another
  // credential).
  onFatal: (err: ConnectError) => boolean;
}

const HEARTBEAT_SECONDS = 3; // also how soon a reconnected stream shows `live` (the server sends its headers with the first message)
const FATAL = new Set([Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument]);

export class GameStream {
  private lastVersion: number;
  private controller: AbortController | null = null;
  private stopped = false;
  private attempt = 0;
  private lastMessageAt = Date.now();
  private wake: (() => void) | null = null;
  private readonly watchdog: number;
  private readonly onOnline = () => this.wake?.();
  private readonly onOffline = () => this.drop('offline');

  constructor(private readonly options: GameStreamOptions) {
    this.lastVersion = options.fromVersion;
    window.addEventListener('online', this.onOnline);
    window.addEventListener('offline', this.onOffline);
    this.watchdog = window.setInterval(() => {
      if (this.controller && Date.now() - this.lastMessageAt > 3 * HEARTBEAT_SECONDS * 1000) this.drop('silent');
    }, 1000);
    void this.run();
  }

  get version(): number {
    return this.lastVersion;
  }

  // Closes the current connection as a network drop would; the stream reconnects by itself.
  drop(reason = 'dropped'): void {
    this.controller?.abort(new Error(reason));
  }

  stop(): void {
    this.stopped = true;
    window.clearInterval(this.watchdog);
    window.removeEventListener('online', this.onOnline);
    window.removeEventListener('offline', this.onOffline);
    this.controller?.abort(new Error('stopped'));
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const controller = new AbortController();
      this.controller = controller;
      this.lastMessageAt = Date.now();
      let fatal: ConnectError | null = null;
      try {
        const options = withAuth(this.options.credential(), undefined, controller.signal);
        options.onHeader = () => {
          if (!controller.signal.aborted) this.options.onState('live');
        };
        const stream = games.watchGame(
          { name: this.options.name, fromVersion: BigInt(this.lastVersion), heartbeatSeconds: HEARTBEAT_SECONDS },
          options,
        );
        for await (const msg of stream) {
          this.lastMessageAt = Date.now();
          this.attempt = 0;
          this.options.onState('live');
          if (msg.event.case && msg.event.case !== 'heartbeat') {
            const version = Number(msg.version);
            if (version <= this.lastVersion) continue; // never twice
            this.lastVersion = version;
          }
          this.options.onMessage(msg);
        }
      } catch (err) {
        const e = ConnectError.from(err);
        if (!controller.signal.aborted && FATAL.has(e.code)) fatal = e;
      } finally {
        this.controller = null;
      }
      if (this.stopped) return;
      if (fatal) {
        if (this.options.onFatal(fatal)) continue;
        this.options.onState('offline');
        this.stopped = true;
        return;
      }
      this.options.onState(navigator.onLine ? 'reconnecting' : 'offline');
      await this.pause();
    }
  }

  // Waits the backoff (or until the browser is back online), then the loop reconnects.
  private pause(): Promise<void> {
    const base = Math.min(8000, 500 * 2 ** this.attempt);
    this.attempt += 1;
    const delay = base / 2 + Math.random() * (base / 2);
    return new Promise((resolve) => {
      const done = () => {
        window.clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = window.setTimeout(() => {
        if (navigator.onLine || this.stopped) done();
        // offline: wait for the `online` event (this.wake)
      }, delay);
      this.wake = done;
    });
  }
}
