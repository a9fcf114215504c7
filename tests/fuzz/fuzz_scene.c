/* fuzz_scene.c - libFuzzer target over the scene language: the bytes as text
 * (up to the first NUL) parsed for a 64 x 48 canvas; a parsed scene has at
 * least one shape and a finite distance everywhere on the canvas. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sdf_scene *sc = (sdf_scene *)text; /* must be overwritten */
    int col = -1;
    poyo_error err;
    if (scene_parse(text, 64, 48, &sc, &col, &err) == POYO_OK) {
        if (!sc || sdf_scene_count(sc) < 1)
            abort();
        for (int y = 0; y <= 48; y += 8)
            for (int x = 0; x <= 64; x += 8)
                if (isnan(sdf_eval(sc, v2_make(x, y))))
                    abort();
        sdf_scene_destroy(sc);
    } else if (sc || col < 0 || !err.msg[0]) {
        abort();
    }
    free(text);
    return 0;
}
