/* SPDX-License-Identifier: MIT */
/*
 * stats.h: the figure reported for a set of measurements (their mean or
 * median) and its spread, for every report of the tree:
 * bench/bench-report.c, bench/httpd/versus.c and profile/profile-report.c.
 *
 * The spread is defined here, once: the largest measurement minus the
 * smallest, in % of the figure reported for them. Rounds of one cell,
 * boots of one spread check and estimates of one profile all use it.
 */
#ifndef NOFD_STATS_H
#define NOFD_STATS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double stats_mean(const double *v, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : NAN;
}

static inline int stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double stats_median(const double *v, int n)
{
	double s[n ? n : 1];

	if (!n)
		return NAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), stats_cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The smallest and the largest of the @n values @v (NaNs left out) */
static inline void stats_range(const double *v, int n, double *lo,
			       double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

/* (largest - smallest) of the @n values @v, in % of @figure */
static inline double stats_spread(const double *v, int n, double figure)
{
	double lo, hi;

	stats_range(v, n, &lo, &hi);
	return n && figure ? 100 * (hi - lo) / figure : NAN;
}

#endif
