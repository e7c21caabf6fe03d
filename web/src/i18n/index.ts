/**
 * The single i18n layer: every visible string comes from these resources. zh-CN is the default;
 * the choice is remembered per browser.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { zhCN } from './zh-CN';

export type Lang = 'zh-CN' | 'en';
const LANG_KEY = 'cps.lang';

function initialLang(): Lang {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(LANG_KEY);
  return stored === 'en' ? 'en' : 'zh-CN';
}

void i18n.use(initReactI18next).init({
  resources: { 'zh-CN': { translation: zhCN }, en: { translation: en } },
  lng: initialLang(),
  fallbackLng: 'zh-CN',
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

export function setLang(lang: Lang) {
  localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
  void i18n.changeLanguage(lang);
}

export default i18n;
