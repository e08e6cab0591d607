/*
 * libFuzzer + AddressSanitizer harness for native/router.c (run: native/fuzz/run.sh SECONDS).
 *
 * The input is a list of lines: a line starting with 'a' registers the rest
 * of the line as a pattern, any other line is matched as a path. Besides the
 * sanitizers' memory, leak and UB checks, every match is compared with a
 * naive reference matcher written straight from the precedence rule
 * (lexicographically smallest per-segment rank: static 0 < param 1 <
 * wildcard 2, the exact end before a zero-segment wildcard), and the
 * captures are checked byte for byte. A disagreement aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../router.h"

#define MAX_ROUTES 64

typedef struct {
  const uint8_t *bytes;
  int len;
} span;

static void *fuzz_alloc(wf_size n) { return malloc(n); }
static void fuzz_free(void *p) { free(p); }

static int next_segment(const uint8_t *s, int pos, int len) {
  while (pos < len && s[pos] != '/') pos++;
  return pos;
}

/*
 * Reference: does `pat` (canonical) match `path`? Fills ranks (one per pattern
 * segment consumed) and captures. Returns the number of ranks, or -1.
 */
static int reference_match(span pat, span path, int *ranks, int *caps, int *ncaps) {
  int pp = 1, sp, nranks = 0;
  int end_of_path;
  *ncaps = 0;
  if (path.len < 1 || path.bytes[0] != '/') return -1;
  /* The root path has no segments; any other path has at least one (maybe empty). */
  sp = path.len == 1 ? path.len + 1 : 1;
  if (pat.len == 1) return sp > path.len ? 0 : -1;
  while (pp <= pat.len) {
    int pend = next_segment(pat.bytes, pp, pat.len);
    end_of_path = sp > path.len;
    if (pat.bytes[pp] == '*') {
      caps[2 * *ncaps] = end_of_path ? path.len : sp;
      caps[2 * *ncaps + 1] = path.len;
      (*ncaps)++;
      ranks[nranks++] = 2;
      return nranks;
    }
    if (end_of_path) return -1;
    {
      int send = next_segment(path.bytes, sp, path.len);
      if (pat.bytes[pp] == ':') {
        if (send == sp) return -1;
        caps[2 * *ncaps] = sp;
        caps[2 * *ncaps + 1] = send;
        (*ncaps)++;
        ranks[nranks++] = 1;
      } else {
        if (pend - pp != send - sp || memcmp(pat.bytes + pp, path.bytes + sp, (size_t)(send - sp)) != 0) return -1;
        ranks[nranks++] = 0;
      }
      sp = send + 1;
    }
    pp = pend + 1;
  }
  return sp > path.len ? nranks : -1;
}

/* -1 if a is preferred over b: lexicographic, and a proper prefix is preferred. */
static int rank_compare(const int *a, int na, const int *b, int nb) {
  int i;
  for (i = 0; i < na && i < nb; i++) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return na == nb ? 0 : (na < nb ? -1 : 1);
}

static int check_pattern_ok(span p) {
  /* Mirrors the documented rules, to know which adds must succeed. */
  int pos = 1;
  if (p.len < 1 || p.bytes[0] != '/') return 0;
  if (p.len == 1) return 1;
  while (pos <= p.len) {
    int end = next_segment(p.bytes, pos, p.len);
    if (end == pos) return 0;
    if (p.bytes[pos] == '*' && end != p.len) return 0;
    if (p.bytes[pos] == ':' && end - pos < 2) return 0;
    pos = end + 1;
  }
  return 1;
}

/* The shape of a pattern: params and wildcards without their names. Same shape = same slot. */
static int same_shape(span a, span b) {
  int i = 0, j = 0;
  while (i < a.len && j < b.len) {
    uint8_t ca = a.bytes[i], cb = b.bytes[j];
    if (ca != cb) return 0;
    if ((ca == ':' || ca == '*') && (i == 0 || a.bytes[i - 1] == '/')) {
      while (i < a.len && a.bytes[i] != '/') i++;
      while (j < b.len && b.bytes[j] != '/') j++;
      continue;
    }
    i++;
    j++;
  }
  return i == a.len && j == b.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  span routes[MAX_ROUTES];
  int nroutes = 0;
  size_t at = 0;
  wf_router *r = wf_router_new(fuzz_alloc, fuzz_free);
  if (!r) abort();
  while (at < size) {
    size_t eol = at;
    const uint8_t *line;
    int len, is_add;
    while (eol < size && data[eol] != '\n') eol++;
    line = data + at;
    len = (int)(eol - at);
    at = eol + 1;
    is_add = len > 0 && line[0] == 'a';
    /* The reference keeps fixed-size arrays: one rank per segment, so bound the lines. */
    if (len > 4000) continue;
    if (is_add) {
      line++;
      len--;
    }
    if (len > wf_router_buffer_capacity(r) && wf_router_reserve(r, len) < len) abort();
    if (len > 0) memcpy(wf_router_buffer(r), line, (size_t)len);
    if (is_add) {
      span p = {line, len};
      int rc, i, existing = -1, conflict = 0;
      if (nroutes == MAX_ROUTES) continue;
      for (i = 0; i < nroutes; i++) {
        if (routes[i].len == len && memcmp(routes[i].bytes, line, (size_t)len) == 0) existing = i;
        else if (same_shape(routes[i], p)) conflict = 1;
      }
      rc = wf_router_add(r, len);
      if (!check_pattern_ok(p)) {
        if (rc != WF_EINVAL) abort();
      } else if (existing >= 0) {
        if (rc != existing) abort();
      } else if (conflict) {
        if (rc != WF_ECONFLICT) abort();
      } else {
        if (rc != nroutes) abort();
        routes[nroutes++] = p;
      }
    } else {
      span path = {line, len};
      int best = -1, best_ranks[4096], best_n = 0, best_caps[2 * 4096], best_ncaps = 0;
      int ranks[4096], caps[2 * 4096], ncaps, i, rc;
      const wf_i32 *res;
      for (i = 0; i < nroutes; i++) {
        int n = reference_match(routes[i], path, ranks, caps, &ncaps);
        if (n < 0) continue;
        if (best < 0 || rank_compare(ranks, n, best_ranks, best_n) < 0) {
          best = i;
          best_n = n;
          memcpy(best_ranks, ranks, sizeof(int) * (size_t)n);
          best_ncaps = ncaps;
          memcpy(best_caps, caps, sizeof(int) * 2 * (size_t)ncaps);
        }
      }
      rc = wf_router_match(r, len);
      if (rc != (best < 0 ? WF_NO_MATCH : best)) abort();
      res = wf_router_results(r);
      if (best >= 0) {
        if (res[0] != best || res[1] != best_ncaps) abort();
        for (i = 0; i < 2 * best_ncaps; i++) {
          if (res[2 + i] != best_caps[i]) abort();
        }
      }
    }
  }
  wf_router_free(r);
  return 0;
}
