/**
 * `Jsonify<T>`: the type of `JSON.parse(JSON.stringify(value))` for a `value: T`, the
 * type a typed client receives from a route that returns `T` (docs/client.md).
 * `Date` (anything with `toJSON`) becomes what `toJSON` returns, functions, symbols
 * and `undefined` properties vanish (an `undefined` array item becomes `null`),
 * `Map`/`Set` become `{}`. Type-level only.
 */

type JsonPrimitive = string | number | boolean | null;
/** Values `JSON.stringify` leaves out of objects (and turns into `null` in arrays). */
type Dropped = undefined | symbol | ((...args: never[]) => unknown);

export type Jsonify<T> = unknown extends T ? unknown : JsonValue<T>;

type JsonValue<T> = T extends JsonPrimitive
  ? T
  : T extends bigint | Dropped
    ? never
    : T extends { toJSON(...args: never[]): infer J }
      ? Jsonify<J>
      : T extends readonly unknown[]
        ? { -readonly [K in keyof T]: ArrayItem<T[K]> }
        : T extends
              | ReadonlyMap<unknown, unknown>
              | ReadonlySet<unknown>
              | WeakMap<object, unknown>
              | WeakSet<object>
          ? EmptyObject
          : T extends object
            ? JsonObject<T>
            : never;

// biome-ignore lint/complexity/noBannedTypes: `JSON.stringify(new Map())` is `{}`, an object with no keys
type EmptyObject = {};

type ArrayItem<T> = T extends Dropped ? null : Jsonify<T>;

/** Keys whose every possible value is dropped (methods, symbols): gone from the JSON. */
type Kept<T, K extends keyof T> = K extends symbol
  ? never
  : [Exclude<T[K], Dropped>] extends [never]
    ? never
    : K;

/** Properties that may be `undefined` become optional (absent from the JSON when they are). */
type JsonObject<T> = Flat<
  {
    -readonly [K in keyof T as Kept<T, K> extends never
      ? never
      : undefined extends T[K]
        ? never
        : K]: Jsonify<T[K]>;
  } & {
    -readonly [K in keyof T as Kept<T, K> extends never
      ? never
      : undefined extends T[K]
        ? K
        : never]?: Jsonify<Exclude<T[K], Dropped>>;
  }
>;

/** One object type instead of an intersection, so editors show the JSON's shape. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
