// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's reading of a Range header (httpd/http.c's
 * http_range()) for a file of 1000 bytes, by RFC 9110 14.1.2: first-last,
 * first- and -suffix ranges, a last byte or a suffix past the end cut at
 * it (also past 64 bits), a first byte past it or a zero suffix
 * unsatisfiable (and every range of an empty file), empty list elements
 * skipped, several ranges answered with the whole file, and any header
 * that is not a valid "bytes=" set ignored (the whole file).
 */
#include "test.h"
#include "../httpd/http.c"

static const struct {
	const char *spec;
	uint64_t size;
	enum http_range want;
	uint64_t start, n;
} cases[] = {
	{ "bytes=0-99", 1000, HTTP_RANGE_ONE, 0, 100 },
	{ "bytes=0-0", 1000, HTTP_RANGE_ONE, 0, 1 },
	{ "bytes=999-999", 1000, HTTP_RANGE_ONE, 999, 1 },
	{ "bytes=100-", 1000, HTTP_RANGE_ONE, 100, 900 },
	{ "bytes=-1", 1000, HTTP_RANGE_ONE, 999, 1 },
	{ "bytes=-1000", 1000, HTTP_RANGE_ONE, 0, 1000 },
	{ "bytes=-5000", 1000, HTTP_RANGE_ONE, 0, 1000 },
	{ "bytes=990-5000", 1000, HTTP_RANGE_ONE, 990, 10 },
	{ "BYTES=1-2", 1000, HTTP_RANGE_ONE, 1, 2 },
	{ "bytes= 1-2 ", 1000, HTTP_RANGE_ONE, 1, 2 },
	{ "bytes=1000-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=1000-2000", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=-0", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=0-", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=-10", 0, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=2000-,3000-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=0-1,5-6", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=0-1, 2000-", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=5-1", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=-", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=a-b", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=0-5,x", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=1-2,", 1000, HTTP_RANGE_ONE, 1, 2 },
	{ "bytes=,1-2", 1000, HTTP_RANGE_ONE, 1, 2 },
	{ "bytes=, ,", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=0x10-", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes=99999999999999999999-", 1000, HTTP_RANGE_UNSATISFIABLE, 0, 0 },
	{ "bytes=0-99999999999999999999", 1000, HTTP_RANGE_ONE, 0, 1000 },
	{ "bytes=-99999999999999999999", 1000, HTTP_RANGE_ONE, 0, 1000 },
	{ "bytes=0000000000000000000005-9", 1000, HTTP_RANGE_ONE, 5, 5 },
	{ "items=0-5", 1000, HTTP_RANGE_ALL, 0, 0 },
	{ "bytes 0-5", 1000, HTTP_RANGE_ALL, 0, 0 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t start = 7, n = 7;
		enum http_range got = http_range(cases[i].spec,
						 strlen(cases[i].spec),
						 cases[i].size, &start, &n);

		if (cases[i].want == HTTP_RANGE_ONE)
			t_check(got == HTTP_RANGE_ONE && start == cases[i].start &&
				n == cases[i].n,
				"'%s' of %llu bytes: %d, %llu+%llu; want %llu+%llu",
				cases[i].spec, (unsigned long long)cases[i].size,
				got, (unsigned long long)start,
				(unsigned long long)n,
				(unsigned long long)cases[i].start,
				(unsigned long long)cases[i].n);
		else
			t_check(got == cases[i].want && start == 7 && n == 7,
				"'%s' of %llu bytes: %d, want %d, nothing set",
				cases[i].spec, (unsigned long long)cases[i].size,
				got, cases[i].want);
	}
	return t_exit();
}
