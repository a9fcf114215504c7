/* workers.h - runs a few parts of one job at once, one part per thread. */
#ifndef POYO_WORKERS_H
#define POYO_WORKERS_H

/* The most parts workers_run runs at once. */
#define WORKERS_MAX 8

/* Calls fn(arg, i) for every i from 0 to n - 1 (n at most WORKERS_MAX) and
 * returns when all have returned: part 0 in this thread, the others each on a
 * thread of its own; a part whose thread cannot start runs here, after part 0.
 * The parts must not depend on running at the same time. */
void workers_run(int n, void (*fn)(void *arg, int i), void *arg);

#endif
