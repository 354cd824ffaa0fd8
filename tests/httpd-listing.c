// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's directory listings are sorted by name (byte
 * order), hide the names that start with '.' (as nginx's autoindex does)
 * unless --list-dotfiles, which still serve by name, and are never an
 * arbitrary subset: a directory of 1,502 names, more than a page holds,
 * lists the first names in order, every one of them, and says how many
 * of how many, with the page's markup whole, whether the directory gives
 * them in no order or last first; HEAD says the same length.
 * Runs on the host too (tests/host/httpd-native.sh): the site is made
 * under $TMPDIR.
 */
#include "httpd.h"

static char root[256], buf[1 << 17], path[512];

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void site(void)
{
	snprintf(root, sizeof(root), "%s/httpd-listing",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/small", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/small/.git", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/small/sub", root);
	mkdir(path, 0755);
	static const char *const small[] = { "b", "a", "C", ".env", "a b" };
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		snprintf(path, sizeof(path), "%s/small/%s", root, small[i]);
		t_write_file(path, "secret", 6);
	}
	snprintf(path, sizeof(path), "%s/big", root);
	mkdir(path, 0755);
	/* in no order: a hash of i spreads the names */
	for (unsigned int i = 0; i < 1500; i++) {
		snprintf(path, sizeof(path), "%s/big/name-%08x-%u.txt", root,
			 i * 2654435761u, i);
		t_write_file(path, "x", 1);
	}
	snprintf(path, sizeof(path), "%s/big/.hidden", root);
	t_write_file(path, "x", 1);
	/* in order: tmpfs lists them newest first, the order that cuts
	 * the most */
	snprintf(path, sizeof(path), "%s/seq", root);
	mkdir(path, 0755);
	for (unsigned int i = 0; i < 1502; i++) {
		snprintf(path, sizeof(path), "%s/seq/name-%08u.txt", root, i);
		t_write_file(path, "x", 1);
	}
	snprintf(path, sizeof(path), "%s/big/a-dir", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/big/z-dir", root);
	mkdir(path, 0755);
}

#define HEAD(dir) "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">" \
	"<title>Index of /" dir "</title></head><body><ul>\n" \
	"<li><a href=\"../\">../</a></li>\n"
#define LI(href, text) "<li><a href=\"" href "\">" text "</a></li>\n"
#define FOOT "</ul>\n</body></html>\n"

/* The names of @dir, sorted by strcmp(), dotfiles out: how many */
static size_t sorted_names(const char *dir, char **names, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	t_assert(d, "opendir %s", dir);
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	return n;
}

static void big(int port, const char *dir)
{
	static char *names[2000];
	char line[600], note[200], v[32];
	size_t n, shown = 0, head_len;
	struct hc_resp r;
	const char *p, *end;
	bool in_order = true;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	n = sorted_names(path, names, 2000);
	t_assert(n == 1502, "1502 names (%zu)", n);
	snprintf(path, sizeof(path), "/%s/", dir);
	t_check_res(hc_get(port, path, buf, sizeof(buf), &r), 200,
		    "%s is a listing", path);
	t_check(r.body_len <= 65536 && r.body_len == strlen(r.body),
		"a page of at most 64 KiB (%zu)", r.body_len);
	snprintf(line, sizeof(line), HEAD("%s"), dir);
	t_check(!strncmp(r.body, line, strlen(line)), "the page's head");
	p = r.body + strlen(line);
	end = r.body + r.body_len;
	/* each line the next name in order, from the first */
	for (; shown < n; shown++) {
		bool dir = !strcmp(names[shown], "a-dir") ||
			   !strcmp(names[shown], "z-dir");

		snprintf(line, sizeof(line), "<li><a href=\"%s%s\">%s%s</a>"
			 "</li>\n", names[shown], dir ? "/" : "", names[shown],
			 dir ? "/" : "");
		if ((size_t)(end - p) < strlen(line) ||
		    memcmp(p, line, strlen(line))) {
			in_order = !memcmp(p, "</ul>\n", 6);
			break;
		}
		p += strlen(line);
	}
	t_check(in_order && shown >= 600 && shown < n, "the first %zu of %zu "
		"names, each in order, none missed, then the list's end",
		shown, n);
	snprintf(note, sizeof(note), "</ul>\n<p>The first %zu of %zu names, "
		 "in order: no more fit in a listing.</p>\n"
		 "</body></html>\n", shown, n);
	t_check((size_t)(end - p) == strlen(note) && !memcmp(p, note,
							     strlen(note)),
		"then the note, and the page ends whole");
	head_len = r.body_len;
	t_check(hc_request_with(port, "HEAD", path, "", buf, sizeof(buf),
				&r) == 200 &&
		hc_header(&r, "Content-Length", v, sizeof(v)) &&
		strtoul(v, NULL, 10) == head_len,
		"HEAD %s: the same Content-Length (%s)", path, v);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

int main(void)
{
	const char *plain[] = { "-n", NULL };
	const char *dots[] = { "-n", "--list-dotfiles", NULL };
	struct hc_resp r;
	struct httpd h;
	bool ok;

	site();
	httpd_start(&h, root, plain);
	ok = hc_get(h.port, "/small/", buf, sizeof(buf), &r) == 200 &&
	     !strcmp(r.body, HEAD("small") LI("C", "C") LI("a", "a")
		     LI("a%20b", "a b") LI("b", "b") LI("sub/", "sub/") FOOT);
	t_check(ok, "/small/: sorted, no dotfiles, the markup whole%s%s",
		ok ? "" : ":\n", ok ? "" : r.body);
	t_check(hc_get(h.port, "/small/.env", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 6, "/small/.env is served when named");
	t_check_res(hc_get(h.port, "/small/.git/", buf, sizeof(buf), &r), 200,
		    "/small/.git/ is listed when named");
	big(h.port, "big");
	big(h.port, "seq");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");

	httpd_start(&h, root, dots);
	ok = hc_get(h.port, "/small/", buf, sizeof(buf), &r) == 200 &&
	     !strcmp(r.body, HEAD("small") LI(".env", ".env")
		     LI(".git/", ".git/") LI("C", "C") LI("a", "a")
		     LI("a%20b", "a b") LI("b", "b") LI("sub/", "sub/") FOOT);
	t_check(ok, "--list-dotfiles: /small/ with .env and .git/, sorted%s%s",
		ok ? "" : ":\n", ok ? "" : r.body);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	return t_exit();
}
