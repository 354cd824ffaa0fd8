// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's own formatting (httpd/http.c) writes what
 * libc writes. The server formats its dates and numbers without
 * gmtime_r(), strftime() and snprintf(), which cost it more than a third
 * of its instructions per request: http_date() must equal strftime("%a,
 * %d %b %Y %H:%M:%S GMT") of gmtime_r(), http_log_date() strftime("%d/%b/
 * %Y:%H:%M:%S +0000"), for every day from 1899 to 2101 (each at another
 * second) and every 97th day from the year 1000 to 9999, both sides of
 * each leap day of those; http_put_uint() equal "%llu"; an http_out cuts
 * what does not fit and writes nothing past its end. Times past the year
 * 9999 or before 0 are written as the last or first second of those.
 */
#include <stdint.h>
#include <time.h>

#include "test.h"
#include "../httpd/http.c"

static int bad_dates;

static void check_date(time_t t)
{
	char want[64], want_log[64], got[HTTP_DATE_LEN + 8],
	     got_log[HTTP_LOG_DATE_LEN + 8];
	struct tm tm;

	t_assert(gmtime_r(&t, &tm), "gmtime_r(%lld)", (long long)t);
	strftime(want, sizeof(want), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	strftime(want_log, sizeof(want_log), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	memset(got, 'x', sizeof(got));
	memset(got_log, 'x', sizeof(got_log));
	http_date(t, got);
	http_log_date(t, got_log);
	if (strcmp(got, want) || strcmp(got_log, want_log) ||
	    got[HTTP_DATE_LEN] != 'x' || got_log[HTTP_LOG_DATE_LEN] != 'x') {
		if (bad_dates++ < 5)
			printf("    %lld: '%s' '%s', want '%s' '%s'\n",
			       (long long)t, got, got_log, want, want_log);
	}
}

static time_t utc(int year, int month, int day)
{
	struct tm tm = { .tm_year = year - 1900, .tm_mon = month - 1,
			 .tm_mday = day };

	return timegm(&tm);
}

int main(void)
{
	static const uint64_t numbers[] = {
		0, 1, 9, 10, 99, 100, 1023, 1024, 65536, 1048576,
		4294967295ull, 4294967296ull, 999999999999999999ull,
		10000000000000000000ull, UINT64_MAX,
	};
	char buf[32], want[32], date[HTTP_DATE_LEN];
	struct http_out o;
	int n = 0;

	for (time_t t = utc(1899, 1, 1); t < utc(2102, 1, 1); t += 86400 + 7) {
		check_date(t);
		n++;
	}
	for (time_t t = utc(1000, 1, 1); t < utc(10000, 1, 1);
	     t += 97 * 86400 + 3607) {
		check_date(t);
		n++;
	}
	for (int y = 1000; y < 10000; y += 4) {
		check_date(utc(y, 2, 28) + 86399);
		check_date(utc(y, 2, 29));
		check_date(utc(y, 3, 1));
		n += 3;
	}
	check_date(0);
	check_date(-1);
	check_date(utc(9999, 12, 31) + 86399);
	t_check(!bad_dates, "%d of %d dates as strftime() writes them",
		n + 3 - bad_dates, n + 3);

	http_date(utc(10000, 1, 1) + 12345678, date);
	t_check(!strcmp(date, "Fri, 31 Dec 9999 23:59:59 GMT"),
		"after the year 9999: '%s'", date);
	http_date(utc(0, 1, 1) - 1, date);
	t_check(!strcmp(date, "Sat, 01 Jan 0000 00:00:00 GMT"),
		"before the year 0: '%s'", date);

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		o = (struct http_out){ buf, buf + sizeof(buf) };
		http_put_uint(&o, numbers[i]);
		*o.p = '\0';
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)numbers[i]);
		t_check(!strcmp(buf, want), "http_put_uint: '%s', want '%s'",
			buf, want);
	}

	memset(buf, 'x', sizeof(buf));
	o = (struct http_out){ buf, buf + 8 };
	http_put_str(&o, "HTTP/1.1 ");
	http_put_uint(&o, 200);
	http_put_str(&o, " OK");
	t_check(o.p == buf + 8 && !memcmp(buf, "HTTP/1.1x", 9),
		"an http_out of 8 bytes keeps 8 and writes nothing after");
	return t_exit();
}
