// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd reads the three HTTP-date forms RFC 9110 5.6.7
 * says a recipient must accept (httpd/http.c, for If-Modified-Since,
 * If-Unmodified-Since and If-Range): IMF-fixdate, RFC 850 and asctime,
 * each written by strftime() of gmtime_r() for every 7th day from 1900
 * to 2100 at another second, and must read back as that time; an RFC
 * 850 date's two-digit year as RFC 9110 says (more than 50 years ahead
 * is the past century's); malformed dates, impossible days and times,
 * and trailing bytes give -1.
 */
#include <time.h>

#include "test.h"
#include "../httpd/http.c"

static const struct {
	const char *date;	/* malformed or impossible */
} bad[] = {
	{ "" },
	{ "Sun, 06 Nov 1994 08:49:37" },	/* no GMT */
	{ "Sun, 06 Nov 1994 08:49:37 GMT " },	/* trailing space */
	{ "Sun, 6 Nov 1994 08:49:37 GMT" },	/* one-digit day */
	{ "Sun, 06 Nov 94 08:49:37 GMT" },	/* two-digit year */
	{ "Sun, 31 Nov 1994 08:49:37 GMT" },	/* no 31 November */
	{ "Tue, 29 Feb 1900 08:49:37 GMT" },	/* 1900 was not leap */
	{ "Sun, 06 Nov 1994 24:00:00 GMT" },
	{ "Sun, 06 Nov 1994 08:60:00 GMT" },
	{ "Sun, 06 Xyz 1994 08:49:37 GMT" },
	{ "Sunday, 06-Nov-1994 08:49:37 GMT" },	/* RFC 850: two digits */
	{ "Sun, 06-Nov-94 08:49:37 GMT" },	/* RFC 850 with a short day */
	{ "Sun Nov 6 08:49:37 1994" },		/* asctime: day is 2 wide */
	{ "Sun Nov  6 08:49:37 94" },
	{ "Sun Nov  6 08:49:37 1994 GMT" },
	{ "Xyz, 06 Nov 1994 08:49:37 GMT" },
	{ "sun, 06 nov 1994 08:49:37 gmt" },	/* case-sensitive */
	{ "1994-11-06T08:49:37Z" },
};

static int mismatches;

static void check(const char *fmt, const struct tm *tm, time_t want,
		  time_t now)
{
	char s[64];
	time_t got;

	strftime(s, sizeof(s), fmt, tm);
	got = parse_date_at(s, strlen(s), now);
	if (got != want && mismatches++ < 5)
		printf("    '%s': %lld, want %lld\n", s, (long long)got,
		       (long long)want);
}

int main(void)
{
	const time_t now = 1796342400;	/* 2026-12-04 */
	time_t t;
	struct tm tm;

	/* 1900-01-01 to 2100-12-31 */
	for (t = -2208988800LL; t < 4133980800LL; t += 7 * 86400 + 3607) {
		gmtime_r(&t, &tm);
		check("%a, %d %b %Y %H:%M:%S GMT", &tm, t, now);
		check("%a %b %e %H:%M:%S %Y", &tm, t, now);
	}
	t_check(!mismatches, "IMF-fixdate and asctime, 1900-2100, read back "
		"as written (%d wrong)", mismatches);

	mismatches = 0;
	/* RFC 850 in 1977-2076 from 2026: the century the rule gives */
	for (t = 220924800; t < 3376684800LL; t += 3 * 86400 + 3607) {
		gmtime_r(&t, &tm);
		check("%A, %d-%b-%y %H:%M:%S GMT", &tm, t, now);
	}
	t_check(!mismatches, "RFC 850, 1977-2076 read from 2026 (%d wrong)",
		mismatches);

	t = parse_date_at("Sunday, 06-Nov-94 08:49:37 GMT", 30, now);
	t_check(t == 784111777, "RFC 850's example is 1994 in 2026 (%lld)",
		(long long)t);
	t = parse_date_at("Friday, 06-Nov-76 08:49:37 GMT", 30, now);
	t_check(t == 3371878177LL, "'76 in 2026 is 2076, 50 years ahead "
		"(%lld)", (long long)t);
	t = parse_date_at("Sunday, 06-Nov-77 08:49:37 GMT", 30, now);
	t_check(t == 247654177, "'77 in 2026 is 1977, as 2077 is 51 years "
		"ahead (%lld)", (long long)t);
	t_check_res(http_parse_date("Sun, 06 Nov 1994 08:49:37 GMT", 29),
		    784111777, "IMF-fixdate's example");
	t_check_res(http_parse_date("Sun Nov  6 08:49:37 1994", 24), 784111777,
		    "asctime's example");
	t_check_res(http_parse_date("Thu, 29 Feb 2024 00:00:00 GMT", 29),
		    1709164800, "a leap day");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		t_check_res(http_parse_date(bad[i].date, strlen(bad[i].date)),
			    -1, "'%s' is no date", bad[i].date);
	return t_exit();
}
