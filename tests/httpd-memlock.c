// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd starts with its defaults as a user whose locked
 * memory is limited, as it is by default (RLIMIT_MEMLOCK 8 MiB): the body
 * buffers for READ+SEND that its threads may come to hold (any of them
 * all 512 connections') are past the limit, so it says at start that
 * past it it READs into unregistered buffers, where it used to fail
 * ("registering the buffers: Cannot allocate memory"). It runs as uid
 * 65534 and serves a 4 KiB and a 100 KiB file, each the bytes read(2)
 * reads; with the limit lifted, it says nothing of the kind. With one
 * thread, --send read (so that the bodies are READ on the nofd kernel
 * too) and 768 KiB, room for its ring but less than the first chunk of
 * buffers it maps (16 of 64 KiB), that chunk's registration fails: it
 * says so in the error log (the limit reached) and serves the same bytes
 * by plain READs.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-memlock"
#define NOBODY 65534
#define LIMIT (8 << 20)
#define SMALL (768 << 10)
#define NOTE "READ into unregistered buffers"

static char buf[1 << 18], want[100 << 10];

static void get(int port, const char *path, size_t size)
{
	struct hc_resp r;
	int status = hc_get(port, path, buf, sizeof(buf), &r);

	t_check(status == 200 && r.body_len == size &&
		!memcmp(r.body, want, size), "GET %s: %d, %zu bytes, the "
		"file's", path, status, r.body_len);
}

int main(void)
{
	struct httpd h;

	mkdir(ROOT, 0755);
	chmod(ROOT, 0755);
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = 'a' + i % 19;
	t_write_file(ROOT "/4k.bin", want, 4096);
	t_write_file(ROOT "/100k.bin", want, sizeof(want));

	/* first: the rings of a server that just exited may still count
	 * for the user's locked memory for a moment */
	httpd_start_limited(&h, ROOT, (const char *[]){ "-n", "-t", "1", "-s",
			    "read", NULL }, NOBODY, SMALL);
	get(h.port, "/4k.bin", 4096);
	get(h.port, "/100k.bin", sizeof(want));
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check(strstr(h.log, "limit reached: RLIMIT_MEMLOCK: " NOTE) != NULL,
		"with 768 KiB no chunk registers, and the error log says so: "
		"%s", h.log);

	httpd_start_limited(&h, ROOT, (const char *[]){ "-n", NULL }, NOBODY,
			    LIMIT);
	get(h.port, "/4k.bin", 4096);
	get(h.port, "/100k.bin", sizeof(want));
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check(strstr(h.log, NOTE) && strstr(h.log, "RLIMIT_MEMLOCK"),
		"with 8 MiB of locked memory it says that it READs into "
		"unregistered buffers: %s", h.log);

	httpd_start_as(&h, ROOT, (const char *[]){ "-n", NULL }, NOBODY);
	get(h.port, "/4k.bin", 4096);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "exit status: %s", h.log);
	t_check(!strstr(h.log, NOTE), "with no limit it registers them: %s",
		h.log);
	return t_exit();
}
