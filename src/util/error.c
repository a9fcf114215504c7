/* error.c - fills a poyo_error with one formatted sentence. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

poyo_status poyo_fail(poyo_error *err, poyo_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}
