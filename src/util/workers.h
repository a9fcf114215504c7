/* workers.h - runs a few parts of one job at once, one part per thread. */
#ifndef POYO_WORKERS_H
#define POYO_WORKERS_H

/* The most threads workers_run runs parts on, and the most parts a job of
 * frames split by workers_split has. */
#define WORKERS_MAX 8

/* Calls fn(arg, i) for every i from 0 to parts - 1 and
 * returns when all have returned, on up to `threads` threads (at most
 * WORKERS_MAX): this one and helper threads kept for the process. Each thread
 * takes the next part not yet taken, so a part runs on any of them, and a
 * helper that is late (asleep, or sharing its CPU with another program)
 * leaves its parts to the others. The parts must not depend on running at
 * the same time, nor on the thread they run on. */
void workers_run(int parts, int threads, void (*fn)(void *arg, int i), void *arg);
/* Splits items 0 to count - 1, of the given weights, into at most `parts`
 * runs of about equal weight for workers_run: run k is items first[k] to
 * first[k + 1] - 1 (first has room for parts + 1); each run ends with the item
 * that brings the runs so far to their share, and none is empty. Returns the
 * number of runs (1 when parts < 1). */
int workers_split(const double *weight, int count, int parts, int *first);
/* The CPUs this process may run on (its affinity mask, which taskset and
 * cpusets narrow), else those online; at least 1. */
int workers_cpus(void);
/* The threads one job should run on now: the CPUs it may use (workers_cpus,
 * at most WORKERS_MAX) less those other programs keep running at this moment
 * (Linux's count of runnable tasks), at least 1. Parts of a job on a CPU some
 * other program also runs wait for its time slices, and helpers that spin
 * take time from it: two clips made side by side, each on two threads of a
 * 2-CPU machine, took 1.2 times as long as on one thread each. */
int workers_threads_now(void);

#endif
