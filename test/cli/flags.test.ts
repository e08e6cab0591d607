import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FLAG_DEFS, findFlag } from "../../src/launch/flag-table.ts";
import { FlagError, fastChoice, parseFlags, usage, withoutPositionals } from "../../src/launch/flags.ts";

const parse = (argv: string[], env: Record<string, string> = {}, cores = 2) =>
  parseFlags(argv, env, { cores });

function parseError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parse(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    return (error as Error).message;
  }
  throw new Error(`expected a FlagError for ${argv.join(" ")}`);
}

describe("parseFlags: defaults", () => {
  test("no flags", () => {
    const flags = parse([]);
    expect(flags).toMatchObject({
      processes: 1,
      workers: 1,
      dev: false,
      fast: false,
      logLevel: "INFO",
      create: false,
      docs: false,
      openBrowser: false,
      version: false,
      help: false,
      disableOpenapi: false,
      positionals: [],
    });
    expect(flags.host).toBeUndefined();
    expect(flags.port).toBeUndefined();
    expect(flags.compileNativePath).toBeUndefined();
    expect(flags.createNativeFile).toBeUndefined();
    expect(flags.explicit.size).toBe(0);
  });
});

describe("parseFlags: every flag", () => {
  test("--processes and --workers, both value forms", () => {
    expect(parse(["--processes", "3"]).processes).toBe(3);
    expect(parse(["--processes=4"]).processes).toBe(4);
    expect(parse(["--workers", "2"]).workers).toBe(2);
    expect(parse(["--workers=8"]).workers).toBe(8);
  });

  test("--dev, --open-browser, --disable-openapi, --docs, --version, --help, -h", () => {
    expect(parse(["--dev"]).dev).toBe(true);
    expect(parse(["--open-browser"]).openBrowser).toBe(true);
    expect(parse(["--disable-openapi"]).disableOpenapi).toBe(true);
    expect(parse(["--docs"]).docs).toBe(true);
    expect(parse(["--version"]).version).toBe(true);
    expect(parse(["--help"]).help).toBe(true);
    expect(parse(["-h"]).help).toBe(true);
  });

  test("switches accept =true/=false", () => {
    expect(parse(["--dev=true"]).dev).toBe(true);
    expect(parse(["--dev=false"]).dev).toBe(false);
    expect(parse(["--open-browser=0"]).openBrowser).toBe(false);
  });

  test("--log-level is case-insensitive and knows WARN", () => {
    expect(parse(["--log-level", "debug"]).logLevel).toBe("DEBUG");
    expect(parse(["--log-level=Info"]).logLevel).toBe("INFO");
    expect(parse(["--log-level", "WARN"]).logLevel).toBe("WARNING");
    expect(parse(["--log-level", "warning"]).logLevel).toBe("WARNING");
    expect(parse(["--log-level", "ERROR"]).logLevel).toBe("ERROR");
  });

  test("--host and --port", () => {
    const flags = parse(["--host", "0.0.0.0", "--port", "9000"]);
    expect(flags.host).toBe("0.0.0.0");
    expect(flags.port).toBe(9000);
    expect(parse(["--port=0"]).port).toBe(0);
    expect(parse(["--port", "65535"]).port).toBe(65535);
    expect(parse(["--host=::1"]).host).toBe("::1");
  });

  test("native flags and their spec aliases", () => {
    expect(parse(["--compile-native-path", "native"]).compileNativePath).toBe("native");
    expect(parse(["--compile-rust-path=src/native"]).compileNativePath).toBe("src/native");
    expect(parse(["--create-native-file", "add"]).createNativeFile).toBe("add");
    expect(parse(["--create-rust-file", "mul"]).createNativeFile).toBe("mul");
    expect(parse(["--create-rust-file", "mul"]).explicit.has("create-native-file")).toBe(true);
  });

  test("--create and its options", () => {
    const flags = parse([
      "--create",
      "--name",
      "my-app",
      "--dir=apps/my-app",
      "--template",
      "SQLite",
      "--docker",
      "-y",
      "--webfw-spec",
      "file:../webfw",
    ]);
    expect(flags.create).toBe(true);
    expect(flags.createOptions).toEqual({
      name: "my-app",
      dir: "apps/my-app",
      template: "sqlite",
      docker: true,
      yes: true,
      webfwSpec: "file:../webfw",
    });
    expect(parse(["--create", "--no-docker"]).createOptions.docker).toBe(false);
    expect(parse(["--create"]).createOptions.docker).toBeUndefined();
    expect(parse(["--create", "--yes"]).createOptions.yes).toBe(true);
  });

  test("the last occurrence of a flag wins", () => {
    expect(parse(["--port", "1", "--port", "2"]).port).toBe(2);
  });

  test("positionals are kept apart, also after --", () => {
    const flags = parse(["app.ts", "--port", "80", "--", "--not-a-flag"]);
    expect(flags.positionals).toEqual(["app.ts", "--not-a-flag"]);
    expect(flags.port).toBe(80);
  });

  test("switch words in any case; a negatable switch also as --no-NAME", () => {
    expect(parse(["--dev=FALSE"]).dev).toBe(false);
    expect(parse(["--dev=Off", "--dev=YES"]).dev).toBe(true);
    expect(parse(["--dev", "--dev=no"]).dev).toBe(false);
    expect(parse(["--create", "--docker", "--no-docker"]).createOptions.docker).toBe(false);
    expect(parse(["--create", "--no-docker", "--docker=on"]).createOptions.docker).toBe(true);
    expect(parse(["-h", "--create", "-y"])).toMatchObject({ help: true, createOptions: { yes: true } });
  });

  test("a short switch takes switch words too; a lone negative number is a positional", () => {
    expect(parse(["-h=1"]).help).toBe(true);
    expect(parse(["-h", "-h=off"]).help).toBe(false);
    expect(parse(["--create", "-y=no"]).createOptions.yes).toBe(false);
    expect(parse(["-5", "app.ts", "--port", "0", "-1x"])).toMatchObject({
      positionals: ["-5", "app.ts", "-1x"],
      port: 0,
    });
    expect(withoutPositionals(["-5", "--dev", "app.ts", "-1"])).toEqual(["--dev"]);
  });

  test("a long alias sets the flag it stands for, with or without =", () => {
    expect(parse(["--create-rust-file=x"]).createNativeFile).toBe("x");
    expect(parse(["--compile-rust-path", "n", "--compile-native-path=m"]).compileNativePath).toBe("m");
  });

  test("no message of node:util.parseArgs itself ever reaches the user", () => {
    for (const argv of [["--port", "--dev"], ["--port"], ["-q"], ["--dev=1=2"], ["-h=1"], ["--=x"]]) {
      let message = "";
      try {
        parse(argv);
      } catch (error) {
        expect(error).toBeInstanceOf(FlagError);
        message = (error as Error).message;
      }
      expect({ argv, message }).not.toEqual({
        argv,
        message: expect.stringMatching(/ambiguous|To specify|argument missing|does not take/),
      });
    }
  });

  test("withoutPositionals drops the app file but keeps flag values", () => {
    expect(withoutPositionals(["--port", "80", "app.ts", "--dev", "--host=x"])).toEqual([
      "--port",
      "80",
      "--dev",
      "--host=x",
    ]);
    // Values that look like numbers, switch words and everything after -- keep their places.
    expect(withoutPositionals(["app.ts", "--processes", "2", "--dev=false", "--", "x", "--y"])).toEqual([
      "--processes",
      "2",
      "--dev=false",
      "--",
    ]);
  });
});

describe("parseFlags: --fast", () => {
  test("one process per core, workers inline, WARNING", () => {
    expect(parse(["--fast"], {}, 4)).toMatchObject({
      fast: true,
      processes: 4,
      workers: 1,
      logLevel: "WARNING",
    });
    expect(parse(["--fast"], {}, 2)).toMatchObject({ processes: 2, workers: 1 });
    expect(fastChoice(0)).toEqual({ processes: 1, workers: 1, logLevel: "WARNING" });
  });

  test("explicit flags override it, in any order", () => {
    expect(
      parse(["--processes", "1", "--fast", "--workers", "2", "--log-level", "debug"], {}, 8),
    ).toMatchObject({
      processes: 1,
      workers: 2,
      logLevel: "DEBUG",
    });
  });

  test("with --dev it keeps one process", () => {
    expect(parse(["--fast", "--dev"], {}, 4).processes).toBe(1);
  });

  test("uses navigator.hardwareConcurrency by default", () => {
    expect(parseFlags(["--fast"]).processes).toBe(navigator.hardwareConcurrency);
  });
});

describe("parseFlags: environment", () => {
  test("WEBFW_HOST and WEBFW_PORT apply", () => {
    const flags = parse([], { WEBFW_HOST: "0.0.0.0", WEBFW_PORT: "7000" });
    expect(flags.host).toBe("0.0.0.0");
    expect(flags.port).toBe(7000);
  });

  test("flags win over the environment", () => {
    const flags = parse(["--host", "127.0.0.2", "--port", "7001"], {
      WEBFW_HOST: "0.0.0.0",
      WEBFW_PORT: "7000",
    });
    expect(flags.host).toBe("127.0.0.2");
    expect(flags.port).toBe(7001);
  });

  test("empty values are ignored, bad ones refused", () => {
    expect(parse([], { WEBFW_PORT: "", WEBFW_HOST: " " }).port).toBeUndefined();
    expect(parseError([], { WEBFW_PORT: "http" })).toBe(
      'WEBFW_PORT must be an integer from 0 to 65535, got "http"',
    );
    expect(parseError([], { WEBFW_PORT: "70000" })).toContain("WEBFW_PORT");
    // A good flag makes a bad environment value irrelevant.
    expect(parse(["--port", "1"], { WEBFW_PORT: "bad" }).port).toBe(1);
  });
});

describe("parseFlags: mistakes", () => {
  const cases: [string[], string][] = [
    [["--bogus"], "unknown flag --bogus"],
    [["--prot", "1"], "unknown flag --prot (did you mean --port?)"],
    [["--procesess", "2"], "did you mean --processes?"],
    [["-x"], "unknown flag -x"],
    [["-hv"], "unknown flag -hv"],
    [["--h"], "unknown flag --h"],
    [["--no-dev"], "unknown flag --no-dev"],
    [["--processes", "0"], '--processes must be an integer from 1 to 1024, got "0"'],
    [["--processes", "-1"], '--processes must be an integer from 1 to 1024, got "-1"'],
    [["--processes", "abc"], '--processes must be an integer from 1 to 1024, got "abc"'],
    [["--processes", "1.5"], "--processes must be an integer"],
    [["--processes", "1e3"], "--processes must be an integer"],
    [["--processes", "0x10"], "--processes must be an integer"],
    [["--processes", "5000"], "--processes must be an integer from 1 to 1024"],
    [["--processes="], "--processes must be an integer"],
    [["--workers", "0"], '--workers must be an integer from 1 to 1024, got "0"'],
    [["--workers", "many"], "--workers must be an integer"],
    [["--port", "70000"], '--port must be an integer from 0 to 65535, got "70000"'],
    [["--port", "-1"], '--port must be an integer from 0 to 65535, got "-1"'],
    [["--port", "80a"], "--port must be an integer"],
    [["--port"], "--port needs a value (--port N)"],
    [["--port", "--dev"], "--port needs a value"],
    [["--host"], "--host needs a value"],
    [["--host="], "--host needs a non-empty value"],
    [["--log-level", "LOUD"], '--log-level must be one of DEBUG, INFO, WARNING, ERROR, got "LOUD"'],
    [["--log-level"], "--log-level needs a value"],
    [["--dev=maybe"], '--dev is a switch: use --dev or --dev=false, not "maybe"'],
    [["--dev", "--processes", "2"], "--dev cannot be combined with --processes greater than 1"],
    [["--processes", "2", "--port", "0"], "--port 0 cannot be combined with --processes greater than 1"],
    [["--create", "--template", "mysql"], '--template must be one of plain, sqlite, postgres, got "mysql"'],
    [["--template", "plain"], "--template only applies together with --create"],
    [["--name", "x"], "--name only applies together with --create"],
    [["--no-docker"], "--docker only applies together with --create"],
    [["--create", "--no-docker=1"], "--no-docker takes no value"],
    [["--compile-native-path"], "--compile-native-path needs a value"],
    [["--create-native-file", ""], "--create-native-file needs a non-empty value"],
    // What a generic parser would refuse in its own words gets the CLI's (src/launch/parse-argv.ts).
    [["-x"], "unknown flag -x"],
    [["-hy"], "unknown flag -hy"],
    [["--no-dev=1"], "unknown flag --no-dev"],
    [["--no-port"], "unknown flag --no-port"],
    [["--processes=-1"], '--processes must be an integer from 1 to 1024, got "-1"'],
    [["--port=-80"], '--port must be an integer from 0 to 65535, got "-80"'],
    [["--port=", "--dev"], '--port must be an integer from 0 to 65535, got ""'],
    [["--host", "-h"], "--host needs a value (--host HOST)"],
    [["--dev=", "--port", "1"], '--dev is a switch: use --dev or --dev=false, not ""'],
    [["--http3=2"], '--http3 is a switch: use --http3 or --http3=false, not "2"'],
    [["--create-rust-file"], "--create-rust-file needs a value"],
    [["--create", "--template"], "--template needs a value"],
  ];
  for (const [argv, message] of cases) {
    test(`${argv.join(" ")} -> ${message}`, () => {
      expect(parseError(argv)).toContain(message);
    });
  }

  // Malformed input (src/launch/parse-argv.ts): the whole message, exactly.
  const exact: [string[], string][] = [
    [["--port="], '--port must be an integer from 0 to 65535, got ""'],
    [["--port"], "--port needs a value (--port N)"],
    [["--dev", "--port"], "--port needs a value (--port N)"],
    [["--port", "--", "80"], "--port needs a value (--port N)"],
    [["--dev=maybe"], '--dev is a switch: use --dev or --dev=false, not "maybe"'],
    [["-h=maybe"], '-h is a switch: use -h or -h=false, not "maybe"'],
    [["--no-dev=1"], "unknown flag --no-dev"],
    [["--create", "--no-docker=off"], "--no-docker takes no value"],
    [["-x"], "unknown flag -x"],
    [["-hy"], "unknown flag -hy"],
    [["-x=1"], "unknown flag -x"],
    [["--processes", "-1"], '--processes must be an integer from 1 to 1024, got "-1"'],
    [["--workers", "-0"], '--workers must be an integer from 1 to 1024, got "-0"'],
    [["--port", "1", "--port", "x"], '--port must be an integer from 0 to 65535, got "x"'],
    [
      ["--log-level", "info", "--log-level=loud"],
      '--log-level must be one of DEBUG, INFO, WARNING, ERROR, got "loud"',
    ],
  ];
  for (const [argv, message] of exact) {
    test(`exactly: ${argv.join(" ")} -> ${message}`, () => {
      expect(parseError(argv)).toBe(message);
    });
  }

  test("repeated flags: the last one wins; after -- nothing is a flag", () => {
    expect(parse(["--port", "1", "--port=2", "--dev", "--dev=off"])).toMatchObject({ port: 2, dev: false });
    const flags = parse(["--port", "1", "--", "--port", "2", "--bogus", "-h"]);
    expect(flags).toMatchObject({ port: 1, help: false, positionals: ["--port", "2", "--bogus", "-h"] });
    expect([...flags.explicit]).toEqual(["port"]);
  });

  test("the parser loads no node:util (4.9 MB of idle RSS in a raw server: docs/cli.md)", () => {
    const source = readFileSync(join(import.meta.dir, "../../src/launch/parse-argv.ts"), "utf8");
    const imports = new Bun.Transpiler({ loader: "ts" }).scanImports(source).map((entry) => entry.path);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((path) => path.startsWith("node:") || path === "util")).toEqual([]);
  });

  test("a lone - and negative numbers are positionals, in their places", () => {
    const flags = parse(["-", "--dev", "-1", "app.ts", "-0"]);
    expect(flags.positionals).toEqual(["-", "-1", "app.ts", "-0"]);
    expect(flags.dev).toBe(true);
  });

  test("a one-letter switch, a long alias and --no-NAME read as their long flag", () => {
    expect(parse(["--create", "-y"]).createOptions.yes).toBe(true);
    expect(parse(["--compile-rust-path", "ext.rs"]).compileNativePath).toBe("ext.rs");
    expect(parse(["--create", "--no-docker", "--docker"]).createOptions.docker).toBe(true);
    expect(parse(["--create", "--docker", "--no-docker"]).createOptions.docker).toBe(false);
  });

  test("--dev --processes 1 is fine", () => {
    expect(parse(["--dev", "--processes", "1"]).processes).toBe(1);
  });
});

describe("flag table and usage", () => {
  test("every flag and alias is findable and shown in --help", () => {
    const text = usage();
    for (const def of FLAG_DEFS) {
      expect(findFlag(def.name)).toBe(def);
      expect(text).toContain(`--${def.name}`);
      for (const alias of def.aliases ?? []) {
        expect(findFlag(alias)).toBe(def);
        expect(text).toContain(alias.length === 1 ? `-${alias}` : `--${alias}`);
      }
    }
    expect(text).toContain("--no-docker");
    expect(text).toContain("WEBFW_PORT");
  });

  test("the spec's flags all exist", () => {
    const spec = [
      "help",
      "processes",
      "workers",
      "dev",
      "fast",
      "log-level",
      "port",
      "create",
      "docs",
      "open-browser",
      "version",
      "compile-rust-path",
      "create-rust-file",
      "disable-openapi",
    ];
    for (const name of spec) expect(findFlag(name)).toBeDefined();
  });
});

describe("parseFlags: TLS and HTTP versions", () => {
  test("--tls-cert/--tls-key, --http2, --http3; off by default", () => {
    expect(parse([])).toMatchObject({ http2: false, http3: false });
    expect(parse([]).tlsCert).toBeUndefined();
    const flags = parse(["--tls-cert", "c.pem", "--tls-key=k.pem", "--http2", "--http3"]);
    expect(flags).toMatchObject({ tlsCert: "c.pem", tlsKey: "k.pem", http2: true, http3: true });
    expect(parse(["--http2=false"]).http2).toBe(false);
  });

  test("WEBFW_TLS_CERT/WEBFW_TLS_KEY, flags win", () => {
    const env = { WEBFW_TLS_CERT: "env-c.pem", WEBFW_TLS_KEY: "env-k.pem" };
    expect(parse([], env)).toMatchObject({ tlsCert: "env-c.pem", tlsKey: "env-k.pem" });
    expect(parse(["--tls-cert", "c.pem"], env)).toMatchObject({ tlsCert: "c.pem", tlsKey: "env-k.pem" });
  });

  test("a certificate without its key (or the other way) is refused", () => {
    expect(parseError(["--tls-cert", "c.pem"])).toBe("--tls-cert needs --tls-key too (or $WEBFW_TLS_KEY)");
    expect(parseError(["--tls-key", "k.pem"])).toBe("--tls-key needs --tls-cert too (or $WEBFW_TLS_CERT)");
    expect(parseError(["--tls-cert"])).toBe("--tls-cert needs a value (--tls-cert PATH)");
    expect(parseError(["--tls-cert", " ", "--tls-key", "k"])).toBe("--tls-cert needs a non-empty value");
    expect(parseError(["--http2=maybe"])).toContain("--http2 is a switch");
  });

  test("--help lists them", () => {
    const text = usage();
    for (const flag of ["--tls-cert PATH", "--tls-key PATH", "--http2", "--http3"])
      expect(text).toContain(flag);
  });
});
