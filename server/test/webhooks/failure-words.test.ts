import { describe, expect, it } from 'vitest';
import { wordFailureZh } from '../../src/http/reasons-zh.js';
import { buildRequest, factLines } from '../../src/modules/webhooks/formats.js';

/** contract-decisions §10: bot messages are in Chinese, a failed task's reason too. */
describe('stored failures in Chinese', () => {
  it('says what failed and why, by the situation before the kind', () => {
    expect(wordFailureZh('failure.nothing', { error_kind: 'rate_limited', detail: 'HTTP 429' })).toBe(
      '没有生成可用的内容：AI 服务限流：在“AI 服务连接”中调低该连接的并发，或到服务商提高额度后重试',
    );
    expect(wordFailureZh('failure.text_set', { set: 'B', detail: 'finish_reason length', error_kind: 'truncated', situation: 'thinking' })).toBe(
      'B 组文案生成失败：模型的思考用完了输出额度，没有给出回答：请在“AI 服务连接”中把该连接的“思考”设为关闭',
    );
  });

  it('words a failure with no provider behind it, a retry stopped by another reason, and the parts of a partly done task', () => {
    expect(wordFailureZh('failure.task_no_text_connection', {})).toBe('没有能写文案的 AI 服务连接：请先在“AI 服务连接”中添加，再重新生成');
    expect(wordFailureZh('failure.batch_cancelled', null)).toBe('批次已取消，任务未生成');
    expect(wordFailureZh('failure.retry', { detail: 'source gone', because: 'failure.source_gone' })).toBe('重试失败：源任务已被删除');
    expect(wordFailureZh('failure.partly', { parts: 'x', texts_failed: 1, texts_total: 3, images_failed: 2, images_total: 9 })).toBe(
      '部分完成（1/3 组文案失败，2/9 张图片失败），其余内容已就绪',
    );
  });

  it('reads an unknown key or a missing kind as the generic failure', () => {
    expect(wordFailureZh('failure.from_a_newer_version', { detail: 'x' })).toBe('生成失败：出现意外错误，请重试');
    expect(wordFailureZh('failure.other', { detail: 'ENOSPC' })).toBe('生成失败：出现意外错误，请重试');
  });
});

describe('a failed task in a bot message', () => {
  const notification = {
    id: 'd-1',
    event: 'task.failed' as const,
    workspaceId: 1,
    occurredAt: '2026-11-29T02:00:00.000Z',
    link: 'https://console.example.com/tasks/7',
    data: {
      task_id: 7,
      product: { id: 1, name: '晨光保温杯' },
      theme: '秋冬通勤',
      status: 'failed',
      reason: 'nothing usable was produced: provider insufficient balance',
      reason_key: 'failure.nothing',
      reason_params: { error_kind: 'insufficient_balance', detail: 'provider insufficient balance' },
    },
  };

  it('gives the reason in Chinese, never the English sentence kept for API users', () => {
    expect(factLines(notification)).toContainEqual(['失败原因', '没有生成可用的内容：AI 服务账户余额不足，请到服务商控制台充值后重试']);
    for (const kind of ['feishu', 'wecom', 'dingtalk'] as const) {
      const { body } = buildRequest(kind, { url: 'https://bot.example.com/hook', secret: undefined }, notification, new Date('2026-11-29T02:00:00Z'));
      expect(body, kind).toContain('AI 服务账户余额不足');
      expect(body, kind).not.toContain('nothing usable');
    }
  });

  it('falls back to the stored sentence for a delivery queued before reasons had keys', () => {
    const { reason_key: _k, reason_params: _p, ...older } = notification.data;
    expect(factLines({ ...notification, data: older })).toContainEqual(['失败原因', 'nothing usable was produced: provider insufficient balance']);
  });
});
