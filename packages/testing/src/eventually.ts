/**
 * Retries `check` until it stops throwing, for state another process or a background loop
 * produces. Fails with the last error when time runs out.
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
