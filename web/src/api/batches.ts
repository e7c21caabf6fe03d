/**
 * The batch routes (server: modules/batches/routes.ts), written against the agreed shape until
 * they are in the generated schema.d.ts; then these types come from types.ts like every other.
 */
import { dataOf, formData, http } from './client';

export type BatchStatus = 'running' | 'finished' | 'cancelled';
export type BatchItemState = 'waiting' | 'running' | 'done' | 'failed' | 'cancelled';
export interface BatchCounts {
  waiting: number;
  running: number;
  done: number;
  failed: number;
  cancelled: number;
}
export interface Batch {
  id: number;
  name: string;
  status: BatchStatus;
  total: number;
  counts: BatchCounts;
  rate_per_minute: number | null;
  eta: string | null;
  pace: { rpm: number; factor: number } | null;
  created_at: string;
  created_by: number | null;
  finished_at: string | null;
  allowed_actions: 'cancel'[];
}
export interface ReasonRef {
  reason: string;
  params: Record<string, unknown> | null;
}
export interface BatchItemView {
  seq: number;
  task_id: number | null;
  product_id: number;
  product_name: string;
  theme: string;
  text_count: number;
  image_count: number;
  account_id: number | null;
  account_name: string | null;
  publish_at: string | null;
  fission_count: number;
  fission_id: number | null;
  post_id: number | null;
  state: BatchItemState;
  task_status: string | null;
  failure: ReasonRef | null;
  post_failure: ReasonRef | null;
}
export interface BatchDetail extends Batch {
  items: BatchItemView[];
}
export interface BatchItemInput {
  product_id: number;
  theme: string;
  text_count: number;
  image_count: number;
  fission_count?: number;
  account_id?: number | null;
  publish_at?: string | null;
}
/** A parsed plan row: what will be sent, with the names the plan gave (where the answer has them). */
export type PlanItem = BatchItemInput & { product_name?: string; account_name?: string | null; row?: number };
export interface PlanError {
  row: number;
  field: string | null;
  reason: string;
  params: Record<string, unknown> | null;
}
export interface PlanResult {
  items: PlanItem[];
  errors: PlanError[];
}
export interface BatchMatrix {
  product_ids: number[];
  themes: string[];
  tasks_each?: number;
  text_count: number;
  image_count: number;
  fission_count?: number;
  account_ids?: number[];
  start_date?: string;
  days?: number;
  post_times?: string[];
}
export type BatchCreate = { name: string } & ({ matrix: BatchMatrix; items?: never } | { items: BatchItemInput[]; matrix?: never });

type Answer = Promise<{ data?: { code: 0; data: unknown }; response: Response }>;
/** Paths not in schema.d.ts yet: the same client (bearer, envelope, ApiError), untyped. */
const loose = () => http as unknown as { GET: (path: string, init?: object) => Answer; POST: (path: string, init?: object) => Answer };
const typed = <T>(call: Answer) => dataOf(call) as Promise<T>;

export const batchesApi = {
  list: (query: { page: number; page_size: number }) =>
    typed<{ items: Batch[]; total: number; page: number; page_size: number }>(loose().GET('/api/v1/batches', { params: { query } })),
  get: (id: number) => typed<BatchDetail>(loose().GET('/api/v1/batches/{id}', { params: { path: { id } } })),
  /** `key`: the Idempotency-Key of this form's submission, so a retry or a double click makes one batch. */
  create: (body: BatchCreate, key: string) => typed<Batch>(loose().POST('/api/v1/batches', { body, headers: { 'Idempotency-Key': key } })),
  cancel: (id: number) => typed<Batch>(loose().POST('/api/v1/batches/{id}/cancel', { params: { path: { id } } })),
  plan: (file: Blob) => typed<PlanResult>(loose().POST('/api/v1/batches/plan', { body: { file }, bodySerializer: formData })),
};
