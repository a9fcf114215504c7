/* psnr.c - how close an animation is to the frames it was made from.
 *   psnr FPS FRAMES_DIR FILE
 * FRAMES_DIR holds frame_NNNN.png at FPS frames per second (as poyo --frames
 * writes them); FILE is any GIF, APNG or WebP. Each reference frame is compared
 * with the frame FILE shows at that moment, both composited over mid-grey and
 * over white; prints the mean PSNR (dB) over grey, over white, and the file size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

#include "image/animread.h"
#include "util/fileio.h"

static double over(int c, int a, int bg) { return (c * a + bg * (255 - a)) / 255.0; }

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: psnr FPS FRAMES_DIR FILE\n");
        return 2;
    }
    double fps = atof(argv[1]);
    uint8_t *data;
    size_t len;
    poyo_error err;
    anim a;
    anim_meta m;
    if (file_read_all(argv[3], (size_t)1 << 30, &data, &len, &err) != POYO_OK ||
        anim_read(data, len, &a, &m, &err) != POYO_OK) {
        fprintf(stderr, "psnr: %s: %s\n", argv[3], err.msg);
        return 1;
    }
    double sum_g = 0, sum_w = 0;
    int n = 0;
    for (int i = 0;; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/frame_%04d.png", argv[2], i);
        int w, h, c;
        uint8_t *ref = stbi_load(path, &w, &h, &c, 4);
        if (!ref)
            break;
        if (w != a.width || h != a.height) {
            fprintf(stderr, "psnr: frame size %dx%d differs from %dx%d\n", w, h, a.width, a.height);
            stbi_image_free(ref);
            break;
        }
        /* the frame on screen at time i / fps */
        double t = i / fps * 1000.0 + 0.5, acc = 0;
        int f = 0;
        for (; f < a.count - 1; f++) {
            acc += m.delay_ms[f] > 0 ? m.delay_ms[f] : 0;
            if (acc > t)
                break;
        }
        const uint8_t *p = anim_frame(&a, f);
        double se_g = 0, se_w = 0;
        for (long k = 0; k < (long)w * h; k++)
            for (int ch = 0; ch < 3; ch++) {
                double dg = over(ref[4 * k + ch], ref[4 * k + 3], 128) - over(p[4 * k + ch], p[4 * k + 3], 128);
                double dw = over(ref[4 * k + ch], ref[4 * k + 3], 255) - over(p[4 * k + ch], p[4 * k + 3], 255);
                se_g += dg * dg;
                se_w += dw * dw;
            }
        double mse_g = se_g / (3.0 * w * h), mse_w = se_w / (3.0 * w * h);
        sum_g += mse_g > 1e-10 ? 10 * log10(255.0 * 255.0 / mse_g) : 99.0;
        sum_w += mse_w > 1e-10 ? 10 * log10(255.0 * 255.0 / mse_w) : 99.0;
        n++;
        stbi_image_free(ref);
    }
    if (n == 0) {
        fprintf(stderr, "psnr: no frames in %s\n", argv[2]);
        return 1;
    }
    printf("%.2f %.2f %zu\n", sum_g / n, sum_w / n, len);
    free(data);
    anim_free(&a);
    anim_meta_free(&m);
    return 0;
}
