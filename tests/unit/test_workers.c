/* test_workers.c - workers_run runs every part of a job exactly once. */
#include <stdatomic.h>
#include <stdlib.h>

#include "test.h"
#include "util/workers.h"

typedef struct tally {
    atomic_uchar *runs; /* times each part ran */
} tally;

static void count_part(void *arg, int i)
{
    tally *t = arg;
    atomic_fetch_add(&t->runs[i], 1);
}

/* Runs parts parts on threads threads: the first part that did not run
 * exactly once, -1 when every one did, -2 when out of memory. */
static int each_once(int parts, int threads)
{
    tally t = { calloc((size_t)parts, sizeof *t.runs) };
    if (!t.runs)
        return -2;
    workers_run(parts, threads, count_part, &t);
    int bad = -1;
    for (int i = 0; i < parts && bad < 0; i++)
        if (atomic_load(&t.runs[i]) != 1)
            bad = i;
    free(t.runs);
    return bad;
}

static void every_part_runs_once(void)
{
    static const int parts[] = { 1, 2, 7, 65535, 65536, 140000 };
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        for (int threads = 1; threads <= 3; threads++) {
            int bad = each_once(parts[p], threads);
            ENSURE_MSG(bad == -1, "%d parts on %d threads: part %d ran other than once", parts[p], threads, bad);
        }
}

const struct test_case test_cases[] = {
    { "every_part_runs_once", every_part_runs_once },
    { NULL, NULL },
};
