/**
 * A RedisStore that cannot reach its Redis says so without the URL's password
 * (its message reaches the logs through `onStoreError`); no redis-server needed.
 */
import { expect, test } from "bun:test";
import { RedisStore, RedisStoreError } from "../../src/entries/rate-limit.ts";
import { freePort } from "../cli/helpers.ts";

test("an unreachable Redis: a RedisStoreError naming the URL without its password", async () => {
  const port = freePort();
  const store = new RedisStore({ url: `redis://app:s3cret-pass@127.0.0.1:${port}`, timeoutMs: 300 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      // The first attempt connects and fails; the second fails at once (no retry within a second).
      const error = await store.hit("k", 1000).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(RedisStoreError);
      const message = (error as Error).message;
      expect(message).toContain(`redis://app:***@127.0.0.1:${port}`);
      expect(message).not.toContain("s3cret-pass");
    }
  } finally {
    store.close();
  }
});
