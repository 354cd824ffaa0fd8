// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's reading of Accept-Encoding (httpd/http.c's
 * http_accepts()) by RFC 9110 12.5.3: a coding is taken when the header
 * names it, in any case, or has "*", with a q-value that is not 0; a
 * q-value of 0 (or 0.0, 0.000) refuses it, also against "*"; no header
 * takes nothing.
 */
#include "test.h"
#include "../httpd/http.c"

static const struct {
	const char *ae, *coding;
	bool want;
} cases[] = {
	{ "gzip", "gzip", true },
	{ "GZip", "gzip", true },
	{ "deflate, gzip", "gzip", true },
	{ "gzip;q=0.5", "gzip", true },
	{ "gzip; q=1", "gzip", true },
	{ "gzip;q=0", "gzip", false },
	{ "gzip;q=0.0", "gzip", false },
	{ "gzip;q=0.000", "gzip", false },
	{ "gzip;q=0.001", "gzip", true },
	{ "br", "gzip", false },
	{ "gzipx", "gzip", false },
	{ "x-gzip", "gzip", false },
	{ "*", "gzip", true },
	{ "*;q=0", "gzip", false },
	{ "gzip;q=0, *", "gzip", false },
	{ "*, gzip;q=0", "gzip", false },
	{ "br;q=0, *", "gzip", true },
	{ "identity", "gzip", false },
	{ "", "gzip", false },
	{ " , ,gzip", "gzip", true },
	{ NULL, "gzip", false },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *ae = cases[i].ae;
		bool got = http_accepts(ae, ae ? strlen(ae) : 0,
					cases[i].coding);

		t_check(got == cases[i].want, "'%s' takes %s: %d, want %d",
			ae ? ae : "(none)", cases[i].coding, got,
			cases[i].want);
	}
	return t_exit();
}
