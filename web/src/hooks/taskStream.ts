/**
 * Live task progress over server-sent events (contract-decisions §5), followed for as long as
 * the task page is open (`follow=true`): after generation the same stream carries review
 * decisions, archiving, a regenerate and package progress, so the page never needs a reload.
 *
 * A stream ticket is one-time, so the browser's own EventSource retry (same URL) cannot work:
 * on any drop or end the connection is closed here, and a new one is opened with a fresh ticket
 * and `last_seq`. The server replays what was missed; events at or below the last seen seq are
 * dropped, so nothing is lost or applied twice.
 *
 * State lives in a small external store rather than React state: each component selects the
 * slice it shows, so a streaming text re-renders its own card only, not the whole page.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import { apiUrl } from '../api/client';
import { api } from '../api/endpoints';
import type { ImageCandidate, Progress, TaskStatus, TextCandidate } from '../api/types';
import { queryKeys, taskMutationKey } from '../api/queryKeys';

export const STREAM_EVENTS = ['status', 'progress', 'text_delta', 'text_candidate', 'image_candidate', 'error', 'done'] as const;
export type StreamEventName = (typeof STREAM_EVENTS)[number];
export type Connection = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface LiveState {
  connection: Connection;
  lastSeq: number;
  status: TaskStatus | undefined;
  progress: Record<string, Progress>;
  /** Text streamed so far per `${strategy}:${index}` until its candidate arrives. */
  drafts: Record<string, string>;
  texts: Record<number, TextCandidate>;
  images: Record<number, ImageCandidate>;
  /** Failures as the server recorded them, with the provider failure kind (contract-decisions §7) where it is one. */
  errors: Array<{ message: string; kind: string | null; key: string | null; params: Record<string, unknown> | null }>;
  /** The last applied event was `done`. */
  done: boolean;
}

export const initialLiveState: LiveState = {
  connection: 'idle',
  lastSeq: 0,
  status: undefined,
  progress: {},
  drafts: {},
  texts: {},
  images: {},
  errors: [],
  done: false,
};

function dropFirstDraftOf(drafts: Record<string, string>, strategy: string | null): Record<string, string> {
  const key = Object.keys(drafts)
    .filter((k) => k.startsWith(`${strategy ?? ''}:`))
    .sort((a, b) => Number(a.split(':')[1]) - Number(b.split(':')[1]))[0];
  if (key === undefined) return drafts;
  const { [key]: _dropped, ...rest } = drafts;
  return rest;
}

/** Pure reducer: each event replaces only the slice it touches, so unrelated selectors stay equal. */
export function reduceLive(state: LiveState, name: StreamEventName, data: any): LiveState {
  switch (name) {
    case 'status':
      return { ...state, status: data.status, done: false };
    case 'progress':
      return { ...state, progress: { ...state.progress, [data.stage]: data }, done: false };
    case 'text_delta': {
      const key = `${data.strategy ?? ''}:${data.index ?? 0}`;
      return { ...state, drafts: { ...state.drafts, [key]: (state.drafts[key] ?? '') + String(data.delta ?? '') }, done: false };
    }
    case 'text_candidate':
      return {
        ...state,
        texts: { ...state.texts, [data.candidate_id]: data },
        drafts: dropFirstDraftOf(state.drafts, data.strategy),
        done: false,
      };
    case 'image_candidate':
      return { ...state, images: { ...state.images, [data.candidate_id]: data }, done: false };
    case 'error':
      return { ...state, errors: [
          ...state.errors,
          {
            message: String(data?.message ?? ''),
            kind: typeof data?.error_kind === 'string' ? data.error_kind : null,
            key: typeof data?.reason === 'string' ? data.reason : null,
            params: typeof data?.params === 'object' && data.params !== null ? (data.params as Record<string, unknown>) : null,
          },
        ], done: false };
    case 'done':
      return { ...state, status: data.status ?? state.status, drafts: {}, done: true };
    default:
      return state;
  }
}

export class LiveStore {
  private state: LiveState = initialLiveState;
  private listeners = new Set<() => void>();

  getState = (): LiveState => this.state;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Applies one event unless its seq was seen already; returns whether it was applied. */
  apply(seq: number, name: StreamEventName, data: unknown): boolean {
    if (Number.isFinite(seq) && seq <= this.state.lastSeq) return false;
    const next = reduceLive(this.state, name, data);
    this.set(Number.isFinite(seq) ? { ...next, lastSeq: seq } : next);
    return true;
  }

  setConnection(connection: Connection) {
    if (this.state.connection !== connection) this.set({ ...this.state, connection });
  }

  private set(state: LiveState) {
    this.state = state;
    this.listeners.forEach((l) => l());
  }
}

export interface StreamOptions {
  taskId: number;
  store: LiveStore;
  /** A fresh one-time ticket for each connection. */
  ticket: (taskId: number) => Promise<string>;
  createEventSource?: (url: string) => EventSource;
  /** Waits before the 1st, 2nd, … reconnect; the last one repeats. */
  retryDelaysMs?: number[];
}

export function streamUrl(taskId: number, ticket: string, lastSeq: number): string {
  return apiUrl(`/tasks/${taskId}/stream?ticket=${encodeURIComponent(ticket)}&last_seq=${lastSeq}&follow=true`);
}

/** Opens the stream and keeps it open (reopening it after every end or drop) until the returned function is called. */
export function connectTaskStream(opts: StreamOptions): () => void {
  const { taskId, store } = opts;
  const delays = opts.retryDelaysMs ?? [500, 1000, 2000, 5000];
  const create = opts.createEventSource ?? ((url: string) => new EventSource(url));
  let closed = false;
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;

  const retryLater = () => {
    if (closed) return;
    store.setConnection('reconnecting');
    const delay = delays[Math.min(failures, delays.length - 1)] ?? 1000;
    failures += 1;
    timer = setTimeout(() => void open(), delay);
  };

  const onDrop = () => {
    source?.close();
    source = undefined;
    retryLater();
  };

  const open = async () => {
    store.setConnection(failures === 0 ? 'connecting' : 'reconnecting');
    let ticket: string;
    try {
      ticket = await opts.ticket(taskId);
    } catch {
      retryLater();
      return;
    }
    if (closed) return;
    const es = create(streamUrl(taskId, ticket, store.getState().lastSeq));
    source = es;
    es.addEventListener('open', () => {
      failures = 0;
      store.setConnection('open');
    });
    for (const name of STREAM_EVENTS) {
      es.addEventListener(name, (event) => {
        if (es !== source) return;
        const message = event as MessageEvent<string>;
        // The server's `error` event carries data; the connection's own error event does not.
        if (name === 'error' && typeof message.data !== 'string') {
          onDrop();
          return;
        }
        let data: unknown;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        store.apply(Number(message.lastEventId), name, data);
      });
    }
  };

  void open();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
    source = undefined;
    store.setConnection('closed');
  };
}

const INVALIDATE_AFTER_MS = 150;
const LIVE_STATUSES: TaskStatus[] = ['pending', 'generating'];

export function isGenerating(status: TaskStatus | undefined): boolean {
  return status !== undefined && LIVE_STATUSES.includes(status);
}

/**
 * One store per task page, following the task while `active` (the page shows it). Status
 * changes, `done` and candidates that arrive outside a generation run refetch the task (and
 * what hangs off its status: review history, preferences) and the review badge; package
 * progress refetches the package list. Streamed text and a running generation's candidates
 * refetch nothing (the store shows them as they come).
 */
export function useTaskStream(taskId: number, active: boolean): LiveStore {
  const queryClient = useQueryClient();
  const store = useMemo(() => new LiveStore(), [taskId]);
  // A layout effect runs before every passive one, so the stream ticket is the page's first
  // request, ahead of the side panels' queries: the browser opens six connections to a host,
  // and behind the others the ticket (and so the first progress) would wait for a free one.
  useLayoutEffect(() => {
    if (!active) return undefined;
    let seen = store.getState();
    // A replay delivers a task's whole history at once: one refetch for a burst, not one per event.
    const stale = new Set<'task' | 'packages'>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      if (stale.has('task')) {
        // While a change of the user's is on its way, a refetch would bring the task back
        // without it and undo what the page shows; that change's own refetch, when it settles,
        // brings what the stream announced too.
        if (queryClient.isMutating({ mutationKey: taskMutationKey(taskId) }) === 0) void queryClient.invalidateQueries({ queryKey: queryKeys.task.detail(taskId) });
        void queryClient.invalidateQueries({ queryKey: queryKeys.reviewQueue.all() });
      } else if (stale.has('packages')) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.task.packages(taskId) });
      }
      stale.clear();
    };
    const unsubscribe = store.subscribe(() => {
      const now = store.getState();
      if (now.status !== seen.status || (now.done && !seen.done)) stale.add('task');
      // A candidate outside a generation run (one image regenerated or retried, a text
      // imported) changes what the detail shows beside it (covers, sets): refetch it too.
      else if ((now.images !== seen.images || now.texts !== seen.texts) && !isGenerating(now.status)) stale.add('task');
      else if (now.progress.package !== seen.progress.package) stale.add('packages');
      seen = now;
      if (stale.size > 0 && timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          flush();
        }, INVALIDATE_AFTER_MS);
      }
    });
    const disconnect = connectTaskStream({ taskId, store, ticket: async (id) => (await api.tasks.sseTicket(id)).ticket });
    return () => {
      clearTimeout(timer);
      unsubscribe();
      disconnect();
    };
  }, [taskId, active, store, queryClient]);
  return store;
}

/** `selector` must return a slice of the state (not a new object), or every event re-renders. */
export function useLive<T>(store: LiveStore, selector: (state: LiveState) => T): T {
  return useSyncExternalStore(store.subscribe, () => selector(store.getState()));
}
