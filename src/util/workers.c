/* workers.c - runs the parts of one job at once on helper threads kept for
 * the whole process; the caller takes parts too. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getcpu, pthread_attr_setaffinity_np */
#endif
#include "workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* How long a helper that has finished a part keeps looking for the next job
 * before it sleeps: a clip's stages (drawing, counting colours, remapping,
 * writing) follow each other within a few milliseconds, and a helper woken
 * from sleep starts 0.2 to 1 ms late on a virtual machine. */
#define SPIN_NS 4000000L

/* How long the caller spins for parts still running on helpers before it
 * naps between looks (a helper held up by another program's time slice can
 * take milliseconds). */
#define WAIT_SPIN_NS 200000L

/* The helpers, started by the first job that needs them. A job is its
 * function and argument and a ticket: the job's number in the high 32 bits,
 * its number of parts in the next 16 and the next part to take in the low 16.
 * Every thread, the caller's too, takes parts by raising the ticket while it
 * still names the job and has parts left, so a part runs once, a helper never
 * runs a part of a job that is over (the function and argument it read stay
 * as they are until every part is done), and a helper that is late (asleep,
 * or sharing its CPU with another program) leaves its parts to the others
 * instead of holding the job up. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    atomic_flag busy;          /* a job is running on the helpers */
    _Atomic uint64_t ticket;
    atomic_int done;           /* parts of the job finished */
    _Atomic(void (*)(void *, int)) fn;
    _Atomic(void *) arg;
    int helpers;               /* started so far */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .busy = ATOMIC_FLAG_INIT };

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint32_t job_of(uint64_t t) { return (uint32_t)(t >> 32); }
static int parts_of(uint64_t t) { return (int)(t >> 16 & 0xffff); }
static int next_of(uint64_t t) { return (int)(t & 0xffff); }

/* Runs parts of job `job` (fn, arg) while any is left to take. */
static void take_parts(uint32_t job, void (*fn)(void *, int), void *arg)
{
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    while (job_of(t) == job && next_of(t) < parts_of(t)) {
        if (atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            fn(arg, next_of(t));
            atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
            t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
        }
    }
}

/* The number of the next job after seen: spins for SPIN_NS, then sleeps
 * until one is published. */
static uint32_t next_job(uint32_t seen)
{
    long long until = now_ns() + SPIN_NS;
    uint32_t e;
    for (int k = 0; (e = job_of(atomic_load_explicit(&pool.ticket, memory_order_acquire))) == seen; k++) {
        relax();
        if ((k & 1023) == 1023 && now_ns() > until) {
            pthread_mutex_lock(&pool.mu);
            while ((e = job_of(atomic_load(&pool.ticket))) == seen)
                pthread_cond_wait(&pool.wake, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
            break;
        }
    }
    return e;
}

static void *helper(void *p)
{
    uint32_t seen = (uint32_t)(uintptr_t)p; /* the job being published as it started */
    for (;;) {
        uint32_t e = next_job(seen);
        void (*fn)(void *, int) = atomic_load_explicit(&pool.fn, memory_order_relaxed);
        void *arg = atomic_load_explicit(&pool.arg, memory_order_relaxed);
        /* read while job e was still going, they are job e's: they change
         * only once its every part is done, and then none is left to take */
        take_parts(e, fn, arg);
        seen = e;
    }
    return NULL;
}

/* Asks for helper i (from 1) to run on the i-th CPU after this thread's, among
 * those the process may use. Linux starts a new thread on its parent's CPU,
 * where it waits for the parent's time slice to end (3 to 4 ms seen on a
 * virtual machine of 2 cores) before another CPU takes it over. */
static void place(pthread_attr_t *at, int i)
{
#if defined(__linux__)
    cpu_set_t allowed, one;
    int here = sched_getcpu();
    if (here < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) <= i)
        return;
    int c = here;
    for (int k = 0; k < i;) {
        c = (c + 1) % CPU_SETSIZE;
        k += CPU_ISSET(c, &allowed) != 0;
    }
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    pthread_attr_setaffinity_np(at, sizeof one, &one);
#else
    (void)at;
    (void)i;
#endif
}

/* Starts helpers until there are n - 1 (or one fails to start); each waits
 * for the job after `job`. */
static void grow(int n, uint32_t job)
{
    while (pool.helpers < n - 1) {
        pthread_attr_t at;
        pthread_t th;
        if (pthread_attr_init(&at) != 0)
            return;
        place(&at, pool.helpers + 1);
        int ok = pthread_create(&th, &at, helper, (void *)(uintptr_t)job) == 0;
        pthread_attr_destroy(&at);
        if (!ok)
            return;
        pthread_detach(th);
        pool.helpers++;
    }
}

/* A run of a job's parts beyond what one ticket counts: part i of it is
 * part base + i of the job. */
typedef struct chunk {
    void (*fn)(void *, int);
    void *arg;
    int base;
} chunk;

static void chunk_part(void *p, int i)
{
    chunk *c = p;
    c->fn(c->arg, c->base + i);
}

void workers_run(int parts, int threads, void (*fn)(void *arg, int i), void *arg)
{
    if (parts > 0xffff) { /* a ticket counts 0xffff parts: the job in runs of that many */
        for (int base = 0; base < parts; base += 0xffff) {
            chunk c = { fn, arg, base };
            workers_run(parts - base < 0xffff ? parts - base : 0xffff, threads, chunk_part, &c);
        }
        return;
    }
    if (threads > WORKERS_MAX)
        threads = WORKERS_MAX;
    if (threads > parts)
        threads = parts;
    if (threads <= 1 || atomic_flag_test_and_set(&pool.busy)) {
        /* one thread, or the helpers are taken by another thread's job */
        for (int i = 0; i < parts; i++)
            fn(arg, i);
        return;
    }
    uint32_t job = job_of(atomic_load(&pool.ticket)) + 1;
    grow(threads, job - 1);
    atomic_store_explicit(&pool.fn, fn, memory_order_relaxed);
    atomic_store_explicit(&pool.arg, arg, memory_order_relaxed);
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.ticket, (uint64_t)job << 32 | (uint64_t)parts << 16, memory_order_release);
    pthread_mutex_lock(&pool.mu); /* wakes the helpers that sleep */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    take_parts(job, fn, arg);
    /* every part is taken: wait for those still running on helpers */
    long long start = 0;
    for (int k = 0; atomic_load_explicit(&pool.done, memory_order_acquire) < parts; k++) {
        relax();
        if ((k & 255) == 255) {
            long long t = now_ns();
            if (!start)
                start = t;
            else if (t - start > WAIT_SPIN_NS)
                nanosleep(&(struct timespec){ 0, 20000 }, NULL);
        }
    }
    atomic_flag_clear(&pool.busy);
}

int workers_split(const double *weight, int count, int parts, int *first)
{
    double total = 0.0, seen = 0.0;
    for (int f = 0; f < count; f++)
        total += weight[f];
    int k = 1;
    first[0] = 0;
    for (int f = 0; f < count && k < parts; f++) {
        seen += weight[f];
        if (seen * parts >= total * k && f + 1 < count) /* runs before k have their share */
            first[k++] = f + 1;
    }
    first[k] = count;
    return k;
}

int workers_cpus(void)
{
#if defined(__linux__)
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
        return CPU_COUNT(&allowed);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

int workers_threads_now(void)
{
    int cpus = workers_cpus(), running = 1 << 30;
    if (cpus > WORKERS_MAX)
        cpus = WORKERS_MAX;
    /* "1.00 0.80 0.60 2/345 6789": tasks runnable now (this one among them) /
     * all; the least of three looks, as a kernel worker wakes for a moment */
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen("/proc/loadavg", "r");
        int r = 0;
        if (!f)
            break;
        if (fscanf(f, "%*f %*f %*f %d/", &r) == 1 && r >= 1 && r < running)
            running = r;
        fclose(f);
    }
    if (running == 1 << 30)
        running = 1;
    int n = cpus - (running - 1);
    return n < 1 ? 1 : n;
}
