/** Runs `action` on every item, in order, at most `concurrency` at a time. */
export const forEachConcurrently = async <T>(
  items: readonly T[],
  concurrency: number,
  action: (item: T) => Promise<void>,
): Promise<void> => {
  let cursor = 0;
  const worker = async () => {
    while (cursor < items.length) {
      const item = items[cursor++] as T;
      await action(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};
