// SPDX-License-Identifier: MIT
/*
 * Description: a file replaced by rename, or removed, again and again while
 * it is requested: every answer is one whole version with that version's
 * ETag, or 404; never a 500, never one version's bytes under another's
 * length. Stock mode has no STATX of the slot a file was opened into: it
 * took the size and mtime from a STATX of the path after the open, and a
 * file replaced between the two went out as the old file's bytes cut to
 * the new one's length, a file removed there as a 500. It now checks that
 * the path named the same file before and after the open, and opens
 * again if not. No open-file cache: every request opens. Runs on the host
 * too (tests/host/httpd-native.sh): the site is made under $TMPDIR.
 */
#include <pthread.h>

#include "httpd.h"

#define REQUESTS 400
#define UNIT 4096

static char root[256], path[300], tmp[300], buf[4 * UNIT + 4096];
static volatile int stop;

/* A version @k (1..3): k * UNIT bytes of 'A' + k, its length says which */
static void write_version(int k)
{
	static char data[3 * UNIT];

	memset(data, 'A' + k, k * UNIT);
	t_write_file(tmp, data, k * UNIT);
}

static bool one_version(const struct hc_resp *r)
{
	size_t k = r->body_len / UNIT;

	if (k < 1 || k > 3 || r->body_len % UNIT)
		return false;
	for (size_t i = 0; i < r->body_len; i++)
		if (r->body[i] != (char)('A' + k))
			return false;
	return true;
}

/*
 * Replaced every millisecond or so, removed one time in five: often
 * enough that opens race it, not so often that eight opens in a row do
 * (the server then answers 503)
 */
static void *replacer(void *arg)
{
	(void)arg;
	for (int i = 0; !stop; i++) {
		write_version(i % 3 + 1);
		t_assert(rename(tmp, path) == 0, "rename");
		if (i % 5 == 4)
			unlink(path);
		usleep(1000);
	}
	return NULL;
}

int main(void)
{
	const char *argv[] = { "-n", "--threads", "2", "--file-cache", "0",
			       NULL };
	int whole = 0, missing = 0, other = 0, tag_ok = 0;
	struct hc_resp r;
	struct httpd h;
	pthread_t th;

	snprintf(root, sizeof(root), "%s/httpd-replace",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/f.bin", root);
	snprintf(tmp, sizeof(tmp), "%s/.new", root);
	write_version(1);
	t_assert(rename(tmp, path) == 0, "rename");

	httpd_start(&h, root, argv);
	pthread_create(&th, NULL, replacer, NULL);
	for (int i = 0; i < REQUESTS; i++) {
		int s = hc_get(h.port, "/f.bin", buf, sizeof(buf), &r);
		char tag[64], want[64];

		if (s == 404) {
			missing++;
		} else if (s == 200 && one_version(&r)) {
			whole++;
			/* the size half of the tag is the version's length */
			snprintf(want, sizeof(want), "-%zx\"", r.body_len);
			tag_ok += hc_header(&r, "ETag", tag, sizeof(tag)) &&
				  strlen(tag) > strlen(want) &&
				  !strcmp(tag + strlen(tag) - strlen(want),
					  want);
		} else {
			other++;
			printf("# other: status %d, %zu bytes: %.40s\n", s,
			       s == 200 ? r.body_len : strlen(buf), buf);
		}
	}
	stop = 1;
	pthread_join(th, NULL);
	t_check(other == 0 && whole > 0 && missing > 0, "%d requests of a "
		"file replaced and removed: %d whole versions, %d 404, %d "
		"other", REQUESTS, whole, missing, other);
	t_check(tag_ok == whole, "each whole version with its ETag: %d of %d",
		tag_ok, whole);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "the server exits 0");
	unlink(path);
	unlink(tmp);
	rmdir(root);
	return t_exit();
}
