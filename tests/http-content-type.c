// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's Content-Type for each common web format
 * (httpd/http.c), by extension and in any case: the types nginx's
 * mime.types gives them (JavaScript as RFC 9239's text/javascript), with
 * "; charset=utf-8" on the text types that nginx's `charset utf-8` marks
 * (its charset_types: HTML, plain text, XML, JavaScript), and
 * application/octet-stream for anything else.
 */
#include "test.h"
#include "../httpd/http.c"

static const struct {
	const char *path, *type;
} want[] = {
	{ "index.html", "text/html; charset=utf-8" },
	{ "a/b.HTM", "text/html; charset=utf-8" },
	{ "style.css", "text/css" },
	{ "app.js", "text/javascript; charset=utf-8" },
	{ "mod.mjs", "text/javascript; charset=utf-8" },
	{ "data.json", "application/json" },
	{ "logo.svg", "image/svg+xml" },
	{ "p.png", "image/png" },
	{ "p.jpg", "image/jpeg" },
	{ "p.jpeg", "image/jpeg" },
	{ "p.gif", "image/gif" },
	{ "p.webp", "image/webp" },
	{ "p.avif", "image/avif" },
	{ "favicon.ico", "image/x-icon" },
	{ "f.woff2", "font/woff2" },
	{ "f.woff", "font/woff" },
	{ "m.wasm", "application/wasm" },
	{ "notes.txt", "text/plain; charset=utf-8" },
	{ "doc.pdf", "application/pdf" },
	{ "v.mp4", "video/mp4" },
	{ "v.webm", "video/webm" },
	{ "feed.xml", "text/xml; charset=utf-8" },
	{ "t.csv", "text/csv" },
	{ "archive.tar", "application/octet-stream" },
	{ "noext", "application/octet-stream" },
	{ "dir.html/file", "application/octet-stream" },
	{ ".hidden", "application/octet-stream" },
	{ "dir/.html", "application/octet-stream" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = http_content_type(want[i].path);

		t_check(!strcmp(got, want[i].type), "%s: %s, want %s",
			want[i].path, got, want[i].type);
	}
	return t_exit();
}
