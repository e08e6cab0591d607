/**
 * argv → flag values and positionals, with `node:util`'s `parseArgs` in strict mode doing the
 * splitting (names, short aliases, `--name=value`, `--no-name`, `--`, positionals and their
 * indices through `tokens`). Built from the flag table (./flag-table.ts).
 *
 * Why a normalising pass runs first: `parseArgs` has no switch values and treats anything starting
 * with `-` as an option, so on its own it would refuse `--dev=false` ("does not take an argument"),
 * `--port -1` and `--processes -1` ("argument is ambiguous") and a lone `-1` ("unknown option"),
 * and report a forgotten value (`--port --dev`) in words meant for Node developers. The pass
 * rewrites switch words into what `parseArgs` takes (`--dev`, `--no-dev`), joins a value flag with
 * its value (`--port=-1`, so the range check answers), keeps a lone negative number as a
 * positional beside `parseArgs`, and refuses the rest with the messages the CLI pins
 * (test/cli/flags.test.ts). Whatever `parseArgs` still refuses is mapped onto the same messages
 * (`asFlagError`); its own text never reaches the user.
 */
import type * as Util from "node:util";
import type { ParseArgsConfig } from "node:util";
import type * as DidYouMean from "./did-you-mean.ts";
import { FlagError } from "./flag-error.ts";
import { FLAG_DEFS, type FlagDef, findFlag } from "./flag-table.ts";
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

type Options = NonNullable<ParseArgsConfig["options"]>;

/** `parseArgs` options: every long name and long alias, with its one-letter alias as `short`. */
const OPTIONS: Options = (() => {
  const options: Options = {};
  for (const def of FLAG_DEFS) {
    const type = def.kind === "boolean" ? "boolean" : "string";
    const short = def.aliases?.find((alias) => alias.length === 1);
    options[def.name] = short === undefined ? { type } : { type, short };
    for (const alias of def.aliases ?? []) if (alias.length > 1) options[alias] = { type };
  }
  return options;
})();

/** A negative number: a value (or a positional), never a flag. */
function isNumberLike(arg: string): boolean {
  return /^-\d/.test(arg);
}

interface Positional {
  value: string;
  /** Index in argv. */
  index: number;
}

interface Normalised {
  args: string[];
  /** argv index of each element of `args`. */
  origin: number[];
  /** `args` indices of a `--no-NAME` the pass wrote for `--NAME=false` (allowed for every switch). */
  fromFalse: Set<number>;
  /** The flag as typed, at `args` indices the pass rewrote from a short one (`-p 80` → `--port=80`). */
  typed: Map<number, string>;
  /** Lone negative numbers (`-1`): positionals, as before `parseArgs`, which would read a flag. */
  loose: Positional[];
}

function needsValue(shown: string, def: FlagDef): FlagError {
  return new FlagError(`${shown} needs a value${def.valueHint ? ` (${shown} ${def.valueHint})` : ""}`);
}

function normalise(argv: readonly string[]): Normalised {
  const args: string[] = [];
  const origin: number[] = [];
  const fromFalse = new Set<number>();
  const typed = new Map<number, string>();
  const loose: Positional[] = [];
  const push = (arg: string, index: number) => {
    args.push(arg);
    origin.push(index);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      for (let j = i; j < argv.length; j++) push(argv[j] as string, j);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      push(arg, i);
      continue;
    }
    if (isNumberLike(arg)) {
      loose.push({ value: arg, index: i });
      continue;
    }
    const long = arg.startsWith("--");
    const eq = arg.indexOf("=");
    const name = arg.slice(long ? 2 : 1, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const shown = `${long ? "--" : "-"}${name}`;
    // Short flags are one letter each: `parseArgs` would split a group (`-hy`), this CLI refuses it.
    const def = long ? longFlag(name) : name.length === 1 ? findFlag(name) : undefined;
    // Refused here rather than by parseArgs, which reads `--no-x=1` as a value error.
    if (def === undefined) throw new FlagError(unknownFlag(shown));
    // What parseArgs gets: the name as typed for a long flag, the long name for a short one.
    const as = long ? name : def.name;
    if (def.kind === "boolean") {
      if (inline === undefined) push(arg, i);
      else if (long && name.startsWith("no-") && findFlag(name) === undefined)
        throw new FlagError(`${shown} takes no value`);
      else {
        const word = inline.toLowerCase();
        if (TRUE_WORDS.has(word)) push(`--${as}`, i);
        else if (FALSE_WORDS.has(word)) {
          fromFalse.add(args.length);
          push(`--no-${as}`, i);
        } else
          throw new FlagError(`${shown} is a switch: use ${shown} or ${shown}=false, not ${quote(inline)}`);
      }
      continue;
    }
    let value = inline;
    const at = i;
    if (value === undefined) {
      const next = argv[i + 1];
      // A following flag means the value was forgotten; a negative number is still a (bad) value.
      if (next === undefined || (next.startsWith("-") && !isNumberLike(next))) throw needsValue(shown, def);
      value = next;
      i++;
    }
    if (!long) typed.set(args.length, shown);
    push(`--${as}=${value}`, at);
  }
  return { args, origin, fromFalse, typed, loose };
}

/** The flag a long name means: itself, an alias, or `no-NAME` of a switch. */
function longFlag(name: string): FlagDef | undefined {
  const def = findFlag(name);
  if (def !== undefined) return name.length === 1 ? undefined : def;
  if (!name.startsWith("no-")) return undefined;
  const base = findFlag(name.slice(3));
  return base?.kind === "boolean" && base.negatable === true ? base : undefined;
}

/** Splits argv into validated flag values and positionals. Throws `FlagError` on any mistake. */
export function parseArgv(argv: readonly string[]): ParsedArgv {
  const { args, origin, fromFalse, typed, loose } = normalise(argv);
  const values = new Map<string, FlagValue>();
  const found: Positional[] = [];
  // No flags (`bun app.ts`): nothing to split, and `node:util` (~1 MB resident) is not loaded.
  if (args.length > 0) {
    const { parseArgs } = require("node:util") as typeof Util;
    let tokens: ReturnType<typeof Util.parseArgs>["tokens"];
    try {
      ({ tokens } = parseArgs({
        args,
        options: OPTIONS,
        strict: true,
        allowPositionals: true,
        allowNegative: true,
        tokens: true,
      }));
    } catch (error) {
      throw asFlagError(error);
    }
    for (const token of tokens ?? []) {
      if (token.kind === "positional") {
        found.push({ value: token.value, index: origin[token.index] as number });
        continue;
      }
      if (token.kind !== "option") continue;
      const def = findFlag(token.name) as FlagDef;
      const negated = token.rawName.startsWith("--no-") && findFlag(token.rawName.slice(2)) === undefined;
      if (negated && !def.negatable && !fromFalse.has(token.index)) {
        throw new FlagError(unknownFlag(token.rawName));
      }
      if (def.kind === "boolean") values.set(def.name, !negated);
      else values.set(def.name, flagValue(def, typed.get(token.index) ?? token.rawName, token.value ?? ""));
    }
  }
  if (loose.length > 0) {
    found.push(...loose);
    found.sort((a, b) => a.index - b.index);
  }
  return {
    values,
    positionals: found.map((p) => p.value),
    positionalIndices: found.map((p) => p.index),
  };
}

/**
 * `parseArgs`' errors as the CLI's own messages. The pass above leaves it nothing to refuse today;
 * this is the guard that keeps Node's wording (meant for Node developers) from the user if it ever does.
 */
export function asFlagError(error: unknown): FlagError {
  const code = (error as { code?: string } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // Node names the option in quotes: "Unknown option '-x'", "Option '-p, --port <value>' argument missing".
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const flag = quoted.startsWith("-") ? quoted : `-${quoted}`;
      return new FlagError(unknownFlag(flag.split("=")[0] as string));
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const name = /--([\w-]+)/.exec(quoted)?.[1];
      const def = name === undefined ? undefined : findFlag(name);
      if (name === undefined || def === undefined) return new FlagError("a flag is missing its value");
      return def.kind === "boolean"
        ? new FlagError(`--${name} takes no value`)
        : needsValue(`--${name}`, def);
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return new FlagError(`unexpected argument ${quote(quoted)}`);
    default:
      return new FlagError("cannot read the command line (see --help)");
  }
}

/** "unknown flag --prot (did you mean --port?)": ./did-you-mean.ts is loaded only for a mistake. */
function unknownFlag(flag: string): string {
  return (require("./did-you-mean.ts") as typeof DidYouMean).unknownMessage(flag);
}
