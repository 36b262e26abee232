/**
 * The renderer's handle on the app API: one client for the whole app and a hook for views.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppApiArguments, AppApiMethod, AppApiResults } from '../src-shared/api/contract';
import { createClient, onNoSession } from './transport';

const created = createClient();

/** The typed client; every call goes through the transport this window has. */
export const api = created.client;
/** `ipc` in Electron, `http` in local web mode. */
export const transportKind = created.transport;
/** In local web mode, sends a file's raw bytes to a method that takes uploads; undefined in Electron. */
export const uploadFile = created.upload;

/**
 * Whether this tab has no session with the app (web mode: neither the token nor the session
 * cookie); false until a call finds out.
 */
export function useNoSession(): boolean {
  const [none, setNone] = useState(false);
  useEffect(() => onNoSession(() => setNone(true)), []);
  return none;
}

/** Calls a method by name with an input (for the hook and generic callers). */
export function callApi<M extends AppApiMethod>(method: M, ...input: AppApiArguments<M>): Promise<AppApiResults[M]> {
  return (api[method] as (...args: AppApiArguments<M>) => Promise<AppApiResults[M]>)(...input);
}

export interface ApiState<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads a method's result and reloads when `key` changes (pass a string that captures the input).
 *
 * Stale answers (an earlier request finishing after a later one) are dropped.
 */
export function useApi<M extends AppApiMethod>(
  method: M,
  input: AppApiArguments<M>[0],
  key = '',
): ApiState<AppApiResults[M]> {
  const [data, setData] = useState<AppApiResults[M] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  const inputRef = useRef(input);
  inputRef.current = input;
  useEffect(() => {
    const request = ++latest.current;
    setLoading(true);
    callApi(method, ...([inputRef.current] as AppApiArguments<M>)).then(
      (result) => {
        if (request !== latest.current) return;
        setData(result);
        setError(undefined);
        setLoading(false);
      },
      (reason: unknown) => {
        if (request !== latest.current) return;
        setError(reason instanceof Error ? reason.message : String(reason));
        setLoading(false);
      },
    );
  }, [method, key, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

/** A message for an error thrown by an API call. */
export function errorMessage(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
