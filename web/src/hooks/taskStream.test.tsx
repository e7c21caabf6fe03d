/**
 * The stream connection against a real local SSE server (node:http) through a real EventSource
 * implementation (the `eventsource` package; jsdom has none): one-time tickets, a dropped
 * connection, a replay that overlaps what was already seen, and a followed stream that the
 * server ends and the client reopens, so what happens after `done` still arrives.
 */
import { MutationObserver, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { EventSource as NodeEventSource } from 'eventsource';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../i18n';
import { setApiBase } from '../api/client';
import { LivePanel } from '../pages/tasks/LivePanel';
import { connectTaskStream, LiveStore, useLive, useTaskStream, type LiveState } from './taskStream';
import { taskMutationKey } from '../api/queryKeys';

const TASK = 7;
const EVENTS: Array<[string, unknown]> = [
  ['status', { task_id: TASK, status: 'generating' }],
  ['text_delta', { strategy: 'A', index: 0, delta: '你好' }],
  ['text_delta', { strategy: 'A', index: 0, delta: '世界' }],
  ['progress', { stage: 'text', done: 1, total: 2 }],
  ['text_candidate', { candidate_id: 11, strategy: 'A', title: 't', content: '你好世界' }],
  ['image_candidate', { candidate_id: 21, strategy: 'A', seq: 1, role: 'main', url: '/x.png' }],
  ['done', { status: 'pending_selection' }],
  // After generation: a review decision, on a later connection.
  ['status', { task_id: TASK, status: 'approved' }],
];

interface Connection {
  ticket: string;
  lastSeq: number;
  follow: string | null;
}

let server: Server;
let issued: string[];
let used: Set<string>;
let connections: Connection[];
/** What the n-th connection sends: [from seq, to seq, then drop the socket?] */
let plan: Array<{ from: (lastSeq: number) => number; to: number; drop: boolean }>;

function writeEvent(res: ServerResponse, seq: number) {
  const [name, data] = EVENTS[seq - 1]!;
  res.write(`id: ${seq}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'POST' && url.pathname === `/api/v1/tasks/${TASK}/sse-ticket`) {
    const ticket = `ticket-${issued.length + 1}`;
    issued.push(ticket);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ code: 0, data: { ticket, expires_in: 60 } }));
    return;
  }
  if (req.method === 'GET' && url.pathname === `/api/v1/tasks/${TASK}/stream`) {
    const ticket = url.searchParams.get('ticket') ?? '';
    if (!issued.includes(ticket) || used.has(ticket)) {
      res.statusCode = 401;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ code: 40101, message: 'token invalid or expired' }));
      return;
    }
    used.add(ticket);
    const lastSeq = Number(url.searchParams.get('last_seq'));
    connections.push({ ticket, lastSeq, follow: url.searchParams.get('follow') });
    const step = plan[connections.length - 1] ?? { from: (s: number) => s + 1, to: EVENTS.length, drop: false };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    for (let seq = step.from(lastSeq); seq <= step.to; seq++) writeEvent(res, seq);
    // A dropped connection (proxy restart, network) versus the normal end after `done`.
    setTimeout(() => (step.drop ? res.socket?.destroy() : res.end()), 30);
    return;
  }
  res.statusCode = 404;
  res.end();
}

beforeEach(async () => {
  issued = [];
  used = new Set();
  connections = [];
  plan = [];
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  setApiBase(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterEach(async () => {
  setApiBase('');
  await new Promise((resolve) => server.close(resolve));
});

function until(store: LiveStore, predicate: (s: LiveState) => boolean, timeoutMs = 8000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; state: ${JSON.stringify(store.getState())}`)), timeoutMs);
    const check = () => {
      if (predicate(store.getState())) {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    };
    const unsubscribe = store.subscribe(check);
    check();
  });
}

function connect(store: LiveStore) {
  return connectTaskStream({
    taskId: TASK,
    store,
    ticket: async (id) => {
      const res = await fetch(`${`http://127.0.0.1:${(server.address() as AddressInfo).port}`}/api/v1/tasks/${id}/sse-ticket`, { method: 'POST' });
      return ((await res.json()) as { data: { ticket: string } }).data.ticket;
    },
    createEventSource: (url) => new NodeEventSource(url) as unknown as EventSource,
    retryDelaysMs: [20],
  });
}

describe('task stream', () => {
  it('reconnects with a fresh ticket and last_seq after a drop or an end, and applies each seq once', async () => {
    // 1st connection: seq 1-3 then the socket dies. 2nd: the server replays from last_seq - 1
    // (an overlap the client must drop), then the rest of the generation, and ends the stream
    // (a following stream's time limit). 3rd: a review decision made after generation.
    plan = [
      { from: (s) => s + 1, to: 3, drop: true },
      { from: (s) => s - 1, to: 7, drop: false },
      { from: (s) => s + 1, to: EVENTS.length, drop: false },
    ];
    const store = new LiveStore();
    const drafts: string[] = [];
    store.subscribe(() => {
      const d = store.getState().drafts['A:0'];
      if (d !== undefined && d !== drafts.at(-1)) drafts.push(d);
    });
    const close = connect(store);
    await until(store, (s) => s.lastSeq === EVENTS.length);
    close();

    expect(connections.slice(0, 3)).toEqual([
      { ticket: 'ticket-1', lastSeq: 0, follow: 'true' },
      { ticket: 'ticket-2', lastSeq: 3, follow: 'true' },
      { ticket: 'ticket-3', lastSeq: 7, follow: 'true' },
    ]);
    expect(new Set(issued).size).toBe(issued.length);
    const s = store.getState();
    // '世界' (seq 3) came twice over the wire; a duplicate would read 你好世界世界.
    expect(drafts).toEqual(['你好', '你好世界']);
    expect(Object.keys(s.texts)).toEqual(['11']);
    expect(Object.keys(s.images)).toEqual(['21']);
    expect(s.progress.text).toEqual({ stage: 'text', done: 1, total: 2 });
    expect(s.status).toBe('approved');
    expect(s.drafts).toEqual({});
  });

  it('keeps retrying with new tickets after drops', async () => {
    plan = [
      { from: (s) => s + 1, to: 1, drop: true },
      { from: (s) => s + 1, to: 2, drop: true },
    ];
    const store = new LiveStore();
    const close = connect(store);
    await until(store, (st) => st.lastSeq === EVENTS.length);
    close();
    expect(connections.slice(0, 3).map((c) => c.lastSeq)).toEqual([0, 1, 2]);
    expect(connections.slice(0, 3).map((c) => c.ticket)).toEqual(['ticket-1', 'ticket-2', 'ticket-3']);
    expect(store.getState().connection).toBe('closed');
  });
});

/** A page that follows the task, as the task page does. */
function followTask(client: QueryClient) {
  function Page() {
    useTaskStream(TASK, true);
    return null;
  }
  return render(
    <QueryClientProvider client={client}>
      <Page />
    </QueryClientProvider>,
  );
}

/** How many times each query key was invalidated (refetched, for a page showing it). */
function countRefetches(client: QueryClient) {
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  return (key: unknown[]) => invalidate.mock.calls.filter(([f]) => JSON.stringify(f?.queryKey) === JSON.stringify(key)).length;
}

describe('the task page following its task', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refetches the task once for the replayed history, and again for a review decision that comes later', async () => {
    vi.stubGlobal('EventSource', NodeEventSource);
    // 1st connection: the whole generation, then the stream ends; 2nd: the approval.
    plan = [
      { from: (s) => s + 1, to: 7, drop: false },
      { from: (s) => s + 1, to: EVENTS.length, drop: false },
    ];
    const client = new QueryClient();
    const refetchesOf = countRefetches(client);
    const taskRefetches = () => refetchesOf(['task', TASK]);
    const { unmount } = followTask(client);
    await waitFor(() => expect(taskRefetches()).toBe(1), { timeout: 3000 });
    expect(connections).toHaveLength(1);
    await waitFor(() => expect(taskRefetches()).toBe(2), { timeout: 5000 });
    expect(connections[1]).toMatchObject({ lastSeq: 7, follow: 'true' });
    expect(refetchesOf(['review-queue'])).toBeGreaterThan(0);
    unmount();
  });

  it('does not refetch the task while a change of the user is on its way (it would undo what the page shows)', async () => {
    vi.stubGlobal('EventSource', NodeEventSource);
    plan = [{ from: (s) => s + 1, to: 7, drop: false }];
    const client = new QueryClient();
    const refetchesOf = countRefetches(client);
    let answer!: () => void;
    const selecting = new MutationObserver(client, { mutationKey: taskMutationKey(TASK), mutationFn: () => new Promise<void>((resolve) => (answer = resolve)) }).mutate();
    const { unmount } = followTask(client);
    // The replayed history was taken in (the review badge refetched), the task itself was not.
    await waitFor(() => expect(refetchesOf(['review-queue'])).toBe(1), { timeout: 3000 });
    expect(refetchesOf(['task', TASK])).toBe(0);
    answer();
    await selecting;
    unmount();
  });
});

describe('rendering while events stream in', () => {
  it('re-renders only the component whose slice changed, not the page, for 200 tokens', () => {
    const store = new LiveStore();
    const renders = { page: 0, draft: 0 };
    function Draft() {
      renders.draft += 1;
      return <p data-testid="draft">{useLive(store, (s) => s.drafts['A:0'])}</p>;
    }
    function Page() {
      renders.page += 1;
      const connection = useLive(store, (s) => s.connection);
      return (
        <div data-connection={connection}>
          <Draft />
          <LivePanel store={store} fallback={null} status="generating" />
        </div>
      );
    }
    render(<Page />);
    act(() => {
      for (let seq = 1; seq <= 200; seq++) store.apply(seq, 'text_delta', { strategy: 'A', index: 0, delta: 'x' });
    });
    expect(screen.getByTestId('draft').textContent).toBe('x'.repeat(200));
    // The live panel shows the same draft, streamed.
    expect(screen.getByTestId('draft-text').textContent).toBe('x'.repeat(200));
    expect(renders.page).toBe(1);
    expect(renders.draft).toBeGreaterThan(1);
  });

  it('updates the progress bars per stage as progress events arrive', () => {
    const store = new LiveStore();
    render(<LivePanel store={store} fallback={null} status="generating" />);
    act(() => {
      store.apply(1, 'progress', { stage: 'image', done: 2, total: 6 });
    });
    expect(screen.getByLabelText('图片 2/6')).toBeTruthy();
    expect(screen.queryByTestId('stage-text')).toBeNull();
  });

  it('counts failed images as failed, not as done: the bar is not all green', () => {
    const store = new LiveStore();
    render(<LivePanel store={store} fallback={null} status="generating" />);
    act(() => {
      store.apply(1, 'progress', { stage: 'image', done: 4, failed: 8, total: 12 });
    });
    expect(screen.getByLabelText('图片 4 张成功 · 8 张失败 / 共 12')).toBeTruthy();
    const bar = screen.getByTestId('stage-image');
    // Ant Design's exception state (red), with only the 4 successes in the success segment.
    expect(bar.querySelector('.ant-progress-status-exception')).not.toBeNull();
    expect(bar.querySelector('.ant-progress-status-success')).toBeNull();
  });

  it('says the task is queued until its first stage reports, then that it is generating', () => {
    const store = new LiveStore();
    render(<LivePanel store={store} fallback={null} status="pending" />);
    expect(screen.getByTestId('live-queued').textContent).toBe('已排队，马上开始生成…');
    act(() => {
      store.apply(1, 'status', { task_id: TASK, status: 'generating' });
    });
    expect(screen.getByTestId('live-generating')).toBeTruthy();
  });

  it('reads 已完成 once the generation is over, not the state of the connection', () => {
    const store = new LiveStore();
    const { rerender } = render(<LivePanel store={store} fallback={null} status="generating" />);
    expect(screen.getByText('未连接')).toBeTruthy();
    act(() => {
      store.apply(1, 'done', { status: 'pending_selection' });
      store.setConnection('reconnecting');
    });
    rerender(<LivePanel store={store} fallback={null} status="pending_selection" />);
    expect(screen.getByTestId('live-finished').textContent).toBe('已完成');
    act(() => {
      store.apply(2, 'status', { task_id: TASK, status: 'failed' });
    });
    expect(screen.getByTestId('live-finished').textContent).toBe('生成失败');
  });
});
