/**
 * The `csrf` setting (docs/security.md, "Cross-site request protection"): on the app
 * (`new Webfw(path, { csrf })`, on by default), on a router (`router.csrf(…)`) and on a route
 * (route option `csrf`). `false` turns the check off there; `true` or an object turns it on, and
 * an object's `trustedOrigins` are added to those of the levels around it.
 */
import { isOrigin } from "../cors/policy.ts";

export interface CrossOriginOptions {
  /**
   * Origins (`https://app.example`, no path) whose cross-site requests pass, besides the ones the
   * app's or the router's CORS allows.
   */
  trustedOrigins?: readonly string[];
}

/** What the app, a router and a route accept. */
export type CrossOriginSetting = boolean | CrossOriginOptions;

/** A checked setting: `false` (off here) or the origins it trusts, lower-cased. */
export type CheckedCrossOrigin = false | { readonly trusted: readonly string[] };

export function checkCrossOriginSetting(setting: CrossOriginSetting, where: string): CheckedCrossOrigin {
  if (setting === false) return false;
  if (setting === true) return { trusted: [] };
  if (typeof setting !== "object" || setting === null || Array.isArray(setting)) {
    throw new TypeError(`${where}: csrf must be true, false or { trustedOrigins }`);
  }
  for (const key of Object.keys(setting)) {
    if (key !== "trustedOrigins") throw new TypeError(`${where}: unknown csrf option '${key}'`);
  }
  const list = setting.trustedOrigins ?? [];
  if (!Array.isArray(list)) throw new TypeError(`${where}: csrf.trustedOrigins must be a list of origins`);
  const trusted = list.map((origin) => {
    if (typeof origin !== "string" || !isOrigin(origin)) {
      throw new TypeError(
        `${where}: csrf.trustedOrigins: ${JSON.stringify(origin)} is not an origin; write scheme://host[:port] with no path or trailing slash`,
      );
    }
    return origin.toLowerCase();
  });
  return { trusted };
}
