/**
 * argv → flag values and positionals, read against the flag table (./flag-table.ts): long names
 * and their aliases, the one-letter switches (`-h`, `-y`), `--name=value`, `--name value`,
 * `--no-name`, switch values (`--dev=false`), `--` and the positionals with their places.
 *
 * Hand-written rather than `node:util`'s `parseArgs` (used before), for two reasons.
 * - The pass that made `parseArgs` usable had already become the parser. `parseArgs` has no switch
 *   values and reads anything starting with `-` as an option. A pass therefore had to rewrite
 *   `--dev=false`, join `--port -1`, keep a lone `-1` as a positional, and refuse a forgotten value
 *   or an unknown name in the CLI's own words, which meant looking up every flag in the table.
 *   What was left for `parseArgs` was splitting strings the pass had just written.
 * - Loading `node:util` costs more than the whole parse. In a raw `Bun.serve` it adds 4.9 MB of
 *   idle RSS and 3 ms of CPU at start, and every `webfw app.ts --fast` and every `--processes`
 *   child paid it (docs/cli.md, "How flags are parsed").
 */
import type * as DidYouMean from "./did-you-mean.ts";
import { FlagError } from "./flag-error.ts";
import { type FlagDef, findFlag } from "./flag-table.ts";
import { type FlagValue, flagValue, quote } from "./flag-values.ts";

export interface ParsedArgv {
  /** Long name → value, validated; a later flag overrides an earlier one. */
  values: Map<string, FlagValue>;
  positionals: string[];
  /** Indices in argv of the positionals, so a caller can drop the app file and pass the rest on. */
  positionalIndices: number[];
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);

/** A negative number (`-1`, `-0`): a value, or a positional, never a flag. */
function isNumberLike(arg: string): boolean {
  const digit = arg.charCodeAt(1);
  return arg.charCodeAt(0) === 0x2d && digit >= 0x30 && digit <= 0x39;
}

function needsValue(shown: string, def: FlagDef): FlagError {
  return new FlagError(`${shown} needs a value${def.valueHint ? ` (${shown} ${def.valueHint})` : ""}`);
}

/** The flag a long name means: itself, an alias, or `no-NAME` of a switch. */
function longFlag(name: string): FlagDef | undefined {
  const def = findFlag(name);
  if (def !== undefined) return name.length === 1 ? undefined : def;
  if (!name.startsWith("no-")) return undefined;
  const base = findFlag(name.slice(3));
  return base?.kind === "boolean" && base.negatable === true ? base : undefined;
}

/**
 * Splits argv into validated flag values and positionals. Throws `FlagError` on any mistake, in the
 * CLI's own words (test/cli/flags.test.ts pins each message):
 * - an unknown name, a grouped short flag (`-hy`) or `--no-NAME` of a flag that has none;
 * - a switch given a value other than `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`;
 * - a value flag followed by nothing or by another flag (a negative number is still a value, so
 *   that the range check can refuse `--processes -1` by name);
 * - a value the flag's own check refuses (./flag-values.ts). The values are checked after the whole
 *   line has been read, so a mistake in how the line is written is reported before a bad value.
 * After `--` nothing is a flag. A later flag overrides an earlier one.
 */
export function parseArgv(argv: readonly string[]): ParsedArgv {
  // What each flag read says, in order: a switch's state, or a value flag's text to check.
  const reads: { def: FlagDef; shown: string; value: string | boolean }[] = [];
  const positionals: string[] = [];
  const positionalIndices: number[] = [];
  const positional = (value: string, index: number): void => {
    positionals.push(value);
    positionalIndices.push(index);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      for (let j = i + 1; j < argv.length; j++) positional(argv[j] as string, j);
      break;
    }
    if (!arg.startsWith("-") || arg === "-" || isNumberLike(arg)) {
      positional(arg, i);
      continue;
    }
    const long = arg.startsWith("--");
    const eq = arg.indexOf("=");
    const name = arg.slice(long ? 2 : 1, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const shown = `${long ? "--" : "-"}${name}`;
    // Short flags are one letter each: a group (`-hy`) is refused, not split.
    const def = long ? longFlag(name) : name.length === 1 ? findFlag(name) : undefined;
    if (def === undefined) throw new FlagError(unknownFlag(shown));
    if (def.kind === "boolean") {
      // `--no-NAME` of a switch, unless a flag is named that itself.
      const negated = long && findFlag(name) === undefined;
      if (inline === undefined) {
        reads.push({ def, shown, value: !negated });
        continue;
      }
      if (negated) throw new FlagError(`${shown} takes no value`);
      const word = inline.toLowerCase();
      if (TRUE_WORDS.has(word)) reads.push({ def, shown, value: true });
      else if (FALSE_WORDS.has(word)) reads.push({ def, shown, value: false });
      else throw new FlagError(`${shown} is a switch: use ${shown} or ${shown}=false, not ${quote(inline)}`);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      // A following flag means the value was forgotten; a negative number is still a (bad) value.
      if (next === undefined || (next.startsWith("-") && !isNumberLike(next))) throw needsValue(shown, def);
      value = next;
      i++;
    }
    reads.push({ def, shown, value });
  }
  const values = new Map<string, FlagValue>();
  for (const { def, shown, value } of reads)
    values.set(def.name, typeof value === "boolean" ? value : flagValue(def, shown, value));
  return { values, positionals, positionalIndices };
}

/** "unknown flag --prot (did you mean --port?)": ./did-you-mean.ts is loaded only for a mistake. */
function unknownFlag(flag: string): string {
  return (require("./did-you-mean.ts") as typeof DidYouMean).unknownMessage(flag);
}
