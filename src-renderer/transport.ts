/**
 * The renderer's one transport to the app API.
 *
 * In Electron the preload exposes `window.evroom.invoke`; in local web mode calls go to
 * /api/<method> with the session token the server put in the URL fragment. The renderer picks
 * one at start and never knows more.
 */
import type { AppApiClient, AppApiMethod, AppApiResults } from '../src-shared/api/contract';

interface PreloadBridge {
  invoke(method: string, input: unknown): Promise<unknown>;
}

declare global {
  interface Window {
    evroom?: PreloadBridge;
  }
}

/** An app API call that failed, with the server's code and message. */
export class ApiCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApiCallError';
    this.code = code;
  }
}

function readToken(): string | null {
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match?.[1]) {
    sessionStorage.setItem('evroom.token', match[1]);
    // Keep the token out of the visible URL and of history entries.
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1];
  }
  return sessionStorage.getItem('evroom.token');
}

function httpInvoke(token: string | null): PreloadBridge['invoke'] {
  return async (method, input) => {
    const response = await fetch(`/api/${encodeURIComponent(method)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? ''}` },
      body: JSON.stringify(input ?? {}),
    });
    const body = (await response.json()) as { result?: unknown; error?: { code: string; message: string } };
    if (!response.ok || body.error) throw new ApiCallError(body.error?.code ?? 'http_error', body.error?.message ?? `HTTP ${response.status}`);
    return body.result;
  };
}

/** Builds the typed client over whichever transport this window has. */
export function createClient(): { client: AppApiClient; transport: 'ipc' | 'http' } {
  const bridge = window.evroom;
  const invoke = bridge ? bridge.invoke.bind(bridge) : httpInvoke(readToken());
  const client = new Proxy({} as AppApiClient, {
    get(_target, method: string) {
      return (input: unknown) => invoke(method, input) as Promise<AppApiResults[AppApiMethod]>;
    },
  });
  return { client, transport: bridge ? 'ipc' : 'http' };
}
