import { describe, expect, it } from 'vitest';
import { compileBannedWords } from '../../src/content/banned-words.js';
import { imagePrompt, notesInput, notesPrompt, rewritePrompt, type GenerationInputs } from '../../src/content/prompts.js';
import { buildStoryboard } from '../../src/content/storyboard.js';

/**
 * What a strategist asked of the prompts (issue 29 item 3 and 4), with the expected words
 * written out here rather than taken from the code that builds them.
 */
const inputs: GenerationInputs = {
  taskId: 9,
  generation: 1,
  theme: '敏感肌日常护理',
  product: {
    name: '云朵柔雾保湿面霜',
    category: '护肤',
    selling_points: ['48小时长效保湿', '神经酰胺修护屏障', '无香精无酒精'],
    style_tone: '温柔亲切',
    text_angles: ['换季干皮急救', '敏感肌日常', '熬夜后的皮肤修护'],
    custom_prompt: null,
    appearance: '白色磨砂圆罐，银色旋盖，罐身印有“云朵柔雾”四个字',
  },
  benchmarks: [{ highlights: '开头一句戳中泛红', features: { title_formula: '数字+痛点+结果', target_audience: '敏感肌学生党', topic_tags: ['敏感肌', '面霜推荐'] } }],
  preferences: {
    recent_preference: '',
    reject_reasons: [],
    style_examples: [],
    approved_openings: ['换季干皮急救｜每年一到换季，我的脸颊就干到起皮…', '敏感肌也敢天天用｜脸一热就泛红的我，早晚只用这一罐…'],
    injected_count: 3,
    preferred_angles: ['换季干皮急救', '敏感肌日常'],
    preferred_strategy: null,
  },
  avoidWords: ['秒杀', '国家级'],
};

const prompt = (strategy: 'A' | 'B' | 'C') => notesPrompt(notesInput(inputs, strategy, 1)).prompt;

describe('three strategies, three ways of writing', () => {
  it('each set has its own body structure, title formulas and complete example; no formula is "X｜Y"', () => {
    const expected = {
      A: { step: '试过的办法：一两个常见做法，以及为什么没用', formula: '处境 + 具体困扰 + 怎么办', title: '标题：空调房待一天嘴唇干到起皮怎么办' },
      B: { step: '分点实测：用 ①②③ 编号', formula: '品类词 + 实测 + 笔记自己的结构', title: '标题：陶瓷滤杯实测：3个细节说清值不值' },
      C: { step: '开头定格一个时刻：星期几、几点、在哪、和谁、什么心情', formula: '时间 + 场景 + 一件小事', title: '标题：下班后的周五晚上，给自己点一支蜡烛' },
    } as const;
    for (const [strategy, want] of Object.entries(expected) as Array<['A' | 'B' | 'C', (typeof expected)['A']]>) {
      const own = prompt(strategy);
      expect(own).toContain(want.step);
      expect(own).toContain(want.formula);
      expect(own).toContain(want.title);
      // A complete example: cover title, a whole body and tags, about an invented product of another category.
      expect(own).toMatch(/封面标题：.+\n正文：\n(.+\n+){4,}标签：/);
      expect(own).toContain('示例产品是虚构的');
      for (const [other, theirs] of Object.entries(expected)) {
        if (other === strategy) continue;
        expect(own).not.toContain(theirs.step);
        expect(own).not.toContain(theirs.formula);
        expect(own).not.toContain(theirs.title);
      }
      const formulas = own.slice(own.indexOf('标题公式（'), own.indexOf('完整示例'));
      expect(formulas).not.toContain('｜');
    }
  });

  it('the facts rule allows the numbers of the note’s own structure, not invented product figures', () => {
    const { system } = notesPrompt(notesInput(inputs, 'B', 1));
    expect(system).toContain('说明笔记自身结构的数字可以用（"3步""5个细节""第1点"）');
    expect(system).toContain('关于产品的数字、时长、天数、检测或实验结果、对比、认证资质、成分、功效，只能写产品资料里明确写出的');
    // The one shared five-step skeleton is gone from the system prompt.
    expect(system).not.toContain('开头一两句抓住注意力 → 具体场景或问题');
  });
});

describe('team examples and angles only where they fit the theme', () => {
  it('an approved opening, a preferred angle and a product angle about 干皮 stay out of a 敏感肌 theme; fitting ones go in', () => {
    const text = prompt('A');
    expect(text).toContain('- 「敏感肌也敢天天用｜脸一热就泛红的我，早晚只用这一罐…」');
    expect(text).not.toContain('换季干皮急救');
    expect(text).toContain('团队近期更常选用的角度（贴合今日主题，可优先考虑）：「敏感肌日常」');
    expect(text).toContain('贴合今日主题的角度：\n- 敏感肌日常');
  });

  it('the product’s own name and category make nothing fit: every example of the product shares them', () => {
    const text = notesPrompt(notesInput({ ...inputs, theme: '护肤面霜', preferences: { ...inputs.preferences, approved_openings: ['这罐面霜是我的护肤最后一步…'] } }, 'A', 1)).prompt;
    expect(text).not.toContain('这罐面霜是我的护肤最后一步');
    expect(text).toContain('角度：围绕今日主题自己找');
  });
});

describe('what the writer is handed', () => {
  it('the avoid list is exactly the words given for the product, and says they block', () => {
    expect(prompt('C')).toContain('本工作区会直接拦下的词（任何形式都不要出现，包括拆开、加符号或繁体）：秒杀、国家级\n');
  });

  it('the benchmark analysis reads as Chinese patterns, not JSON', () => {
    const text = prompt('A');
    expect(text).toContain('1. 亮点：开头一句戳中泛红\n   - 标题公式：数字+痛点+结果\n   - 写给谁：敏感肌学生党\n   - 话题标签：敏感肌、面霜推荐');
    const fenced = text.slice(text.indexOf('<data>'), text.indexOf('</data>'));
    expect(fenced).not.toContain('title_formula');
    expect(fenced).not.toContain('{"');
  });

  it('the rewrite carries the product facts, its appearance among them', () => {
    const note = { angle_label: '敏感肌', title: '敏感肌面霜', title_options: [], cover_title_options: [], image_plan: [], content: '用了3天屏障就修好了', tags: ['护肤'], cover_title: '敏感肌面霜', image_brief: '' };
    const rewrite = rewritePrompt({ ...notesInput(inputs, 'A', 1), rewrite: { note, blocked_words: [], unsupported_claims: ['3天修好屏障'] } }).prompt;
    const fenced = rewrite.slice(rewrite.indexOf('<data>'));
    for (const fact of ['产品名称：云朵柔雾保湿面霜', '品类：护肤', '- 48小时长效保湿', '- 神经酰胺修护屏障', '- 无香精无酒精', '外观：白色磨砂圆罐，银色旋盖，罐身印有“云朵柔雾”四个字']) {
      expect(fenced).toContain(fact);
    }
    expect(rewrite).toContain('产品资料无法支撑的宣称：3天修好屏障');
  });
});

describe('pictures that show the product', () => {
  const note = { title: '敏感肌日常护理', cover_title: '敏感肌的温柔打底', image_brief: '卧室梳妆台，早上七点', angle_label: '敏感肌日常', image_plan: [] };
  const frames = buildStoryboard({
    strategy: 'B',
    imageCount: 4,
    note,
    productName: inputs.product.name,
    productCategory: '护肤',
    productAppearance: inputs.product.appearance,
    sellingPoints: [],
    theme: inputs.theme,
    matcher: compileBannedWords([]),
  });
  const direction =
    'Visual direction of the whole set, the same in every frame: setting: 卧室梳妆台，早上七点; light: bright, even daylight with soft shadows, like a table by a large window; palette: white and light wood, the product\'s own colours the only accent; people: hands only, never a face: the same hands with short natural nails and the same plain white sleeve in every frame.';

  it('every frame names the product’s appearance and carries the same, explicit visual direction', () => {
    expect(frames).toHaveLength(4);
    for (const frame of frames) {
      const text = imagePrompt(frame, inputs.product, true);
      expect(text).toContain('Product: 云朵柔雾保湿面霜 (护肤); what it looks like: 白色磨砂圆罐，银色旋盖，罐身印有“云朵柔雾”四个字.');
      expect(text).toContain(direction);
      expect(text).not.toContain('same people');
    }
  });

  it('packaging text is the product’s own, never forbidden next to "keep it as in the photo"', () => {
    const text = imagePrompt(frames[1]!, inputs.product, true);
    expect(text).toContain('The attached reference photo is the real product: keep its shape, colours, packaging and the words printed on it as in the photo.');
    expect(text).toContain('the only lettering allowed is what is printed on the product itself');
    expect(text).not.toMatch(/No text, letters, numbers, logos/);
  });

  it('without a reference photo the product is drawn from its description, and no prompt claims a photo', () => {
    const described = imagePrompt(frames[1]!, inputs.product, false);
    expect(described).toContain('No photo of the product is attached: draw it exactly as described under Product');
    expect(described).not.toContain('reference photo');
    const undescribed = imagePrompt(frames[1]!, { name: inputs.product.name, appearance: null }, false);
    expect(undescribed).toContain('No photo of the product is attached: show it as a plain, believable item of its category');
  });
});
