/** Who the request is, as decided by the application's `AuthenticationHandler`. */
export class Identity<C extends Record<string, unknown> = Record<string, unknown>> {
  readonly claims: C;

  constructor(init: { claims: C }) {
    this.claims = init.claims;
  }
}
