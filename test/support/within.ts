/**
 * Bounds a wait in a test that checks something ends at all: a hang fails the test with what hung,
 * instead of stalling it until the test's own timeout.
 */

/** Resolves as `work` does, or rejects if it has not settled within `ms`. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}
