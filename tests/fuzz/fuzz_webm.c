/* fuzz_webm.c - libFuzzer target over the WebM reader: webm_read with a small
 * canvas and frame budget (so each run stays fast), then the properties every
 * decoded animation and its facts must have. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_anim.h"
#include "image/webm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    anim a;
    webm_info info;
    poyo_error err;
    if (webm_read(data, size, FUZZ_MAX_CANVAS, (size_t)FUZZ_MAX_CANVAS * 4u * 64u, &a, &info, &err) != POYO_OK)
        return 0;
    if (a.width < 1 || a.height < 1 || a.count < 1 || !a.rgba || !a.hold || !info.delay_ms)
        abort();
    if ((long long)a.width * a.height > FUZZ_MAX_CANVAS || a.count > 64)
        abort();
    if (info.frames != a.count || info.width != a.width || info.height != a.height)
        abort();
    long long sum = 0;
    for (int i = 0; i < a.count; i++) {
        if (a.hold[i] < 1 || info.delay_ms[i] < 0)
            abort();
        sum += info.delay_ms[i];
    }
    if (sum != info.duration_ms)
        abort();
    volatile uint8_t last = anim_frame(&a, a.count - 1)[anim_frame_bytes(&a) - 1];
    (void)last;
    anim_free(&a);
    webm_info_free(&info);
    return 0;
}
