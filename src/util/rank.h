/* rank.h - order statistics: the k-th smallest of a set of numbers, found by
 * selection (Hoare's quickselect) in linear time on average, not by sorting. */
#ifndef POYO_RANK_H
#define POYO_RANK_H

/* The k-th smallest (0 <= k < n) of v[0..n-1], which it reorders. */
double rank_kth(double *v, int n, int k);

#endif
