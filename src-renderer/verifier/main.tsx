/**
 * The reference verifier page's entry.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';
import './verifier.css';
import { VerifierApp } from './verifier-app';

// The page follows the system's light or dark scheme (styles.css reads data-theme), also when it
// changes while the page is open.
const dark = window.matchMedia('(prefers-color-scheme: dark)');
function paintTheme(): void {
  document.documentElement.dataset.theme = dark.matches ? 'dark' : 'light';
}
paintTheme();
dark.addEventListener('change', paintTheme);

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <VerifierApp />
    </StrictMode>,
  );
