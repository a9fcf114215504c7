/* stagebench.c - times each stage of the main job for `make bench`.
 *   stagebench [-n RUNS] [-s SIZE] [-d SECONDS] [-t THREADS] INPUT.png
 * Prints the median milliseconds of load, simulate, render, quantise and
 * encode over RUNS runs (default 15), and the output's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/gif.h"
#include "sim/animate.h"
#include "util/fileio.h"

#include "toolutil.h"

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int runs = 15, size = 128, threads = 1;
    double dur = 2.0;
    const char *in = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            dur = atof(argv[++i]);
        else
            in = argv[i];
    }
    if (!in || runs < 1 || runs > 1000) {
        fprintf(stderr, "usage: stagebench [-n RUNS] [-s SIZE] [-d SECONDS] INPUT.png\n");
        return 2;
    }
    double *t[5];
    for (int k = 0; k < 5; k++)
        t[k] = calloc((size_t)runs, sizeof(double));
    size_t bytes = 0;
    int frames = 0;
    for (int r = 0; r < runs; r++) {
        poyo_error err;
        double t0 = now_ms();
        uint8_t *data;
        size_t len;
        image im;
        if (file_read_all(in, (size_t)1 << 30, &data, &len, &err) != POYO_OK ||
            image_decode(data, len, 1 << 24, &im, &err) != POYO_OK) {
            fprintf(stderr, "stagebench: %s: %s\n", in, err.msg);
            return 1;
        }
        free(data);
        double t1 = now_ms();
        animate_def d = animate_default_def();
        d.width = d.height = size;
        d.duration = dur;
        d.threads = threads;
        motion m;
        anim a;
        if (animate_simulate(&im, &d, &m, &err) != POYO_OK) {
            fprintf(stderr, "stagebench: %s\n", err.msg);
            return 1;
        }
        double t2 = now_ms();
        if (animate_render(&im, &m, &d, &a, &err) != POYO_OK) {
            fprintf(stderr, "stagebench: %s\n", err.msg);
            return 1;
        }
        double t3 = now_ms();
        bytebuf b = { NULL, 0, 0 };
        gif_stats gs;
        quantize_def q = quantize_default_def();
        q.threads = threads < 1 ? 1 : threads > WORKERS_MAX ? WORKERS_MAX : threads;
        if (gif_encode(&a, &q, &b, &gs, &err) != POYO_OK) {
            fprintf(stderr, "stagebench: %s\n", err.msg);
            return 1;
        }
        t[0][r] = t1 - t0;
        t[1][r] = t2 - t1;
        t[2][r] = t3 - t2;
        t[3][r] = gs.quantize_ms;
        t[4][r] = gs.encode_ms;
        bytes = b.len;
        frames = a.count;
        bytebuf_free(&b);
        anim_free(&a);
        motion_free(&m);
        image_free(&im);
    }
    printf("%-28s load %6.2f  simulate %6.2f  render %6.2f  quantise %6.2f  encode %6.2f ms  (%d frames, %zu bytes)\n",
           strrchr(in, '/') ? strrchr(in, '/') + 1 : in, median(t[0], runs), median(t[1], runs), median(t[2], runs),
           median(t[3], runs), median(t[4], runs), frames, bytes);
    for (int k = 0; k < 5; k++)
        free(t[k]);
    return 0;
}
