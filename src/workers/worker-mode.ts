/**
 * Worker mode: inside a handler Worker the app file is imported to get at its
 * handlers, but `app.start()` must not listen. The worker entry sets this flag
 * before importing the app, and every `Webfw` registers itself here so the
 * entry can find the app the file created.
 */
import type { Webfw } from "../app.ts";

interface WorkerModeState {
  active: boolean;
  apps: Webfw[];
}

const STATE_KEY = Symbol.for("webfw.workerMode");
const holder = globalThis as unknown as Record<symbol, WorkerModeState | undefined>;

function state(): WorkerModeState {
  holder[STATE_KEY] ??= { active: false, apps: [] };
  return holder[STATE_KEY];
}

export function enterWorkerMode(): void {
  state().active = true;
}

export function inWorkerMode(): boolean {
  return state().active;
}

export function registerApp(app: Webfw): void {
  if (state().active) state().apps.push(app);
}

export function registeredApps(): Webfw[] {
  return state().apps;
}
