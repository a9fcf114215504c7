/* fuzz_pipeline.c - libFuzzer target over the whole main job: PNG bytes in,
 * decode (small pixel limit), lattice, simulate, render, quantise, GIF bytes
 * out, and the GIF read back. Options are small so each run is fast. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "image/animread.h"
#include "image/gif.h"
#include "image/image.h"
#include "image/lattice.h"
#include "sim/animate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image im;
    if (image_decode(data, size, 64 * 64, &im, NULL) != POYO_OK)
        return 0;
    animate_def d = animate_default_def();
    /* the last byte picks the impulse and a few options */
    uint8_t k = size ? data[size - 1] : 0;
    d.impulse.kind = (impulse_kind)(k % IMPULSE_COUNT);
    d.grid = LATTICE_GRID_MIN + (k >> 4) % (LATTICE_GRID_MAX - LATTICE_GRID_MIN + 1);
    d.width = d.height = 24 + (k >> 5);
    d.fps = 10;
    d.duration = 0.5;
    d.fit = (k & 8) ? FIT_NONE : FIT_AUTO;
    motion m;
    anim a;
    if (animate_simulate(&im, &d, &m, NULL) == POYO_OK) {
        if (animate_render(&im, &m, &d, &a, NULL) == POYO_OK) {
            bytebuf b = { NULL, 0, 0 };
            quantize_def q = quantize_default_def();
            q.colors = 2 + k % 255;
            if (gif_encode(&a, &q, &b, NULL, NULL) == POYO_OK) {
                anim back;
                if (anim_read(b.data, b.len, &back, NULL, NULL) != POYO_OK || back.count < 1)
                    abort(); /* what we write must read back */
                anim_free(&back);
            }
            bytebuf_free(&b);
            anim_free(&a);
        }
        motion_free(&m);
    }
    image_free(&im);
    return 0;
}
