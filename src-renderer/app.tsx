/**
 * The app shell: navigation, theme, and the view for the current route.
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { Theme } from '../src-shared/api/contract';
import { api, transportKind, useNoSession } from './api';
import { hrefFor, useRoute } from './router';
import { ApiCallError } from './transport';
import { followMedia, mediaMatches } from './media';
import { OverviewView } from './views/overview';
import { ReceiptsView } from './views/receipts';
import { ReceiptDetailView } from './views/receipt-detail';
import { VerifyView } from './views/verify';
import { BundlesView } from './views/bundles';
import { TrustView } from './views/trust';
import { SettingsView } from './views/settings';
import { ReportsView } from './views/reports';
import { ServiceView } from './views/service';
import { AnchorsView } from './views/anchors';
import { LogsView } from './views/logs';
import { ErrorNotice, Page } from './components/ui';
import { ShieldIcon } from './components/icons';

const NAVIGATION: { path: string; label: string; icon: ReactNode }[] = [
  { path: 'overview', label: 'Overview', icon: '◧' },
  { path: 'receipts', label: 'Receipts', icon: '☰' },
  { path: 'verify', label: 'Verify', icon: '✓' },
  { path: 'bundles', label: 'Bundles', icon: '▣' },
  { path: 'anchors', label: 'Anchors', icon: '⚓' },
  { path: 'logs', label: 'Logs', icon: '≣' },
  { path: 'trust', label: 'Trust store', icon: <ShieldIcon size={14} /> },
  { path: 'reports', label: 'Reports', icon: '▤' },
  { path: 'service', label: 'Service', icon: '⇄' },
  { path: 'settings', label: 'Settings', icon: '⚙' },
];

const SYSTEM_DARK = '(prefers-color-scheme: dark)';
let chosenTheme: Theme = 'system';

function paintTheme(): void {
  const dark = chosenTheme === 'dark' || (chosenTheme === 'system' && mediaMatches(SYSTEM_DARK));
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

// `system` follows the operating system, also when it changes while the app is open.
followMedia(SYSTEM_DARK, paintTheme);

/** Applies the theme: `light`, `dark`, or `system` (resolved to one of the two). */
export function applyTheme(theme: Theme): void {
  chosenTheme = theme;
  paintTheme();
}

function viewFor(path: string[], query: URLSearchParams): ReactNode {
  const [section, id] = path;
  switch (section) {
    case 'overview':
      return <OverviewView />;
    case 'receipts':
      return id ? <ReceiptDetailView id={Number(id)} /> : <ReceiptsView query={query} />;
    case 'verify':
      return <VerifyView />;
    case 'bundles':
      return <BundlesView id={id ? Number(id) : undefined} />;
    case 'anchors':
      return <AnchorsView id={id} query={query} />;
    case 'logs':
      // An origin has slashes: encoded it is one segment, typed by hand it may be several.
      return <LogsView origin={path.length > 1 ? path.slice(1).join('/') : undefined} />;
    case 'trust':
      return <TrustView />;
    case 'reports':
      return <ReportsView query={query} />;
    case 'service':
      return <ServiceView />;
    case 'settings':
      return <SettingsView onTheme={applyTheme} />;
    default:
      return (
        <ErrorNotice
          title="Page not found"
          message={`There is no page “${section ?? ''}”.`}
          hint={<a href={hrefFor(['overview'])}>Go to the overview</a>}
        />
      );
  }
}

/**
 * What a web-mode tab without a session shows in place of its view: what happened and what to
 * do, not the view's own error (a filter of Receipts is not the problem).
 */
function NoSessionNotice() {
  return (
    <Page title="No session with the app">
      <div className="notice notice-error" role="alert" data-testid="no-session">
        <p className="notice-title">
          <span aria-hidden="true">⚠ </span>This tab has no session with the app: open the address the app printed (
          <code>evroom app --web</code>) in this browser.
        </p>
        <p>
          That address ends in <code>#token=…</code>. Once a tab has opened it, every tab of this browser shares the
          session (new tabs, middle-clicked links, bookmarked filters) until the app stops; then reload this tab.
        </p>
        <p className="notice-hint">
          An address from an earlier run of the app no longer works: the app makes a new one each time it starts.
          Nothing in your data has changed.
        </p>
      </div>
    </Page>
  );
}

/** localStorage key of the user's sidebar choice (`expanded` or `collapsed`). */
const SIDEBAR_CHOICE_KEY = 'evroom.sidebar';
/** Below this window width the sidebar starts collapsed to its icons, unless the user chose. */
export const SIDEBAR_COLLAPSE_BELOW = 960;
const NARROW_WINDOW = `(max-width: ${SIDEBAR_COLLAPSE_BELOW - 1}px)`;

function storedSidebarChoice(): boolean | undefined {
  try {
    const value = window.localStorage.getItem(SIDEBAR_CHOICE_KEY);
    return value === 'expanded' ? true : value === 'collapsed' ? false : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the sidebar shows its labels: the user's last choice (kept in localStorage) when they
 * made one, otherwise expanded in a wide window and collapsed to icons in a narrow one.
 */
function useSidebarExpanded(): [boolean, () => void] {
  const [choice, setChoice] = useState<boolean | undefined>(storedSidebarChoice);
  const [narrow, setNarrow] = useState(() => mediaMatches(NARROW_WINDOW));
  useEffect(() => {
    const unfollow = followMedia(NARROW_WINDOW, setNarrow);
    // The window may have changed between the first render and now: catch up.
    setNarrow(mediaMatches(NARROW_WINDOW));
    return unfollow;
  }, []);
  const expanded = choice ?? !narrow;
  const toggle = (): void => {
    const next = !expanded;
    setChoice(next);
    try {
      window.localStorage.setItem(SIDEBAR_CHOICE_KEY, next ? 'expanded' : 'collapsed');
    } catch {
      // Storage refused (private window): the choice holds until the page is reloaded.
    }
  };
  return [expanded, toggle];
}

export function App() {
  const route = useRoute();
  const noSession = useNoSession();
  const [expanded, toggleSidebar] = useSidebarExpanded();
  const [connection, setConnection] = useState<string | null>(null);
  useEffect(() => {
    api.info().then(
      (info) => setConnection(`v${info.version} · ${transportKind === 'ipc' ? 'desktop' : 'local web mode'}`),
      (reason: unknown) =>
        setConnection(
          reason instanceof ApiCallError && reason.code === 'unauthorized'
            ? 'not connected: no session'
            : `not connected: ${reason instanceof Error ? reason.message : String(reason)}`,
        ),
    );
    api['settings.get']().then(
      (settings) => applyTheme(settings.theme),
      () => applyTheme('system'),
    );
  }, []);
  const section = route.path[0];
  return (
    <div className="app" data-sidebar={expanded ? 'expanded' : 'collapsed'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <img src="./favicon.svg" alt="" width="28" height="28" />
          <span className="brand-name">Evidence Room</span>
        </div>
        <button
          type="button"
          className="sidebar-toggle"
          aria-expanded={expanded}
          aria-controls="main-navigation"
          data-testid="sidebar-toggle"
          onClick={toggleSidebar}
          title={expanded ? 'Collapse the sidebar to its icons' : 'Show the sidebar with its labels'}
        >
          <span aria-hidden="true" className="nav-icon">
            {expanded ? '«' : '»'}
          </span>
          <span className="nav-label">Sidebar</span>
        </button>
        <ul id="main-navigation">
          {NAVIGATION.map((item) => (
            <li key={item.path}>
              <a
                href={hrefFor([item.path])}
                aria-current={section === item.path ? 'page' : undefined}
                className="nav-link"
                title={expanded ? undefined : item.label}
              >
                <span aria-hidden="true" className="nav-icon">
                  {item.icon}
                </span>
                <span className="nav-label">{item.label}</span>
              </a>
            </li>
          ))}
        </ul>
        <p className="sidebar-footer" data-testid="connection">
          {connection ?? 'Connecting…'}
        </p>
      </nav>
      <main id="main" className="main" tabIndex={-1}>
        {noSession ? <NoSessionNotice /> : viewFor(route.path, route.query)}
      </main>
    </div>
  );
}
