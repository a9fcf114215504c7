/* webpalpha.h - the alpha plane of a lossy WebP frame (its ALPH chunk):
 * filtered, then coded losslessly as a WebP lossless (VP8L) image stream. */
#ifndef POYO_WEBPALPHA_H
#define POYO_WEBPALPHA_H

#include <stddef.h>
#include <stdint.h>

#include "util/bytebuf.h"
#include "util/error.h"

/* Appends to out the payload of the ALPH chunk for the alpha bytes of a w x h
 * RGBA rectangle whose rows start stride bytes apart (its header byte, then
 * the image stream): exact, whatever the plane. */
poyo_status webp_alpha_encode(const uint8_t *rgba, int w, int h, size_t stride, bytebuf *out, poyo_error *err);

#endif
