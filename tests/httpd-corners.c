// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's HTTP corners, each as nginx answers or the
 * RFC says: a regular file named with a trailing slash is 404; the
 * redirect of a directory named without its slash keeps the query; a
 * target in absolute form is served (RFC 9112 3.2.2), and a Host that is
 * no authority is 400; If-Modified-Since and If-Unmodified-Since are read
 * in the RFC 850 and asctime forms too (RFC 9110 5.6.7); and an answer
 * that closes a connection with the client's bytes still unread (414,
 * 431, 413, 400) is followed by a FIN, not a reset: the server shuts its
 * side down and drains what comes (RFC 9112 9.6), for a bounded time.
 * Runs on the host too (tests/host/httpd-native.sh): the site is made
 * under $TMPDIR.
 */
#include "httpd.h"

static char root[256], buf[1 << 16];

static void site(void)
{
	char path[300];

	snprintf(root, sizeof(root), "%s/httpd-corners",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/blog", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/blog/index.html", root);
	t_write_file(path, "blog\n", 5);
	snprintf(path, sizeof(path), "%s/a.txt", root);
	t_write_file(path, "0123456789", 10);
}

static void location(int port, const char *req, const char *want)
{
	struct hc_resp r;
	char v[256];
	int status = hc_request(port, req, buf, sizeof(buf), &r);

	t_check(status == 301 && hc_header(&r, "Location", v, sizeof(v)) &&
		!strcmp(v, want), "%.*s: 301 to %s (%d, %s)",
		(int)strcspn(req, "\r"), req, want, status,
		status == 301 ? v : "-");
}

/*
 * Send @req and then @extra bytes more (the client still sending), then
 * read: the answer whole, then the FIN (recv 0), not a reset (which a
 * send or recv sees as ECONNRESET or EPIPE). The status, or -errno of the
 * reset.
 */
static int answer_then_fin(int port, const char *req, size_t extra,
			   bool *fin)
{
	static char junk[1 << 16];
	int s = hc_connect(port), status = 0;
	size_t len = 0, off = 0;
	ssize_t n;

	memset(junk, 'x', sizeof(junk));
	*fin = false;
	hc_send(s, req, strlen(req));
	while (off < extra) {	/* the server may be answering meanwhile */
		size_t chunk = extra - off < sizeof(junk) ? extra - off :
			       sizeof(junk);

		n = send(s, junk, chunk, MSG_NOSIGNAL);
		if (n <= 0) {	/* a reset (that recv() then does not see) */
			printf("    send after %zu bytes: %s\n", off,
			       strerror(errno));
			break;
		}
		off += n;
	}
	while ((n = recv(s, buf + len, sizeof(buf) - 1 - len, 0)) > 0)
		len += n;
	buf[len] = '\0';
	if (len > 12 && !memcmp(buf, "HTTP/1.1 ", 9))
		status = atoi(buf + 9);
	if (n < 0 && !status)
		status = -errno;
	*fin = n == 0 && off == extra;
	if (n < 0)
		printf("    after %zu bytes of answer: %s\n", len,
		       strerror(errno));
	close(s);
	return status;
}

static void linger_checks(int port)
{
	static char req[20000];
	bool fin;
	int status;

	/* a target over 2048 bytes, then 256 KiB the server never reads */
	snprintf(req, sizeof(req), "GET /%03000d HTTP/1.1\r\nHost: t\r\n", 0);
	status = answer_then_fin(port, req, 256 << 10, &fin);
	t_check(status == 414 && fin, "414 with the client still sending, "
		"then a FIN, no reset (%d)", status);
	/* a head over 8 KiB: 431 */
	snprintf(req, sizeof(req), "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
		 "X-Big: %09000d\r\n", 0);
	status = answer_then_fin(port, req, 256 << 10, &fin);
	t_check(status == 431 && fin, "431 with the client still sending, "
		"then a FIN, no reset (%d)", status);
	/* a body: 413, the body unread */
	status = answer_then_fin(port, "GET /a.txt HTTP/1.1\r\nHost: t\r\n"
				 "Content-Length: 262144\r\n\r\n", 256 << 10,
				 &fin);
	t_check(status == 413 && fin, "413 before a 256 KiB body, then a "
		"FIN, no reset (%d)", status);
	/* a bad head with a pipelined request behind it: 400 */
	status = answer_then_fin(port, "GET /a.txt HTTP/1.1\r\nHost: a/b\r\n"
				 "\r\nGET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n",
				 0, &fin);
	t_check(status == 400 && fin, "400 with a request behind it unread, "
		"then a FIN, no reset (%d)", status);
}

/* The socket's pending error: a reset that came, or 0 */
static int so_error(int s)
{
	int err = 0;
	socklen_t len = sizeof(err);

	t_assert(!getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len), "SO_ERROR");
	return err;
}

/* A client that neither sends nor closes: the drain ends after its bound */
static void linger_bound(int port)
{
	int s = hc_connect(port), err;
	size_t len = 0;
	ssize_t n;

	hc_send(s, "GET /a.txt HTTP/1.1\r\nHost: a/b\r\n\r\n", 35);
	while ((n = recv(s, buf + len, sizeof(buf) - 1 - len, 0)) > 0)
		len += n;
	t_check(n == 0 && len > 12 && !memcmp(buf, "HTTP/1.1 400", 12),
		"400, then a FIN");
	/* still draining: a byte more is read and dropped, no reset */
	usleep(300 * 1000);
	hc_send(s, "x", 1);
	usleep(300 * 1000);
	err = so_error(s);
	t_check(!err, "a byte sent while the server drains is taken, no "
		"reset (%s)", strerror(err));
	/* past the bound (2 s, and a tick of the timeouts: 1 s) the server
	 * has closed: a byte more is answered with a reset (EPIPE: the
	 * client had its FIN) */
	sleep(4);
	send(s, "y", 1, MSG_NOSIGNAL);
	usleep(200 * 1000);
	err = so_error(s);
	t_check(err == EPIPE || err == ECONNRESET, "after the bound the "
		"server has closed: a byte sent then is reset (%s)",
		strerror(err));
	close(s);
}

static void dates(int port)
{
	static const char *const forms[] = {
		"%a, %d %b %Y %H:%M:%S GMT",	/* IMF-fixdate */
		"%A, %d-%b-%y %H:%M:%S GMT",	/* RFC 850 */
		"%a %b %e %H:%M:%S %Y",		/* asctime */
	};
	char path[300], hdr[128], date[64];
	struct hc_resp r;
	struct stat st;
	struct tm tm;
	time_t before;

	snprintf(path, sizeof(path), "%s/a.txt", root);
	t_assert(!stat(path, &st), "stat");
	before = st.st_mtime - 86400;
	for (int i = 0; i < 3; i++) {
		gmtime_r(&st.st_mtime, &tm);
		strftime(date, sizeof(date), forms[i], &tm);
		snprintf(hdr, sizeof(hdr), "If-Modified-Since: %s\r\n", date);
		t_check_res(hc_request_with(port, "GET", "/a.txt", hdr, buf,
					    sizeof(buf), &r), 304,
			    "If-Modified-Since: %s (the mtime): 304", date);
		gmtime_r(&before, &tm);
		strftime(date, sizeof(date), forms[i], &tm);
		snprintf(hdr, sizeof(hdr), "If-Unmodified-Since: %s\r\n",
			 date);
		t_check_res(hc_request_with(port, "GET", "/a.txt", hdr, buf,
					    sizeof(buf), &r), 412,
			    "If-Unmodified-Since: %s (a day before): 412",
			    date);
	}
}

int main(void)
{
	const char *argv[] = { "-n", NULL };
	struct hc_resp r;
	struct httpd h;

	site();
	httpd_start(&h, root, argv);

	t_check_res(hc_get(h.port, "/a.txt/", buf, sizeof(buf), &r), 404,
		    "/a.txt/ (a regular file under a slash) is 404");
	t_check_res(hc_get(h.port, "/blog/index.html/", buf, sizeof(buf), &r),
		    404, "/blog/index.html/ is 404");
	t_check_res(hc_get(h.port, "/a.txt", buf, sizeof(buf), &r), 200,
		    "/a.txt is 200");
	t_check_res(hc_get(h.port, "/blog/", buf, sizeof(buf), &r), 200,
		    "/blog/ is its index.html");

	location(h.port, "GET /blog?a=1 HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", "/blog/?a=1");
	location(h.port, "GET /blog?a=%20b&c=d/e HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", "/blog/?a=%20b&c=d/e");
	location(h.port, "GET /blog HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", "/blog/");
	location(h.port, "GET http://t/blog?x=1 HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", "/blog/?x=1");

	t_check(hc_request(h.port, "GET http://t:80/a.txt HTTP/1.1\r\n"
			   "Host: t\r\nConnection: close\r\n\r\n", buf,
			   sizeof(buf), &r) == 200 && r.body_len == 10 &&
		!memcmp(r.body, "0123456789", 10),
		"GET http://t:80/a.txt (absolute form): 200, the file");
	t_check_res(hc_request(h.port, "GET /a.txt HTTP/1.1\r\nHost: a/b\r\n"
			       "\r\n", buf, sizeof(buf), &r), 400,
		    "Host: a/b is 400");

	dates(h.port);
	linger_checks(h.port);
	linger_bound(h.port);

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	return t_exit();
}
