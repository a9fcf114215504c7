/* bytebuf.h - a growable byte buffer that encoders write into; the caller
 * decides where the bytes go (a file written atomically, stdout, a test). */
#ifndef POYO_BYTEBUF_H
#define POYO_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct bytebuf {
    uint8_t *data;   /* len valid bytes, owned; NULL while empty */
    size_t len;      /* bytes written */
    size_t cap;      /* bytes allocated */
} bytebuf;

/* Makes room for at least extra more bytes beyond len. */
poyo_status bytebuf_reserve(bytebuf *b, size_t extra, poyo_error *err);
/* Appends n bytes copied from p (p may be NULL when n is 0). */
poyo_status bytebuf_append(bytebuf *b, const void *p, size_t n, poyo_error *err);
/* Frees the bytes and zeroes *b; a no-op on NULL or a zeroed buffer. */
void bytebuf_free(bytebuf *b);

#endif
