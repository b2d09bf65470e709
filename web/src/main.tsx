/** Entry point of the web UI. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles/theme.css';
import './styles/base.css';
import './styles/shell.css';
import './styles/canvas.css';
import './styles/chat.css';
import './styles/skills.css';
import './styles/responsive.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
