/**
 * How `webfw/client` reads an app's routes at the type level: from route handles
 * (what `app.get(...)` returns), collected from a module's exports, to the
 * input a call takes (params, args, body) and the result it gets (the handler's
 * value as the client receives it, or an error union with the statuses the route
 * can answer). Type-level only: nothing here exists at run time, and the server
 * modules are imported as types, so a browser bundle never pulls them in.
 * Lazy on purpose (docs/client.md, "Type-check cost"): a route's types are worked
 * out only when a call names its path.
 */

import type { ArgsInput, ArgValue, BodyInput, Flat, RequiredArgs } from "../args/input-types.ts";
import type { StandardSchemaV1 } from "../args/standard-schema.ts";
import type { ArgSpec } from "../args/t.ts";
import type { Renderable } from "../response/bodies.ts";
import type { Response as WebfwResponse } from "../response/response.ts";
import type { HttpMethod, JoinPath, PathParamsOf } from "../router/route.ts";
import type { Route } from "../router/route-handle.ts";
import type { SseBody, SseEvent } from "../stream/sse.ts";
import type { SocketShape } from "../websocket/route.ts";
import type { Jsonify } from "./json-type.ts";
import type { ResponseStream } from "./response-stream.ts";
import type { SseStream } from "./sse-stream.ts";

/** Any route handle (the phantom parameters are covariant, so every handle fits). */
export type AnyRoute = Route<HttpMethod, string, unknown, unknown, string>;

/**
 * `"GET /notes/:id"` for a route handle, `"WS /chat/:room"` for a WebSocket route; `never` when
 * the path is not a literal (the client cannot call it by name).
 */
type RouteKey<X> =
  X extends Route<infer M, infer P, unknown, unknown, infer Prefix>
    ? LiteralKey<M, JoinPath<Prefix, P>>
    : X extends { readonly "~socket": SocketShape<infer P, infer Prefix, unknown, unknown, unknown> }
      ? LiteralKey<"WS", JoinPath<Prefix, P>>
      : never;
type LiteralKey<M extends string, Full extends string> = string extends Full ? never : `${M} ${Full}`;

/**
 * The routes of a module (`typeof import("./routes.ts")`), keyed `"METHOD /full/path"`.
 * Exports that are not route handles are ignored; intersect several modules' types for
 * routes spread over files (`typeof A & typeof B`), or re-export them from one module.
 */
export type RoutesOf<Mod> = { [K in keyof Mod as RouteKey<Mod[K]>]: Mod[K] };

/** The paths the route map has for `M`. */
export type PathsFor<Map, M extends string> = keyof Map extends infer K
  ? K extends `${M} ${infer P}`
    ? P
    : never
  : never;

/**
 * The route at one path; `never` for a path the map lacks or a union of paths (what TS tries after a
 * wrong path). Matched as a property (`Map extends { "GET /x": infer R }`), not through `keyof Map`:
 * relating a key to the `keyof` of a key-remapped type walks every route on every call (measured:
 * 5× the instantiations at 400 routes, docs/client.md).
 */
export type RouteAt<Map, M extends string, P extends string> =
  true extends IsUnion<P> ? never : Map extends { readonly [K in `${M} ${P}`]: infer R } ? R : never;

type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;

type ShapeOf<R> =
  R extends Route<HttpMethod, infer P, infer Returns, infer O, string>
    ? { path: P; returns: Returns; options: O }
    : never;

// ---------------------------------------------------------------- input

type ArgsOf<O> = O extends { args: infer A } ? A : Record<never, never>;
type ParamName<Path extends string> = keyof PathParamsOf<Path>;

/** Path parameters: typed by the arg of the same name when there is one (`{ id: t.int() }`), else text. */
type ParamsInput<Path extends string, A> = {
  [K in ParamName<Path>]: K extends keyof A ? ArgValue<A[K]> : string | number;
};

/** Everything a call may also carry, whatever the route. */
export interface CallOptions {
  /** Headers for this request (added to the client's). */
  headers?: Record<string, string> | globalThis.Headers;
  /** Aborts the request (and a stream being read). */
  signal?: AbortSignal;
  /** Anything else `fetch` takes (`credentials`, `cache`, …). */
  init?: Omit<RequestInit, "method" | "body" | "headers" | "signal">;
}

type ParamsPart<Path extends string, A> = [ParamName<Path>] extends [never]
  ? unknown
  : { params: ParamsInput<Path, A> };
type QueryArgs<Path extends string, A> = Omit<A, ParamName<Path>>;
type ArgsPart<Path extends string, A> = [keyof QueryArgs<Path, A>] extends [never]
  ? unknown
  : [RequiredArgs<QueryArgs<Path, A>>] extends [never]
    ? { args?: ArgsInput<QueryArgs<Path, A>> }
    : { args: ArgsInput<QueryArgs<Path, A>> };
type BodyPart<O> = O extends { body: infer S } ? { body: BodyInput<S> } : unknown;

/** The second argument of a call to route `R`. */
export type CallInput<R> =
  ShapeOf<R> extends { path: infer P extends string; options: infer O }
    ? Flat<ParamsPart<P, ArgsOf<O>> & ArgsPart<P, ArgsOf<O>> & BodyPart<O> & CallOptions>
    : never;

/** The input is optional when nothing in it is required. */
export type InputTuple<R> = [R] extends [never]
  ? [input?: CallOptions] // an unknown path: let the error be about the path, not the input
  : CallOptions extends CallInput<R>
    ? [input?: CallInput<R>]
    : [input: CallInput<R>];

// ---------------------------------------------------------------- output

/** What a route answers with on success, as the client gets it (docs/responses.md). */
export type ClientData<Returns> = DataOf<Awaited<Returns>>;

type DictKeys = "statusCode" | "description" | "type" | "headers";

type DataOf<V> = unknown extends V
  ? unknown
  : V extends string
    ? string
    : // biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed `void`; it answers 204
      V extends undefined | null | void
      ? undefined
      : V extends globalThis.Response | WebfwResponse
        ? unknown
        : V extends SseBody<infer Item>
          ? SseStream<SseData<Item>>
          : V extends Renderable<infer C>
            ? RenderedData<C>
            : V extends readonly [infer Body, infer Status extends number]
              ? number extends Status
                ? Jsonify<V>
                : DataOf<Awaited<Body>>
              : V extends
                    | Uint8Array
                    | ArrayBuffer
                    | Blob
                    | ReadableStream
                    | AsyncIterable<unknown>
                    | Generator
                ? ResponseStream
                : V extends { statusCode: number; description: string | Uint8Array }
                  ? [Exclude<keyof V, DictKeys>] extends [never]
                    ? unknown
                    : Jsonify<V>
                  : Jsonify<V>;

type RenderedData<C> = C extends { json: infer J }
  ? Jsonify<J>
  : C extends { file: true }
    ? ResponseStream
    : C extends string
      ? string
      : unknown;

type EventKeys = keyof SseEvent;
/** The `data` of one event as the client reads it: objects and arrays parsed from JSON, everything else text. */
type WireData<D> = D extends string ? string : D extends object ? Jsonify<D> : string;
export type SseData<Item> = Item extends string
  ? string
  : Item extends { data: infer D }
    ? [Exclude<keyof Item, EventKeys>] extends [never]
      ? WireData<D>
      : WireData<Item>
    : WireData<Item>;

/** Statuses the route's options say it can answer with besides success (docs/client.md, "Errors"). */
type OptionStatuses<O> =
  | (O extends { args: infer A } ? ([keyof A] extends [never] ? never : 400) : never)
  | (O extends { body: unknown } ? 400 | 413 | 415 | 422 : never)
  | (O extends { authRequired: true } ? 401 : never)
  | (O extends { responses: infer Declared } ? ErrorStatus<keyof Declared> : never);

type ErrorStatus<K> = K extends number
  ? `${K}` extends `${4 | 5}${string}`
    ? K
    : never
  : K extends `${infer N extends number}`
    ? ErrorStatus<N>
    : never;

/** Every status an error of route `R` may carry: from its options, a path argument that does not convert, and 500. */
export type ErrorStatusOf<R> =
  ShapeOf<R> extends { path: infer P extends string; options: infer O }
    ?
        | 500
        | OptionStatuses<O>
        | ([ParamName<P>] extends [never] ? never : O extends { args: object } ? 400 : never)
    : never;

/** One validation problem of a 422 answer. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** A 2xx answer. */
export interface ClientSuccess<D> {
  readonly ok: true;
  readonly status: number;
  /** The handler's value as the client receives it (`undefined` for 204). */
  readonly data: D;
  readonly headers: globalThis.Headers;
  readonly response: globalThis.Response;
}

/** A non-2xx answer with status `S`. */
export interface ClientFailure<S extends number = number> {
  readonly ok: false;
  readonly status: S;
  /** The error's text: the body, or the `detail`/`message`/`title` of a JSON body. */
  readonly message: string;
  /** The body, parsed when it is JSON, else the text. */
  readonly body: unknown;
  /** For 422: each validation problem. */
  readonly issues: S extends 422 ? ValidationIssue[] : undefined;
  readonly headers: globalThis.Headers;
  readonly response: globalThis.Response;
}

type Failures<S> = S extends number ? ClientFailure<S> : never;

/** What a call to route `R` resolves to. */
export type ClientResult<R> =
  ShapeOf<R> extends { returns: infer Returns; options: infer O }
    ? ClientSuccess<SuccessData<O, Returns>> | Failures<ErrorStatusOf<R>>
    : never;

/**
 * The success data: the declared response schema's output when the route has one (the server
 * sends exactly that, docs/responses.md "Response contracts"), else what the handler returns.
 */
type SuccessData<O, Returns> = [DeclaredData<O>] extends [never] ? ClientData<Returns> : DeclaredData<O>;

/** The output of the schema declared for 200, else 201, else `2XX`; `never` when none is a `t` spec or Standard Schema. */
type DeclaredData<O> = O extends { responses: infer Declared }
  ? Declared extends { 200: infer E }
    ? SchemaData<E>
    : Declared extends { 201: infer E }
      ? SchemaData<E>
      : Declared extends { "2XX": infer E }
        ? SchemaData<E>
        : never
  : never;

type SchemaData<E> =
  E extends ArgSpec<infer T>
    ? Jsonify<T>
    : E extends StandardSchemaV1<unknown, infer Out>
      ? Jsonify<Out>
      : E extends { schema: infer S }
        ? SchemaData<S>
        : never;

// ---------------------------------------------------------------- WebSocket routes

type SocketOf<R> = R extends { readonly "~socket": infer S } ? S : never;

/** The input of `api.ws(path, input)`: path parameters and args as for HTTP routes, plus `protocols`. */
export type SocketInput<R> =
  SocketOf<R> extends { path: infer P extends string; args: infer A }
    ? Flat<ParamsPart<P, A> & ArgsPart<P, A> & SocketOptions>
    : never;

export interface SocketOptions {
  /** Subprotocols to ask for. */
  protocols?: string | string[];
  /** Headers for the upgrade request: Bun's `WebSocket` sends them, browsers' cannot (use cookies or args). */
  headers?: Record<string, string>;
}

export type SocketInputTuple<R> = [R] extends [never]
  ? [input?: SocketOptions]
  : SocketOptions extends SocketInput<R>
    ? [input?: SocketInput<R>]
    : [input: SocketInput<R>];

/** What the client sends on route `R` (declared with `.messages<Client, Server>()`; `unknown` when not declared). */
export type SocketSend<R> = SocketOf<R> extends { client: infer C } ? C : unknown;
/** What the client receives: text for a string type, JSON objects and arrays parsed, as for SSE data. */
export type SocketReceive<R> =
  SocketOf<R> extends { server: infer S } ? (unknown extends S ? unknown : WireData<S>) : unknown;
