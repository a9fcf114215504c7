/* toolutil.h - small helpers every test tool links (tests/tools/toolutil.c). */
#ifndef POYO_TOOLUTIL_H
#define POYO_TOOLUTIL_H

/* Milliseconds on the monotonic clock, from an arbitrary start. */
double now_ms(void);
/* qsort's comparison of two doubles, ascending. */
int cmp_d(const void *a, const void *b);

#endif
