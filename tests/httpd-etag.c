// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd gives each file an ETag as nginx makes it (its
 * mtime's seconds and its size in hex, quoted) and answers If-None-Match
 * as RFC 9110 says: 304 when a tag of the list matches by the weak
 * comparison (a "W/" prefix ignored) or the list is "*", 200 otherwise;
 * If-None-Match decides alone when the request has it, If-Modified-Since
 * only when it does not; If-Match (by the strong comparison: a weak tag
 * matches nothing) and If-Unmodified-Since are 412 when they do not hold,
 * If-Match deciding when the request has both; a changed file gets
 * another tag.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-etag"

static char buf[65536];

/* The status of GET (or HEAD) /hello.txt with the header lines @headers */
static int get_with(int port, const char *method, const char *headers,
		    struct hc_resp *r)
{
	return hc_request_with(port, method, "/hello.txt", headers, buf,
			       sizeof(buf), r);
}

/* nginx's tag of @file, as stat(2) describes it */
static void nginx_etag(const char *file, char *tag, size_t size)
{
	struct stat st;

	t_assert(!stat(file, &st), "stat %s", file);
	snprintf(tag, size, "\"%llx-%llx\"", (unsigned long long)st.st_mtime,
		 (unsigned long long)st.st_size);
}

static void http_date_of(time_t t, char *out, size_t size)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, size, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

int main(void)
{
	char tag[64], v[64], h[512], lm[40], old[40];
	struct hc_resp r;
	struct httpd srv;
	struct stat st;

	mkdir(ROOT, 0755);
	t_write_file(ROOT "/hello.txt", "hello, world\n", 13);
	nginx_etag(ROOT "/hello.txt", tag, sizeof(tag));
	t_assert(!stat(ROOT "/hello.txt", &st), "stat");
	http_date_of(st.st_mtime, lm, sizeof(lm));
	http_date_of(st.st_mtime - 3600, old, sizeof(old));
	/* no open-file cache: a changed file is seen at once (httpd-cache
	 * tests what the cache keeps within its validity) */
	httpd_start(&srv, ROOT, (const char *[]){ "--file-cache-valid", "0",
						  NULL });

	t_check_res(get_with(srv.port, "GET", "", &r), 200, "GET is 200");
	t_check(hc_header(&r, "ETag", v, sizeof(v)) && !strcmp(v, tag),
		"ETag is nginx's %s", tag);

	snprintf(h, sizeof(h), "If-None-Match: %s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 304,
		    "If-None-Match of its tag is 304");
	t_check(strlen(buf) == r.head_len && hc_header(&r, "ETag", v, sizeof(v)) &&
		!strcmp(v, tag), "the 304 has no body and the same ETag");
	t_check(hc_header(&r, "Last-Modified", v, sizeof(v)) && !strcmp(v, lm),
		"the 304 has the Last-Modified");
	t_check_res(get_with(srv.port, "HEAD", h, &r), 304,
		    "HEAD If-None-Match of its tag is 304");

	snprintf(h, sizeof(h), "If-None-Match: W/%s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 304,
		    "a weak tag matches by the weak comparison");
	snprintf(h, sizeof(h), "If-None-Match: \"other\", W/\"x\",%s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 304,
		    "its tag last in a list matches");
	t_check_res(get_with(srv.port, "GET", "If-None-Match: *\r\n", &r), 304,
		    "* matches a file that exists");
	t_check_res(get_with(srv.port, "GET", "If-None-Match: \"other\"\r\n",
			     &r), 200, "another tag is 200");
	t_check(r.body_len == 13, "...with the body");

	/* If-None-Match decides alone */
	snprintf(h, sizeof(h), "If-None-Match: \"other\"\r\n"
		 "If-Modified-Since: %s\r\n", lm);
	t_check_res(get_with(srv.port, "GET", h, &r), 200,
		    "a mismatch with If-Modified-Since current is 200");
	snprintf(h, sizeof(h), "If-None-Match: %s\r\n"
		 "If-Modified-Since: %s\r\n", tag, old);
	t_check_res(get_with(srv.port, "GET", h, &r), 304,
		    "a match with If-Modified-Since an hour old is 304");

	/* If-Match and If-Unmodified-Since */
	snprintf(h, sizeof(h), "If-Match: \"x\", %s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 200,
		    "If-Match of its tag is 200");
	t_check_res(get_with(srv.port, "GET", "If-Match: *\r\n", &r), 200,
		    "If-Match * is 200");
	t_check_res(get_with(srv.port, "GET", "If-Match: \"other\"\r\n", &r),
		    412, "If-Match of another tag is 412");
	snprintf(h, sizeof(h), "If-Match: W/%s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 412,
		    "If-Match of its tag as a weak one is 412");
	snprintf(h, sizeof(h), "If-Unmodified-Since: %s\r\n", old);
	t_check_res(get_with(srv.port, "GET", h, &r), 412,
		    "If-Unmodified-Since an hour before its mtime is 412");
	snprintf(h, sizeof(h), "If-Unmodified-Since: %s\r\n", lm);
	t_check_res(get_with(srv.port, "GET", h, &r), 200,
		    "If-Unmodified-Since its mtime is 200");
	snprintf(h, sizeof(h), "If-Match: %s\r\nIf-Unmodified-Since: %s\r\n",
		 tag, old);
	t_check_res(get_with(srv.port, "GET", h, &r), 200,
		    "If-Match of its tag decides over If-Unmodified-Since");

	/* a changed file: another tag, and the old one no longer matches */
	t_write_file(ROOT "/hello.txt", "hello, world, again\n", 20);
	snprintf(h, sizeof(h), "If-None-Match: %s\r\n", tag);
	t_check_res(get_with(srv.port, "GET", h, &r), 200,
		    "the old tag of a changed file is 200");
	nginx_etag(ROOT "/hello.txt", tag, sizeof(tag));
	t_check(hc_header(&r, "ETag", v, sizeof(v)) && !strcmp(v, tag),
		"the changed file's ETag is %s", tag);
	t_check_res(httpd_stop(&srv, SIGTERM), 0, "SIGTERM: the server exits 0");
	return t_exit();
}
