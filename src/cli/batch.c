/* batch.c - runs many independent jobs on worker threads: each worker takes
 * the next job, failures are named as they happen, a progress bar is drawn
 * when standard error is a terminal, and SIGINT/SIGTERM remove the temporary
 * files being written before the process ends (finished outputs stay). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "batch.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util/workers.h"

#define MAX_WORKERS 256

/* Temporary-file names being written, one per worker; read by the signal handler. */
static char g_tmp[MAX_WORKERS][BATCH_TMP_MAX];
static int g_workers;

static struct sigaction g_old_int, g_old_term;
static int g_trapped;

static void on_signal(int sig)
{
    for (int i = 0; i < g_workers; i++)
        if (g_tmp[i][0])
            unlink(g_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* From now on SIGINT and SIGTERM remove the temporary files named in the
 * first `workers` registers, then end the process as the signal would. */
static void trap_signals(int workers)
{
    memset(g_tmp, 0, sizeof g_tmp[0] * (size_t)workers);
    g_workers = workers;
    if (g_trapped)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
    g_trapped = 1;
}

void batch_untrap(void)
{
    if (!g_trapped)
        return;
    sigaction(SIGINT, &g_old_int, NULL);
    sigaction(SIGTERM, &g_old_term, NULL);
    g_trapped = 0;
}

char *batch_trap(void)
{
    trap_signals(1);
    return g_tmp[0];
}

int batch_cores(void)
{
    int n = workers_cpus();
    return n > MAX_WORKERS ? MAX_WORKERS : n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct run_state {
    batch_job *jobs;
    int n, next, done, failed, skipped;
    batch_fn fn;
    void *ctx;
    const batch_ui *ui;
    int bar;            /* draw the progress bar */
    double start, last_draw;
    pthread_mutex_t lock;
} run_state;

void batch_print_json(const batch_job *j)
{
    printf("{\"input\": ");
    cli_json_string(stdout, j->input);
    printf(", \"output\": ");
    if (j->output && !j->failed)
        cli_json_string(stdout, j->output);
    else
        printf("null");
    if (j->skipped) {
        printf(", \"status\": \"skipped\", \"milliseconds\": %.1f}\n", j->ms);
    } else if (j->failed) {
        printf(", \"status\": \"error\", \"error\": ");
        cli_json_string(stdout, j->error ? j->error : "out of memory");
        printf(", \"milliseconds\": %.1f}\n", j->ms);
    } else {
        printf(", \"status\": \"ok\", \"bytes\": %zu, \"width\": %d, \"height\": %d, \"frames\": %d, "
               "\"duration\": %.3f, ",
               j->bytes, j->width, j->height, j->frames, j->duration);
        if (j->has_strength)
            printf("\"strength\": %.4g, ", j->strength);
        if (j->budgeted) {
            if (isfinite(j->psnr_lost))
                printf("\"psnr_lost\": %.2f, \"search\": ", j->psnr_lost);
            else
                printf("\"psnr_lost\": null, \"search\": ");
            cli_json_string(stdout, j->search ? j->search : "");
            printf(", ");
        }
        printf("\"milliseconds\": %.1f}\n", j->ms);
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

/* Not under AddressSanitizer, whose allocator is not glibc's. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POYO_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define POYO_ASAN 1
#endif

/* A file's buffers (its frames, indices, the renderer's source, the encoded
 * file: up to a few MiB) come from the workers' heaps, and the next file
 * reuses the same pages: mapped for each file and unmapped when it was done
 * (blocks of 64 KiB or more), the page faults, zeroing and unmapping took a
 * third of a batch (3,786 Twemoji: 1.43 M page faults, 0.45 M on the heaps). A heap
 * keeps at most 16 MiB free at its top, room for the huge pages a large
 * image's decoding is given (hugemem_prefer); glibc's default threshold rises
 * with every large block freed, and a heap then kept the peak of the largest
 * file seen, 35 MiB each, so a batch's memory grew with its files. */
static void fix_mmap_threshold(void)
{
#ifndef POYO_ASAN
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 16 * 1024 * 1024);
#endif
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
        int rc = j->failed ? 1 : j->skipped ? 0 : s->fn(s->ctx, j, slot, g_tmp[slot]);
        j->ms = (now_s() - t0) * 1000.0;
        if (rc)
            j->failed = 1;
        pthread_mutex_lock(&s->lock);
        s->done++;
        if (j->failed) {
            s->failed++;
            if (s->bar)
                fputs("\r\033[K", stderr);
            cli_error(j->error_what ? j->error_what : j->input, "%s", j->error ? j->error : "out of memory");
        } else if (j->skipped) {
            s->skipped++;
            if (s->ui->verbose) {
                if (s->bar)
                    fputs("\r\033[K", stderr);
                cli_note(j->input, "skipped: %s exists", j->output);
            }
        } else {
            if (j->note) {
                if (s->bar)
                    fputs("\r\033[K", stderr);
                cli_note(j->output ? j->output : j->input, "%s", j->note);
            }
            if (s->ui->verbose) {
                if (s->bar)
                    fputs("\r\033[K", stderr);
                cli_note(j->input, "wrote %s (%dx%d, %d frames, %.2f s, %zu bytes)",
                         j->output ? j->output : "frames", j->width, j->height, j->frames, j->duration, j->bytes);
            }
        }
        if (s->ui->json)
            batch_print_json(j);
        free(j->error);
        free(j->note);
        free(j->search);
        j->error = j->note = j->search = NULL;
        if (s->bar)
            draw_bar(s, 0);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

/* A file's identity, or dev = ino = 0 when it cannot be looked at. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    int ok;
} file_id;

static file_id id_of(const char *path)
{
    file_id id = { 0, 0, 0 };
    struct stat st;
    if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0) {
        id.dev = st.st_dev;
        id.ino = st.st_ino;
        id.ok = 1;
    }
    return id;
}

static int same_id(file_id a, file_id b)
{
    return a.ok && b.ok && a.dev == b.dev && a.ino == b.ino;
}

/* The output's path with its folder resolved (realpath of the folder, then
 * the name), so ./a.gif, a.gif and dir/../a.gif compare equal; malloc'ed, or
 * NULL when the folder does not exist (the job will say so). */
static char *resolved_output(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    if (!dir)
        return NULL;
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(real) + strlen(base) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", real, base);
    free(real);
    return out;
}

void batch_job_say(char **text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    free(*text);
    *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (*text) {
        va_start(ap, fmt);
        vsnprintf(*text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
}

static void job_skip(batch_job *j, const char *what, const char *fmt, const char *a, const char *b)
{
    j->failed = 1;
    j->error_what = what;
    batch_job_say(&j->error, fmt, a, b);
}

static void job_refuse(batch_job *j, const char *what, const char *msg)
{
    j->failed = 1;
    j->error_what = what;
    batch_job_say(&j->error, "%s", msg);
}

/* Settles clashes before any job runs, so the outcome never depends on which
 * worker finishes first: a job whose output resolves to the same file as an
 * earlier job's output, or whose input is the same file as an earlier job's
 * input, is skipped as a name clash (the first in order wins); an output that
 * is the input of any job is refused. */
static void settle_clashes(batch_job *jobs, int n)
{
    if (n <= 0)
        return;
    file_id *in = calloc((size_t)n, sizeof *in);
    char **res = calloc((size_t)n, sizeof *res);
    if (!in || !res) {
        free(in);
        free(res);
        return;
    }
    for (int i = 0; i < n; i++)
        in[i] = id_of(jobs[i].input);
    for (int i = 0; i < n; i++) {
        batch_job *j = &jobs[i];
        if (j->failed)
            continue;
        int has_out = j->output && strcmp(j->output, "-") != 0;
        res[i] = has_out ? resolved_output(j->output) : NULL;
        for (int k = 0; k < i && !j->failed; k++) {
            const batch_job *e = &jobs[k];
            if (e->failed)
                continue;
            if (res[i] && res[k] && strcmp(res[i], res[k]) == 0)
                job_skip(j, j->input, "%.150s would also be written for %.150s; skipped (name clash)", j->output,
                         e->input);
            else if (same_id(in[i], in[k]))
                job_skip(j, j->input, "%.150s is the same file as %.150s; skipped (name clash)", j->input, e->input);
        }
        if (j->failed || !has_out)
            continue;
        file_id out = id_of(j->output);
        for (int k = 0; k < n && !j->failed; k++)
            if (same_id(out, in[k]))
                job_refuse(j, j->output, k == i ? "is the input file; refusing to overwrite it"
                                                : "is an input file; refusing to overwrite it");
    }
    for (int i = 0; i < n; i++)
        free(res[i]);
    free(res);
    free(in);
}

/* Marks every job whose output already exists as skipped (lstat: a link,
 * dangling or not, counts as existing). */
static void mark_existing(batch_job *jobs, int n)
{
    struct stat st;
    for (int i = 0; i < n; i++) {
        batch_job *j = &jobs[i];
        if (!j->failed && j->output && strcmp(j->output, "-") != 0 && lstat(j->output, &st) == 0)
            j->skipped = 1;
    }
}

int batch_run(batch_job *jobs, int n, int workers, batch_fn fn, void *ctx, const batch_ui *ui)
{
    settle_clashes(jobs, n);
    if (ui->skip_existing)
        mark_existing(jobs, n);
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
    fix_mmap_threshold();
    pthread_mutex_init(&s.lock, NULL);
    trap_signals(workers);
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
    batch_untrap();
    if (s.bar)
        draw_bar(&s, 1);
    if (ui->summary && !ui->quiet && ui->skip_existing)
        cli_note(NULL, "%d written, %d skipped, %d failed (%.1f s)", n - s.failed - s.skipped, s.skipped, s.failed,
                 now_s() - s.start);
    else if (ui->summary && !ui->quiet)
        cli_note(NULL, "%d written, %d failed (%.1f s)", n - s.failed, s.failed, now_s() - s.start);
    pthread_mutex_destroy(&s.lock);
    return s.failed;
}
