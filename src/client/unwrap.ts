/** `unwrap(result)`: the data of a success, or a thrown `ClientResultError` carrying the failure. */
import type { ClientFailure, ClientSuccess } from "./route-types.ts";

export class ClientResultError<S extends number = number> extends Error {
  readonly failure: ClientFailure<S>;
  constructor(failure: ClientFailure<S>) {
    super(`${failure.status}: ${failure.message}`);
    this.name = "ClientResultError";
    this.failure = failure;
  }
  get status(): S {
    return this.failure.status;
  }
}

/** For code that treats every error the same: `const note = unwrap(await api.get("/notes/:id", …))`. */
export function unwrap<D, S extends number>(result: ClientSuccess<D> | ClientFailure<S>): D {
  if (result.ok) return result.data;
  throw new ClientResultError(result);
}
