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

type Tree = { [key: string]: string | string[] | Tree };

/** `from` copied into `into`, subtrees merged (a string already there is kept). */
function mergeInto(into: Tree, from: Tree) {
  for (const [key, value] of Object.entries(from)) {
    const there = into[key];
    if (typeof value === 'object' && !Array.isArray(value) && there && typeof there === 'object' && !Array.isArray(there)) mergeInto(there, value);
    else if (there === undefined) into[key] = value;
  }
}

/**
 * Blocks that keep the words of their reason keys beside their pages (batches: `batches.reasons`)
 * are joined into the `reason` tree, where the error wording looks every key up (errorText.ts).
 */
for (const tree of [zhCN, en]) mergeInto(tree.reason as unknown as Tree, tree.batches.reasons as unknown as Tree);

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
