/**
 * Who the request is, as decided by the application's `AuthenticationHandler`.
 * `C` is the claims' type; an `interface` works as well as a type literal
 * (hence `object`, not `Record<string, unknown>`, which interfaces do not satisfy).
 */
export class Identity<C extends object = Record<string, unknown>> {
  readonly claims: C;

  constructor(init: { claims: C }) {
    this.claims = init.claims;
  }
}
