/* memlimit.c - the one memory bound of a run, the work held against it by
 * batch workers, and the check that refuses work above it. The estimates
 * follow the allocations they describe (frames, decoders) and round up. */
#include "memlimit.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long memory_bound = MEMLIMIT_DEFAULT_MEMORY;

void memlimit_set(long long bytes)
{
    memory_bound = bytes < MEMLIMIT_MIN_MEMORY   ? MEMLIMIT_MIN_MEMORY
                   : bytes > MEMLIMIT_MAX_MEMORY ? MEMLIMIT_MAX_MEMORY
                                                 : bytes;
}

long long memlimit_get(void)
{
    return memory_bound;
}

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_freed = PTHREAD_COND_INITIALIZER;
static double held; /* bytes reserved by work running now */

void memlimit_reserve(double bytes)
{
    pthread_mutex_lock(&held_lock);
    /* alone it always fits: the check before let it through */
    while (held > 0.0 && held + bytes > (double)memory_bound)
        pthread_cond_wait(&held_freed, &held_lock);
    held += bytes;
    pthread_mutex_unlock(&held_lock);
}

void memlimit_release(double bytes)
{
    pthread_mutex_lock(&held_lock);
    held -= bytes;
    if (held < 0.5)
        held = 0.0;
    pthread_cond_broadcast(&held_freed);
    pthread_mutex_unlock(&held_lock);
}

void memlimit_format(double bytes, char *buf, size_t cap)
{
    static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0 || bytes >= 100.0 || fabs(bytes - round(bytes)) < 0.005)
        snprintf(buf, cap, "%.0f %s", round(bytes), units[u]);
    else
        snprintf(buf, cap, "%.*f %s", bytes < 10.0 && fabs(bytes * 10.0 - round(bytes * 10.0)) >= 0.05 ? 2 : 1,
                 bytes, units[u]);
}

poyo_status memlimit_check(double bytes, const char *what, const char *lower, poyo_status st, poyo_error *err)
{
    if (!(bytes > (double)memory_bound) && isfinite(bytes))
        return POYO_OK;
    char need[32], have[32];
    memlimit_format(bytes, need, sizeof need);
    memlimit_format((double)memory_bound, have, sizeof have);
    if (strcmp(need, have) == 0) /* just over: as many digits as tell them apart */
        snprintf(need, sizeof need, "%.3f %s", bytes / (double)memory_bound * atof(have), strchr(have, ' ') + 1);
    return poyo_fail(err, st, "%s would take about %s, more than the %s memory limit; %s%s%sraise --max-memory", what,
                     need, have, lower ? "lower " : "", lower ? lower : "", lower ? ", or " : "");
}

double memlimit_frames(int count, int w, int h)
{
    return (double)count * ((double)w * h * 4.0 + sizeof(int));
}

/* stb_image holds a PNG's inflated rows beside the pixels it returns (16-bit
 * samples twice over) and a JPEG's planes; libwebp and giflib one canvas and
 * rows; librsvg a cairo surface beside the copy. Four bytes a pixel for the
 * pixels and eight for the decoder's work cover each. */
double memlimit_decode(double w, double h)
{
    return w * h * 12.0;
}
