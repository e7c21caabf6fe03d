import type { Note, StrategyCode } from './schemas.js';
import { STRATEGY_GUIDES } from './strategies.js';
import { clip } from './text.js';

/** Provider replies trimmed to what the contract and the UI expect (strict outputs carry no length limits). */
export function normaliseNote(note: Note, strategy: StrategyCode): Note {
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const tags = [...new Set(note.tags.map((t) => clip(oneLine(t).replace(/^#+/, ''), 20)).filter(Boolean))].slice(0, 10);
  const title = clip(oneLine(note.title), 20);
  return {
    angle_label: clip(oneLine(note.angle_label), 20) || STRATEGY_GUIDES[strategy].name,
    title,
    content: note.content.trim(),
    tags,
    cover_title: clip(oneLine(note.cover_title), 12) || clip(title, 12),
    image_brief: note.image_brief.trim(),
  };
}
