/* test.h - a tiny unit-test harness in the manner of Box2D's test_macros.h.
 * Each tests/unit/test_X.c defines test_cases[] ending with { NULL, NULL };
 * test_main.c runs them all or the ones named on the command line. */
#ifndef POYO_TEST_H
#define POYO_TEST_H

#include <math.h>
#include <stdio.h>

struct test_case {
    const char *name;
    void (*fn)(void);
};

/* Defined by each test file. */
extern const struct test_case test_cases[];

/* Records a failure of the running test; used by the macros below. */
void test_fail(const char *file, int line, const char *fmt, ...);
/* Nonzero once the running test has failed. */
int test_failed(void);
/* A fresh scratch folder named after tag (under $TMPDIR), the one made before
 * removed; the last is removed when the process ends. Its path, or NULL. */
const char *test_scratch(const char *tag);

/* Fails the test and returns from it when cond is false. */
#define ENSURE(cond)                                                      \
    do {                                                                  \
        if (!(cond)) {                                                    \
            test_fail(__FILE__, __LINE__, "%s", #cond);                   \
            return;                                                       \
        }                                                                 \
    } while (0)

/* Like ENSURE, with a printf-style explanation. */
#define ENSURE_MSG(cond, ...)                                             \
    do {                                                                  \
        if (!(cond)) {                                                    \
            test_fail(__FILE__, __LINE__, __VA_ARGS__);                   \
            return;                                                       \
        }                                                                 \
    } while (0)

/* Fails unless |a - b| <= tol (NaN always fails). */
#define ENSURE_NEAR(a, b, tol)                                            \
    do {                                                                  \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b);          \
        if (!(fabs(ensure_a_ - ensure_b_) <= (double)(tol))) {            \
            test_fail(__FILE__, __LINE__, "%s = %.12g, %s = %.12g, tolerance %g", \
                      #a, ensure_a_, #b, ensure_b_, (double)(tol));       \
            return;                                                       \
        }                                                                 \
    } while (0)

/* Fails unless |a| <= tol. */
#define ENSURE_SMALL(a, tol) ENSURE_NEAR(a, 0.0, tol)

#endif
