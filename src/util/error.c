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

poyo_status poyo_check_range(poyo_error *err, const char *opt, double v, double lo, double hi, const char *unit)
{
    if (v >= lo && v <= hi)
        return POYO_OK;
    return poyo_fail(err, POYO_ERR_USAGE, "%s: must be %g to %g%s%s, not %g", opt, lo, hi, *unit ? " " : "", unit, v);
}
