/**
 * The reference verifier page's entry.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';
import './verifier.css';
import { VerifierApp } from './verifier-app';

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <VerifierApp />
    </StrictMode>,
  );
