import { createHmac } from 'node:crypto';
import type { WebhookErrorKind, WebhookEvent, WebhookKind } from '../../db/schema.js';
import type { Params } from '../../http/reasons.js';
import { wordFailureZh } from '../../http/reasons-zh.js';

/**
 * What is posted for a notification, per receiver kind (docs/webhooks.md cites each app's
 * documentation). Pure: the delivery job decides when, this decides what.
 *
 * - generic: `{id, event, workspace_id, occurred_at, data}`, signed with
 *   `X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` when a secret is set;
 * - feishu: a custom bot's interactive card; with a secret, `timestamp` (seconds) and `sign` =
 *   base64(HMAC-SHA256 keyed by "<timestamp>\n<secret>" over the empty string) in the body;
 * - wecom: a group robot's markdown message (the robot has no signing: its key is in the URL);
 * - dingtalk: a custom robot's markdown message; with a secret, `timestamp` (milliseconds) and
 *   `sign` = base64(HMAC-SHA256 keyed by the secret over "<timestamp>\n<secret>") added to the URL.
 *
 * Messages are Chinese. Text that users typed (product, theme, reason) is neutralised so it can
 * add neither formatting nor links to a message.
 */

export type NotificationEvent = WebhookEvent | 'webhook.test';

export interface Notification {
  /** The stable delivery id. */
  id: string;
  event: NotificationEvent;
  workspaceId: number;
  occurredAt: string;
  data: Record<string, unknown>;
  /** The console page the event is about (PUBLIC_URL); undefined without PUBLIC_URL. */
  link: string | undefined;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const TITLES: Record<NotificationEvent, string> = {
  'task.pending_selection': '内容已生成，等待挑选',
  'task.failed': '任务生成失败',
  'task.submitted': '任务已提交，等待审核',
  'task.approved': '任务审核通过',
  'task.rejected': '任务被驳回',
  'package.ready': '发布包已就绪',
  'fission.completed': '裂变已完成',
  'post.due': '到点发布提醒',
  'post.missed': '排期已错过',
  'post.published': '笔记已发布',
  'webhook.test': '测试消息',
};

const STATUS_WORDS: Record<string, string> = {
  pending: '排队中',
  generating: '生成中',
  pending_selection: '待挑选',
  pending_review: '待审核',
  approved: '已通过',
  rejected: '已驳回（终止）',
  archived: '已归档',
  failed: '生成失败',
  // Posts (§11).
  scheduled: '已排期',
  due: '待发布',
  published: '已发布',
  missed: '已错过',
  cancelled: '已取消',
};

/** Feishu card header colours by outcome. */
const TEMPLATES: Record<NotificationEvent, string> = {
  'task.pending_selection': 'blue',
  'task.failed': 'red',
  'task.submitted': 'wathet',
  'task.approved': 'green',
  'task.rejected': 'orange',
  'package.ready': 'green',
  'fission.completed': 'turquoise',
  'post.due': 'blue',
  'post.missed': 'red',
  'post.published': 'green',
  'webhook.test': 'grey',
};

/** Markdown and card markup characters become look-alikes; line breaks become spaces; long text is cut. */
export function plain(value: unknown, max = 120): string {
  const text = String(value ?? '')
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[<>[\]*_`#~|\\]/g, (c) => FULL_WIDTH[c] ?? ' ')
    .trim();
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}
const FULL_WIDTH: Record<string, string> = { '<': '＜', '>': '＞', '[': '【', ']': '】', '*': '＊', _: '＿', '`': '＇', '#': '＃', '~': '～', '|': '｜', '\\': '＼' };

export function titleOf(n: Pick<Notification, 'event' | 'data'>): string {
  if (n.event === 'task.rejected' && n.data.final === true) return '任务被驳回（终止）';
  return TITLES[n.event];
}

/** The facts of a notification as label/value lines, in reading order; absent facts are left out. */
export function factLines(n: Pick<Notification, 'event' | 'data'>): Array<[string, string]> {
  const d = n.data;
  const lines: Array<[string, string]> = [];
  const product = d.product as { name?: string } | undefined;
  if (product?.name) lines.push(['产品', plain(product.name)]);
  if (d.theme) lines.push(['主题', plain(d.theme)]);
  if (typeof d.status === 'string') lines.push(['状态', STATUS_WORDS[d.status] ?? d.status]);
  if (typeof d.score === 'number') lines.push(['选定文案得分', `${Math.round(d.score)} 分`]);
  if (n.event === 'task.rejected' && d.reason) lines.push(['驳回原因', plain(d.reason, 300)]);
  if (n.event === 'task.failed' && (d.reason_key || d.reason)) {
    const words = typeof d.reason_key === 'string' ? wordFailureZh(d.reason_key, d.reason_params as Params | null) : d.reason;
    lines.push(['失败原因', plain(words, 300)]);
  }
  if (n.event === 'package.ready') {
    if (typeof d.note_count === 'number') lines.push(['笔记数', `${d.note_count} 篇`]);
    if (typeof d.expires_at === 'string') lines.push(['下载有效期至', beijingTime(d.expires_at)]);
  }
  if (n.event === 'fission.completed' && typeof d.fanout_count === 'number') {
    lines.push(['裂变结果', `${Number(d.done_count ?? 0)} / ${d.fanout_count} 篇出图成功`]);
  }
  if (n.event.startsWith('post.')) lines.push(...postLines(n.event, d));
  if (n.event === 'webhook.test') lines.push(['说明', '这是一条测试消息，收到即表示配置正确']);
  return lines;
}

/**
 * A post's notification tells the person what to do and where: "请在「账号」发布「标题」" when it
 * is due, with the planned time; a missed post says so; a published one names its link.
 */
function postLines(event: NotificationEvent, d: Record<string, unknown>): Array<[string, string]> {
  const account = (d.account as { name?: string } | undefined)?.name ?? '';
  const title = plain(d.title);
  const lines: Array<[string, string]> = [];
  if (event === 'post.due') lines.push(['待办', `请在「${plain(account, 40)}」发布「${title}」`]);
  else lines.push(['账号', plain(account, 40)], ['笔记', title]);
  if (typeof d.scheduled_at === 'string') lines.push(['计划时间', beijingTime(d.scheduled_at)]);
  if (event === 'post.missed') lines.push(['说明', '已超过计划时间 24 小时仍未标记发布']);
  if (event === 'post.published' && typeof d.note_url === 'string') lines.push(['笔记链接', plain(d.note_url, 300)]);
  return lines;
}

/** Teams read times in China Standard Time. */
export function beijingTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat('zh-CN', { timeZone: 'Asia/Shanghai', dateStyle: 'medium', timeStyle: 'short', hour12: false }).format(date);
}

function linkLabel(event: NotificationEvent): string {
  if (event === 'fission.completed') return '查看裂变';
  if (event === 'package.ready') return '前往下载';
  if (event === 'post.due' || event === 'post.missed') return '打开发布包';
  if (event === 'post.published') return '查看排期';
  return '查看任务';
}

function markdownLines(n: Notification): string[] {
  return [
    ...factLines(n).map(([label, value]) => `**${label}**：${value}`),
    ...(n.link ? [`[${linkLabel(n.event)}](${n.link})`] : []),
  ];
}

/** HMAC-SHA256 over `<t>.<body>` in hex: the generic receiver's signature. */
export function genericSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** Feishu custom bot: the key is "<timestamp>\n<secret>", the message empty. */
export function feishuSign(secret: string, timestampSeconds: number): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** DingTalk custom robot: the key is the secret, the message "<timestamp>\n<secret>". */
export function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export function buildRequest(kind: WebhookKind, target: { url: string; secret: string | undefined }, n: Notification, now: Date): OutgoingRequest {
  switch (kind) {
    case 'generic': {
      const body = JSON.stringify({
        id: n.id,
        event: n.event,
        workspace_id: n.workspaceId,
        occurred_at: n.occurredAt,
        data: { ...n.data, url: n.link ?? null },
      });
      const headers: Record<string, string> = { ...JSON_HEADERS, 'x-webhook-id': n.id, 'x-webhook-event': n.event };
      if (target.secret) {
        const t = Math.floor(now.getTime() / 1000);
        headers['x-signature'] = `t=${t},v1=${genericSignature(target.secret, t, body)}`;
      }
      return { url: target.url, headers, body };
    }
    case 'feishu': {
      const elements: unknown[] = [{ tag: 'div', text: { tag: 'lark_md', content: factLines(n).map(([l, v]) => `**${l}**：${v}`).join('\n') } }];
      if (n.link) {
        elements.push({ tag: 'action', actions: [{ tag: 'button', text: { tag: 'plain_text', content: linkLabel(n.event) }, type: 'primary', url: n.link }] });
      }
      const message: Record<string, unknown> = {
        msg_type: 'interactive',
        card: {
          config: { wide_screen_mode: true },
          header: { title: { tag: 'plain_text', content: titleOf(n) }, template: TEMPLATES[n.event] },
          elements,
        },
      };
      if (target.secret) {
        const timestamp = Math.floor(now.getTime() / 1000);
        Object.assign(message, { timestamp: String(timestamp), sign: feishuSign(target.secret, timestamp) });
      }
      return { url: target.url, headers: JSON_HEADERS, body: JSON.stringify(message) };
    }
    case 'wecom':
      return {
        url: target.url,
        headers: JSON_HEADERS,
        body: JSON.stringify({ msgtype: 'markdown', markdown: { content: [`### ${titleOf(n)}`, ...markdownLines(n)].join('\n') } }),
      };
    case 'dingtalk': {
      let url = target.url;
      if (target.secret) {
        const timestamp = now.getTime();
        const signed = new URL(target.url);
        signed.searchParams.set('timestamp', String(timestamp));
        signed.searchParams.set('sign', dingtalkSign(target.secret, timestamp));
        url = signed.toString();
      }
      const title = titleOf(n);
      return {
        url,
        headers: JSON_HEADERS,
        // DingTalk renders a blank line between paragraphs only with a double line break.
        body: JSON.stringify({ msgtype: 'markdown', markdown: { title, text: [`### ${title}`, ...markdownLines(n)].join('\n\n') } }),
      };
    }
  }
}

/**
 * Whether the receiver took the message. Generic receivers answer with a 2xx; the bots answer
 * HTTP 200 with their own error code in the body (Feishu `code`, older `StatusCode`; WeCom and
 * DingTalk `errcode`), which must be 0.
 */
export function judgeAnswer(kind: WebhookKind, status: number, body: string): WebhookErrorKind | null {
  if (status < 200 || status > 299) return 'http_status';
  if (kind === 'generic') return null;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return 'app_error';
  }
  const code = kind === 'feishu' ? (parsed.code ?? parsed.StatusCode) : parsed.errcode;
  return code === 0 ? null : 'app_error';
}
