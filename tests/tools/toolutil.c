/* toolutil.c - small helpers every test tool links: a monotonic clock in
 * milliseconds and qsort's comparison of doubles. */
#include "toolutil.h"

#include <time.h>

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
