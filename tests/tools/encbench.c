/* encbench.c - times the encoders on the same frames for `make bench`.
 *   encbench [-n RUNS] [-s SIZE] [-f FPS] [-d SECONDS] [-p PRESET] [-m M] [-M M] [-e ENCODER] INPUT.png
 * Draws one clip (the main job's default squash; a preset sets size, frame
 * rate, clip length and its formats' settings, as `poyo -p` does), then
 * encodes it RUNS times (default 9) as GIF (its palette included), APNG,
 * lossless WebP and lossy WebP, each on one thread and then on two (as a
 * single file is written), and prints per encoder the median
 * milliseconds, the quartiles, the bytes and the median as a ratio to the
 * GIF's on as many threads. -m and -M
 * set libwebp's effort (0-6) for lossless and lossy WebP; -e times only the
 * encoder of that name (as printed), for a profiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/preset.h"
#include "image/output.h"
#include "sim/animate.h"

#include "toolutil.h"

/* The q-quantile (0..1) of n sorted values, the nearest rank. */
static double quantile(const double *v, int n, double q)
{
    int k = (int)(q * (n - 1) + 0.5);
    return v[k];
}

int main(int argc, char **argv)
{
    int runs = 9, size = 128, ll_method = -1, lossy_method = -1;
    double fps = 0.0, dur = 2.0;
    const char *in = NULL, *pname = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-f") && i + 1 < argc)
            fps = atof(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            dur = atof(argv[++i]);
        else if (!strcmp(argv[i], "-p") && i + 1 < argc)
            pname = argv[++i];
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            ll_method = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-M") && i + 1 < argc)
            lossy_method = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-e") && i + 1 < argc)
            only = argv[++i];
        else
            in = argv[i];
    }
    const preset_info *p = pname ? preset_lookup(pname) : NULL;
    if (!in || runs < 1 || runs > 1000 || (pname && !p)) {
        fprintf(stderr, "usage: encbench [-n RUNS] [-s SIZE] [-f FPS] [-d SECONDS] [-p PRESET] [-m M] [-M M] [-e ENCODER] INPUT.png\n");
        return 2;
    }
    poyo_error err;
    image im;
    if (image_load(in, 1 << 24, &im, &err) != POYO_OK) {
        fprintf(stderr, "encbench: %s: %s\n", in, err.msg);
        return 1;
    }
    animate_def d = animate_default_def();
    output_def od = output_default_def();
    d.width = d.height = size;
    d.duration = dur;
    if (p)
        preset_apply(p, &d, &od, NULL);
    if (fps > 0.0)
        d.fps = fps;
    motion m;
    anim a;
    if (animate_simulate(&im, &d, &m, &err) != POYO_OK || animate_render(&im, &m, &d, &a, &err) != POYO_OK) {
        fprintf(stderr, "encbench: %s: %s\n", in, err.msg);
        return 1;
    }
    if (ll_method >= 0)
        od.webp.lossless_method = ll_method;
    if (lossy_method >= 0)
        od.webp.method = lossy_method;
    /* a preset's own lossy WebP, or quality 80 (the lossy default) */
    output_def lossy = od;
    lossy.webp.lossy = 1;
    static const struct { const char *name; out_format f; int lossy, threads; } enc[] = {
        { "gif", FORMAT_GIF, 0, 1 },        { "gif 2t", FORMAT_GIF, 0, 2 },
        { "apng", FORMAT_APNG, 0, 1 },      { "webp", FORMAT_WEBP, 0, 1 },
        { "webp-lossy", FORMAT_WEBP, 1, 1 }, { "apng 2t", FORMAT_APNG, 0, 2 },
        { "webp 2t", FORMAT_WEBP, 0, 2 },   { "webp-lossy 2t", FORMAT_WEBP, 1, 2 },
    };
    enum { NENC = sizeof enc / sizeof enc[0] };
    /* each row's ratio is to the GIF written on as many threads */
    double *t = calloc((size_t)runs, sizeof *t), gif_ms[3] = { 0.0, 0.0, 0.0 };
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    printf("%s: %dx%d, %d frames%s%s\n", base, a.width, a.height, a.count, p ? ", preset " : "", p ? p->name : "");
    for (int e = 0; e < NENC; e++) {
        if (only && strcmp(only, enc[e].name) != 0)
            continue;
        size_t bytes = 0;
        output_set_threads(&od, enc[e].threads);
        output_set_threads(&lossy, enc[e].threads);
        for (int r = 0; r < runs; r++) {
            bytebuf b = { NULL, 0, 0 };
            double t0 = now_ms();
            if (output_encode(&a, enc[e].f, enc[e].lossy ? &lossy : &od, &b, &err) != POYO_OK) {
                fprintf(stderr, "encbench: %s: %s\n", enc[e].name, err.msg);
                return 1;
            }
            t[r] = now_ms() - t0;
            bytes = b.len;
            bytebuf_free(&b);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_d);
        double med = quantile(t, runs, 0.5);
        if (enc[e].f == FORMAT_GIF)
            gif_ms[enc[e].threads] = med;
        printf("  %-13s %8.1f ms (%.1f-%.1f) %9zu bytes", enc[e].name, med, quantile(t, runs, 0.25),
               quantile(t, runs, 0.75), bytes);
        if (gif_ms[enc[e].threads] > 0.0)
            printf("  x%.2f of GIF%s", med / gif_ms[enc[e].threads], enc[e].threads > 1 ? " 2t" : "");
        printf("\n");
    }
    free(t);
    anim_free(&a);
    motion_free(&m);
    image_free(&im);
    return 0;
}
