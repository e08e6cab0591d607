/**
 * When the development dashboard (docs/dashboard.md) is on, and where. This module is all an app
 * loads when the dashboard is off: the rest of src/dashboard/ is imported only when it is on.
 */

/** The app's `dashboard` option. */
export type DashboardOption = boolean | DashboardSettings;

export interface DashboardSettings {
  /** Where the page and its API are served; default `/_webfw`. */
  path?: string;
  /**
   * Require the app's authentication for the page and its API. Default: `true` when the
   * dashboard is asked for in production (`dashboard: true` without `--dev`), `false` under `--dev`.
   */
  auth?: boolean;
}

export interface ResolvedDashboard {
  path: string;
  auth: boolean;
}

export const DEFAULT_DASHBOARD_PATH = "/_webfw";
/** Set for the handler Workers of a server whose dashboard is on: they record their spans for it. */
export const DASHBOARD_WORKER_ENV = "WEBFW_DASHBOARD";

/** Checks the option at construction, so that a bad path fails `new Webfw()`. */
export function checkDashboardOption(option: DashboardOption | undefined): DashboardOption | undefined {
  if (option === undefined || typeof option === "boolean") return option;
  if (typeof option !== "object" || option === null)
    throw new TypeError("dashboard must be a boolean or an object");
  const path = option.path;
  if (
    path !== undefined &&
    (typeof path !== "string" || !/^\/[A-Za-z0-9._~-][A-Za-z0-9._~/-]*$/.test(path) || path.endsWith("/"))
  ) {
    throw new TypeError(
      `dashboard.path must be an absolute path such as "/_webfw", got ${JSON.stringify(path)}`,
    );
  }
  if (option.auth !== undefined && typeof option.auth !== "boolean")
    throw new TypeError("dashboard.auth must be a boolean");
  return option;
}

/**
 * Off unless `--dev` (or `dev: true`) or the app asked for it; `dashboard: false` turns it off
 * even under `--dev`. In production it always needs the app's authentication.
 */
export function resolveDashboard(
  option: DashboardOption | undefined,
  dev: boolean,
): ResolvedDashboard | null {
  if (option === false) return null;
  if (option === undefined && !dev) return null;
  const settings = typeof option === "object" ? option : {};
  return {
    path: settings.path ?? DEFAULT_DASHBOARD_PATH,
    auth: dev ? settings.auth === true : true,
  };
}
