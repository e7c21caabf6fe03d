/** `note.txt` of a delivered note: title, body and tags as they are published. */
export function noteText(text: { title: string; content: string; tags: string[] }): string {
  const tags = text.tags.map((t) => `#${t.replace(/^#/, '')}`).join(' ');
  return `${text.title}\n\n${text.content}\n\n${tags}\n`;
}
