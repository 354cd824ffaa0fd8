// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's open-file cache. A cached file is served as
 * read(2) reads it, with its Last-Modified, ETag and 304; within the
 * validity a file replaced by rename is served as the whole old version
 * with its ETag, never a mix;
 * past it (and at once with --file-cache 0) a replaced, deleted or
 * truncated file is served as it is now; a file truncated under its entry
 * fails one response and is opened afresh by the next; 12 files through a
 * cache of 3 slots, from 4 client threads, each give their own bytes.
 * A file of at most --file-cache-body bytes is READ into the cache's
 * memory once and sent from it (one past that size is not): whole, a
 * part, and within the validity as it was read, changed in place or
 * truncated, whole; past it as it is now; a part asked for before it is
 * in memory comes from the file; --send read keeps nothing in memory.
 * A cached file's 200 head is the first one's but for its Date, and a
 * variant's entry (--precompressed) keeps apart the head of a request for
 * it by name from that of a request for its file.
 */
#include <pthread.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-cache"
#define NFILES 12

static char buf[65536];

/* @n bytes of @ch at @path, by a new file renamed over it */
static void replace(const char *path, char ch, size_t n)
{
	char data[8192];

	memset(data, ch, n);
	t_write_file(ROOT "/.new", data, n);
	t_assert(rename(ROOT "/.new", path) == 0, "rename to %s", path);
}

/* GET @url: 200 and exactly what read(2) gives for @path now */
static void get_as_read(int port, const char *url, const char *path)
{
	static char want[8192];
	ssize_t n = t_read_file(path, want, sizeof(want));
	struct hc_resp r;
	int s = hc_get(port, url, buf, sizeof(buf), &r);

	t_check(s == 200, "GET %s: %d", url, s);
	t_check(s == 200 && r.body_len == (size_t)n &&
		!memcmp(r.body, want, n), "GET %s: %zu bytes as read(2)'s %zd",
		url, r.body_len, n);
}

/* nginx's ETag of @path as stat(2) sees it now */
static void stat_etag(const char *path, char *tag, size_t size)
{
	struct stat st;

	t_assert(stat(path, &st) == 0, "stat %s", path);
	snprintf(tag, size, "\"%lx-%lx\"", (unsigned long)st.st_mtime,
		 (unsigned long)st.st_size);
}

/* The default validity: hits, 304, the old version whole, truncation */
static void test_valid(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--stats", NULL };
	char lm[64], req[256], tag[64], want[64];
	struct hc_resp r;
	struct httpd h;
	int s;

	replace(ROOT "/a.txt", 'a', 1000);
	httpd_start(&h, ROOT, argv);
	for (int i = 0; i < 3; i++)
		get_as_read(h.port, "/a.txt", ROOT "/a.txt");
	s = hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	t_assert(s == 200 && hc_header(&r, "Last-Modified", lm, sizeof(lm)),
		 "Last-Modified of a cached file");
	/* the entry's validators, made when it was filled, are the file's */
	stat_etag(ROOT "/a.txt", want, sizeof(want));
	t_check(hc_header(&r, "ETag", tag, sizeof(tag)) && !strcmp(tag, want),
		"ETag of a cached file: %s, stat(2)'s %s", tag, want);
	snprintf(req, sizeof(req), "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
		 "If-Modified-Since: %s\r\nConnection: close\r\n\r\n", lm);
	s = hc_request(h.port, req, buf, sizeof(buf), &r);
	t_check(s == 304, "If-Modified-Since of a cached file: %d", s);

	/* replaced: within 60 s the old file, whole */
	replace(ROOT "/a.txt", 'b', 1500);
	s = hc_get(h.port, "/a.txt", buf, sizeof(buf), &r);
	t_check(s == 200 && r.body_len == 1000 && r.body[0] == 'a' &&
		r.body[999] == 'a', "replaced within the validity: %d, "
		"%zu bytes of '%c'", s, r.body_len, s == 200 ? r.body[0] : 0);
	t_check(hc_header(&r, "ETag", tag, sizeof(tag)) && !strcmp(tag, want),
		"and the old version's ETag: %s, not the new file's", tag);

	/* truncated under its entry: one short response, then as it is
	 * (larger than --file-cache-body's 2048: sent from the file) */
	replace(ROOT "/t.txt", 't', 6000);
	get_as_read(h.port, "/t.txt", ROOT "/t.txt");
	t_assert(truncate(ROOT "/t.txt", 100) == 0, "truncate");
	s = hc_get(h.port, "/t.txt", buf, sizeof(buf), &r);
	t_check(s == -1, "truncated under its entry: %d, not a short body "
		"and a close", s);
	get_as_read(h.port, "/t.txt", ROOT "/t.txt");

	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
	t_check(httpd_stat(&h, "cache_hits=") >= 5, "cache hits: %lu",
		httpd_stat(&h, "cache_hits="));
	t_check(httpd_stat(&h, "allocs_after_start=") == 0 &&
		strstr(h.log, "allocs_after_start=0\n"), "allocations: %s",
		h.log);
}

/* Past a validity of 200 ms: replaced, deleted, as they are now */
static void test_expiry(void)
{
	const char *argv[] = { "-n", "--threads", "1",
			       "--file-cache-valid", "200", NULL };
	struct hc_resp r;
	struct httpd h;
	int s;

	replace(ROOT "/e.txt", 'c', 700);
	httpd_start(&h, ROOT, argv);
	get_as_read(h.port, "/e.txt", ROOT "/e.txt");
	replace(ROOT "/e.txt", 'd', 900);
	usleep(300000);
	get_as_read(h.port, "/e.txt", ROOT "/e.txt");
	t_assert(unlink(ROOT "/e.txt") == 0, "unlink");
	usleep(300000);
	s = hc_get(h.port, "/e.txt", buf, sizeof(buf), &r);
	t_check(s == 404, "deleted, past the validity: %d", s);
	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
}

/* --file-cache 0: every request opens the file */
static void test_off(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--stats",
			       "--file-cache", "0", NULL };
	struct httpd h;

	replace(ROOT "/o.txt", 'e', 300);
	httpd_start(&h, ROOT, argv);
	get_as_read(h.port, "/o.txt", ROOT "/o.txt");
	replace(ROOT "/o.txt", 'f', 600);
	get_as_read(h.port, "/o.txt", ROOT "/o.txt");
	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
	t_check(strstr(h.log, "cache_hits=0 ") != NULL, "no cache: %s",
		h.log);
}

/*
 * GET @url, with @range if not NULL: 200 (206 for a range) and @n bytes
 * of @ch
 */
static void get_same(int port, const char *url, const char *range,
		     char ch, size_t n, const char *what)
{
	int want = range ? 206 : 200, s;
	char hdr[64] = "";
	struct hc_resp r;
	size_t same = 0;

	if (range)
		snprintf(hdr, sizeof(hdr), "Range: %s\r\n", range);
	s = hc_request_with(port, "GET", url, hdr, buf, sizeof(buf), &r);
	while (s == want && same < r.body_len && r.body[same] == ch)
		same++;
	t_check(s == want && r.body_len == n && same == n,
		"%s: %d, %zu bytes, %zu of them '%c' (want %zu)", what, s,
		r.body_len, same, ch, n);
}

/* --file-cache-body 3000: what is kept in memory, and for how long */
static void test_memory(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--stats",
			       "--file-cache-body", "3000",
			       "--file-cache-valid", "1000", NULL };
	const char *argv_read[] = { "-n", "--threads", "1", "--stats",
				    "--send", "read", NULL };
	char in_place[3000];
	struct httpd h;

	replace(ROOT "/m.txt", 'm', 3000);	/* the most it keeps */
	replace(ROOT "/l.txt", 'l', 3001);	/* one byte too many */
	replace(ROOT "/p.txt", 'p', 1000);
	httpd_start(&h, ROOT, argv);
	for (int i = 0; i < 3; i++) {
		get_as_read(h.port, "/m.txt", ROOT "/m.txt");
		get_as_read(h.port, "/l.txt", ROOT "/l.txt");
	}
	get_same(h.port, "/m.txt", "bytes=100-199", 'm', 100,
		 "a part of a file in memory");
	/* a part first: from the file; then the whole fills the memory */
	get_same(h.port, "/p.txt", "bytes=-10", 'p', 10,
		 "a part before the file is in memory");
	get_as_read(h.port, "/p.txt", ROOT "/p.txt");
	get_same(h.port, "/p.txt", "bytes=990-", 'p', 10,
		 "a part after it is");

	/* within the validity: the memory as it was read, whole */
	memset(in_place, 'x', sizeof(in_place));
	t_write_file(ROOT "/m.txt", in_place, sizeof(in_place));
	get_same(h.port, "/m.txt", NULL, 'm', 3000,
		 "changed in place, within the validity: as read into memory");
	t_assert(truncate(ROOT "/m.txt", 10) == 0, "truncate");
	get_same(h.port, "/m.txt", NULL, 'm', 3000,
		 "truncated, within the validity: whole, not a short response");
	usleep(1100000);
	get_same(h.port, "/m.txt", NULL, 'x', 10,
		 "past the validity: as it is");
	get_same(h.port, "/m.txt", NULL, 'x', 10, "and from memory again");

	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
	/* m.txt: 3 + a part + 2 + 2; p.txt: the whole and a part */
	t_check(httpd_stat(&h, "memory_bodies=") == 10 &&
		httpd_stat(&h, "memory_fills=") == 3,
		"10 bodies from memory, 3 READ into it: %s", h.log);
	t_check(httpd_stat(&h, "sendfile_bodies=") +
		httpd_stat(&h, "read_bodies=") == 4,
		"l.txt's 3 bodies and p.txt's first part from the file: %s",
		h.log);

	httpd_start(&h, ROOT, argv_read);
	get_as_read(h.port, "/p.txt", ROOT "/p.txt");
	get_as_read(h.port, "/p.txt", ROOT "/p.txt");
	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
	t_check(httpd_stat(&h, "memory_bodies=") == 0 &&
		httpd_stat(&h, "read_bodies=") == 2,
		"--send read: both by READ+SEND, none from memory: %s",
		h.log);
}

/* The head of GET @url with @headers, its Date line cut out, into @out */
static int head_of(int port, const char *url, const char *headers,
		   char *out, size_t size)
{
	struct hc_resp r;
	int s = hc_request_with(port, "GET", url, headers, buf, sizeof(buf),
				&r);
	const char *date = s > 0 ? memmem(r.head, r.head_len, "\r\nDate: ",
					  8) : NULL;
	const char *eol = date ? memmem(date + 2, r.head + r.head_len -
					date - 2, "\r\n", 2) : NULL;

	t_assert(eol && r.head_len < size, "GET %s: a head with a Date", url);
	snprintf(out, size, "%.*s%.*s", (int)(date - r.head), r.head,
		 (int)(r.head + r.head_len - eol), eol);
	return s;
}

/*
 * A cached file's 200 head is made once and kept with its entry: each
 * later one is the first, byte for byte but for its Date; with
 * --precompressed the entry of a variant (FILE.gz) keeps the head of a
 * request for it by name, and a request for FILE that gets the variant
 * still has its own (FILE's type, Content-Encoding)
 */
static void test_heads(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--precompressed",
			       NULL };
	static const char *const gz = "Accept-Encoding: gzip\r\n";
	char first[1024], later[1024], named[1024];
	struct httpd h;
	int s;

	replace(ROOT "/h.html", 'h', 500);
	replace(ROOT "/z.txt", 'z', 400);
	replace(ROOT "/z.txt.gz", 'g', 300);
	httpd_start(&h, ROOT, argv);
	s = head_of(h.port, "/h.html", "", first, sizeof(first));
	for (int i = 0; i < 3; i++) {
		t_check(head_of(h.port, "/h.html", "", later,
				sizeof(later)) == s && !strcmp(later, first),
			"a cached file's head, time %d: as the first:\n%s\n%s",
			i + 2, first, later);
	}
	t_check(strstr(first, "Content-Type: text/html") &&
		strstr(first, "Content-Length: 500\r\n") &&
		strstr(first, "Vary: Accept-Encoding\r\n") &&
		strstr(first, "Connection: close\r\n"),
		"the head has the file's lines: %s", first);

	s = head_of(h.port, "/z.txt", gz, first, sizeof(first));
	head_of(h.port, "/z.txt.gz", "", named, sizeof(named));
	head_of(h.port, "/z.txt.gz", "", later, sizeof(later));
	t_check(!strcmp(named, later) && !strstr(named, "Content-Encoding") &&
		strstr(named, "Content-Length: 300\r\n") &&
		!strstr(named, "Content-Type: text/plain"),
		"FILE.gz by its name, twice: its own type, no coding:\n%s\n%s",
		named, later);
	t_check(head_of(h.port, "/z.txt", gz, later, sizeof(later)) == s &&
		!strcmp(later, first) &&
		strstr(first, "Content-Encoding: gzip\r\n") &&
		strstr(first, "Content-Type: text/plain"),
		"FILE, which gets FILE.gz, after that: as before:\n%s\n%s",
		first, later);
	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
}

static int churn_port;

static void *churn(void *arg)
{
	static __thread char b[16384];
	unsigned int seed = (uintptr_t)arg;

	for (int i = 0; i < 30; i++) {
		int f = rand_r(&seed) % NFILES, s;
		char url[32];
		struct hc_resp r;
		size_t want = 200 + f * 100;

		snprintf(url, sizeof(url), "/f%02d", f);
		s = hc_get(churn_port, url, b, sizeof(b), &r);
		t_check(s == 200 && r.body_len == want && r.body[0] == 'A' + f &&
			r.body[want - 1] == 'A' + f, "GET %s: %d, %zu bytes",
			url, s, r.body_len);
	}
	return NULL;
}

/* 12 files, 3 slots, 4 client threads, 2 server threads */
static void test_evict(void)
{
	const char *argv[] = { "-n", "--threads", "2", "--stats",
			       "--file-cache", "3", NULL };
	pthread_t th[4];
	struct httpd h;
	char path[64];

	for (int f = 0; f < NFILES; f++) {
		snprintf(path, sizeof(path), ROOT "/f%02d", f);
		replace(path, 'A' + f, 200 + f * 100);
	}
	httpd_start(&h, ROOT, argv);
	churn_port = h.port;
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, churn, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	t_check(httpd_stop(&h, SIGTERM) == 0, "exit status");
	t_check(httpd_stat(&h, "cache_hits=") > 0 &&
		httpd_stat(&h, "cache_misses=") > 0, "hits and misses: %s",
		h.log);
	/* every entry's memory took file after file */
	t_check(httpd_stat(&h, "memory_fills=") > 3 &&
		httpd_stat(&h, "memory_bodies=") > 0,
		"bodies from memory, memory filled again: %s", h.log);
	t_check(strstr(h.log, "allocs_after_start=0\n") != NULL,
		"allocations: %s", h.log);
}

int main(void)
{
	mkdir(ROOT, 0755);
	test_valid();
	test_expiry();
	test_off();
	test_evict();
	test_memory();
	test_heads();
	return t_exit();
}
