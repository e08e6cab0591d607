/**
 * argv → flag values and positionals, with `node:util`'s `parseArgs` in strict mode doing the
 * splitting (names, short aliases, `--name=value`, `--no-name`, `--`, positionals and their
 * indices through `tokens`). Built from the flag table (./flag-table.ts).
 *
 * Why a normalising pass runs first: `parseArgs` has no switch values and treats anything starting
 * with `-` as an option, so on its own it would refuse `--dev=false` ("does not take an argument"),
 * `--port -1` and `--processes -1` ("argument is ambiguous"), and report a forgotten value
 * (`--port --dev`) in words meant for Node developers. The pass rewrites the first two into what
 * `parseArgs` takes (`--no-dev`, `--port=-1`, so the range check answers) and refuses the rest
 * with the messages the CLI pins (test/cli/flags.test.ts). What `parseArgs` still refuses
 * (unknown names) is mapped onto the same messages; its own text never reaches the user.
 */
import type * as Util from "node:util";
import type { ParseArgsConfig } from "node:util";
import { unknownMessage } from "./did-you-mean.ts";
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

/** A negative number: a value (or a bad positional), never a flag. */
function isNumberLike(arg: string): boolean {
  return /^-\d/.test(arg);
}

interface Normalised {
  args: string[];
  /** argv index of each element of `args`. */
  origin: number[];
  /** `args` indices of a `--no-NAME` the pass wrote for `--NAME=false` (allowed for every switch). */
  fromFalse: Set<number>;
}

function normalise(argv: readonly string[]): Normalised {
  const args: string[] = [];
  const origin: number[] = [];
  const fromFalse = new Set<number>();
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
    // `-1` alone and `-ab` groups are not flags of this CLI; `parseArgs` would split a group.
    if (!arg.startsWith("--")) {
      // Every one-letter alias is a switch (`-h`, `-y`).
      if (arg[2] === "=" && findFlag(arg.slice(1, 2)) !== undefined)
        throw new FlagError(`${arg.slice(0, 2)} takes no value`);
      if (isNumberLike(arg) || arg.length !== 2)
        throw new FlagError(unknownMessage(arg.split("=")[0] as string));
      push(arg, i);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const shown = `--${name}`;
    const def = longFlag(name);
    // Refused here rather than by parseArgs, which reads `--no-x=1` as a value error.
    if (def === undefined) throw new FlagError(unknownMessage(shown));
    if (def.kind === "boolean") {
      if (inline === undefined) push(arg, i);
      else if (name.startsWith("no-") && findFlag(name) === undefined)
        throw new FlagError(`${shown} takes no value`);
      else {
        const word = inline.toLowerCase();
        if (TRUE_WORDS.has(word)) push(shown, i);
        else if (FALSE_WORDS.has(word)) {
          fromFalse.add(args.length);
          push(`--no-${name}`, i);
        } else
          throw new FlagError(`${shown} is a switch: use ${shown} or ${shown}=false, not ${quote(inline)}`);
      }
      continue;
    }
    if (inline !== undefined) {
      push(arg, i);
      continue;
    }
    const next = argv[i + 1];
    // A following flag means the value was forgotten; a negative number is still a (bad) value.
    if (next === undefined || (next.startsWith("-") && !isNumberLike(next))) {
      throw new FlagError(`${shown} needs a value${def.valueHint ? ` (${shown} ${def.valueHint})` : ""}`);
    }
    push(`${shown}=${next}`, i);
    i++;
  }
  return { args, origin, fromFalse };
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
  const { args, origin, fromFalse } = normalise(argv);
  // No flags (`bun app.ts`): nothing to split, and `node:util` (~1 MB resident) is not loaded.
  if (args.length === 0) return { values: new Map(), positionals: [], positionalIndices: [] };
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
  const values = new Map<string, FlagValue>();
  const positionals: string[] = [];
  const positionalIndices: number[] = [];
  for (const token of tokens ?? []) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      positionalIndices.push(origin[token.index] as number);
      continue;
    }
    if (token.kind !== "option") continue;
    const def = findFlag(token.name) as FlagDef;
    const negated = token.rawName.startsWith("--no-") && findFlag(token.rawName.slice(2)) === undefined;
    if (negated && !def.negatable && !fromFalse.has(token.index)) {
      throw new FlagError(unknownMessage(token.rawName));
    }
    if (def.kind === "boolean") values.set(def.name, !negated);
    else values.set(def.name, flagValue(def, token.rawName, token.value ?? ""));
  }
  return { values, positionals, positionalIndices };
}

/** `parseArgs`' errors as the CLI's own messages. */
function asFlagError(error: unknown): FlagError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /'([^']*)'/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flag = named.startsWith("-") ? named : `-${named}`;
    return new FlagError(unknownMessage(flag.split("=")[0] as string));
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = named.split(" ")[0] ?? "";
    return new FlagError(`${flag || "a flag"} needs a value`);
  }
  return new FlagError(`cannot read the command line: ${message.split("\n")[0]}`);
}
