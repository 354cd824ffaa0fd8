// SPDX-License-Identifier: MIT
/*
 * mime.c: Content-Type by a file's extension. Built in: nginx's default
 * mime.types, whole (the list nginx 1.22 ships), with JavaScript as RFC
 * 9239 names it (text/javascript: nginx says application/javascript),
 * and .avif, .csv and .mjs, which it lacks; "; charset=utf-8" on the types
 * nginx's `charset utf-8` marks (its charset_types: HTML, XML, plain
 * text, WML, JavaScript, RSS). --types FILE adds to it or overrides it,
 * from a file in /etc/mime.types form ("type ext ext ...", '#' comments)
 * or nginx's ("types { type ext ...; }"). Both tables are sorted by
 * extension and searched by bisection, in any case of the extension.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

#define UTF8	"; charset=utf-8"

struct mime {
	const char *ext, *type;
};

/* Sorted by extension (tests/http-content-type checks it) */
static const struct mime builtin[] = {
	{ "3gp", "video/3gpp" },
	{ "3gpp", "video/3gpp" },
	{ "7z", "application/x-7z-compressed" },
	{ "ai", "application/postscript" },
	{ "asf", "video/x-ms-asf" },
	{ "asx", "video/x-ms-asf" },
	{ "atom", "application/atom+xml" },
	{ "avi", "video/x-msvideo" },
	{ "avif", "image/avif" },
	{ "bin", "application/octet-stream" },
	{ "bmp", "image/x-ms-bmp" },
	{ "cco", "application/x-cocoa" },
	{ "crt", "application/x-x509-ca-cert" },
	{ "css", "text/css" },
	{ "csv", "text/csv" },
	{ "deb", "application/octet-stream" },
	{ "der", "application/x-x509-ca-cert" },
	{ "dll", "application/octet-stream" },
	{ "dmg", "application/octet-stream" },
	{ "doc", "application/msword" },
	{ "docx",
	  "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
	{ "ear", "application/java-archive" },
	{ "eot", "application/vnd.ms-fontobject" },
	{ "eps", "application/postscript" },
	{ "exe", "application/octet-stream" },
	{ "flv", "video/x-flv" },
	{ "gif", "image/gif" },
	{ "hqx", "application/mac-binhex40" },
	{ "htc", "text/x-component" },
	{ "htm", "text/html" UTF8 },
	{ "html", "text/html" UTF8 },
	{ "ico", "image/x-icon" },
	{ "img", "application/octet-stream" },
	{ "iso", "application/octet-stream" },
	{ "jad", "text/vnd.sun.j2me.app-descriptor" },
	{ "jar", "application/java-archive" },
	{ "jardiff", "application/x-java-archive-diff" },
	{ "jng", "image/x-jng" },
	{ "jnlp", "application/x-java-jnlp-file" },
	{ "jpeg", "image/jpeg" },
	{ "jpg", "image/jpeg" },
	{ "js", "text/javascript" UTF8 },
	{ "json", "application/json" },
	{ "kar", "audio/midi" },
	{ "kml", "application/vnd.google-earth.kml+xml" },
	{ "kmz", "application/vnd.google-earth.kmz" },
	{ "m3u8", "application/vnd.apple.mpegurl" },
	{ "m4a", "audio/x-m4a" },
	{ "m4v", "video/x-m4v" },
	{ "mid", "audio/midi" },
	{ "midi", "audio/midi" },
	{ "mjs", "text/javascript" UTF8 },
	{ "mml", "text/mathml" },
	{ "mng", "video/x-mng" },
	{ "mov", "video/quicktime" },
	{ "mp3", "audio/mpeg" },
	{ "mp4", "video/mp4" },
	{ "mpeg", "video/mpeg" },
	{ "mpg", "video/mpeg" },
	{ "msi", "application/octet-stream" },
	{ "msm", "application/octet-stream" },
	{ "msp", "application/octet-stream" },
	{ "odg", "application/vnd.oasis.opendocument.graphics" },
	{ "odp", "application/vnd.oasis.opendocument.presentation" },
	{ "ods", "application/vnd.oasis.opendocument.spreadsheet" },
	{ "odt", "application/vnd.oasis.opendocument.text" },
	{ "ogg", "audio/ogg" },
	{ "pdb", "application/x-pilot" },
	{ "pdf", "application/pdf" },
	{ "pem", "application/x-x509-ca-cert" },
	{ "pl", "application/x-perl" },
	{ "pm", "application/x-perl" },
	{ "png", "image/png" },
	{ "ppt", "application/vnd.ms-powerpoint" },
	{ "pptx",
	  "application/vnd.openxmlformats-officedocument.presentationml.presentation" },
	{ "prc", "application/x-pilot" },
	{ "ps", "application/postscript" },
	{ "ra", "audio/x-realaudio" },
	{ "rar", "application/x-rar-compressed" },
	{ "rpm", "application/x-redhat-package-manager" },
	{ "rss", "application/rss+xml" UTF8 },
	{ "rtf", "application/rtf" },
	{ "run", "application/x-makeself" },
	{ "sea", "application/x-sea" },
	{ "shtml", "text/html" UTF8 },
	{ "sit", "application/x-stuffit" },
	{ "svg", "image/svg+xml" },
	{ "svgz", "image/svg+xml" },
	{ "swf", "application/x-shockwave-flash" },
	{ "tcl", "application/x-tcl" },
	{ "tif", "image/tiff" },
	{ "tiff", "image/tiff" },
	{ "tk", "application/x-tcl" },
	{ "ts", "video/mp2t" },
	{ "txt", "text/plain" UTF8 },
	{ "war", "application/java-archive" },
	{ "wasm", "application/wasm" },
	{ "wbmp", "image/vnd.wap.wbmp" },
	{ "webm", "video/webm" },
	{ "webp", "image/webp" },
	{ "wml", "text/vnd.wap.wml" UTF8 },
	{ "wmlc", "application/vnd.wap.wmlc" },
	{ "wmv", "video/x-ms-wmv" },
	{ "woff", "font/woff" },
	{ "woff2", "font/woff2" },
	{ "xhtml", "application/xhtml+xml" },
	{ "xls", "application/vnd.ms-excel" },
	{ "xlsx",
	  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
	{ "xml", "text/xml" UTF8 },
	{ "xpi", "application/x-xpinstall" },
	{ "xspf", "application/xspf+xml" },
	{ "zip", "application/zip" },
};
#define NR_BUILTIN	(sizeof(builtin) / sizeof(builtin[0]))

/* What --types FILE gave, sorted by extension, the last of a name kept */
static struct mime *loaded;
static size_t nr_loaded;
/* ...made of these, in the files' order */
static struct entry {
	struct mime m;
	size_t seq;
} *entries;
static size_t nr_entries;

static const char *find(const struct mime *table, size_t n, const char *ext)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcasecmp(ext, table[mid].ext);

		if (!cmp)
			return table[mid].type;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *http_content_type(const char *path)
{
	const char *name = strrchr(path, '/'), *dot, *type = NULL;

	name = name ? name + 1 : path;
	dot = strrchr(name, '.');
	if (dot && dot != name) {	/* ".html" is a name, not an extension */
		type = find(loaded, nr_loaded, dot + 1);
		if (!type)
			type = find(builtin, NR_BUILTIN, dot + 1);
	}
	return type ? type : "application/octet-stream";
}

/* ---- --types FILE ---- */

/* A word of the file: '{', '}' and ';' are words of their own */
struct word {
	const char *s;
	size_t n;
	int line;
};

static bool is(const struct word *w, const char *s)
{
	return w->n == strlen(s) && !memcmp(w->s, s, w->n);
}

static bool punct(const struct word *w)
{
	return is(w, "{") || is(w, "}") || is(w, ";");
}

/*
 * The words of @text, comments left out: their number, in *@words;
 * SIZE_MAX when memory ran out
 */
static size_t split(const char *text, struct word **words)
{
	size_t n = 0, room = 0;
	int line = 1;

	*words = NULL;
	for (const char *p = text; *p;) {
		struct word w = { p, 1, line };

		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (isspace((unsigned char)*p)) {
			line += *p++ == '\n';
			continue;
		}
		if (!strchr("{};", *p))
			w.n = strcspn(p, "{};# \t\r\n\v\f");
		p += w.n;
		if (n == room) {
			room = room ? room * 2 : 256;
			*words = realloc(*words, room * sizeof(**words));
			if (!*words)
				return SIZE_MAX;
		}
		(*words)[n++] = w;
	}
	return n;
}

/* A type as RFC 9110 8.3.1 writes one: token "/" token */
static bool valid_type(const struct word *w)
{
	const char *slash = memchr(w->s, '/', w->n);

	if (!slash || slash == w->s || slash == w->s + w->n - 1)
		return false;
	for (size_t i = 0; i < w->n; i++)
		if (w->s + i != slash && !isalnum((unsigned char)w->s[i]) &&
		    !strchr("!#$&-^_.+", w->s[i]))
			return false;
	return true;
}

static bool valid_ext(const struct word *w)
{
	for (size_t i = 0; i < w->n; i++)
		if ((unsigned char)w->s[i] <= ' ' || strchr("/\"'\\", w->s[i]))
			return false;
	return !punct(w) && w->s[0] != '.';
}

/* @type, with the charset on the types nginx's charset_types lists */
static char *type_string(const struct word *w)
{
	static const char *const text[] = {
		"text/html", "text/xml", "text/plain", "text/vnd.wap.wml",
		"application/javascript", "text/javascript",
		"application/rss+xml",
	};
	bool charset = false;
	char *s;

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		charset |= is(w, text[i]);
	s = malloc(w->n + sizeof(UTF8));
	if (s) {
		memcpy(s, w->s, w->n);
		strcpy(s + w->n, charset ? UTF8 : "");
	}
	return s;
}

static bool add(const struct word *type, const struct word *ext)
{
	struct entry *more = realloc(entries,
				     (nr_entries + 1) * sizeof(*more));
	char *e = malloc(ext->n + 1);

	if (!more || !e)
		return false;
	entries = more;
	for (size_t i = 0; i < ext->n; i++)
		e[i] = tolower((unsigned char)ext->s[i]);
	e[ext->n] = '\0';
	entries[nr_entries].m.ext = e;
	entries[nr_entries].m.type = type_string(type);
	entries[nr_entries].seq = nr_entries;
	return entries[nr_entries++].m.type != NULL;
}

/* By extension, and of two for one extension the later first */
static int by_ext(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int cmp = strcmp(x->m.ext, y->m.ext);

	return cmp ? cmp : x->seq < y->seq ? 1 : -1;
}

/*
 * The entries of @w[0..@n): "types { type ext ...; ... }" (nginx), else a
 * line each, "type ext ...". NULL, or what is wrong, with its word.
 */
static const char *parse(const struct word *w, size_t n, size_t *bad)
{
	bool nginx = n >= 2 && is(&w[0], "types") && is(&w[1], "{");
	size_t i = nginx ? 2 : 0;

	while (i < n) {
		const struct word *type = &w[i];

		*bad = i;
		if (nginx && is(type, "}"))
			return i + 1 == n ? NULL : "words after the '}'";
		if (!valid_type(type))
			return "not a type";
		for (i++; i < n && (nginx ? !is(&w[i], ";") :
				    w[i].line == type->line); i++) {
			*bad = i;
			if (!valid_ext(&w[i]))
				return nginx && punct(&w[i]) ?
				       "no ';' before it" :
				       "not an extension";
			if (!add(type, &w[i]))
				return strerror(errno);
		}
		if (nginx && i++ == n)
			return "no ';' after the extensions";
	}
	*bad = n ? n - 1 : 0;
	return nginx ? "no '}' at the end" : NULL;
}

int http_types_load(const char *file, char *err, size_t size)
{
	FILE *f = fopen(file, "r");
	struct word *words = NULL;
	char *text = NULL;
	const char *why;
	size_t len = 0, n = 0, bad = 0, kept = 0;

	if (!f) {
		snprintf(err, size, "%s: %s", file, strerror(errno));
		return -1;
	}
	/* a file of types, read whole: 1 MiB is 20 of Debian's */
	text = malloc(1 << 20);
	if (text)
		len = fread(text, 1, (1 << 20) - 1, f);
	why = !text ? strerror(errno) : ferror(f) ? "cannot be read" :
	      !feof(f) ? "over 1 MiB" : memchr(text, '\0', len) ?
	      "has a NUL" : NULL;
	fclose(f);
	if (!why) {
		text[len] = '\0';
		n = split(text, &words);
		why = n == SIZE_MAX ? strerror(ENOMEM) : parse(words, n, &bad);
	}
	if (why) {
		if (words && n && n != SIZE_MAX)
			snprintf(err, size, "%s:%d: '%.*s': %s", file,
				 words[bad].line, (int)words[bad].n,
				 words[bad].s, why);
		else
			snprintf(err, size, "%s: %s", file, why);
	}
	free(words);
	free(text);
	if (why)
		return -1;
	qsort(entries, nr_entries, sizeof(*entries), by_ext);
	free(loaded);
	loaded = malloc((nr_entries + 1) * sizeof(*loaded));
	if (!loaded) {
		snprintf(err, size, "%s: %s", file, strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < nr_entries; i++)
		if (!kept || strcmp(loaded[kept - 1].ext, entries[i].m.ext))
			loaded[kept++] = entries[i].m;
	nr_loaded = kept;
	return 0;
}
