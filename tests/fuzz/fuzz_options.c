/* fuzz_options.c - libFuzzer target over the option parser of the main job,
 * the scene language and the path waypoints: the input is split into argv
 * words at newlines; the first byte chooses what parses them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "geom/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    if (data[0] % 2 == 0) {
        char *argv[130];
        int argc = 0;
        argv[argc++] = "poyo";
        char *p = buf;
        while (argc < 128 && p < buf + size - 1) {
            argv[argc++] = p;
            char *nl = strchr(p, '\n');
            if (!nl)
                break;
            *nl = '\0';
            p = nl + 1;
        }
        argv[argc] = NULL;
        int rc = cmd_animate_parse(argc, argv);
        if (rc != 0 && rc != 2)
            abort();
    } else {
        sdf_scene *sc = NULL;
        int col = 0;
        if (scene_parse(buf, 64 + data[0], 48, &sc, &col, NULL) == POYO_OK)
            sdf_scene_destroy(sc);
    }
    free(buf);
    return 0;
}
