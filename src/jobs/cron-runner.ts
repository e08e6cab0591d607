/**
 * The cron schedules of a server process (docs/jobs.md): croner plans the ticks in each
 * schedule's time zone; at each tick the lock (src/jobs/cron-lock.ts) decides whether this
 * process runs it. A tick missed while no process ran is not caught up.
 */
import { Cron } from "croner";
import { logger } from "../log/logger.ts";
import type { TracingHooks } from "../observability/hooks.ts";
import type { CronLock } from "./cron-lock.ts";
import { graceOver } from "./queue.ts";
import { countCron } from "./stats.ts";

export interface CronDefinition {
  readonly name: string;
  readonly schedule: string;
  readonly timezone?: string;
  readonly fn: (run: CronRun) => unknown;
}

/** What a cron function receives. */
export interface CronRun {
  /** The schedule's name. */
  readonly name: string;
  /** The tick this run is for (to the second): the same on every machine. */
  readonly tick: Date;
}

/**
 * A tick's identity: the planned time of the latest tick at or before `nowMs`, to the second. A
 * process whose event loop was late still names the tick it was planned for, as every other does.
 */
export function tickOf(timer: Cron, nowMs: number): number {
  const planned = timer.previousRuns(1, new Date(nowMs + 1))[0]?.getTime() ?? nowMs;
  return Math.floor(planned / 1000) * 1000;
}

export class CronRunner {
  private readonly timers: Cron[] = [];
  private readonly runs = new Set<Promise<void>>();

  constructor(
    private readonly lock: CronLock,
    private readonly tracing: TracingHooks | undefined,
  ) {}

  start(definitions: readonly CronDefinition[]): void {
    for (const definition of definitions) {
      const timer = new Cron(
        definition.schedule,
        { timezone: definition.timezone, unref: true },
        (self: Cron) => {
          const run = this.tick(definition, tickOf(self, Date.now()));
          this.runs.add(run);
          void run.finally(() => this.runs.delete(run));
        },
      );
      this.timers.push(timer);
    }
  }

  private async tick(definition: CronDefinition, tickMs: number): Promise<void> {
    const { name } = definition;
    let claim: Awaited<ReturnType<CronLock["claim"]>>;
    try {
      claim = await this.lock.claim(name, tickMs);
    } catch (error) {
      countCron(name, "skipped");
      logger.warning(`cron ${name} skipped: its lock could not be taken`, {
        cron: name,
        error: String(error),
      });
      return;
    }
    if (claim === "taken") return;
    if (claim === "overlap") {
      countCron(name, "skipped");
      logger.warning(`cron ${name} skipped: its previous run is still going`, {
        cron: name,
        tick: new Date(tickMs).toISOString(),
      });
      return;
    }
    const release = this.lock.hold(name);
    const started = performance.now();
    const fields = { cron: name, tick: new Date(tickMs).toISOString() };
    try {
      const run = async () => {
        await definition.fn({ name, tick: new Date(tickMs) });
      };
      if (this.tracing)
        await this.tracing.inSpan(
          `cron ${name}`,
          { "webfw.cron.name": name, "webfw.cron.tick": fields.tick },
          run,
        );
      else await run();
      countCron(name, "completed");
      logger.info(`cron ${name} ran`, { ...fields, duration_ms: Math.round(performance.now() - started) });
    } catch (error) {
      countCron(name, "failed");
      logger.error(`cron ${name} failed`, { ...fields, error: (error as Error)?.stack ?? String(error) });
    } finally {
      await release();
    }
  }

  /** No more ticks; waits up to `graceMs` for runs going on. */
  async stop(graceMs: number): Promise<void> {
    for (const timer of this.timers) timer.stop();
    await Promise.race([Promise.allSettled([...this.runs]), graceOver(graceMs)]);
    this.lock.close();
  }
}
