/** The app-wide type parameters (`new Webfw<{ global, router, claims }>`): types only, no imports. */

/**
 * The types an app's handlers see, given once where the app is made:
 * `new Webfw<{ global: { db: Database }; claims: Claims }>(import.meta.path)`
 * types `request.globalDependencies`, `request.identity.claims` (and with
 * `router`, `request.routerDependencies`) in every handler, without casts.
 * Interfaces are fine. Each key is optional; an absent one stays untyped.
 */
export interface AppTypes {
  global?: object;
  router?: object;
  claims?: object;
}
/** The default: nothing declared, every dependency and claim `unknown` by name. */
// biome-ignore lint/complexity/noBannedTypes: an empty declaration is exactly what the default is
export type NoAppTypes = {};
export type GlobalDepsOf<T extends AppTypes> = T extends { global: infer G extends object }
  ? G
  : Record<string, unknown>;
export type RouterDepsOf<T extends AppTypes> = T extends { router: infer R extends object }
  ? R
  : Record<string, unknown>;
export type ClaimsOf<T extends AppTypes> = T extends { claims: infer C extends object }
  ? C
  : Record<string, unknown>;
