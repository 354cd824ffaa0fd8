// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd serves index.html for a directory, redirects a
 * directory named without its slash, and lists a directory without an
 * index with GETDENTS: every entry readdir(3) sees, once, its name escaped
 * in the link and in the text.
 */
#include <ctype.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-dir"

static char buf[1 << 17];

int main(void)
{
	static const char *const names[] = {
		"plain.txt", "a&b<c>\"d'.txt", "sp ace.html", "100%.txt",
		"caf\xc3\xa9.txt",
	};
	const char *argv[] = { "-n", NULL };
	struct hc_resp r;
	struct httpd h;
	char v[256], path[256], li[1024];
	struct dirent *d;
	DIR *dir;
	int entries = 0;

	mkdir(ROOT, 0755);
	mkdir(ROOT "/site", 0755);
	mkdir(ROOT "/list", 0755);
	mkdir(ROOT "/list/sub dir", 0755);
	t_write_file(ROOT "/index.html", "<p>root</p>\n", 12);
	t_write_file(ROOT "/site/index.html", "<p>site</p>\n", 12);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), ROOT "/list/%s", names[i]);
		t_write_file(path, "x", 1);
	}
	for (int i = 0; i < 300; i++) {	/* more than one GETDENTS buffer */
		snprintf(path, sizeof(path), ROOT "/list/file-%03d-%s", i,
			 "padding-to-make-the-records-longer");
		t_write_file(path, "x", 1);
	}
	httpd_start(&h, ROOT, argv);

	t_check(hc_get(h.port, "/", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 12 && !memcmp(r.body, "<p>root</p>\n", 12),
		"/ is /index.html");
	t_check(hc_get(h.port, "/site/", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 12 && !memcmp(r.body, "<p>site</p>\n", 12),
		"/site/ is /site/index.html");
	t_check_res(hc_get(h.port, "/site", buf, sizeof(buf), &r), 301,
		    "/site is a redirect");
	t_check(hc_header(&r, "Location", v, sizeof(v)) &&
		!strcmp(v, "/site/"), "to /site/");
	t_check_res(hc_get(h.port, "/list/sub%20dir", buf, sizeof(buf), &r),
		    301, "/list/sub%%20dir is a redirect");
	t_check(hc_header(&r, "Location", v, sizeof(v)) &&
		!strcmp(v, "/list/sub%20dir/"), "to /list/sub%%20dir/ (%s)",
		v);

	t_check_res(hc_get(h.port, "/list/", buf, sizeof(buf), &r), 200,
		    "/list/ (no index.html) is a listing");
	t_check(hc_header(&r, "Content-Type", v, sizeof(v)) &&
		!strncmp(v, "text/html", 9), "the listing is HTML");
	t_check(r.body_len == strlen(r.body), "the listing is the body");
	dir = opendir(ROOT "/list");
	t_assert(dir, "opendir");
	while ((d = readdir(dir))) {
		char url[256], html[256];
		size_t u = 0, t = 0;
		bool isdir = d->d_type == DT_DIR;
		const char *hit;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		entries++;
		for (const char *p = d->d_name; *p; p++) {
			unsigned char c = *p;

			if (isalnum(c) || strchr("-._~", c))
				url[u++] = c;
			else
				u += sprintf(url + u, "%%%02X", c);
			switch (c) {
			case '&': t += sprintf(html + t, "&amp;"); break;
			case '<': t += sprintf(html + t, "&lt;"); break;
			case '>': t += sprintf(html + t, "&gt;"); break;
			case '"': t += sprintf(html + t, "&quot;"); break;
			case '\'': t += sprintf(html + t, "&#39;"); break;
			default: html[t++] = c;
			}
		}
		url[u] = html[t] = '\0';
		snprintf(li, sizeof(li), "<li><a href=\"%s%s\">%s%s</a></li>",
			 url, isdir ? "/" : "", html, isdir ? "/" : "");
		hit = strstr(r.body, li);
		if (!hit || strstr(hit + 1, li))
			t_check(0, "listed once: %s", li);
	}
	closedir(dir);
	t_check(entries == 306, "every one of the %d entries is listed once, "
		"escaped", entries);
	t_check(!strstr(r.body, "<c>"), "no raw markup from a name");
	t_check(strstr(r.body, "<a href=\"../\">") != NULL,
		"the listing links to the parent");

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	return t_exit();
}
