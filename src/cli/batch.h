/* batch.h - the front end's job runner for many inputs: -j workers, a progress
 * bar on a terminal, JSON lines, a summary, and clean interrupts (temporary
 * files removed, finished outputs kept). Front-end code: it prints. */
#ifndef POYO_BATCH_H
#define POYO_BATCH_H

#include <stddef.h>

#define BATCH_TMP_MAX 4096

/* One input and what became of it. */
typedef struct batch_job {
    const char *input;      /* as given, or found in a directory */
    int owned;              /* 1 when input was allocated for the job (the caller frees it) */
    size_t root_len;        /* found in a directory input: the length of that directory's name, else 0 */
    char *output;           /* where it goes; NULL = not written (frames or sheet only) */
    int failed;             /* 1 after a failure */
    int skipped;            /* 1 when its output existed and batch_ui.skip_existing left it alone */
    char *error;            /* the failure, one sentence, without the "poyo: FILE: " prefix
                               (batch_job_say; freed once said, as note and search are) */
    const char *error_what; /* the FILE of that message (the input, the output, ...); NULL = the input */
    char *note;             /* on success, a line about the output (NULL = none), without the prefix;
                               said for the output (else the input) when the job is done */
    /* filled on success */
    size_t bytes;
    int width, height, frames;
    double duration, ms;
    int has_strength;       /* 1 when an impulse made the clip, at this strength */
    double strength;
    int budgeted;           /* 1 when the --max-bytes search made the file */
    double psnr_lost;       /* its PSNR lost against the file without a budget, dB */
    char *search;           /* what it chose ("48 colours, 12.5 fps, 15 frames, 128x128") */
} batch_job;

/* Does one job in worker slot `slot` (0 .. workers - 1); returns 0 on success.
 * tmp (BATCH_TMP_MAX bytes) is the slot's temporary-file name register for
 * file_write_atomic, cleaned up if the run is interrupted. */
/* Sets *text (a job's error, note or search) to the formatted line; a job
 * holds its lines only until they are said, so a batch's memory does not grow
 * with its number of files. Out of memory, *text is NULL. */
void batch_job_say(char **text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef int (*batch_fn)(void *ctx, batch_job *job, int slot, char *tmp);

typedef struct batch_ui {
    int quiet;      /* errors only */
    int verbose;    /* a line per file written */
    int json;       /* a JSON object per job on standard output */
    int summary;    /* a summary line at the end */
    int skip_existing; /* a job whose output already exists is skipped before it runs */
} batch_ui;

/* Runs the jobs with `workers` threads (1 = in this thread). Prints each
 * failure as it happens, the progress bar when standard error is a terminal,
 * and the summary. With ui->skip_existing, a job whose output exists (after
 * name clashes are settled) is marked skipped and fn is never called for it.
 * Returns the number of failed jobs. */
int batch_run(batch_job *jobs, int n, int workers, batch_fn fn, void *ctx, const batch_ui *ui);
/* For a command that writes its outputs one at a time without batch_run: until
 * batch_untrap, SIGINT and SIGTERM remove the temporary file named in the
 * returned register (BATCH_TMP_MAX bytes, to hand to file_write_atomic or an
 * output_def) and then end the process as the signal would. */
char *batch_trap(void);
/* Restores the handlers batch_trap replaced (a no-op without batch_trap). */
void batch_untrap(void);
/* Number of processors this process may run on (workers_cpus), at least 1. */
int batch_cores(void);
/* Prints the JSON object for a job on standard output (one line). */
void batch_print_json(const batch_job *job);

#endif
