/**
 * Covers and slides to look at (issue 29 item 8): the offline writer's notes for a few products
 * and themes, their storyboards, the local provider's cards, lettered as the service letters
 * them, written as PNG files.
 *
 *   npx tsx bench/covers/run.ts [outDir=/tmp/covers-review]
 *
 * Prints each file with the line drawn on it, so a reviewer can hold the picture against its text.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LEGAL_BASELINE } from '../../server/src/content/banned-presets.js';
import { compileBannedWords } from '../../server/src/content/banned-words.js';
import { coverTemplate } from '../../server/src/content/cover.js';
import { STRATEGIES, type NotesIntentInput } from '../../server/src/content/schemas.js';
import { buildStoryboard, storyboardRoles } from '../../server/src/content/storyboard.js';
import { overlayText } from '../../server/src/images/overlay.js';
import { renderCardImage } from '../../server/src/providers/local/cards.js';
import { composeNotes } from '../../server/src/providers/local/notes.js';
import { Random } from '../../server/src/providers/local/random.js';

const outDir = process.argv[2] ?? '/tmp/covers-review';

const PRODUCTS: Array<NotesIntentInput['product']> = [
  { name: '云朵柔雾保湿面霜', category: '护肤', selling_points: ['质地轻薄好推开', '含神经酰胺', '无香精配方'], style_tone: null, text_angles: ['干皮', '换季'], custom_prompt: null },
  { name: '山茶花精华液', category: '护肤', selling_points: ['山茶花提取物', '水润不黏', '30ml便携装'], style_tone: null, text_angles: [], custom_prompt: null },
  { name: '晨光保温杯', category: '家居', selling_points: ['一键开盖', '杯身轻', '316不锈钢内胆'], style_tone: null, text_angles: ['通勤', '宿舍党'], custom_prompt: null },
];
const THEMES = ['换季干皮护肤', '学生党平价', '通勤早八'];

const words = LEGAL_BASELINE.flatMap((preset) => preset.words.map((w) => ({ word: w.word, level: w.level, replacement: w.replacement ?? null })));
const matcher = compileBannedWords(words);

await mkdir(outDir, { recursive: true });
let n = 0;
for (const [p, product] of PRODUCTS.entries()) {
  const theme = THEMES[p]!;
  for (const [s, strategy] of STRATEGIES.entries()) {
    const roles = storyboardRoles(strategy, 4);
    const input: NotesIntentInput = {
      strategy, strategy_name: strategy, count: 1, seed: `review/${p}/${strategy}`, product, theme, benchmarks: [],
      preferences: { recent_preference: '', reject_reasons: [], style_examples: [] }, avoid_words: [], image_roles: roles,
    };
    const note = composeNotes(input).notes[0]!;
    const frames = buildStoryboard({ strategy, imageCount: roles.length, note, productName: product.name, productCategory: product.category, sellingPoints: product.selling_points, theme, matcher });
    console.log(`\n## ${product.name} / ${theme} / ${strategy}: ${note.title}\n${note.content}`);
    for (const frame of frames) {
      const card = await renderCardImage({ role: frame.role, strategy, seq: frame.seq, productName: product.name, theme }, new Random(`review/${p}/${strategy}/${frame.seq}`), { width: 1080, height: 1440 });
      const line = frame.overlay;
      const text = !line ? {} : line.kind === 'cover' ? { title: line.text, template: coverTemplate(p, s), highlight: line.highlight, keep: line.keep } : { caption: line.text };
      const drawn = await overlayText(card.data, text, { format: 'png' });
      const file = path.join(outDir, `${String(++n).padStart(2, '0')}-${p}${strategy}-${frame.seq}-${frame.role}.png`);
      await writeFile(file, drawn.data);
      console.log(`${file}  ${line ? `${line.kind}: ${line.text}${line.kind === 'cover' ? ` [${line.highlight ?? ''}] keep ${JSON.stringify(line.keep)}` : ''}` : '(no line)'}`);
    }
  }
}
