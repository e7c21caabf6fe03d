import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { en } from '../i18n/en';
import { zhCN } from '../i18n/zh-CN';
import { ApiError, errorMessage } from './client';
import { ERROR_CODES, ERROR_REASONS, FAILURE_REASONS } from './constants';
import { wordFailure } from './errorText';

const zh = (status: number, code: number, reason: string | null, params: Record<string, unknown> | null = {}) =>
  errorMessage(new ApiError(status, code, 'an English sentence nothing reads', reason, params));

/** The wording of a dotted key in a resource tree (`reason.task.not_found`), or undefined. */
function lookup(tree: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), tree);
}

describe('every reason and code the server knows has words', () => {
  const reasons = [...Object.keys(ERROR_REASONS), ...Object.keys(FAILURE_REASONS)];

  it('in Chinese (zh-CN) and in English', () => {
    const missing = reasons.flatMap((key) =>
      [
        ['zh-CN', zhCN],
        ['en', en],
      ].flatMap(([lang, tree]) => (typeof lookup(tree, `reason.${key}`) === 'string' && lookup(tree, `reason.${key}`) !== '' ? [] : [`${String(lang)}: reason.${key}`])),
    );
    expect(missing).toEqual([]);
    expect(reasons.length).toBeGreaterThan(150);
  });

  it('every error code, 42203 (no image connection) included', () => {
    const missing = ERROR_CODES.flatMap((code) => (typeof lookup(zhCN, `apiError.code.${code}`) === 'string' && typeof lookup(en, `apiError.code.${code}`) === 'string' ? [] : [code]));
    expect(missing).toEqual([]);
    expect(ERROR_CODES).toContain(42203);
  });

  it('uses only params the server sends for that reason', () => {
    const holes = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!);
    const catalogue: Record<string, { params: readonly string[] }> = { ...ERROR_REASONS, ...FAILURE_REASONS };
    const unknown = Object.entries(catalogue).flatMap(([key, { params }]) =>
      [zhCN, en].flatMap((tree) =>
        holes(String(lookup(tree, `reason.${key}`))).filter((hole) => !params.includes(hole) && hole !== 'cause' && !(key === 'failure.partly' && hole === 'parts')).map((hole) => `${key}: ${hole}`),
      ),
    );
    expect(unknown).toEqual([]);
  });
});

describe('server errors in the interface language, from reason and params', () => {
  it('words errors in Chinese, keeping the values they carry', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(zh(401, 40102, 'auth.wrong_credentials')).toBe('用户名或密码错误');
    expect(zh(400, 40000, 'auth.wrong_current_password')).toBe('当前密码不正确');
    expect(zh(415, 41500, 'upload.not_image')).toBe('只支持 JPEG、PNG 或 WebP 图片');
    expect(zh(422, 42202, 'banned_word.hard_block', { words: ['国家级', '最'] })).toBe('含有禁止使用的违禁词：国家级、最');
    expect(zh(409, 40900, 'task.wrong_status', { action: 'archive', status: 'pending_review', accepted: ['approved'] })).toBe('任务当前为“待审核”，不能进行此操作');
    // A post's status is a post's word (§11), not the raw value nor a task status.
    expect(zh(409, 40900, 'post.wrong_status', { post_id: 9, status: 'published', allowed: ['scheduled', 'due'] })).toBe('排期 #9 当前为“已发布”，不能进行此操作');
    expect(zh(409, 40900, 'post.wrong_status', { post_id: 9, status: 'missed', allowed: ['scheduled', 'due'] })).toBe('排期 #9 当前为“已错过”，不能进行此操作');
    expect(zh(409, 40900, 'results.not_published', { post_id: 4, status: 'due' })).toBe('排期 #4 当前为“待发布”：只有已发布的笔记才能记录数据');
    expect(zh(400, 40000, 'validation.blank', { field: 'body.theme' })).toBe('“主题”不能为空');
    expect(zh(400, 40000, 'validation.max_length', { field: 'body.title', limit: 20 })).toBe('“标题”最多 20 个字符');
    expect(zh(400, 40000, 'validation.one_of', { field: 'body.role', allowed: ['admin', 'supervisor', 'operator'] })).toBe('“角色”只能是：admin、supervisor、operator');
    expect(zh(429, 42900, 'auth.login_locked', { minutes: 15 })).toBe('登录失败次数过多，请 15 分钟后再试');
    expect(zh(422, 42203, 'connection.none_for_image')).toBe('工作空间还没有能生成图片的 AI 服务连接：请添加一个（如豆包、通义千问、智谱、硅基流动或 OpenAI），或把图片数量设为 0');
    expect(zh(409, 40900, 'workspace.slug_taken', { slug: 'second' })).toBe('标识“second”已被其他工作空间使用');
    expect(zh(400, 40000, 'webhook.private_url', { detail: 'hooks.internal resolves to a non-public address' })).toBe(
      'Webhook 地址无效或指向内网：只能使用可从公网访问的 http(s) 地址',
    );
  });

  it('falls back to the code, then the HTTP status, when a reason is unknown or absent', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(zh(422, 42203, null)).toBe('工作空间还没有能生成图片的 AI 服务连接，请先添加，或把图片数量设为 0');
    expect(zh(400, 40000, 'a.reason_from_a_newer_server')).toBe('提交的内容不符合要求，请检查后重试');
    expect(zh(418, 41800, null)).toBe('服务器返回错误（HTTP 418）');
  });

  it('words the same reasons in English when the interface is English', async () => {
    await i18n.changeLanguage('en');
    expect(zh(401, 40102, 'auth.wrong_credentials')).toBe('Wrong username or password');
    expect(zh(422, 42202, 'banned_word.hard_block', { words: ['国家级', '最'] })).toBe('Contains banned words that are never allowed: 国家级, 最');
    await i18n.changeLanguage('zh-CN');
  });
});

describe('failures recorded by the server, worded from their key', () => {
  const t = i18n.getFixedT('zh-CN');

  it('says what failed and why, by the provider failure kind', () => {
    expect(wordFailure(t, { key: 'failure.text_set', params: { set: 'B', detail: 'English', error_kind: 'auth' } })).toBe(
      'B 组文案生成失败：AI 服务拒绝了密钥，请在“AI 服务连接”中检查或更换密钥',
    );
    expect(wordFailure(t, { key: 'failure.image', params: { set: 'A', seq: 2, role: 'detail', detail: 'x', error_kind: 'timeout' } })).toBe('图片 A2 生成失败：AI 服务响应超时，请重试');
    expect(wordFailure(t, { key: 'failure.partly', params: { parts: 'x', texts_failed: 1, texts_total: 3, images_failed: 2, images_total: 9 } })).toBe(
      '部分完成（1/3 组文案失败，2/9 张图片失败），其余内容已就绪',
    );
    // A row that keeps its kind apart from params (an image's error_kind column).
    expect(wordFailure(t, { key: 'failure.note_image', params: { role: 'main', detail: 'x' }, kind: 'rate_limited' })).toBe(
      '图片生成失败：AI 服务限流：在“AI 服务连接”中调低该连接的并发，或到服务商提高额度后重试',
    );
    expect(wordFailure(t, { key: 'failure.package_build', params: {} })).toBe('交付包生成失败（内部错误），请重新生成');
    expect(wordFailure(t, { key: 'failure.retry', params: { detail: 'x', because: 'failure.source_gone' } })).toBe('重试失败：源任务已被删除');
    expect(wordFailure(t, { key: null })).toBe('生成失败：出现意外错误，请重试');
    expect(wordFailure(t, { key: 'failure.from_a_newer_server', params: {} })).toBe('生成失败：出现意外错误，请重试');
  });

  it('tells apart the situations one kind covers where the fix differs', () => {
    expect(wordFailure(t, { key: 'failure.text_set', params: { set: 'A', detail: 'x', error_kind: 'unsupported', situation: 'region' } })).toBe(
      'A 组文案生成失败：服务商不接受来自本服务器所在国家或地区的请求：请改用中转地址（兼容接口）或其他服务商',
    );
    expect(wordFailure(t, { key: 'failure.text_set', params: { set: 'B', detail: 'x', error_kind: 'unsupported', situation: 'context' } })).toMatch(/^B 组文案生成失败：请求超出模型的上下文长度/);
    expect(wordFailure(t, { key: 'failure.nothing', params: { detail: 'x', error_kind: 'truncated', situation: 'thinking' } })).toBe(
      '没有生成可用的内容：模型的思考用完了输出额度，没有给出回答：请在“AI 服务连接”中把该连接的“思考”设为关闭',
    );
    expect(wordFailure(t, { key: 'failure.text_set', params: { set: 'C', detail: 'cut', error_kind: 'truncated' } })).toMatch(/超出输出上限被截断/);
  });
});
