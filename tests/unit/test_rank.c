/* test_rank.c - rank_kth finds the value a sort puts at index k, for every k,
 * over sets with repeats, sorted and reversed runs and a single value. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/rank.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The first k at which rank_kth over a copy of v[0..n-1] differs from the
 * sorted v, -1 when none does. */
static int first_wrong(const double *v, int n)
{
    double sorted[64], work[64];
    memcpy(sorted, v, (size_t)n * sizeof *v);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    for (int k = 0; k < n; k++) {
        memcpy(work, v, (size_t)n * sizeof *v);
        if (rank_kth(work, n, k) != sorted[k])
            return k;
    }
    return -1;
}

static void kth_is_the_sorted_kth(void)
{
    unsigned seed = 12345;
    double v[64];
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + trial % 64;
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            /* few distinct values in half the trials: many repeats */
            int range = trial % 2 ? 5 : 1000;
            v[i] = (double)((seed >> 16) % (unsigned)range) - 0.5 * range;
        }
        if (trial % 7 == 3)
            qsort(v, (size_t)n, sizeof *v, cmp_double);
        if (trial % 7 == 5)
            for (int i = 0; i < n / 2; i++) {
                double t = v[i];
                v[i] = v[n - 1 - i];
                v[n - 1 - i] = t;
            }
        int bad = first_wrong(v, n);
        ENSURE_MSG(bad == -1, "trial %d (%d values): the %d-th smallest is wrong", trial, n, bad);
    }
}

const struct test_case test_cases[] = {
    { "kth_is_the_sorted_kth", kth_is_the_sorted_kth },
    { NULL, NULL },
};
