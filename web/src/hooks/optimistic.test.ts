import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { refetchWhenLastSettles } from './optimistic';

/** A request the test answers when it wants to. */
function pending() {
  let answer!: () => void;
  const promise = new Promise<void>((resolve) => (answer = resolve));
  return { promise, answer };
}

describe('optimistic mutations of one record', () => {
  it('refetch the record once, when the last of them settles, not while another is on its way', async () => {
    const client = new QueryClient();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const options = refetchWhenLastSettles(client, ['task-mutation', 7], ['task', 7]);
    const text = pending();
    const image = pending();
    const textDone = new MutationObserver(client, { ...options, mutationFn: () => text.promise }).mutate();
    const imageDone = new MutationObserver(client, { ...options, mutationFn: () => image.promise }).mutate();
    // A mutation of something else does not hold the record's refetch back.
    await new MutationObserver(client, { mutationKey: ['other'], mutationFn: async () => undefined }).mutate();

    text.answer();
    await textDone;
    // The image is still on its way: a refetch now would bring the task back without it.
    expect(invalidate).not.toHaveBeenCalled();

    image.answer();
    await imageDone;
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['task', 7] });

    // Alone, a mutation refetches when it settles.
    await new MutationObserver(client, { ...options, mutationFn: async () => undefined }).mutate();
    expect(invalidate).toHaveBeenCalledTimes(2);
  });
});
