/**
 * What a client sends, at the type level: an argument shape's input (defaulted,
 * optional and list arguments may be left out) and a body or message schema's
 * input (a Standard Schema's input type, a `t.object`'s arguments, a `t` spec's
 * value). Shared by `webfw/client` (src/client/route-types.ts) and WebSocket
 * message schemas (src/websocket/route.ts). Types only.
 */
import type { StandardSchemaV1 } from "./standard-schema.ts";
import type { ArgSpec, Defaulted, ObjectSpec } from "./t.ts";

export type ArgValue<S> =
  S extends ArgSpec<infer T> ? T : S extends StandardSchemaV1<unknown, infer O> ? O : never;
export type StandardInput<S> = S extends { readonly "~standard": { readonly types?: infer Types } }
  ? NonNullable<Types> extends { readonly input: infer I }
    ? I
    : unknown
  : unknown;

/** An argument the client may leave out: defaulted, optional, a list (absent is `[]`), or a schema that accepts `undefined`. */
type MayOmit<S> = S extends Defaulted
  ? true
  : S extends ArgSpec<infer T>
    ? undefined extends T
      ? true
      : T extends readonly unknown[]
        ? true
        : false
    : undefined extends ArgValue<S>
      ? true
      : unknown extends StandardInput<S>
        ? false
        : undefined extends StandardInput<S>
          ? true
          : false;

/** Names of the arguments a client must send. */
export type RequiredArgs<A> = { [K in keyof A]: MayOmit<A[K]> extends true ? never : K }[keyof A];

/** What a client sends for an argument shape: each value as the handler will see it (sent as a string). */
export type ArgsInput<A> = Flat<
  { [K in RequiredArgs<A>]: ArgValue<A[K]> } & { [K in Exclude<keyof A, RequiredArgs<A>>]?: ArgValue<A[K]> }
>;

export type Flat<T> = { [K in keyof T]: T[K] } & {};

// Standard Schema first: a zod object compared structurally with `ObjectSpec` costs far more.
export type BodyInput<S> = S extends { readonly "~standard": unknown }
  ? StandardInput<S>
  : S extends ObjectSpec<infer Shape>
    ? ArgsInput<Shape>
    : S extends ArgSpec<infer V>
      ? V
      : unknown;

/** What a schema gives once it has validated: a Standard Schema's output, a `t` spec's value. */
export type SchemaOutput<S> =
  S extends StandardSchemaV1<unknown, infer O> ? O : S extends ArgSpec<infer V> ? V : unknown;
