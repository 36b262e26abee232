/**
 * Hash routing: `#/receipts?status=PASS`, `#/receipts/42`. Filters live in the URL so a view can
 * be reloaded, bookmarked and navigated back to exactly as it was.
 */
import { useEffect, useState } from 'react';

export interface Route {
  /** Path segments, e.g. ['receipts', '42']. */
  path: string[];
  query: URLSearchParams;
}

function parse(hash: string): Route {
  const text = hash.replace(/^#/, '');
  const [pathPart = '', queryPart = ''] = text.split('?', 2);
  const path = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  return { path: path.length > 0 ? path : ['overview'], query: new URLSearchParams(queryPart) };
}

/** The current route; re-renders on navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parse(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The href of a route, for links. */
export function hrefFor(
  path: readonly (string | number)[],
  query?: Record<string, string | undefined> | URLSearchParams,
): string {
  const search =
    query instanceof URLSearchParams
      ? query
      : new URLSearchParams(
          Object.entries(query ?? {}).filter(
            (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
          ),
        );
  const text = search.toString();
  return `#/${path.map((segment) => encodeURIComponent(String(segment))).join('/')}${text ? `?${text}` : ''}`;
}

/** Navigates to a route; `replace` keeps history clean for filter edits. */
export function navigate(
  path: readonly (string | number)[],
  query?: Record<string, string | undefined> | URLSearchParams,
  replace = false,
): void {
  const href = hrefFor(path, query);
  if (replace) {
    history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = href.slice(1);
  }
}
