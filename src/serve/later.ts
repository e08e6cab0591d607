/**
 * The rest of the work once `pending` settles: `next` with its value and `carry`, `fail` with its
 * rejection or with what `next` throws. The one place a step of a request turns into a promise:
 * the pipeline's steps (src/serve/dispatch.ts) and the body read's stream paths
 * (src/body/read-body.ts) both go on through it (docs/architecture.md, "One request").
 */
export function later<T, C, R>(
  pending: PromiseLike<T>,
  carry: C,
  next: (value: T, carry: C) => R | PromiseLike<R>,
  fail: (error: unknown, carry: C) => R | PromiseLike<R>,
): Promise<R> {
  return Promise.resolve(pending).then(
    (value) => {
      try {
        return next(value, carry);
      } catch (error) {
        return fail(error, carry);
      }
    },
    (error) => fail(error, carry),
  );
}
