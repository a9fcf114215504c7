/* batch.c - runs many independent jobs on worker threads: each worker takes
 * the next job, failures are named as they happen, a progress bar is drawn
 * when standard error is a terminal, and SIGINT/SIGTERM remove the temporary
 * files being written before the process ends (finished outputs stay). */
#include "batch.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAX_WORKERS 256

/* Temporary-file names being written, one per worker; read by the signal handler. */
static char g_tmp[MAX_WORKERS][BATCH_TMP_MAX];
static int g_workers;

static void on_signal(int sig)
{
    for (int i = 0; i < g_workers; i++)
        if (g_tmp[i][0])
            unlink(g_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

int batch_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (int)n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct run_state {
    batch_job *jobs;
    int n, next, done, failed;
    batch_fn fn;
    void *ctx;
    const batch_ui *ui;
    int bar;            /* draw the progress bar */
    double start, last_draw;
    pthread_mutex_t lock;
} run_state;

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void batch_print_json(const batch_job *j)
{
    printf("{\"input\": ");
    json_string(stdout, j->input);
    printf(", \"output\": ");
    if (j->output && !j->failed)
        json_string(stdout, j->output);
    else
        printf("null");
    if (j->failed) {
        printf(", \"status\": \"error\", \"error\": ");
        json_string(stdout, j->error);
        printf(", \"milliseconds\": %.1f}\n", j->ms);
    } else {
        printf(", \"status\": \"ok\", \"bytes\": %zu, \"width\": %d, \"height\": %d, \"frames\": %d, "
               "\"duration\": %.3f, \"milliseconds\": %.1f}\n",
               j->bytes, j->width, j->height, j->frames, j->duration, j->ms);
    }
    fflush(stdout);
}

/* Draws "[=====>    ] 120/3786  45.2/s  ETA 1:20  2 failed" over the last line. */
static void draw_bar(run_state *s, int final)
{
    double t = now_s();
    if (!final && t - s->last_draw < 0.1)
        return;
    s->last_draw = t;
    double el = t - s->start, rate = el > 0 ? s->done / el : 0;
    int width = 30, filled = s->n ? (int)((double)s->done / s->n * width) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '=' : i == filled ? '>' : ' ';
    bar[width] = '\0';
    char eta[32] = "";
    if (rate > 0 && s->done < s->n) {
        int left = (int)((s->n - s->done) / rate + 0.5);
        snprintf(eta, sizeof eta, "  ETA %d:%02d", left / 60, left % 60);
    }
    char fails[32] = "";
    if (s->failed)
        snprintf(fails, sizeof fails, "  %d failed", s->failed);
    fprintf(stderr, "\r[%s] %d/%d  %.1f/s%s%s\033[K%s", bar, s->done, s->n, rate, eta, fails, final ? "\n" : "");
    fflush(stderr);
}

static void *worker(void *arg)
{
    void **a = arg;
    run_state *s = a[0];
    int slot = (int)(intptr_t)a[1];
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int i = s->next < s->n ? s->next++ : -1;
        pthread_mutex_unlock(&s->lock);
        if (i < 0)
            break;
        batch_job *j = &s->jobs[i];
        double t0 = now_s();
        int rc = j->failed ? 1 : s->fn(s->ctx, j, slot, g_tmp[slot]);
        j->ms = (now_s() - t0) * 1000.0;
        /* hand the file's freed buffers back, so memory stays flat over long batches
         * (glibc otherwise keeps the heap its growing mmap threshold fragments) */
        malloc_trim(0);
        if (rc)
            j->failed = 1;
        pthread_mutex_lock(&s->lock);
        s->done++;
        if (j->failed) {
            s->failed++;
            if (s->bar)
                fputs("\r\033[K", stderr);
            cli_error(j->error_what ? j->error_what : j->input, "%s", j->error);
        } else if (s->ui->verbose) {
            if (s->bar)
                fputs("\r\033[K", stderr);
            fprintf(stderr, "poyo: %s: wrote %s (%dx%d, %d frames, %.2f s, %zu bytes)\n", j->input,
                    j->output ? j->output : "frames", j->width, j->height, j->frames, j->duration, j->bytes);
        }
        if (s->ui->json)
            batch_print_json(j);
        if (s->bar)
            draw_bar(s, 0);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

int batch_run(batch_job *jobs, int n, int workers, batch_fn fn, void *ctx, const batch_ui *ui)
{
    if (workers < 1)
        workers = 1;
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (workers > n)
        workers = n > 0 ? n : 1;
    run_state s;
    memset(&s, 0, sizeof s);
    s.jobs = jobs;
    s.n = n;
    s.fn = fn;
    s.ctx = ctx;
    s.ui = ui;
    s.bar = !ui->quiet && n > 1 && isatty(STDERR_FILENO);
    s.start = now_s();
    pthread_mutex_init(&s.lock, NULL);
    g_workers = workers;
    memset(g_tmp, 0, sizeof g_tmp[0] * (size_t)workers);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    void *args[MAX_WORKERS][2];
    pthread_t th[MAX_WORKERS];
    int started = 0;
    for (int w = 1; w < workers; w++) {
        args[w][0] = &s;
        args[w][1] = (void *)(intptr_t)w;
        if (pthread_create(&th[w], NULL, worker, args[w]) != 0)
            break;
        started = w;
    }
    args[0][0] = &s;
    args[0][1] = (void *)(intptr_t)0;
    worker(args[0]);
    for (int w = 1; w <= started; w++)
        pthread_join(th[w], NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (s.bar)
        draw_bar(&s, 1);
    if (ui->summary && !ui->quiet)
        fprintf(stderr, "poyo: %d written, %d failed (%.1f s)\n", n - s.failed, s.failed, now_s() - s.start);
    pthread_mutex_destroy(&s.lock);
    return s.failed;
}
