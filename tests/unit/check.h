/* check.h: the unit tests' assertions. Each check prints one TAP line;
 * a test program exits 1 if any check failed. */
#ifndef CUPTI_CB_TEST_CHECK_H
#define CUPTI_CB_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks_run, checks_failed;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		checks_run++;                                               \
		if (!(cond))                                                \
			checks_failed++;                                    \
		printf("%s %d - ", (cond) ? "ok" : "not ok", checks_run);   \
		printf(__VA_ARGS__);                                        \
		printf("\n");                                               \
	} while (0)

#define CHECK_EQ(got, want, what)                                           \
	do {                                                                \
		long long g_ = (long long)(got), w_ = (long long)(want);    \
		CHECK(g_ == w_, "%s: got %lld, want %lld", what, g_, w_);   \
	} while (0)

#define CHECK_STR(got, want, what)                                          \
	do {                                                                \
		const char *g_ = (got), *w_ = (want);                       \
		CHECK(g_ && !strcmp(g_, w_), "%s: got '%s', want '%s'", what, \
		      g_ ? g_ : "(null)", w_);                              \
	} while (0)

static inline int checks_done(void)
{
	printf("1..%d\n", checks_run);
	if (checks_failed)
		fprintf(stderr, "%d of %d checks failed\n", checks_failed, checks_run);
	return checks_failed ? 1 : 0;
}

#endif
