import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { AppConfig } from '../../app/AppConfig';
import type { ApiKey } from '../../api/types';
import ApiKeysPage from './ApiKeysPage';

const state = vi.hoisted(() => ({ updated: [] as unknown[], routed: [] as unknown[] }));
// An admin: the server's policy lets them route generation and look after every connection.
vi.mock('../../app/session', () => ({ useMe: () => ({ data: { allowed_actions: ['api_keys.create', 'generation_routing.write'] } }) }));

function connection(over: Partial<ApiKey>): ApiKey {
  return {
    id: 7,
    provider: 'deepseek',
    name: '欠费的 DeepSeek',
    key_last4: 'abcd',
    base_url: 'https://api.deepseek.com',
    text_model: 'deepseek-flash',
    vision_model: '',
    image_model: '',
    image_size: null,
    concurrency: 16,
    rpm: 300,
    tpm: 1_000_000,
    capabilities: { text: true, vision: false, image: false },
    options: { thinking: 'off', token_param: 'auto', temperature: 'auto' },
    retiring: [],
    last_test: null,
    created_at: '2026-11-28T01:00:00.000Z',
    created_by: 1,
    allowed_actions: ['update', 'delete', 'test'],
    ...over,
  };
}

const keys = [
  connection({}),
  connection({
    id: 8,
    provider: 'openai',
    name: 'OpenAI',
    base_url: 'https://api.openai.com/v1',
    text_model: 'gpt-5-mini',
    retiring: [{ capability: 'text', model: 'gpt-5-mini', retires_on: '2999-12-11' }],
  }),
];

vi.mock('../../api/endpoints', () => ({
  api: {
    apiKeys: {
      list: async () => ({ items: keys, total: keys.length, page: 1, page_size: 100 }),
      presets: async () => [],
      routing: async () => ({ text_key_id: 7, vision_key_id: null, image_key_id: null, warnings: [{ capability: 'text', key_id: 7, error_kind: 'insufficient_balance' }] }),
      setRouting: async (body: unknown) => {
        state.routed.push(body);
        return { ...(body as object), warnings: [] };
      },
      models: async () => ({
        ok: true,
        source: 'provider',
        error_kind: null,
        message: null,
        models: [
          { id: 'deepseek-flash', capabilities: ['text'], retires_on: null },
          { id: 'deepseek-v4-pro', capabilities: ['text'], retires_on: null },
          { id: 'text-embedding-v4', capabilities: [], retires_on: null },
        ],
      }),
      update: async (_id: number, body: unknown) => {
        state.updated.push(body);
        return keys[0];
      },
      create: vi.fn(),
      test: vi.fn(),
      remove: vi.fn(),
    },
  },
}));

function show() {
  render(
    <AppConfig>
      <QueryClientProvider client={new QueryClient()}>
        <ApiKeysPage />
      </QueryClientProvider>
    </AppConfig>,
  );
}

describe('AI connections page', () => {
  it('warns about a hand-routed connection whose test failed, and about a model that shuts down soon', async () => {
    show();
    const warning = await screen.findByTestId('route-warning');
    expect(warning.textContent).toContain('欠费的 DeepSeek 最近一次测试失败（AI 服务账户余额不足');
    expect((await screen.findByTestId('retiring')).textContent).toBe('gpt-5-mini（写文案）将于 2999-12-11 停用，请在到期前换成其他模型');
    // Changing the routing sends the three ids only, not the warnings it was read with.
    const textSelect = screen.getByLabelText('写文案');
    fireEvent.mouseDown(textSelect);
    fireEvent.click(await screen.findByText('自动（最新添加的可用连接）', { selector: '.ant-select-item-option-content' }));
    await waitFor(() => expect(state.routed).toEqual([{ text_key_id: null, vision_key_id: null, image_key_id: null }]));
  });

  it("offers the provider's text models in the form and saves the connection's options", async () => {
    show();
    const card = (await screen.findAllByTestId('connection'))[0]!;
    fireEvent.click(within(card).getByText('编辑'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('默认关闭：思考会占用输出额度，写文案和评分不需要它')).toBeTruthy();
    fireEvent.click(within(dialog).getByText('读取服务商的模型列表'));
    const textModel = within(dialog).getByLabelText('文案模型');
    fireEvent.change(textModel, { target: { value: 'deepseek' } });
    expect(await screen.findByText('deepseek-v4-pro', { selector: '.ant-select-item-option-content' })).toBeTruthy();
    // An embedding model is no text model.
    expect(screen.queryByText('text-embedding-v4', { selector: '.ant-select-item-option-content' })).toBeNull();
    fireEvent.click(screen.getByText('deepseek-v4-pro', { selector: '.ant-select-item-option-content' }));
    fireEvent.click(within(dialog).getByRole('button', { name: /保\s*存/ }));
    await waitFor(() => expect(state.updated).toHaveLength(1));
    expect(state.updated[0]).toMatchObject({ text_model: 'deepseek-v4-pro', options: { thinking: 'off', token_param: 'auto', temperature: 'auto' } });
  });

  it('takes a connection’s requests and tokens per minute, showing those in effect, and sends only what was changed', async () => {
    state.updated.length = 0;
    show();
    const card = (await screen.findAllByTestId('connection'))[0]!;
    fireEvent.click(within(card).getByText('编辑'));
    const dialog = await screen.findByRole('dialog');
    const rpm = within(dialog).getByLabelText('每分钟请求数') as HTMLInputElement;
    const tpm = within(dialog).getByLabelText('每分钟 Token 数') as HTMLInputElement;
    expect(rpm.value).toBe('');
    expect(rpm.placeholder).toBe('300');
    expect(tpm.placeholder).toBe((1_000_000).toLocaleString());
    expect(dialog.textContent).toContain('留空 = 预设默认；当前生效：300');
    fireEvent.change(rpm, { target: { value: '120' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /保\s*存/ }));
    await waitFor(() => expect(state.updated).toHaveLength(1));
    expect(state.updated[0]).toMatchObject({ rpm: 120 });
    expect(state.updated[0]).not.toHaveProperty('tpm');
  });
});
