/**
 * What a pasted share text holds. The Xiaohongshu app shares a note as text, not a link:
 * "64 【早八通勤妆｜10分钟搞定 - 小美 | 小红书 - 你的生活指南】 😆 Xp8qLm2N 😆 https://www.xiaohongshu.com/discovery/item/…"
 * or "夏天的第一瓶防晒… http://xhslink.com/a/AbCd，复制本条信息，打开【小红书】App查看精彩内容！".
 * The link is the first http(s) URL (it ends at whitespace or the first character a URL cannot
 * hold, such as the full-width comma that follows it); the title is the first 【…】 other than
 * the app's name, without the " - author | 小红书 - …" tail, else the text before the link.
 */
export interface SharedNote {
  link: string | null;
  title: string | null;
}

const URL_IN_TEXT = /https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+;=%]+/i;
// Punctuation that ends a sentence more often than it ends a URL.
const TRAILING = /[.,;:!?)'\]]+$/;
const APP_NAME = /^(小红书|xiaohongshu)$/i;
const TITLE_MAX = 200;

export function parseShareText(text: string): SharedNote {
  const match = URL_IN_TEXT.exec(text);
  const link = match ? match[0].replace(TRAILING, '') : null;
  const bracketed = [...text.matchAll(/【([^】]{1,300})】/g)].map((m) => m[1]!.trim()).find((t) => t && !APP_NAME.test(t));
  let title: string | null = null;
  if (bracketed) {
    const withoutSite = bracketed.replace(/\s*\|\s*小红书.*$/, '');
    const authorAt = withoutSite.lastIndexOf(' - ');
    title = (authorAt > 0 && withoutSite !== bracketed ? withoutSite.slice(0, authorAt) : withoutSite).trim();
  } else if (match) {
    // The words before the link, without the share count the app puts first.
    title = text.slice(0, match.index).replace(/^\s*\d+\s+/, '').trim();
  }
  return { link, title: title ? Array.from(title).slice(0, TITLE_MAX).join('') : null };
}
