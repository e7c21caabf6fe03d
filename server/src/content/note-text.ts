/**
 * What the publisher must declare, under the note (never part of what is posted): AI-generated
 * content (the Measures for Labelling AI-Generated Synthetic Content, 2025, and Xiaohongshu's
 * own declaration) and paid partnership (Internet Advertising Measures, art. 9: advertising
 * presented as sharing or reviews must be identifiable as advertising).
 */
export const PUBLISH_REMINDERS: readonly string[] = [
  '本笔记由 AI 辅助生成：发布时请在小红书勾选"内容含 AI 生成"的声明（《人工智能生成合成内容标识办法》）。',
  '如属品牌合作或付费推广：请通过蒲公英平台报备，或在笔记中标明"广告"（《互联网广告管理办法》第九条）。',
];

/** `note.txt` of a delivered note: title, body and tags as they are published, then the reminders, set apart. */
export function noteText(text: { title: string; content: string; tags: string[] }): string {
  const tags = text.tags.map((t) => `#${t.replace(/^#/, '')}`).join(' ');
  const reminders = ['—— 发布提醒（不要复制到笔记里）——', ...PUBLISH_REMINDERS.map((r) => `· ${r}`)].join('\n');
  return `${text.title}\n\n${text.content}\n\n${tags}\n\n${reminders}\n`;
}
