/**
 * The window's origin, CSP and IPC sender rule, kept apart from Electron itself so the security
 * test can check them without an Electron binary. The window's webPreferences are written out in
 * main.ts, where electronegativity reads them; electron-security.test.ts pins them there.
 */
import { createHash } from 'node:crypto';
import { REPORT_STYLE } from '../../src-shared/formats/report';

/**
 * The hash source of the audit report page's one stylesheet: the Reports view previews a report
 * in a sandboxed srcdoc iframe, which inherits this policy, so exactly that inline style is
 * allowed (src-renderer/index.html repeats it; a test keeps the two equal to the stylesheet).
 */
export const REPORT_STYLE_SOURCE = `'sha256-${createHash('sha256').update(REPORT_STYLE, 'utf8').digest('base64')}'`;

/**
 * The Content-Security-Policy of the app's window, and of every page local web mode serves
 * (web-mode.ts hands it to the web server: the shell owns the window's policy, not the door).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${REPORT_STYLE_SOURCE}`,
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** The only origin the app's pages may come from. */
export const APP_PROTOCOL = 'app';
export const APP_HOST = 'evroom';
export const APP_ORIGIN = `${APP_PROTOCOL}://${APP_HOST}`;

/** What the IPC wrapper knows about a call's sender. */
export interface SenderFacts {
  /** The call came from our main window's web contents. */
  fromMainWindow: boolean;
  /** The call came from that window's top frame, not a sub-frame. */
  fromTopFrame: boolean;
  /** The sending frame's URL. */
  url: string;
}

/**
 * Whether an IPC call may reach the app API: only our window's top frame, on our own origin.
 * Calls from other windows, sub-frames or any other origin are dropped.
 */
export function isTrustedSender(sender: SenderFacts): boolean {
  if (!sender.fromMainWindow || !sender.fromTopFrame) return false;
  try {
    // Node's URL gives a non-special scheme such as app: the origin "null", so compare the
    // scheme and host rather than `origin`.
    const url = new URL(sender.url);
    return url.protocol === `${APP_PROTOCOL}:` && url.host === APP_HOST;
  } catch {
    return false;
  }
}
