// The server's services over the Connect protocol (JSON), from the code protoc-gen-es generated
// from proto/ at build time (src/gen, not committed), and who the page acts as.
import { Code, ConnectError, createClient, type CallOptions } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { GameService } from './gen/preferans/v1/game_pb';
import { StatsService } from './gen/preferans/v1/stats_pb';
import { TableService } from './gen/preferans/v1/table_pb';

// Same origin: `pref serve` serves this page and the Connect routes from one port.
export const transport = createConnectTransport({ baseUrl: location.origin });
export const games = createClient(GameService, transport);
export const tables = createClient(TableService, transport);
export const stats = createClient(StatsService, transport);

// A fresh client-chosen request id (1–128 printable characters), also sent as `x-request-id`
// so the server's logs show the call under it.
export function newRequestId(): string {
  if (typeof crypto.randomUUID === 'function') return `web-${crypto.randomUUID()}`;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// Call options carrying `token` as `authorization: Bearer <token>` (none: a public call or a
// spectator's stream) and the request id, if any.
export function withAuth(token: string | null, requestId?: string, signal?: AbortSignal): CallOptions {
  const headers: Record<string, string> = {};
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (requestId) headers['x-request-id'] = requestId;
  return { headers, signal };
}

// ---------------------------------------------------------------------------------------
// The player's identity: a JWT (OpenID Connect; docs/SECURITY.md) kept in this browser's
// localStorage, and the seat tokens JoinTable/CreateTable gave, per game, in sessionStorage
// (this tab only). The page never decides anything by the JWT's claims: the subject is shown,
// the server verifies the token on every call.

const JWT_KEY = 'pref.jwt';
const SEAT_KEY = (game: string) => `pref.seat.${game}`;

export function jwt(): string | null {
  return localStorage.getItem(JWT_KEY);
}

// The JWT's subject (the player id), read without verifying (only to show it); null if the
// token is not a JWT.
export function subjectOf(token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as { sub?: unknown };
    return typeof claims.sub === 'string' ? claims.sub : null;
  } catch {
    return null;
  }
}

export function player(): string | null {
  const token = jwt();
  return token ? subjectOf(token) : null;
}

export function signIn(token: string): string {
  const sub = subjectOf(token.trim());
  if (!sub) throw new Error('that is not a JWT (three base64url parts with a "sub" claim)');
  localStorage.setItem(JWT_KEY, token.trim());
  return sub;
}

export function signOut(): void {
  localStorage.removeItem(JWT_KEY);
  sessionStorage.clear();
}

// Development sign-in (`pref serve --dev-auth` only): the server's development issuer mints a
// token for `name` (POST /dev/token, same origin). NOT FOR PRODUCTION, as the server says.
export async function devSignIn(name: string): Promise<string> {
  const response = await fetch('/dev/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (response.status === 404) {
    throw new Error('this server has no development sign-in (start it with --dev-auth), paste a JWT instead');
  }
  const body = (await response.json().catch(() => ({}))) as { token?: string; error?: string; message?: string };
  if (!response.ok || !body.token) {
    throw new Error(body.message || body.error || `sign-in refused (HTTP ${response.status})`);
  }
  return signIn(body.token);
}

export function rememberSeatToken(game: string, token: string): void {
  if (token) sessionStorage.setItem(SEAT_KEY(game), token);
}

export function forgetSeatToken(game: string): void {
  sessionStorage.removeItem(SEAT_KEY(game));
}

// The credential to act at `game`: the seat token the table gave in this tab, else the JWT
// (GameService accepts it at every game where its player sits).
export function credentialFor(game: string): string | null {
  return sessionStorage.getItem(SEAT_KEY(game)) || jwt();
}

// ---------------------------------------------------------------------------------------

// A refusal as a person reads it: the status, the ErrorInfo reason (when there is one) and
// the server's message.
export function describeError(err: unknown): string {
  const e = ConnectError.from(err);
  const reason = errorInfoReason(e);
  const hint = e.code === Code.Unauthenticated ? ' — sign in again' : '';
  return `${Code[e.code] ?? e.code}${reason ? ` (${reason})` : ''}: ${e.rawMessage}${hint}`;
}

// The google.rpc.ErrorInfo reason of an error, or ''. Its message is not part of proto/, so
// the one field needed (reason = 1, a string) is read from the detail's wire bytes.
export function errorInfoReason(err: unknown): string {
  const e = ConnectError.from(err);
  for (const d of e.details) {
    if (!('type' in d) || d.type !== 'google.rpc.ErrorInfo' || !(d.value instanceof Uint8Array)) continue;
    try {
      const reader = new BinaryReader(d.value);
      while (reader.pos < reader.len) {
        const [field, wire] = reader.tag();
        if (field === 1 && wire === WireType.LengthDelimited) return reader.string();
        reader.skip(wire);
      }
    } catch {
      return '';
    }
  }
  return '';
}

export { Code, ConnectError };
