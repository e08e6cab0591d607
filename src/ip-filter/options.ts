/**
 * `ipFilter: { allow?, deny? }` (docs/client-address.md#ip-filters): on the app
 * (`new Webfw(path, { ipFilter })`), a `SubRouter` (`new SubRouter(path, { ipFilter })`) or a route
 * (route option). Read and checked where it is declared: a bad entry is a `TypeError` before
 * anything is served.
 */
import { type AddressList, parseAddressList } from "../http/cidr.ts";
import type { IpBytes } from "../http/ip-address.ts";

export interface IpFilterOptions {
  /** Only these addresses and CIDR ranges get through (IPv4, IPv6; `::ffff:a.b.c.d` is `a.b.c.d`). */
  allow?: string[];
  /** These never get through, even when `allow` names them. */
  deny?: string[];
}

/** A declaration: options, or `false` to drop the filters declared around it. */
export type IpFilterSetting = IpFilterOptions | false;

/** A checked filter: `admits(address)`; an unknown address (no socket) only passes a deny-only filter. */
export interface IpFilter {
  admits(address: IpBytes | null): boolean;
}

const checked = new WeakMap<object, IpFilter>();

/** Checks a declaration (types the compiler cannot see, e.g. from JavaScript) and compiles it once. */
export function checkIpFilter(setting: unknown, where: string): IpFilter | false {
  if (setting === false) return false;
  if (typeof setting !== "object" || setting === null || Array.isArray(setting)) {
    throw new TypeError(`ipFilter of ${where} must be { allow?, deny? } or false`);
  }
  const known = checked.get(setting);
  if (known !== undefined) return known;
  for (const name of Object.keys(setting)) {
    if (name !== "allow" && name !== "deny")
      throw new TypeError(`ipFilter of ${where}: unknown option '${name}' (allow, deny)`);
  }
  const { allow, deny } = setting as IpFilterOptions;
  if (allow === undefined && deny === undefined)
    throw new TypeError(`ipFilter of ${where}: give allow, deny or both`);
  const allowed: AddressList | null =
    allow === undefined ? null : parseAddressList(allow, `ipFilter of ${where}: allow`);
  const denied: AddressList | null =
    deny === undefined ? null : parseAddressList(deny, `ipFilter of ${where}: deny`);
  const filter: IpFilter = {
    admits(address) {
      if (address === null) return allowed === null;
      if (denied?.contains(address)) return false;
      return allowed === null || allowed.contains(address);
    },
  };
  checked.set(setting, filter);
  return filter;
}
