/* workers.c - runs a few parts of one job at once, one part per thread, on
 * helper threads kept for the whole process. */
#if defined(__linux__)
#define _GNU_SOURCE /* sched_getcpu, pthread_attr_setaffinity_np */
#include <sched.h>
#endif
#include "workers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* How long a helper that has finished a part keeps looking for the next one
 * before it sleeps: a clip's stages (drawing, counting colours, remapping,
 * writing) follow each other within a few milliseconds, and a helper woken
 * from sleep starts 0.2 to 1 ms late on a virtual machine. */
#define SPIN_NS 4000000L

/* The helpers, started by the first job that needs them. A job is written
 * while epoch is odd and published by making it even again (a helper that
 * read the job while it changed reads it again); helper k runs part k of it
 * when k < n, then counts down pending. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    atomic_flag busy;          /* a job is running on the helpers */
    atomic_uint epoch;
    atomic_int pending;
    _Atomic(void (*)(void *, int)) fn;
    _Atomic(void *) arg;
    atomic_int n;
    int helpers;               /* started so far: parts 1 to helpers */
    unsigned born[WORKERS_MAX]; /* the epoch each helper was started at */
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

/* A published epoch other than seen. */
static int fresh(unsigned e, unsigned seen) { return e != seen && !(e & 1u); }

/* The epoch of the next job after seen: spins for SPIN_NS, then sleeps until
 * one is published. */
static unsigned next_job(unsigned seen)
{
    long long until = now_ns() + SPIN_NS;
    unsigned e;
    for (int k = 0; !fresh(e = atomic_load_explicit(&pool.epoch, memory_order_acquire), seen); k++) {
        relax();
        if ((k & 1023) == 1023 && now_ns() > until) {
            pthread_mutex_lock(&pool.mu);
            while (!fresh(e = atomic_load(&pool.epoch), seen))
                pthread_cond_wait(&pool.wake, &pool.mu);
            pthread_mutex_unlock(&pool.mu);
            break;
        }
    }
    return e;
}

static void *helper(void *p)
{
    int k = (int)(size_t)p;
    /* jobs before its start were never its: the epoch it was started at
     * (which the job that starts it raises after) */
    unsigned seen = pool.born[k];
    for (;;) {
        unsigned e = next_job(seen);
        void (*fn)(void *, int) = atomic_load_explicit(&pool.fn, memory_order_relaxed);
        void *arg = atomic_load_explicit(&pool.arg, memory_order_relaxed);
        int n = atomic_load_explicit(&pool.n, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&pool.epoch, memory_order_relaxed) != e)
            continue; /* the next job was being written: not a part of job e that was ours */
        seen = e;
        if (k < n) {
            fn(arg, k);
            atomic_fetch_sub_explicit(&pool.pending, 1, memory_order_release);
        }
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

/* Starts helpers until there are n - 1 (or one fails to start). */
static void grow(int n)
{
    while (pool.helpers < n - 1) {
        pthread_attr_t at;
        pthread_t th;
        if (pthread_attr_init(&at) != 0)
            return;
        place(&at, pool.helpers + 1);
        pool.born[pool.helpers + 1] = atomic_load(&pool.epoch);
        int ok = pthread_create(&th, &at, helper, (void *)(size_t)(pool.helpers + 1)) == 0;
        pthread_attr_destroy(&at);
        if (!ok)
            return;
        pthread_detach(th);
        pool.helpers++;
    }
}

void workers_run(int n, void (*fn)(void *arg, int i), void *arg)
{
    if (n > WORKERS_MAX)
        n = WORKERS_MAX;
    if (n <= 1 || atomic_flag_test_and_set(&pool.busy)) {
        /* one part, or the helpers are taken by another thread's job */
        for (int i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    grow(n);
    int on = n - 1 < pool.helpers ? n - 1 : pool.helpers; /* parts 1 to on go to helpers */
    atomic_fetch_add_explicit(&pool.epoch, 1, memory_order_relaxed); /* odd: being written */
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&pool.fn, fn, memory_order_relaxed);
    atomic_store_explicit(&pool.arg, arg, memory_order_relaxed);
    atomic_store_explicit(&pool.n, on + 1, memory_order_relaxed);
    atomic_store_explicit(&pool.pending, on, memory_order_relaxed);
    atomic_fetch_add_explicit(&pool.epoch, 1, memory_order_release); /* even: published */
    pthread_mutex_lock(&pool.mu); /* wakes the helpers that sleep */
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.mu);
    fn(arg, 0);
    for (int i = on + 1; i < n; i++)
        fn(arg, i);
    while (atomic_load_explicit(&pool.pending, memory_order_acquire) > 0)
        relax();
    atomic_flag_clear(&pool.busy);
}
