/*
 * Unit tests for native/router.c: a tiny self-contained runner.
 * Build and run with native/build.sh (gcc -Wall -Wextra -Werror).
 *
 * Allocations go through a counting allocator, so every test also checks
 * that wf_router_free releases everything, and an allocator that fails on
 * the N-th call exercises every out-of-memory path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../router.h"

static int failures = 0;
static int checks = 0;
static const char *current = "";

#define CHECK(cond)                                                                   \
  do {                                                                                \
    checks++;                                                                         \
    if (!(cond)) {                                                                    \
      failures++;                                                                     \
      fprintf(stderr, "FAIL %s (%s:%d): %s\n", current, __FILE__, __LINE__, #cond);   \
    }                                                                                 \
  } while (0)

#define CHECK_EQ(a, b)                                                                        \
  do {                                                                                        \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                     \
    checks++;                                                                                 \
    if (va_ != vb_) {                                                                         \
      failures++;                                                                             \
      fprintf(stderr, "FAIL %s (%s:%d): %s == %lld, expected %lld\n", current, __FILE__,      \
              __LINE__, #a, va_, vb_);                                                        \
    }                                                                                         \
  } while (0)

/* ---- allocators ---- */

static long live_allocs = 0;
static long fail_after = -1; /* -1: never fail; otherwise fail once this many more calls happened */

static void *test_alloc(wf_size size) {
  if (fail_after == 0) return NULL;
  if (fail_after > 0) fail_after--;
  live_allocs++;
  return malloc(size);
}

static void test_free(void *p) {
  if (p) live_allocs--;
  free(p);
}

/* ---- helpers ---- */

static wf_router *make(void) {
  wf_router *r = wf_router_new(test_alloc, test_free);
  CHECK(r != NULL);
  return r;
}

static int put(wf_router *r, const char *s) {
  int len = (int)strlen(s);
  if (len > wf_router_buffer_capacity(r) && wf_router_reserve(r, len) < 0) return WF_ENOMEM;
  memcpy(wf_router_buffer(r), s, (size_t)len);
  return len;
}

static int add(wf_router *r, const char *pattern) {
  int len = put(r, pattern);
  return len < 0 ? len : wf_router_add(r, len);
}

static int match(wf_router *r, const char *path) {
  int len = put(r, path);
  return len < 0 ? len : wf_router_match(r, len);
}

/* The text of capture i of the last match (static buffer, for comparisons). */
static const char *capture(wf_router *r, const char *path, int i) {
  static char out[20000];
  const wf_i32 *res = wf_router_results(r);
  int start, end;
  if (i >= res[1]) return "<none>";
  start = res[2 + 2 * i];
  end = res[3 + 2 * i];
  if (start < 0 || end < start || end > (int)strlen(path) || end - start >= (int)sizeof(out)) return "<bad>";
  memcpy(out, path + start, (size_t)(end - start));
  out[end - start] = 0;
  return out;
}

#define EXPECT_MATCH(r, path, route) CHECK_EQ(match(r, path), route)
#define EXPECT_CAPTURE(r, path, i, text) CHECK(strcmp(capture(r, path, i), text) == 0)

/* ---- tests ---- */

static void test_static(void) {
  wf_router *r = make();
  CHECK_EQ(add(r, "/"), 0);
  CHECK_EQ(add(r, "/about"), 1);
  CHECK_EQ(add(r, "/about/team"), 2);
  EXPECT_MATCH(r, "/", 0);
  EXPECT_MATCH(r, "/about", 1);
  EXPECT_MATCH(r, "/about/team", 2);
  EXPECT_MATCH(r, "/about/", WF_NO_MATCH);
  EXPECT_MATCH(r, "/About", WF_NO_MATCH);
  EXPECT_MATCH(r, "/aboutx", WF_NO_MATCH);
  EXPECT_MATCH(r, "", WF_NO_MATCH);
  EXPECT_MATCH(r, "about", WF_NO_MATCH);
  CHECK_EQ(wf_router_results(r)[1], 0);
  wf_router_free(r);
}

static void test_params(void) {
  wf_router *r = make();
  const char *p = "/users/42/posts/x%2Fy";
  CHECK_EQ(add(r, "/users/:id"), 0);
  CHECK_EQ(add(r, "/users/:id/posts/:pid"), 1);
  EXPECT_MATCH(r, "/users/42", 0);
  CHECK_EQ(wf_router_results(r)[0], 0);
  CHECK_EQ(wf_router_results(r)[1], 1);
  EXPECT_CAPTURE(r, "/users/42", 0, "42");
  EXPECT_MATCH(r, p, 1);
  CHECK_EQ(wf_router_results(r)[1], 2);
  EXPECT_CAPTURE(r, p, 0, "42");
  EXPECT_CAPTURE(r, p, 1, "x%2Fy");
  EXPECT_MATCH(r, "/users", WF_NO_MATCH);
  EXPECT_MATCH(r, "/users/", WF_NO_MATCH);    /* a parameter never matches "" */
  EXPECT_MATCH(r, "/users//posts/1", WF_NO_MATCH);
  wf_router_free(r);
}

static void test_wildcard(void) {
  wf_router *r = make();
  CHECK_EQ(add(r, "/files/*rest"), 0);
  CHECK_EQ(add(r, "/*all"), 1);
  EXPECT_MATCH(r, "/files/a/b/c", 0);
  EXPECT_CAPTURE(r, "/files/a/b/c", 0, "a/b/c");
  EXPECT_MATCH(r, "/files", 0);
  EXPECT_CAPTURE(r, "/files", 0, "");
  EXPECT_MATCH(r, "/files/", 0);
  EXPECT_CAPTURE(r, "/files/", 0, "");
  EXPECT_MATCH(r, "/filesx", 1);
  EXPECT_CAPTURE(r, "/filesx", 0, "filesx");
  EXPECT_MATCH(r, "/", 1);
  EXPECT_CAPTURE(r, "/", 0, "");
  wf_router_free(r);
}

static void test_precedence(void) {
  wf_router *r = make();
  CHECK_EQ(add(r, "/a/:x/c"), 0);
  CHECK_EQ(add(r, "/a/b/d"), 1);
  CHECK_EQ(add(r, "/u/me"), 2);
  CHECK_EQ(add(r, "/u/:id"), 3);
  CHECK_EQ(add(r, "/u/*rest"), 4);
  CHECK_EQ(add(r, "/x/:p/static"), 5);
  CHECK_EQ(add(r, "/x/y/*rest"), 6);
  EXPECT_MATCH(r, "/a/b/c", 0); /* backtracks out of the static "b" */
  EXPECT_CAPTURE(r, "/a/b/c", 0, "b");
  EXPECT_MATCH(r, "/a/b/d", 1);
  EXPECT_MATCH(r, "/a/b/e", WF_NO_MATCH);
  EXPECT_MATCH(r, "/u/me", 2);
  EXPECT_MATCH(r, "/u/you", 3);
  EXPECT_MATCH(r, "/u/you/x", 4);
  EXPECT_CAPTURE(r, "/u/you/x", 0, "you/x");
  EXPECT_MATCH(r, "/u", 4);
  EXPECT_MATCH(r, "/x/y/static", 6);
  EXPECT_MATCH(r, "/x/z/static", 5);
  wf_router_free(r);
}

static void test_idempotent_and_conflicts(void) {
  wf_router *r = make();
  CHECK_EQ(add(r, "/u/:id"), 0);
  CHECK_EQ(add(r, "/u/:id"), 0);
  CHECK_EQ(add(r, "/u/:name"), WF_ECONFLICT);
  CHECK_EQ(add(r, "/f/*a"), 1);
  CHECK_EQ(add(r, "/f/*b"), WF_ECONFLICT);
  CHECK_EQ(add(r, "/f/*a"), 1);
  CHECK_EQ(add(r, "/u/:name/x"), 2); /* a different shape is fine */
  CHECK_EQ(wf_router_route_count(r), 3);
  EXPECT_MATCH(r, "/u/1", 0);
  EXPECT_MATCH(r, "/u/1/x", 2);
  wf_router_free(r);
}

static void test_invalid_patterns(void) {
  static const char *bad[] = {"", "a", "//", "/a/", "/a//b", "/:", "/a/:/b", "/*x/y", "/*/a", "/a/"};
  wf_router *r = make();
  size_t i;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    current = bad[i];
    CHECK_EQ(add(r, bad[i]), WF_EINVAL);
  }
  current = "invalid patterns";
  CHECK_EQ(wf_router_route_count(r), 0);
  CHECK_EQ(wf_router_add(r, -1), WF_EINVAL);
  CHECK_EQ(wf_router_add(r, wf_router_buffer_capacity(r) + 1), WF_EINVAL);
  CHECK_EQ(wf_router_match(r, -1), WF_EINVAL);
  CHECK_EQ(wf_router_match(r, wf_router_buffer_capacity(r) + 1), WF_EINVAL);
  CHECK_EQ(wf_router_reserve(r, -5), WF_EINVAL);
  CHECK(wf_router_new(NULL, test_free) == NULL);
  CHECK(wf_router_new(test_alloc, NULL) == NULL);
  wf_router_free(NULL);
  wf_router_free(r);
}

static void test_long_paths_and_growth(void) {
  static char path[20001];
  static char deep[12001];
  wf_router *r = make();
  int i, n;
  CHECK_EQ(add(r, "/x/:id"), 0);
  CHECK_EQ(add(r, "/deep/*rest"), 1);
  memcpy(path, "/x/", 3);
  for (i = 3; i < 20000; i++) path[i] = 'a';
  path[20000] = 0;
  EXPECT_MATCH(r, path, 0); /* grows the buffer past its initial 4 KiB */
  CHECK(wf_router_buffer_capacity(r) >= 20000);
  CHECK_EQ(wf_router_results(r)[3] - wf_router_results(r)[2], 19997);
  n = sprintf(deep, "/deep");
  while (n < 12000 - 2) {
    deep[n++] = '/';
    deep[n++] = 's';
  }
  deep[n] = 0;
  EXPECT_MATCH(r, deep, 1);
  CHECK_EQ(wf_router_results(r)[2], 6);
  CHECK_EQ(wf_router_results(r)[3], n);
  wf_router_free(r);
}

static void test_deep_pattern(void) {
  /* A pattern of 3,000 params: frames and results grow, matching stays iterative. */
  static char pattern[40000];
  static char path[40000];
  wf_router *r = make();
  int n = 0, m = 0, i;
  for (i = 0; i < 3000; i++) {
    n += sprintf(pattern + n, "/:p%d", i);
    m += sprintf(path + m, "/%d", i);
  }
  CHECK_EQ(add(r, pattern), 0);
  EXPECT_MATCH(r, path, 0);
  CHECK_EQ(wf_router_results(r)[1], 3000);
  CHECK(wf_router_results_capacity(r) >= 2 + 2 * 3000);
  EXPECT_CAPTURE(r, path, 2999, "2999");
  path[m - 1] = 0; /* "/2999" -> "/299": still 3,000 segments */
  EXPECT_MATCH(r, path, 0);
  strcat(path, "/more");
  EXPECT_MATCH(r, path, WF_NO_MATCH);
  wf_router_free(r);
}

static void test_many_routes(void) {
  char buf[64];
  wf_router *r = make();
  int i;
  for (i = 0; i < 5000; i++) {
    sprintf(buf, "/static%d", i);
    CHECK_EQ(add(r, buf), 2 * i);
    sprintf(buf, "/res%d/:id", i);
    CHECK_EQ(add(r, buf), 2 * i + 1);
  }
  for (i = 0; i < 5000; i += 7) {
    sprintf(buf, "/static%d", i);
    EXPECT_MATCH(r, buf, 2 * i);
    sprintf(buf, "/res%d/v", i);
    EXPECT_MATCH(r, buf, 2 * i + 1);
  }
  EXPECT_MATCH(r, "/static5000", WF_NO_MATCH);
  EXPECT_MATCH(r, "/res5000/v", WF_NO_MATCH);
  wf_router_free(r);
}

static void test_binary_bytes(void) {
  /* NUL and high bytes are ordinary bytes: lengths, not terminators. */
  wf_router *r = make();
  unsigned char pat[] = {'/', 'a', 0, 0xff};
  unsigned char path[] = {'/', 'a', 0, 0xff};
  memcpy(wf_router_buffer(r), pat, sizeof(pat));
  CHECK_EQ(wf_router_add(r, (int)sizeof(pat)), 0);
  memcpy(wf_router_buffer(r), path, sizeof(path));
  CHECK_EQ(wf_router_match(r, (int)sizeof(path)), 0);
  CHECK_EQ(wf_router_match(r, 2), WF_NO_MATCH);
  wf_router_free(r);
}

/* Every allocation failing in turn: each call fails cleanly and nothing leaks. */
static void test_out_of_memory(void) {
  long n;
  for (n = 0; n < 200; n++) {
    wf_router *r;
    int rc;
    fail_after = n;
    r = wf_router_new(test_alloc, test_free);
    if (r) {
      rc = add(r, "/a/:b/c");
      CHECK(rc == 0 || rc == WF_ENOMEM);
      rc = add(r, "/a/static");
      CHECK(rc >= 0 || rc == WF_ENOMEM);
      rc = add(r, "/a/:b/*rest");
      CHECK(rc >= 0 || rc == WF_ENOMEM);
      fail_after = -1;
      /* Whatever was added must still work; a failed add left no route behind. */
      rc = match(r, "/a/x/c");
      CHECK(rc == WF_NO_MATCH || rc == 0);
      CHECK(add(r, "/a/:b/c") == 0);
      EXPECT_MATCH(r, "/a/x/c", 0);
      wf_router_free(r);
    }
    fail_after = -1;
    CHECK_EQ(live_allocs, 0);
  }
}

typedef struct {
  const char *name;
  void (*fn)(void);
} test_case;

int main(void) {
  static const test_case tests[] = {
      {"static", test_static},
      {"params", test_params},
      {"wildcard", test_wildcard},
      {"precedence", test_precedence},
      {"idempotent and conflicts", test_idempotent_and_conflicts},
      {"invalid patterns", test_invalid_patterns},
      {"long paths and growth", test_long_paths_and_growth},
      {"deep pattern", test_deep_pattern},
      {"many routes", test_many_routes},
      {"binary bytes", test_binary_bytes},
      {"out of memory", test_out_of_memory},
  };
  size_t i;
  for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
    int before = failures;
    current = tests[i].name;
    tests[i].fn();
    if (live_allocs != 0) {
      failures++;
      fprintf(stderr, "FAIL %s: %ld allocations leaked\n", tests[i].name, live_allocs);
      live_allocs = 0;
    }
    printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
  }
  printf("%d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
