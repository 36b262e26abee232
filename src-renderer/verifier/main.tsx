/**
 * The reference verifier page's entry.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';
import './verifier.css';
import { VerifierApp } from './verifier-app';
import { followMedia, mediaMatches } from '../media';

// The page follows the system's light or dark scheme (styles.css reads data-theme), also when it
// changes while the page is open.
const DARK = '(prefers-color-scheme: dark)';
function paintTheme(): void {
  document.documentElement.dataset.theme = mediaMatches(DARK) ? 'dark' : 'light';
}
paintTheme();
followMedia(DARK, paintTheme);

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <VerifierApp />
    </StrictMode>,
  );
