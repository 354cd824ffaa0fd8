/* SPDX-License-Identifier: MIT */
/*
 * httpd.h: what the nofd-httpd tests share: a sample site, starting and
 * stopping /bin/nofd-httpd, and a plain-socket HTTP client (hc_*, apart
 * from the server's own http_* of httpd/http.h). The server is
 * started with --port 0 and says its port on stderr, which the test keeps
 * reading (for --stats) through a pipe.
 */
#ifndef NOFD_TEST_HTTPD_H
#define NOFD_TEST_HTTPD_H

#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "test.h"

/* the guest's; NOFD_HTTPD_BIN names another (tests/host/httpd-native.sh) */
#define HTTPD_BIN (getenv("NOFD_HTTPD_BIN") ?: "/bin/nofd-httpd")
/* Set by tests/httpd-stock: every server the tests start runs --stock */
#define HTTPD_STOCK_ENV "NOFD_HTTPD_STOCK"

struct httpd {
	pid_t pid;
	int port;
	int err;		/* its stderr */
	char log[4096];		/* what it said on stderr after the start */
};

static inline void t_write_file(const char *path, const void *data,
				size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	t_assert(fd >= 0, "create %s", path);
	t_assert(write(fd, data, len) == (ssize_t)len, "write %s", path);
	close(fd);
}

static inline const char *httpd_bin(void)
{
	return HTTPD_BIN;
}

static inline bool httpd_stock(void)
{
	return getenv(HTTPD_STOCK_ENV) != NULL;
}

/*
 * Start the server on @root with the options in @argv (NULL-terminated,
 * may be NULL): --port 0 and --addr 127.0.0.1 are added, and --stock
 * under tests/httpd-stock. @uid: not -1, it runs as that user and group,
 * with no others, and with @memlock as its RLIMIT_MEMLOCK (locked memory:
 * its registered buffers). Fails the test when it does not announce its
 * port, or announces stock mode on the nofd kernel unasked.
 */
static inline void httpd_start_limited(struct httpd *h, const char *root,
				       const char *const *argv, uid_t uid,
				       rlim_t memlock)
{
	const char *args[32] = { httpd_bin(), "--port", "0", "--addr",
				 "127.0.0.1", "--root", root, "--stock" };
	int n = httpd_stock() ? 8 : 7, p[2];
	char line[256];
	ssize_t len = 0, r;

	for (; argv && *argv && n < 31; argv++)
		args[n++] = *argv;
	args[n] = NULL;
	t_assert(pipe(p) == 0, "pipe");
	h->pid = fork();
	t_assert(h->pid >= 0, "fork");
	if (!h->pid) {
		struct rlimit all = { memlock, memlock };

		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (uid != (uid_t)-1 &&
		    (setrlimit(RLIMIT_MEMLOCK, &all) || setgroups(0, NULL) ||
		     setgid(uid) || setuid(uid)))
			_exit(126);
		execv(httpd_bin(), (char **)args);
		_exit(127);
	}
	close(p[1]);
	h->err = p[0];
	/* "nofd-httpd: serving ROOT on ADDR port N, ..." */
	while (len < (ssize_t)sizeof(line) - 1 &&
	       (r = read(h->err, line + len, 1)) == 1 && line[len] != '\n')
		len++;
	line[len] = '\0';
	h->port = 0;
	if (strstr(line, " port "))
		h->port = atoi(strstr(line, " port ") + 6);
	t_assert(h->port > 0, "nofd-httpd did not start: '%s'", line);
	t_assert(httpd_stock() == (strstr(line, ", stock mode") != NULL) ||
		 (!httpd_stock() && !t_nofd_kernel()),
		 "the mode nofd-httpd announced: '%s'", line);
}

/* The same, with no limit on locked memory */
static inline void httpd_start_as(struct httpd *h, const char *root,
				  const char *const *argv, uid_t uid)
{
	httpd_start_limited(h, root, argv, uid, RLIM_INFINITY);
}

static inline void httpd_start(struct httpd *h, const char *root,
			       const char *const *argv)
{
	httpd_start_as(h, root, argv, (uid_t)-1);
}

/*
 * Send @sig, wait (at most @seconds when not 0, then SIGKILL); the exit
 * status (or 128 + signal), stderr in h->log.
 */
static inline int httpd_stop_within(struct httpd *h, int sig, int seconds)
{
	struct pollfd pfd = { .fd = h->err, .events = POLLIN };
	int status, waited = 0;
	ssize_t len = 0, r = 1;

	kill(h->pid, sig);
	while (len < (ssize_t)sizeof(h->log) - 1 && r > 0) {
		if (seconds && !poll(&pfd, 1, 100)) {
			if (++waited == seconds * 10)
				kill(h->pid, SIGKILL);
			continue;
		}
		r = read(h->err, h->log + len, sizeof(h->log) - 1 - len);
		if (r > 0)
			len += r;
	}
	h->log[len] = '\0';
	close(h->err);
	t_assert(waitpid(h->pid, &status, 0) == h->pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
}

/* A counter of the server's --stats line, after httpd_stop(); 0 if none */
static inline unsigned long httpd_stat(const struct httpd *h, const char *name)
{
	const char *p = strstr(h->log, name);

	return p ? strtoul(p + strlen(name), NULL, 10) : 0;
}

static inline int httpd_stop(struct httpd *h, int sig)
{
	return httpd_stop_within(h, sig, 0);
}

/* connect() to the server at @port and close: 0, or connect()'s errno */
static inline int hc_try_connect(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	t_assert(s >= 0, "socket");
	err = connect(s, (void *)&sa, sizeof(sa)) ? errno : 0;
	close(s);
	return err;
}

/* A connected TCP socket to the server, with 10 s send/receive timeouts. */
static inline int hc_connect(int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct timeval tv = { .tv_sec = 10 };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	t_assert(s >= 0, "socket");
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	t_assert(connect(s, (void *)&sa, sizeof(sa)) == 0, "connect %d", port);
	return s;
}

static inline void hc_send(int s, const char *data, size_t len)
{
	while (len) {
		ssize_t n = send(s, data, len, MSG_NOSIGNAL);

		t_assert(n > 0, "send");
		data += n;
		len -= n;
	}
}

/* Read until the peer closes (or @size - 1 bytes, or a timeout). */
static inline size_t hc_read_all(int s, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = recv(s, buf + len, size - 1 - len, 0)) > 0)
		len += n;
	buf[len] = '\0';
	return len;
}

struct hc_resp {
	int status;
	const char *head;	/* the head, in the caller's buffer */
	size_t head_len;
	const char *body;
	size_t body_len;	/* Content-Length, or what there was */
	long content_length;	/* -1: none */
};

/* The value of header @name in @r's head, copied into @out, or NULL. */
static inline const char *hc_header(const struct hc_resp *r,
				      const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);
	const char *p = r->head, *end = r->head + r->head_len;

	while (p < end) {
		const char *eol = memmem(p, end - p, "\r\n", 2);

		if (!eol)
			break;
		if ((size_t)(eol - p) > nl + 1 && !strncasecmp(p, name, nl) &&
		    p[nl] == ':') {
			const char *v = p + nl + 1;
			size_t n;

			while (*v == ' ')
				v++;
			n = eol - v < (long)size - 1 ? (size_t)(eol - v) :
			    size - 1;
			memcpy(out, v, n);
			out[n] = '\0';
			return out;
		}
		p = eol + 2;
	}
	return NULL;
}

/*
 * Parse one response at @buf (@len bytes): the length it takes, or 0 when
 * it is not whole. @head_only: the response to a HEAD (no body follows).
 */
static inline size_t hc_parse_resp(const char *buf, size_t len,
				     struct hc_resp *r, bool head_only)
{
	const char *end = memmem(buf, len, "\r\n\r\n", 4);
	char v[32];

	memset(r, 0, sizeof(*r));
	r->content_length = -1;
	if (!end || len < 12 || memcmp(buf, "HTTP/1.1 ", 9))
		return 0;
	r->status = atoi(buf + 9);
	r->head = buf;
	r->head_len = end + 4 - buf;
	r->body = end + 4;
	if (hc_header(r, "Content-Length", v, sizeof(v)))
		r->content_length = atol(v);
	if (head_only || r->status == 304) {
		r->body_len = 0;
	} else if (r->content_length >= 0) {
		if (len - r->head_len < (size_t)r->content_length)
			return 0;
		r->body_len = r->content_length;
	} else {
		r->body_len = len - r->head_len;
	}
	return r->head_len + r->body_len;
}

/*
 * One whole response on @s, whose connection stays open, read into @buf
 * (@size bytes): its status, -1 if none came whole
 */
static inline int hc_status_kept_alive(int s, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got;
	struct hc_resp r;

	while (len < size - 1 &&
	       (got = recv(s, buf + len, size - 1 - len, 0)) > 0) {
		len += got;
		if (hc_parse_resp(buf, len, &r, false))
			return r.status;
	}
	return -1;
}

/*
 * Run @argv (its [0] the server's path) to its exit, as uid @uid (-1: as
 * we are), its stdout and stderr into @out: its exit status, or 128 plus
 * the signal that ended it
 */
static inline int httpd_run(uid_t uid, const char *const *argv, char *out,
			    size_t size)
{
	int p[2], status;
	ssize_t r, len = 0;
	pid_t pid;

	t_assert(!pipe(p), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		dup2(p[1], 2);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (uid != (uid_t)-1 &&
		    (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(126);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(p[1]);
	while (len < (ssize_t)size - 1 &&
	       (r = read(p[0], out + len, size - 1 - len)) > 0)
		len += r;
	out[len] = '\0';
	close(p[0]);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One request on a new connection, read to the close: the status, or -1. */
static inline int hc_request(int port, const char *req, char *buf,
			       size_t size, struct hc_resp *r)
{
	int s = hc_connect(port);
	size_t len;

	hc_send(s, req, strlen(req));
	len = hc_read_all(s, buf, size);
	close(s);
	if (!hc_parse_resp(buf, len, r, !strncmp(req, "HEAD ", 5)))
		return -1;
	return r->status;
}

/* GET @path with Connection: close; the status. */
/*
 * @method @path with the header lines @headers ("Name: value\r\n" each,
 * "" for none) and Connection: close
 */
static inline int hc_request_with(int port, const char *method,
				  const char *path, const char *headers,
				  char *buf, size_t size, struct hc_resp *r)
{
	char req[4096];

	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: t\r\n%s"
		 "Connection: close\r\n\r\n", method, path, headers);
	return hc_request(port, req, buf, size, r);
}

static inline int hc_get(int port, const char *path, char *buf,
			   size_t size, struct hc_resp *r)
{
	char req[4096];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n"
		 "Connection: close\r\n\r\n", path);
	return hc_request(port, req, buf, size, r);
}

/*
 * The ways nofd-httpd sends a file's body, each counted by its --stats
 * (NAME_bodies=, NAME_parts=; httpd/server.h): SENDFILE from the file's
 * slot, SPLICE through the connection's pipe, READ+SEND of a buffer, one
 * SENDMSG from the open-file cache's memory.
 */
enum hc_way { HC_SENDFILE, HC_SPLICE, HC_READ, HC_MEMORY, HC_WAYS };

/* --file-cache-body's default: auto sends files up to this from memory */
#define HC_MEMORY_MAX 2048

/* File bodies sent each way */
struct hc_ways {
	unsigned long bodies[HC_WAYS];
};

/* Whether the servers httpd_start() starts have SENDFILE */
static inline bool httpd_has_sendfile(void)
{
	return (nofd_features() & IO_URING_NOFD_SENDFILE) && !httpd_stock();
}

/* The size of the file whose body (or part) @r carries */
static inline size_t hc_file_size(const struct hc_resp *r)
{
	char v[96];
	const char *slash;

	if (hc_header(r, "Content-Range", v, sizeof(v)) &&
	    (slash = strchr(v, '/')))
		return strtoul(slash + 1, NULL, 10);
	return r->body_len;
}

/*
 * The way a server started with --send @mode (and the default file cache)
 * sends the body of @r: auto sends a file of at most HC_MEMORY_MAX bytes
 * from the cache's memory (the first whole response READs it there; the
 * tests ask for no part of such a file before that), every other body by
 * SENDFILE where the kernel has it; without it (stock mode), by READ+SEND
 * when the body fits one 64 KiB buffer (httpd/server.h's CHUNK) with its
 * head and a larger one by SPLICE, as sendfile does there.
 */
static inline enum hc_way hc_way(const char *mode, const struct hc_resp *r)
{
	bool is_auto = !strcmp(mode, "auto");

	if (is_auto && hc_file_size(r) <= HC_MEMORY_MAX)
		return HC_MEMORY;
	if (!strcmp(mode, "read") ||
	    (is_auto && !httpd_has_sendfile() &&
	     r->body_len + r->head_len <= 65536))
		return HC_READ;
	if (!strcmp(mode, "splice") || !httpd_has_sendfile())
		return HC_SPLICE;
	return HC_SENDFILE;
}

/* Count in @w the way the body of @r, a file's, went in --send @mode. */
static inline void hc_count_body(struct hc_ways *w, const char *mode,
				 const struct hc_resp *r)
{
	if (r->body_len)
		w->bodies[hc_way(mode, r)]++;
}

/*
 * After httpd_stop() of a server started with --stats: it sent as many
 * file bodies each way as @want counts, and by no other way.
 */
static inline void httpd_check_ways(const struct httpd *h,
				    const struct hc_ways *want,
				    const char *what)
{
	static const char *const names[HC_WAYS] = {
		"sendfile", "splice", "read", "memory",
	};

	for (int i = 0; i < HC_WAYS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s_bodies=", names[i]);
		t_check_res((int)httpd_stat(h, name), (int)want->bodies[i],
			    "%s: %lu file bodies went by %s, as --stats "
			    "counts them", what, want->bodies[i], names[i]);
	}
}

#endif
