/*
 * webfw native router: a segment trie that matches request paths against
 * route patterns (static segments, `:name` segments, a final `*name`).
 *
 * No system headers on purpose: TinyCC (inside Bun, `cc` from `bun:ffi`) must
 * compile this without a libc development package. Memory comes from an
 * allocator the host passes in (see wf_router_new).
 *
 * Calling convention, designed for bun:ffi:
 *   - the router owns one byte buffer; the host writes a pattern or a path
 *     into it (wf_router_buffer) and passes only its length;
 *   - wf_router_match writes its result into an int32 array the router owns
 *     (wf_router_results), which the host reads through a typed-array view:
 *       results[0]            route index (same as the return value)
 *       results[1]            number of captures n
 *       results[2+2i], [3+2i] start and end byte offsets of capture i
 *     Captures are the `:name` segments in pattern order, then the wildcard.
 *   - wf_router_add and wf_router_reserve may move both the buffer and the
 *     results array: the host re-reads both pointers after calling them.
 */
#ifndef WEBFW_ROUTER_H
#define WEBFW_ROUTER_H

#ifdef __SIZE_TYPE__
typedef __SIZE_TYPE__ wf_size;
#else
typedef unsigned long wf_size;
#endif

typedef int wf_i32;

typedef void *(*wf_alloc_fn)(wf_size size);
typedef void (*wf_free_fn)(void *ptr);

typedef struct wf_router wf_router;

/* Return codes (route indexes are >= 0). */
#define WF_NO_MATCH (-1)  /* wf_router_match: no route matches */
#define WF_ENOMEM (-2)    /* the allocator returned NULL; the router is unchanged */
#define WF_EINVAL (-3)    /* malformed pattern/path, or a length outside the buffer */
#define WF_ECONFLICT (-4) /* another pattern of the same shape is registered */

/* Creates a router; NULL when an allocator is missing or out of memory. */
wf_router *wf_router_new(wf_alloc_fn alloc, wf_free_fn release);
/* Frees the router and everything it owns. NULL is ignored. */
void wf_router_free(wf_router *r);

/* The byte buffer the host writes patterns and paths into. */
unsigned char *wf_router_buffer(wf_router *r);
wf_i32 wf_router_buffer_capacity(wf_router *r);
/* Grows the buffer to at least `capacity` bytes; returns the capacity or WF_ENOMEM / WF_EINVAL. */
wf_i32 wf_router_reserve(wf_router *r, wf_i32 capacity);

/* The result array written by wf_router_match. */
wf_i32 *wf_router_results(wf_router *r);
/* Its length in int32 entries (2 + 2 * the most captures of any pattern). */
wf_i32 wf_router_results_capacity(wf_router *r);

/*
 * Registers the pattern held in the first `len` bytes of the buffer. Patterns
 * are canonical: a leading '/', no empty segment, no trailing '/' except the
 * root "/"; a segment starting with ':' is a parameter (non-empty name), one
 * starting with '*' is a wildcard and must be last. Static segments are compared
 * byte for byte with request segments, so the host percent-encodes them first.
 * Returns the route index: a new one (0, 1, 2, ... in order of registration),
 * the existing one when the same bytes were registered before, or an error.
 */
wf_i32 wf_router_add(wf_router *r, wf_i32 len);

/*
 * Matches the path held in the first `len` bytes of the buffer (raw, leading
 * '/'). Precedence per segment: static > parameter > wildcard, with
 * backtracking. A parameter never matches an empty segment; a wildcard
 * matches zero or more segments. Returns the route index, WF_NO_MATCH, or
 * WF_EINVAL for a length outside the buffer.
 */
wf_i32 wf_router_match(wf_router *r, wf_i32 len);

/* Number of registered routes. */
wf_i32 wf_router_route_count(wf_router *r);

#endif
