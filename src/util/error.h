/* error.h - how modules report failure: a status code plus one sentence.
 * Modules never print or exit; main turns this into "poyo: FILE: message". */
#ifndef POYO_ERROR_H
#define POYO_ERROR_H

typedef enum poyo_status {
    POYO_OK = 0,
    POYO_ERR_INPUT,   /* the input data cannot be used (corrupt, empty, too big, ...) */
    POYO_ERR_USAGE,   /* a parameter is out of range or malformed */
    POYO_ERR_IO,      /* reading or writing a file failed */
    POYO_ERR_NOMEM    /* an allocation failed */
} poyo_status;

/* One human-readable sentence, no trailing newline, no program or file prefix. */
typedef struct poyo_error { char msg[320]; } poyo_error;

/* Formats the message into *err (err may be NULL) and returns st. */
poyo_status poyo_fail(poyo_error *err, poyo_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* POYO_OK when lo <= v <= hi; else fails with POYO_ERR_USAGE and "OPT: must be LO
 * to HI[ UNIT], not V" (unit "" for none), the one shape of a range's message. */
poyo_status poyo_check_range(poyo_error *err, const char *opt, double v, double lo, double hi, const char *unit);

#endif
