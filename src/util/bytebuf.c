/* bytebuf.c - a growable byte buffer for encoders: doubling growth with overflow
 * checks, so a writer can append without knowing its output size in advance. */
#include "bytebuf.h"

#include <stdlib.h>
#include <string.h>

poyo_status bytebuf_reserve(bytebuf *b, size_t extra, poyo_error *err)
{
    if (extra <= b->cap - b->len)
        return POYO_OK;
    if (extra > SIZE_MAX - b->len)
        return poyo_fail(err, POYO_ERR_NOMEM, "output of more than %zu bytes does not fit in memory", b->len);
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %zu bytes of output", cap);
    b->data = p;
    b->cap = cap;
    return POYO_OK;
}

poyo_status bytebuf_append(bytebuf *b, const void *p, size_t n, poyo_error *err)
{
    if (n == 0)
        return POYO_OK;
    poyo_status st = bytebuf_reserve(b, n, err);
    if (st != POYO_OK)
        return st;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return POYO_OK;
}

void bytebuf_free(bytebuf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}
