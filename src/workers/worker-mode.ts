/**
 * Worker mode: inside a handler Worker the app file is imported to get at its
 * handlers, but `app.start()` must not listen. The worker entry sets this flag
 * before importing the app, and every `Webfw` registers itself here so the
 * entry can find the app the file created.
 */
import type { AppState } from "../app-state.ts";
import type * as RunCall from "./run-call.ts";

/** The call runner of the copy of webfw the app was built with (see src/workers/run-call.ts). */
export interface WorkerKit {
  loadHandlers: typeof RunCall.loadHandlers;
  runCall: typeof RunCall.runCall;
  pullChunk: typeof RunCall.pullChunk;
  cancelStream: typeof RunCall.cancelStream;
  runShutdown: typeof RunCall.runShutdown;
}

interface WorkerModeState {
  active: boolean;
  apps: AppState[];
  kit?: WorkerKit;
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

export function registerApp(app: AppState): void {
  const current = state();
  if (!current.active) return;
  current.apps.push(app);
  // The first app's copy wins: its classes are the ones its handlers return. Loaded only inside a
  // handler Worker (idle memory of the main process, docs/performance.md).
  if (current.kit === undefined) {
    const { loadHandlers, runCall, pullChunk, cancelStream, runShutdown } =
      require("./run-call.ts") as typeof RunCall;
    current.kit = { loadHandlers, runCall, pullChunk, cancelStream, runShutdown };
  }
}

export function workerKit(): WorkerKit | undefined {
  return state().kit;
}

export function registeredApps(): AppState[] {
  return state().apps;
}
