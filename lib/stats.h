/* SPDX-License-Identifier: MIT */
/*
 * stats.h: the figure reported for a set of measurements (their mean or
 * median) and its spread, for every report of the tree: bench/report.c,
 * httpd/versus.c and profile/report.c.
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
	double s[n ? n : 1], m;

	if (!n)
		return NAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), stats_cmp);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return m;
}

/* (largest - smallest) of the @n values @v, in % of @figure */
static inline double stats_spread(const double *v, int n, double figure)
{
	double lo = v[0], hi = v[0];

	for (int i = 1; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return n && figure ? 100 * (hi - lo) / figure : NAN;
}

#endif
