// SPDX-License-Identifier: MIT
/*
 * Description: on the nofd kernel nofd-httpd (--send auto) sends every
 * body by SENDFILE from the file's slot, one request per MiB: bodies of
 * 16 KiB, 1 MiB and 3 MiB + 1 arrive as read(2) reads them, on one
 * kept-alive connection and on new ones, and no pipe is made (--stats:
 * pipes=0), so a connection holds its socket's slot and its file's, and
 * nothing else. The server's --stats count the ways: all 9 bodies went by
 * SENDFILE, in 1, 1 and 4 SENDFILEs each, none by READ+SEND or SPLICE.
 * Without SENDFILE (stock mode, under tests/httpd-stock) the server says
 * so at start and sends the 16 KiB bodies by READ+SEND, the larger ones
 * through a pipe, by SPLICE.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-sendfile"
#define MIB (1 << 20)

static const struct {
	const char *path;
	size_t size;
} files[] = {
	{ "/16k.bin", 16384 },
	{ "/1m.bin", MIB },
	{ "/3m.bin", 3 * MIB + 1 },
};

static char want[3 * MIB + 1], buf[3 * MIB + 8192];
static struct hc_ways ways;	/* the bodies each way */
static unsigned long sendfiles;	/* SENDFILEs they take: one per MiB */

/* Count the way @r's body went, and its SENDFILEs if by SENDFILE. */
static void count(const struct hc_resp *r)
{
	hc_count_body(&ways, "auto", r);
	if (hc_way("auto", r) == HC_SENDFILE)
		sendfiles += (r->body_len + MIB - 1) / MIB;
}

/* GET each file twice on one kept-alive connection; check each body. */
static void keepalive(int port)
{
	int s = hc_connect(port);

	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < 3; i++) {
			char req[256];
			struct hc_resp r;
			size_t len = 0;
			ssize_t n;

			snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\n"
				 "Host: t\r\n\r\n", files[i].path);
			hc_send(s, req, strlen(req));
			/* hc_parse_resp(): 0 until Content-Length bytes came */
			while (!hc_parse_resp(buf, len, &r, false) &&
			       len < sizeof(buf) &&
			       (n = read(s, buf + len, sizeof(buf) - len)) > 0)
				len += n;
			t_check(r.status == 200 &&
				r.content_length == (long)files[i].size &&
				!memcmp(r.body, want, files[i].size),
				"keep-alive round %d: %s is 200, its %zu bytes",
				round + 1, files[i].path, files[i].size);
			count(&r);
		}
	}
	close(s);
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "1", "--stats", NULL };
	struct hc_resp r;
	struct httpd h;

	mkdir(ROOT, 0755);
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = 'a' + i % 26;
	for (size_t i = 0; i < 3; i++) {
		char path[128];

		snprintf(path, sizeof(path), ROOT "%s", files[i].path);
		t_write_file(path, want, files[i].size);
	}
	httpd_start(&h, ROOT, argv);
	for (size_t i = 0; i < 3; i++) {
		t_check(hc_get(h.port, files[i].path, buf, sizeof(buf),
			       &r) == 200 &&
			r.body_len == files[i].size &&
			!memcmp(r.body, want, files[i].size),
			"a new connection: %s is 200, its %zu bytes",
			files[i].path, files[i].size);
		count(&r);
	}
	keepalive(h.port);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status");
	if (httpd_stock()) {
		t_check(strstr(h.log, "no IORING_OP_SENDFILE") &&
			httpd_stat(&h, "pipes=") > 0,
			"stock mode: it says it has no SENDFILE, and sends "
			"through pipes: %s", h.log);
	} else {
		t_check(!strstr(h.log, "no IORING_OP_SENDFILE"),
			"the nofd kernel: no word of a missing SENDFILE: %s",
			h.log);
		t_check_res((int)httpd_stat(&h, "pipes="), 0,
			    "no pipe was made: %s", h.log);
	}
	t_check_res((int)httpd_stat(&h, "requests="), 9,
		    "requests served: %s", h.log);
	httpd_check_ways(&h, &ways, httpd_stock() ? "stock mode" :
			 "the nofd kernel");
	t_check(httpd_stock() || ways.bodies[HC_SENDFILE] == 9,
		"the nofd kernel: every body, 9, was expected by SENDFILE "
		"(%lu)", ways.bodies[HC_SENDFILE]);
	t_check_res((int)httpd_stat(&h, "sendfile_parts="), (int)sendfiles,
		    "one SENDFILE per MiB of each body sent by SENDFILE");
	return t_exit();
}
