import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './app/base.css';
import { Root } from './app/Root';
import i18n from './i18n';

document.documentElement.lang = i18n.language;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);
