/* test_memlimit.c - the memory bound: its default, its range, the one-line
 * refusal, and estimates that grow with what a clip holds. */
#include "test.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "image/memclip.h"
#include "sim/clip.h"
#include "util/memlimit.h"

static void sizes_read_as_people_write_them(void)
{
    char b[32];
    memlimit_format(512.0, b, sizeof b);
    ENSURE_MSG(strcmp(b, "512 bytes") == 0, "%s", b);
    memlimit_format(1073741824.0, b, sizeof b);
    ENSURE_MSG(strcmp(b, "1 GiB") == 0, "%s", b);
    memlimit_format(1.5 * 1073741824.0, b, sizeof b);
    ENSURE_MSG(strcmp(b, "1.5 GiB") == 0, "%s", b);
    memlimit_format(300.0 * 1048576.0, b, sizeof b);
    ENSURE_MSG(strcmp(b, "300 MiB") == 0, "%s", b);
}

static void the_bound_defaults_to_1_gib_and_stays_in_range(void)
{
    ENSURE(memlimit_get() == MEMLIMIT_DEFAULT_MEMORY && MEMLIMIT_DEFAULT_MEMORY == 1073741824LL);
    memlimit_set(1);
    ENSURE(memlimit_get() == MEMLIMIT_MIN_MEMORY);
    memlimit_set(MEMLIMIT_MAX_MEMORY * 4);
    ENSURE(memlimit_get() == MEMLIMIT_MAX_MEMORY);
    memlimit_set(MEMLIMIT_DEFAULT_MEMORY);
    ENSURE(memlimit_get() == MEMLIMIT_DEFAULT_MEMORY);
}

static void a_refusal_names_estimate_bound_and_options(void)
{
    poyo_error err;
    ENSURE(memlimit_check(1073741824.0, "x", NULL, POYO_ERR_INPUT, &err) == POYO_OK);
    ENSURE(memlimit_check(3.0 * 1073741824.0, "decoding it", NULL, POYO_ERR_INPUT, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strcmp(err.msg, "decoding it would take about 3 GiB, more than the 1 GiB memory limit; raise "
                               "--max-memory") == 0,
               "%s", err.msg);
    ENSURE(memlimit_check(1.002 * 1073741824.0, "x", NULL, POYO_ERR_INPUT, &err) == POYO_ERR_INPUT);
    ENSURE_MSG(strncmp(err.msg, "x would take about 1.002 GiB, more than the 1 GiB memory limit", 62) == 0, "%s",
               err.msg);
    memlimit_set(4LL * 1073741824);
    poyo_status st = memlimit_check(3.0 * 1073741824.0, "x", "--size", POYO_ERR_USAGE, &err);
    memlimit_set(MEMLIMIT_DEFAULT_MEMORY);
    ENSURE(st == POYO_OK);
    ENSURE(clip_check_memory(250, 2048, 2048, "--size, --fps or --duration", &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strcmp(err.msg, "250 frames of 2048x2048 would take about 3.91 GiB, more than the 1 GiB memory "
                               "limit; lower --size, --fps or --duration, or raise --max-memory") == 0,
               "%s", err.msg);
}

static void estimates_count_frames_renderer_encoder_and_budget(void)
{
    output_def od = output_default_def();
    image stamp = { 64, 64, NULL, NULL };
    memlimit_clip c = memlimit_clip_for(&stamp, 25, 512, 512, &od, "a.webm");
    ENSURE(c.format == FORMAT_WEBM && c.src_w == 64 && c.stamp == 1);
    ENSURE(memlimit_clip_for(NULL, 25, 512, 512, &od, "a.out").format == FORMAT_GIF);
    ENSURE(memlimit_clip_for(NULL, 25, 512, 512, &od, NULL).format == FORMAT_AUTO);
    double frames = memlimit_frames(25, 512, 512);
    memlimit_clip none = memlimit_clip_for(NULL, 25, 512, 512, &od, NULL);
    ENSURE_NEAR(memlimit_clip_bytes(&none), frames, 1.0);
    /* the renderer's float copy of the stamp, twice the canvas's resolution */
    memlimit_clip drawn = memlimit_clip_for(&stamp, 25, 512, 512, &od, NULL);
    ENSURE(memlimit_clip_bytes(&drawn) >= frames + 518.0 * 518.0 * 64.0);
    /* every encoder costs something beside the frames; dithering a GIF and the budget search more */
    out_format fmts[] = { FORMAT_GIF, FORMAT_APNG, FORMAT_WEBP, FORMAT_WEBM };
    for (int i = 0; i < 4; i++) {
        memlimit_clip e = none;
        e.format = fmts[i];
        double plain = memlimit_clip_bytes(&e);
        ENSURE(plain > frames);
        e.budget = 1;
        ENSURE(memlimit_clip_bytes(&e) > plain);
    }
    memlimit_clip g = none;
    g.format = FORMAT_GIF;
    double plain = memlimit_clip_bytes(&g);
    od.quant.dither = 1.0;
    ENSURE(memlimit_clip_bytes(&g) >= plain + 4.0 * 25 * 512 * 512);
    /* more frames, more memory */
    memlimit_clip more = g;
    more.count = 50;
    ENSURE(memlimit_clip_bytes(&more) > memlimit_clip_bytes(&g) + frames);
}

static int second_in; /* set by the second worker once its share is held */
static pthread_mutex_t second_lock = PTHREAD_MUTEX_INITIALIZER;

static void *second_worker(void *arg)
{
    (void)arg;
    memlimit_reserve(0.6 * 1073741824.0);
    pthread_mutex_lock(&second_lock);
    second_in = 1;
    pthread_mutex_unlock(&second_lock);
    memlimit_release(0.6 * 1073741824.0);
    return NULL;
}

static int second_is_in(void)
{
    pthread_mutex_lock(&second_lock);
    int in = second_in;
    pthread_mutex_unlock(&second_lock);
    return in;
}

static void workers_share_the_bound(void)
{
    /* two shares that fit together run together */
    memlimit_reserve(0.4 * 1073741824.0);
    memlimit_reserve(0.5 * 1073741824.0);
    memlimit_release(0.5 * 1073741824.0);
    /* 0.4 + 0.6 GiB fit the 1 GiB bound; 0.5 + 0.6 do not, so the second waits */
    memlimit_release(0.4 * 1073741824.0);
    memlimit_reserve(0.5 * 1073741824.0);
    pthread_t t;
    ENSURE(pthread_create(&t, NULL, second_worker, NULL) == 0);
    struct timespec pause = { 0, 100000000 };
    nanosleep(&pause, NULL);
    int early = second_is_in();
    memlimit_release(0.5 * 1073741824.0);
    pthread_join(t, NULL);
    ENSURE(!early);
    ENSURE(second_is_in());
    /* a share larger than the bound, alone, does not wait */
    memlimit_reserve(2.0 * 1073741824.0);
    memlimit_release(2.0 * 1073741824.0);
}

const struct test_case test_cases[] = {
    { "workers_share_the_bound", workers_share_the_bound },
    { "sizes_read_as_people_write_them", sizes_read_as_people_write_them },
    { "the_bound_defaults_to_1_gib_and_stays_in_range", the_bound_defaults_to_1_gib_and_stays_in_range },
    { "a_refusal_names_estimate_bound_and_options", a_refusal_names_estimate_bound_and_options },
    { "estimates_count_frames_renderer_encoder_and_budget", estimates_count_frames_renderer_encoder_and_budget },
    { NULL, NULL },
};
