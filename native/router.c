/*
 * webfw native router (see router.h for the contract).
 *
 * Design notes:
 *   - No system headers and no libc calls: TinyCC must compile it anywhere,
 *     so the few memory helpers are written here.
 *   - Memory comes from an allocator passed to wf_router_new rather than a
 *     static arena: routers can be created and freed independently (one per
 *     app, many in tests), nothing has a fixed size limit, and under
 *     AddressSanitizer every node and array is its own allocation, so the
 *     fuzzer sees any overflow or leak precisely.
 *   - Every node is also threaded on a list, so freeing is a loop rather than
 *     a recursion whose depth an adversarial pattern could choose.
 *   - Matching is an iterative depth-first search over an explicit frame
 *     stack. Because the trie is a tree, each node is entered at most once per
 *     match: backtracking is linear in the nodes visited.
 *   - Fully static routes are also kept in a hash table of whole paths: a
 *     static match wins at every segment, so a hit needs no trie walk.
 */
#include "router.h"

typedef struct wf_node wf_node;

struct wf_node {
  unsigned char *label; /* static segment bytes (NULL for the root and param nodes) */
  wf_i32 label_len;
  wf_node **kids; /* static children, sorted by (length, bytes) */
  wf_i32 nkids;
  wf_i32 capkids;
  wf_node *param; /* the `:name` child */
  wf_i32 route;   /* route ending here, or -1 */
  wf_i32 wild;    /* `*name` route starting below here, or -1 */
  wf_node *all_next;
};

typedef struct {
  unsigned char *bytes;
  wf_i32 len;
} wf_route;

typedef struct {
  wf_node *node;
  wf_i32 pos; /* first byte of the next segment; len + 1 when none is left */
  wf_i32 seg_end;
  wf_i32 stage; /* 0: static next, 1: param next, 2: wildcard next, 3: done */
  wf_i32 cap_start; /* capture of the segment that led here (param), or -1 */
  wf_i32 cap_end;
} wf_frame;

struct wf_router {
  wf_alloc_fn alloc;
  wf_free_fn release;
  wf_node *root;
  wf_node *all; /* every node, for freeing */
  wf_route *routes;
  wf_i32 nroutes;
  wf_i32 caproutes;
  wf_i32 *statics; /* open addressing: route index or -1 */
  wf_i32 capstatics; /* power of two */
  wf_i32 nstatics;
  unsigned char *buf;
  wf_i32 capbuf;
  wf_i32 *results;
  wf_i32 capresults;
  wf_frame *frames;
  wf_i32 capframes;
};

#define WF_INITIAL_BUFFER 4096
#define WF_MAX_CAPACITY 0x3fffffff

/* ---- memory helpers (no libc) ---- */

static void wf_copy(unsigned char *dst, const unsigned char *src, wf_i32 n) {
  wf_i32 i;
  for (i = 0; i < n; i++) dst[i] = src[i];
}

static int wf_compare(const unsigned char *a, wf_i32 alen, const unsigned char *b, wf_i32 blen) {
  wf_i32 i;
  if (alen != blen) return alen < blen ? -1 : 1;
  for (i = 0; i < alen; i++) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

static void *wf_alloc(wf_router *r, wf_size size) {
  return r->alloc(size == 0 ? 1 : size);
}

/* Grows an array of `*cap` elements of `elem` bytes to at least `need`, keeping its contents. */
static int wf_grow(wf_router *r, void **array, wf_i32 *cap, wf_i32 need, wf_i32 elem) {
  wf_i32 next;
  unsigned char *fresh;
  if (need <= *cap) return 0;
  if (need > WF_MAX_CAPACITY / elem) return WF_ENOMEM;
  next = *cap < 4 ? 4 : *cap;
  while (next < need) next = next > WF_MAX_CAPACITY / 2 ? WF_MAX_CAPACITY : next * 2;
  if (next > WF_MAX_CAPACITY / elem) next = need;
  fresh = (unsigned char *)wf_alloc(r, (wf_size)next * (wf_size)elem);
  if (!fresh) return WF_ENOMEM;
  if (*array) {
    wf_copy(fresh, (const unsigned char *)*array, *cap * elem);
    r->release(*array);
  }
  *array = fresh;
  *cap = next;
  return 0;
}

static wf_node *wf_node_new(wf_router *r, const unsigned char *label, wf_i32 len) {
  wf_node *n = (wf_node *)wf_alloc(r, sizeof(wf_node));
  if (!n) return 0;
  n->label = 0;
  n->label_len = 0;
  if (label) {
    n->label = (unsigned char *)wf_alloc(r, (wf_size)len);
    if (!n->label) {
      r->release(n);
      return 0;
    }
    wf_copy(n->label, label, len);
    n->label_len = len;
  }
  n->kids = 0;
  n->nkids = 0;
  n->capkids = 0;
  n->param = 0;
  n->route = -1;
  n->wild = -1;
  n->all_next = r->all;
  r->all = n;
  return n;
}

/* ---- lifecycle and buffers ---- */

wf_router *wf_router_new(wf_alloc_fn alloc, wf_free_fn release) {
  wf_router *r;
  if (!alloc || !release) return 0;
  r = (wf_router *)alloc(sizeof(wf_router));
  if (!r) return 0;
  r->alloc = alloc;
  r->release = release;
  r->all = 0;
  r->routes = 0;
  r->nroutes = 0;
  r->caproutes = 0;
  r->statics = 0;
  r->capstatics = 0;
  r->nstatics = 0;
  r->buf = 0;
  r->capbuf = 0;
  r->results = 0;
  r->capresults = 0;
  r->frames = 0;
  r->capframes = 0;
  r->root = wf_node_new(r, 0, 0);
  if (!r->root || wf_grow(r, (void **)&r->buf, &r->capbuf, WF_INITIAL_BUFFER, 1) != 0 ||
      wf_grow(r, (void **)&r->results, &r->capresults, 8, (wf_i32)sizeof(wf_i32)) != 0 ||
      wf_grow(r, (void **)&r->frames, &r->capframes, 8, (wf_i32)sizeof(wf_frame)) != 0) {
    wf_router_free(r);
    return 0;
  }
  r->results[0] = -1;
  r->results[1] = 0;
  return r;
}

void wf_router_free(wf_router *r) {
  wf_node *n;
  wf_i32 i;
  if (!r) return;
  n = r->all;
  while (n) {
    wf_node *next = n->all_next;
    if (n->label) r->release(n->label);
    if (n->kids) r->release(n->kids);
    r->release(n);
    n = next;
  }
  for (i = 0; i < r->nroutes; i++) r->release(r->routes[i].bytes);
  if (r->routes) r->release(r->routes);
  if (r->statics) r->release(r->statics);
  if (r->buf) r->release(r->buf);
  if (r->results) r->release(r->results);
  if (r->frames) r->release(r->frames);
  r->release(r);
}

unsigned char *wf_router_buffer(wf_router *r) { return r->buf; }

wf_i32 wf_router_buffer_capacity(wf_router *r) { return r->capbuf; }

wf_i32 wf_router_reserve(wf_router *r, wf_i32 capacity) {
  if (capacity < 0 || capacity > WF_MAX_CAPACITY) return WF_EINVAL;
  if (wf_grow(r, (void **)&r->buf, &r->capbuf, capacity, 1) != 0) return WF_ENOMEM;
  return r->capbuf;
}

wf_i32 *wf_router_results(wf_router *r) { return r->results; }

wf_i32 wf_router_results_capacity(wf_router *r) { return r->capresults; }

wf_i32 wf_router_route_count(wf_router *r) { return r->nroutes; }

/* ---- static whole-path table ---- */

static unsigned int wf_hash(const unsigned char *s, wf_i32 len) {
  unsigned int h = 2166136261u;
  wf_i32 i;
  for (i = 0; i < len; i++) {
    h ^= s[i];
    h *= 16777619u;
  }
  return h;
}

static wf_i32 wf_static_find(wf_router *r, const unsigned char *path, wf_i32 len) {
  unsigned int mask, i;
  if (r->nstatics == 0) return -1;
  mask = (unsigned int)r->capstatics - 1u;
  i = wf_hash(path, len) & mask;
  for (;;) {
    wf_i32 idx = r->statics[i];
    if (idx < 0) return -1;
    if (wf_compare(r->routes[idx].bytes, r->routes[idx].len, path, len) == 0) return idx;
    i = (i + 1u) & mask;
  }
}

static void wf_static_put(wf_router *r, wf_i32 *table, wf_i32 cap, wf_i32 idx) {
  unsigned int mask = (unsigned int)cap - 1u;
  unsigned int i = wf_hash(r->routes[idx].bytes, r->routes[idx].len) & mask;
  while (table[i] >= 0) i = (i + 1u) & mask;
  table[i] = idx;
}

/* Makes room for one more static route (load factor <= 1/2). */
static int wf_static_reserve(wf_router *r) {
  wf_i32 cap, i, *table;
  if ((r->nstatics + 1) * 2 <= r->capstatics) return 0;
  if (r->capstatics > WF_MAX_CAPACITY / 8) return WF_ENOMEM;
  cap = r->capstatics == 0 ? 16 : r->capstatics * 2;
  table = (wf_i32 *)wf_alloc(r, (wf_size)cap * sizeof(wf_i32));
  if (!table) return WF_ENOMEM;
  for (i = 0; i < cap; i++) table[i] = -1;
  for (i = 0; i < r->capstatics; i++) {
    if (r->statics[i] >= 0) wf_static_put(r, table, cap, r->statics[i]);
  }
  if (r->statics) r->release(r->statics);
  r->statics = table;
  r->capstatics = cap;
  return 0;
}

/* ---- trie ---- */

/* Binary search among the sorted static children; *at receives the insertion point. */
static wf_node *wf_find_kid(const wf_node *n, const unsigned char *seg, wf_i32 len, wf_i32 *at) {
  wf_i32 lo = 0, hi = n->nkids;
  while (lo < hi) {
    wf_i32 mid = lo + (hi - lo) / 2;
    wf_node *k = n->kids[mid];
    int c = wf_compare(k->label, k->label_len, seg, len);
    if (c == 0) {
      if (at) *at = mid;
      return k;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  if (at) *at = lo;
  return 0;
}

static wf_node *wf_add_kid(wf_router *r, wf_node *n, const unsigned char *seg, wf_i32 len) {
  wf_i32 at = 0, i;
  wf_node *k = wf_find_kid(n, seg, len, &at);
  if (k) return k;
  if (wf_grow(r, (void **)&n->kids, &n->capkids, n->nkids + 1, (wf_i32)sizeof(wf_node *)) != 0) return 0;
  k = wf_node_new(r, seg, len);
  if (!k) return 0;
  for (i = n->nkids; i > at; i--) n->kids[i] = n->kids[i - 1];
  n->kids[at] = k;
  n->nkids++;
  return k;
}

/* Length of the segment starting at `pos`. */
static wf_i32 wf_seg_end(const unsigned char *s, wf_i32 pos, wf_i32 len) {
  while (pos < len && s[pos] != '/') pos++;
  return pos;
}

/*
 * Validates a canonical pattern and counts its trie depth and captures.
 * Returns 0, or WF_EINVAL.
 */
static int wf_check_pattern(const unsigned char *p, wf_i32 len, wf_i32 *depth, wf_i32 *captures, int *is_static) {
  wf_i32 pos = 1;
  *depth = 0;
  *captures = 0;
  *is_static = 1;
  if (len < 1 || p[0] != '/') return WF_EINVAL;
  if (len == 1) return 0;
  while (pos <= len) {
    wf_i32 end = wf_seg_end(p, pos, len);
    if (end == pos) return WF_EINVAL; /* empty segment or trailing '/' */
    if (p[pos] == '*') {
      if (end != len) return WF_EINVAL; /* a wildcard must be last */
      (*captures)++;
      *is_static = 0;
      return 0;
    }
    if (p[pos] == ':') {
      if (end - pos < 2) return WF_EINVAL; /* a parameter needs a name */
      (*captures)++;
      *is_static = 0;
    }
    (*depth)++;
    pos = end + 1;
  }
  return 0;
}

/* Walks the pattern through the trie, creating nodes when `create`; returns the terminal node. */
static wf_node *wf_walk(wf_router *r, const unsigned char *p, wf_i32 len, int create, int *is_wild) {
  wf_node *n = r->root;
  wf_i32 pos = 1;
  *is_wild = 0;
  if (len == 1) return n;
  while (pos <= len && n) {
    wf_i32 end = wf_seg_end(p, pos, len);
    if (p[pos] == '*') {
      *is_wild = 1;
      return n;
    }
    if (p[pos] == ':') {
      if (!n->param && create) {
        n->param = wf_node_new(r, 0, 0);
      }
      n = n->param;
    } else {
      n = create ? wf_add_kid(r, n, p + pos, end - pos) : wf_find_kid(n, p + pos, end - pos, 0);
    }
    pos = end + 1;
  }
  return n;
}

wf_i32 wf_router_add(wf_router *r, wf_i32 len) {
  const unsigned char *p;
  wf_i32 depth, captures, slot, idx;
  int is_static, is_wild, rc;
  wf_node *n;
  unsigned char *copy;
  if (!r || len < 0 || len > r->capbuf) return WF_EINVAL;
  p = r->buf;
  rc = wf_check_pattern(p, len, &depth, &captures, &is_static);
  if (rc != 0) return rc;

  /* Already registered, or a conflict? Decide before allocating anything. */
  n = wf_walk(r, p, len, 0, &is_wild);
  if (n) {
    slot = is_wild ? n->wild : n->route;
    if (slot >= 0) {
      return wf_compare(r->routes[slot].bytes, r->routes[slot].len, p, len) == 0 ? slot : WF_ECONFLICT;
    }
  }

  /* Reserve everything a match may need, then build. */
  if (r->nroutes == WF_MAX_CAPACITY) return WF_ENOMEM;
  if (wf_grow(r, (void **)&r->routes, &r->caproutes, r->nroutes + 1, (wf_i32)sizeof(wf_route)) != 0 ||
      wf_grow(r, (void **)&r->results, &r->capresults, 2 + 2 * captures, (wf_i32)sizeof(wf_i32)) != 0 ||
      wf_grow(r, (void **)&r->frames, &r->capframes, depth + 1, (wf_i32)sizeof(wf_frame)) != 0 ||
      (is_static && wf_static_reserve(r) != 0)) {
    return WF_ENOMEM;
  }
  copy = (unsigned char *)wf_alloc(r, (wf_size)len);
  if (!copy) return WF_ENOMEM;
  n = wf_walk(r, p, len, 1, &is_wild);
  if (!n) {
    /* Nodes created so far stay: without a route they never match anything. */
    r->release(copy);
    return WF_ENOMEM;
  }
  wf_copy(copy, p, len);
  idx = r->nroutes++;
  r->routes[idx].bytes = copy;
  r->routes[idx].len = len;
  if (is_wild) n->wild = idx;
  else n->route = idx;
  if (is_static) {
    wf_static_put(r, r->statics, r->capstatics, idx);
    r->nstatics++;
  }
  return idx;
}

/* Writes the result of a successful match: captures of the param frames 1..d, then the wildcard. */
static wf_i32 wf_finish(wf_router *r, wf_i32 route, wf_i32 d, wf_i32 wild_start, wf_i32 wild_end) {
  wf_i32 k, n = 0;
  wf_i32 *out = r->results;
  for (k = 1; k <= d; k++) {
    if (r->frames[k].cap_start >= 0) {
      out[2 + 2 * n] = r->frames[k].cap_start;
      out[3 + 2 * n] = r->frames[k].cap_end;
      n++;
    }
  }
  if (wild_start >= 0) {
    out[2 + 2 * n] = wild_start;
    out[3 + 2 * n] = wild_end;
    n++;
  }
  out[0] = route;
  out[1] = n;
  return route;
}

wf_i32 wf_router_match(wf_router *r, wf_i32 len) {
  const unsigned char *s;
  wf_frame *fr;
  wf_i32 d = 0, idx;
  if (!r || len < 0 || len > r->capbuf) return WF_EINVAL;
  s = r->buf;
  r->results[0] = -1;
  r->results[1] = 0;
  if (len < 1 || s[0] != '/') return WF_NO_MATCH;
  idx = wf_static_find(r, s, len);
  if (idx >= 0) return wf_finish(r, idx, 0, -1, -1);

  fr = r->frames;
  fr[0].node = r->root;
  fr[0].pos = len == 1 ? len + 1 : 1;
  fr[0].stage = 0;
  fr[0].cap_start = -1;
  fr[0].cap_end = -1;
  while (d >= 0) {
    wf_frame *f = &fr[d];
    wf_node *n = f->node;
    if (f->pos > len) {
      /* The path is used up: the route ending here, else a wildcard capturing nothing. */
      if (f->stage == 0) {
        f->stage = 3;
        if (n->route >= 0) return wf_finish(r, n->route, d, -1, -1);
        if (n->wild >= 0) return wf_finish(r, n->wild, d, len, len);
      }
      d--;
      continue;
    }
    if (f->stage == 0) {
      wf_node *kid;
      f->stage = 1;
      f->seg_end = wf_seg_end(s, f->pos, len);
      kid = n->nkids ? wf_find_kid(n, s + f->pos, f->seg_end - f->pos, 0) : 0;
      /* The frame stack is as deep as the deepest pattern, and kid is one level below n. */
      if (kid) {
        wf_frame *next = &fr[++d];
        next->node = kid;
        next->pos = f->seg_end + 1;
        next->stage = 0;
        next->cap_start = -1;
        next->cap_end = -1;
      }
      continue;
    }
    if (f->stage == 1) {
      f->stage = 2;
      if (n->param && f->seg_end > f->pos) {
        wf_frame *next = &fr[++d];
        next->node = n->param;
        next->pos = f->seg_end + 1;
        next->stage = 0;
        next->cap_start = f->pos;
        next->cap_end = f->seg_end;
      }
      continue;
    }
    if (f->stage == 2) {
      f->stage = 3;
      if (n->wild >= 0) return wf_finish(r, n->wild, d, f->pos, len);
    }
    d--;
  }
  return WF_NO_MATCH;
}
