/**
 * Who a provider call is for, as the pacer shares a connection's budget (pacer.ts): a batch's
 * work is bulk and takes turns with the connection's other batches; anything else is a person
 * waiting, who goes first. One rule for tasks and fissions alike.
 */
export function callerOf(record: { workspace_id: number; batch_id: number | null }): { party: string; bulk: boolean } {
  return record.batch_id === null ? { party: `ws:${record.workspace_id}`, bulk: false } : { party: `batch:${record.batch_id}`, bulk: true };
}
