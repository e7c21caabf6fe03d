import type { Note } from '../../content/schemas.js';
import type { Random } from './random.js';

type Schema = Record<string, any>;

export interface FillContext {
  rng: Random;
  /** Subject words to weave into free text (product name, theme). */
  subject: string;
  /** A full note for the i-th object that looks like a note (has title and content). */
  note: (index: number) => Note;
}

/**
 * Chinese phrases by what a field is called, for structured replies whose shape the offline
 * provider does not know in advance (benchmark analysis dimensions, vision checks, plans).
 */
const BANKS: Array<[RegExp, string[]]> = [
  [/title_?formula|标题/i, ['数字+痛点+结果的标题公式，前半句制造共鸣，后半句给出答案', '「场景｜感受」式短标题，用竖线分隔，读起来有节奏']],
  [/hook|opening|开头/i, ['开头第一句直接抛出读者的烦恼，用第一人称拉近距离', '开篇先给结论，再用亲身经历展开，三秒抓住注意力']],
  [/structure|结构/i, ['痛点引入 → 产品出场 → 卖点清单 → 使用感受 → 互动结尾', '总分总结构：结论先行，分点论证，结尾号召收藏']],
  [/selling|卖点/i, ['卖点以使用场景呈现，每个卖点配一个具体的感受或数字', '用对比和实测数据证明卖点，而不是空喊口号']],
  [/emotion|tone|emoji|语气|情绪/i, ['语气亲切像闺蜜聊天，每段一到两个表情，感叹句适度', '温柔松弛的语气，表情点缀在段尾，不过度堆砌']],
  [/audience|人群|用户/i, ['二十到三十岁、注重性价比和生活品质的年轻女性', '忙碌的上班族和学生党，希望用简单的方法解决日常小烦恼']],
  [/visual|pacing|image|画面|图片|节奏/i, ['首图大字封面，随后依次是痛点场景、细节特写、实测对比和购买引导', '画面以暖色调为主，产品居中，留白干净，节奏由远及近']],
  [/verdict|结论/i, ['值得一试', '表现不错', '可以再打磨']],
  [/summary|note|comment|reason|说明|总结|评价/i, ['整体表达清晰，卖点覆盖完整，情绪感染力还可以再加强。', '画面与主题契合，产品主体突出，构图干净，适合作为笔记配图。']],
  [/dimension|维度|angle/i, ['痛点共鸣', '实测种草', '场景生活']],
  [/tag/i, ['好物分享', '真实测评', '生活方式', '小红书种草', '日常分享', '种草']],
];

const FINDINGS = /issue|claim|problem|violation|warning|error|问题|宣称/i;

/** A phrase for a field; `slot` (items of one array) walks the bank so items do not repeat. */
function phraseFor(key: string, ctx: FillContext, slot?: number): string {
  const choose = (phrases: string[]) => (slot === undefined ? ctx.rng.pick(phrases) : phrases[slot % phrases.length]!);
  for (const [pattern, phrases] of BANKS) if (pattern.test(key)) return choose(phrases);
  return `${ctx.subject}的${choose(['亮点', '特色', '使用感受', '适用场景'])}`;
}

function clipString(value: string, schema: Schema): string {
  let out = value;
  if (typeof schema.maxLength === 'number') out = [...out].slice(0, schema.maxLength).join('');
  if (typeof schema.minLength === 'number') while ([...out].length < schema.minLength) out += '。';
  return out;
}

/** The first non-null alternative of a type union, anyOf or oneOf. */
function concrete(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf ?? schema.oneOf)) {
    const options = (schema.anyOf ?? schema.oneOf) as Schema[];
    return options.find((s) => s.type !== 'null') ?? options[0] ?? {};
  }
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((t: string) => t !== 'null') ?? 'null' };
  return schema;
}

/** A composed note's list is used only where the schema takes that many items (a fission asks for its own image count). */
function fitsCount(value: unknown, raw: Schema): boolean {
  if (!Array.isArray(value)) return true;
  const schema = concrete(raw);
  return value.length >= (schema.minItems ?? 0) && value.length <= (schema.maxItems ?? Infinity);
}

/**
 * A value that satisfies `schema`, with plausible content chosen by field names. Objects that
 * look like notes (title and content) are filled from a composed note, so a fission plan of N
 * packages gets N real notes.
 */
export function fillSchema(raw: Schema, ctx: FillContext, key = '', index = 0, slot?: number): unknown {
  const schema = concrete(raw);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return ctx.rng.pick(schema.enum);
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const note = 'title' in properties && 'content' in properties ? ctx.note(index) : undefined;
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(properties)) {
        const fromNote = note?.[name as keyof Note];
        out[name] = fromNote !== undefined && fitsCount(fromNote, sub) ? fromNote : fillSchema(sub, ctx, name, index);
      }
      return out;
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      const max = schema.maxItems ?? Math.max(min, 3);
      // A list of what is wrong (a judge's issues or unsupported claims) holds only what the schema
      // requires: the offline provider finds nothing wrong, and invented claims would send every
      // note to a rewrite.
      const wanted = FINDINGS.test(key) ? 0 : /tag/i.test(key) ? 6 : 3;
      const count = Math.min(max, Math.max(min, wanted));
      const items = (schema.items ?? {}) as Schema;
      const offset = ctx.rng.int(0, 99);
      const values = Array.from({ length: count }, (_, i) => fillSchema(items, ctx, key, i, offset + i));
      return schema.uniqueItems ? values.map((v, i) => (typeof v === 'string' ? `${v}${i || ''}` : v)) : values;
    }
    case 'string':
      return clipString(phraseFor(key, ctx, slot), schema);
    case 'integer':
    case 'number': {
      if (key === 'index' || key === 'seq') return schema.type === 'integer' ? index + (key === 'seq' ? 1 : 0) : index;
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Math.max(min, 100));
      // Local answers sit in the upper part of the range: plausible, never a perfect score.
      const value = min + (max - min) * (0.7 + 0.2 * ctx.rng.next());
      return schema.type === 'integer' ? Math.min(max, Math.max(min, Math.round(value))) : Math.round(value * 10) / 10;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return phraseFor(key, ctx, slot);
  }
}
