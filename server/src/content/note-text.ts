/**
 * What the publisher must declare, above the note (never part of what is posted): AI-generated
 * content (the Measures for Labelling AI-Generated Synthetic Content, 2025, and Xiaohongshu's
 * own declaration) and paid partnership (Internet Advertising Measures, art. 9: advertising
 * presented as sharing or reviews must be identifiable as advertising).
 */
export const PUBLISH_REMINDERS: readonly string[] = [
  '本笔记由 AI 辅助生成：发布时请在小红书勾选"内容含 AI 生成"的声明（《人工智能生成合成内容标识办法》）。',
  '如属品牌合作或付费推广：请通过蒲公英平台报备，或在笔记中标明"广告"（《互联网广告管理办法》第九条）。',
];

/** The line under the reminders of `note.txt`: what follows it is the post, copied as it is. */
export const POST_STARTS = '—— 以下是笔记内容：从标题复制到话题标签 ——';

/**
 * `note.txt` of a delivered note: the reminders first, then title, body and tags as they are
 * published. Above the title, not after the tags: a publisher selects from the title to the end
 * of the file, and a declaration pasted into a post would be published with it (issue 29).
 */
export function noteText(text: { title: string; content: string; tags: string[] }): string {
  const tags = text.tags.map((t) => `#${t.replace(/^#/, '')}`).join(' ');
  const reminders = ['【发布提醒：不要复制到笔记里】', ...PUBLISH_REMINDERS.map((r) => `· ${r}`)].join('\n');
  return `${reminders}\n\n${POST_STARTS}\n\n${text.title}\n\n${text.content}\n\n${tags}\n`;
}
