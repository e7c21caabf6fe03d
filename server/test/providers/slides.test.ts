import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileBannedWords } from '../../src/content/banned-words.js';
import { STRATEGIES, type NotesIntentInput, type StoryboardImageInput } from '../../src/content/schemas.js';
import { buildStoryboard, slideCaptions, storyboardRoles } from '../../src/content/storyboard.js';
import { length } from '../../src/content/text.js';
import { LocalProvider } from '../../src/providers/local/index.js';
import { composeNotes } from '../../src/providers/local/notes.js';

/**
 * Slides that tell the note (issue 29 item 5) and the offline demo's notes and cards (item 6):
 * each slide one piece of the body in posting order, and demo text a strategist could sign.
 */

const NO_WORDS = compileBannedWords([]);
const BASELINE = compileBannedWords([
  { word: '医用级', level: 'hard_block', replacement: null },
  { word: '最', level: 'soft_warn', replacement: null },
]);

const STEPS = ['晚上洗完脸，先用化妆水打底～', '', '1️⃣ 取一元硬币大小，点涂在脸颊', '2️⃣ 由内向外轻轻推开，按压到吸收', '3️⃣ 干的地方再叠一层，医用级修护才安心', '4️⃣ 第二天早上用清水洗掉就好', '', '你们平时怎么护肤？评论区聊聊👇'].join('\n');

describe('slide captions', () => {
  it('carry the body\'s points in posting order, one a slide, within the caption limit', () => {
    expect(slideCaptions(STEPS, 3, NO_WORDS)).toEqual(['取一元硬币大小', '由内向外轻轻推开', '干的地方再叠一层']);
    for (const caption of slideCaptions(STEPS, 4, NO_WORDS)) expect(length(caption!)).toBeLessThanOrEqual(12);
  });

  it('skip a piece that breaks a banned word, and leave slides past the last piece to the model', () => {
    const body = STEPS.replace('3️⃣ 干的地方再叠一层，医用级修护才安心', '3️⃣ 医用级修护，干的地方再叠一层');
    expect(slideCaptions(body, 4, BASELINE)).toEqual(['取一元硬币大小', '由内向外轻轻推开', '第二天早上用清水洗掉就好', null]);
  });

  it('read a recap line by what it recaps, not by its heading', () => {
    const body = '开头\n✅ 一键开盖\n✅ 杯身轻\n\n📌 划重点：一键开盖、杯身轻也能装满';
    expect(slideCaptions(body, 3, NO_WORDS)).toEqual(['一键开盖', '杯身轻', '一键开盖、杯身轻也能装满']);
  });

  it('take the sentences after the opening line of a body without a list, never a question to the reader', () => {
    const prose = '换季脸干到起皮。\n晚上我会厚涂一层面霜。早上起来脸是软的。\n你们呢？';
    expect(slideCaptions(prose, 3, NO_WORDS)).toEqual(['晚上我会厚涂一层面霜', '早上起来脸是软的', null]);
  });

  it('keep Latin figures of a point whole (30ml, 316) and cut a long point at its first clause', () => {
    const body = '开头\n✅ 30ml便携装，出差能带\n✅ 316不锈钢内胆，装热水一整天都不用担心\n3.5mm耳机孔保留';
    expect(slideCaptions(body, 3, NO_WORDS)).toEqual(['30ml便携装，出差能带', '316不锈钢内胆', null]);
  });

  it('are what the storyboard letters on the slides, the cover keeping the cover title', () => {
    const frames = buildStoryboard({
      strategy: 'B',
      imageCount: 4,
      note: { title: '面霜用法', cover_title: '面霜4步用法', image_brief: '浴室', angle_label: '用法', content: STEPS, image_plan: [{ role: 'convert', brief: '', caption: '睡前抹一层' }] },
      productName: '云朵柔雾保湿面霜',
      sellingPoints: [],
      theme: '换季护肤',
      matcher: NO_WORDS,
    });
    expect(frames.map((f) => f.overlay?.text)).toEqual(['面霜4步用法', '取一元硬币大小', '由内向外轻轻推开', '干的地方再叠一层']);
    // 4步 is not what the note says (it counts no steps in words): no invented figure is highlighted.
    expect(frames[0]!.overlay?.highlight).not.toBe('4步');
  });
});

const PRODUCTS: Array<NotesIntentInput['product']> = [
  { name: '云朵柔雾保湿面霜', category: '护肤', selling_points: ['质地轻薄好推开', '含神经酰胺', '无香精配方'], style_tone: null, text_angles: ['干皮', '换季'], custom_prompt: null },
  { name: '晨光保温杯', category: '家居', selling_points: ['一键开盖', '杯身轻'], style_tone: null, text_angles: [], custom_prompt: null },
];
const THEMES = ['学生党平价', '周末野餐带什么一杯咖啡和零食', '通勤早八'];

function input(product: NotesIntentInput['product'], theme: string, strategy: NotesIntentInput['strategy'], extra: Partial<NotesIntentInput> = {}): NotesIntentInput {
  return {
    strategy, strategy_name: strategy, count: 3, seed: `${product.name}/${theme}/${strategy}`, product, theme, benchmarks: [{ highlights: '分点', features: null }],
    preferences: { recent_preference: '', reject_reasons: ['太夸张'], style_examples: [] }, avoid_words: [], image_roles: storyboardRoles(strategy, 5), ...extra,
  };
}

/** Comparative, absolute or efficacy claims no product profile here supports. */
const CLAIMS = /对比之下|优势明显|明显(好|改善|变)|更好|更强|超过|完胜|吊打|最|第一|100%|绝对|彻底|根治|立刻|立即见效|秒变|实测|表现稳定|解决/u;

describe('the offline demo writes notes a strategist could sign', () => {
  it('never asks a question about the theme pasted in as a noun, and claims nothing the profile does not say', () => {
    for (const product of PRODUCTS) {
      for (const theme of THEMES) {
        for (const strategy of STRATEGIES) {
          for (const note of composeNotes(input(product, theme, strategy)).notes) {
            for (const line of [note.title, note.cover_title, ...note.content.split('\n')]) {
              if (/[？?]/u.test(line)) expect(line.includes(theme), `${strategy} ${line}`).toBe(false);
              expect(CLAIMS.test(line), `${strategy} ${line}`).toBe(false);
            }
          }
        }
      }
    }
  });

  it('shares no line between the sets of one task', () => {
    for (const product of PRODUCTS) {
      for (const theme of THEMES) {
        const setLines = STRATEGIES.map((strategy) => new Set(composeNotes(input(product, theme, strategy)).notes.flatMap((n) => n.content.split('\n')).filter((l) => l.trim())));
        for (const [i, lines] of setLines.entries()) {
          for (const other of setLines.slice(i + 1)) for (const line of lines) expect(other.has(line), `${theme}: ${line}`).toBe(false);
        }
      }
    }
  });

  it('plans its slides from the roles it is given, and the storyboard captions each one from the body', () => {
    const strategy = 'A';
    const roles = storyboardRoles(strategy, 5);
    const note = composeNotes(input(PRODUCTS[0]!, '通勤早八', strategy)).notes[0]!;
    expect(note.image_plan.map((p) => p.role)).toEqual(roles);
    const frames = buildStoryboard({ strategy, imageCount: 5, note, productName: PRODUCTS[0]!.name, sellingPoints: [], theme: '通勤早八', matcher: NO_WORDS });
    expect(frames.slice(1).map((f) => f.overlay?.text)).toEqual(['质地轻薄好推开', '含神经酰胺', '无香精配方', expect.any(String)]);
  });

  it('passes image_roles through the provider, and draws each role of a set as a different card', async () => {
    const local = new LocalProvider();
    const asked = input(PRODUCTS[1]!, '通勤早八', 'B', { count: 1 });
    const { json } = await local.generateText({ system: 's', prompt: 'p', intent: { kind: 'notes', input: asked } });
    expect((json as { notes: Array<{ image_plan: Array<{ role: string }> }> }).notes[0]!.image_plan.map((p) => p.role)).toEqual(asked.image_roles);
    const card = (role: StoryboardImageInput['role']) =>
      local.generateImage({
        prompt: 'p',
        intent: { kind: 'free', input: { purpose: 'storyboard-image', strategy: 'B', role, seq: 1, seed: 'same', product_name: '晨光保温杯', theme: '通勤早八', brief: '', overlay: null, has_reference_image: false } },
      });
    const hashes = await Promise.all(storyboardRoles('B', 6).map(async (role) => createHash('sha256').update((await card(role)).data).digest('hex')));
    expect(new Set(hashes).size).toBe(6);
  });
});
