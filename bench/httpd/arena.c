// SPDX-License-Identifier: MIT
/*
 * arena.c: the site of versus's arena load, shaped like HttpArena's static
 * profile: ARENA_FILES text files of 3 to 67 KiB (HTML, CSS, JavaScript,
 * SVG, JSON, plain text), each with the precompressed siblings FILE.br
 * (brotli, quality 11) and FILE.gz (gzip -9), made here with the brotli
 * encoder and zlib linked in; and wrk's script, which asks for a file
 * drawn at random with "Accept-Encoding: br, gzip".
 *
 * The text is made up from a vocabulary and numbers drawn from a generator
 * seeded the same in every run, so that it compresses about as real assets
 * do (3-6x), neither as a run of one byte nor as noise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <brotli/encode.h>
#include <zlib.h>

#include "die.h"
#include "site.h"

enum kind { HTML, CSS, JS, SVG, JSON, TXT };

static const struct {
	const char *name;
	enum kind kind;
} files[ARENA_FILES] = {
	{ "index.html", HTML }, { "about.html", HTML }, { "docs.html", HTML },
	{ "reset.css", CSS }, { "main.css", CSS }, { "theme.css", CSS },
	{ "app.js", JS }, { "vendor.js", JS }, { "router.js", JS },
	{ "charts.js", JS }, { "utils.js", JS }, { "logo.svg", SVG },
	{ "icons.svg", SVG }, { "hero.svg", SVG }, { "data.json", JSON },
	{ "manifest.json", JSON }, { "products.json", JSON },
	{ "config.json", JSON }, { "readme.txt", TXT }, { "license.txt", TXT },
};

static const char *const words[] = {
	"account", "active", "address", "after", "album", "amount", "answer",
	"archive", "article", "author", "banner", "basket", "before", "border",
	"button", "cache", "caption", "card", "carousel", "cart", "category",
	"channel", "chart", "checkout", "client", "color", "column", "comment",
	"content", "context", "count", "create", "customer", "dashboard",
	"data", "date", "default", "delete", "detail", "dialog", "display",
	"document", "download", "draft", "editor", "element", "email", "error",
	"event", "feature", "field", "filter", "footer", "format", "gallery",
	"grid", "group", "header", "height", "hidden", "history", "image",
	"index", "input", "item", "label", "layout", "length", "link", "list",
	"loading", "local", "login", "logo", "margin", "media", "member",
	"menu", "message", "modal", "module", "name", "navigation", "notice",
	"number", "offset", "option", "order", "owner", "padding", "page",
	"panel", "parent", "payment", "picture", "position", "preview", "price",
	"primary", "product", "profile", "query", "quote", "range", "record",
	"render", "report", "request", "result", "review", "route", "row",
	"search", "section", "select", "session", "setting", "shadow", "share",
	"sidebar", "size", "slider", "source", "status", "store", "style",
	"summary", "table", "target", "theme", "thumbnail", "title", "toggle",
	"token", "tooltip", "total", "update", "upload", "user", "value",
	"video", "view", "visible", "width", "window", "wrapper",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static uint64_t rng;

/* xorshift64*: the same sequence in every run */
static unsigned int draw(unsigned int n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 0x2545f4914f6cdd1dull >> 33) % n;
}

static const char *word(void)
{
	return words[draw(NWORDS)];
}

struct text {
	char *buf;
	size_t len, size;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->size - t->len)
		die("arena: a file outgrew its buffer", -ENOSPC);
	t->len += n;
}

/* a sentence of 6 to 19 words */
static void sentence(struct text *t)
{
	int n = 6 + draw(14);
	const char *w = word();

	put(t, "%c%s", w[0] - 'a' + 'A', w + 1);
	for (int i = 1; i < n; i++)
		put(t, " %s", word());
	put(t, ".");
}

static void html_unit(struct text *t)
{
	switch (draw(4)) {
	case 0:
		put(t, "<h2 id=\"%s-%u\">%s %s</h2>\n", word(), draw(100),
		    word(), word());
		break;
	case 1:
		put(t, "<li><a href=\"/%s/%s-%u.html\" class=\"%s\">%s</a></li>\n",
		    word(), word(), draw(1000), word(), word());
		break;
	default:
		put(t, "<p class=\"%s\">", word());
		sentence(t);
		put(t, " ");
		sentence(t);
		put(t, "</p>\n");
	}
}

static void css_unit(struct text *t)
{
	put(t, ".%s-%s, .%s > %s:hover {\n  color: #%06x;\n  margin: %upx "
	    "%upx;\n  padding: %u.%urem;\n  border: 1px solid #%06x;\n}\n",
	    word(), word(), word(), draw(2) ? "a" : "li", draw(1 << 24),
	    draw(40), draw(40), draw(4), draw(10), draw(1 << 24));
}

static void js_unit(struct text *t)
{
	const char *f = word(), *g = word(), *v = word(), *c = word();

	put(t, "export function %s%c%s(%s, options) {\n  const %s = %s.%s + "
	    "%u;\n  if (%s > options.%s) {\n    return %s(options, \"%s\");\n"
	    "  }\n  return [%s, options].map((x) => x.%s * %u);\n}\n\n",
	    f, g[0] - 'a' + 'A', g + 1, v, c, v, word(), draw(1000), c,
	    word(), f, word(), v, word(), draw(100));
}

static void svg_unit(struct text *t)
{
	put(t, "<path d=\"M%u %uL%u %uC%u %u %u %u %u %uZ\" fill=\"#%06x\" "
	    "opacity=\"0.%u\"/>\n", draw(512), draw(512), draw(512), draw(512),
	    draw(512), draw(512), draw(512), draw(512), draw(512), draw(512),
	    draw(1 << 24), draw(10));
}

static void json_unit(struct text *t)
{
	put(t, "  {\"id\": %u, \"name\": \"%s %s\", \"price\": %u.%02u, "
	    "\"tags\": [\"%s\", \"%s\"], \"active\": %s},\n", draw(100000),
	    word(), word(), draw(500), draw(100), word(), word(),
	    draw(2) ? "true" : "false");
}

static void txt_unit(struct text *t)
{
	for (int i = 0; i < 4; i++) {
		sentence(t);
		put(t, i == 3 ? "\n\n" : " ");
	}
}

/* file @i's text, of about @size bytes (a unit more at most) */
static void make_text(int i, struct text *t)
{
	static const char *const heads[] = {
		[HTML] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta "
			 "charset=\"utf-8\"><title>%s</title>\n<link "
			 "rel=\"stylesheet\" href=\"main.css\"></head>\n<body>\n",
		[CSS] = "/* %s */\n",
		[JS] = "// %s\n\"use strict\";\n\n",
		[SVG] = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
			"512 512\">\n<title>%s</title>\n",
		[JSON] = "{\"name\": \"%s\", \"items\": [\n",
		[TXT] = "%s\n\n",
	};
	static const char *const tails[] = {
		[HTML] = "</body>\n</html>\n", [CSS] = "", [JS] = "",
		[SVG] = "</svg>\n", [JSON] = "  {}\n]}\n", [TXT] = "",
	};
	static void (*const units[])(struct text *) = {
		[HTML] = html_unit, [CSS] = css_unit, [JS] = js_unit,
		[SVG] = svg_unit, [JSON] = json_unit, [TXT] = txt_unit,
	};
	enum kind k = files[i].kind;

	rng = 0x9e3779b97f4a7c15ull * (i + 1);
	t->len = 0;
	put(t, heads[k], files[i].name);
	while (t->len < arena_size(i))
		units[k](t);
	put(t, "%s", tails[k]);
}

size_t arena_size(int i)
{
	/* 3 to 67 KiB in even steps, the steps dealt out across the kinds */
	return 3072 + (size_t)(i * 7 % ARENA_FILES) * 65536 / (ARENA_FILES - 1);
}

static void write_path(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		die(path, -errno);
	close(fd);
}

static void write_to(const char *dir, const char *name, const char *suffix,
		     const void *data, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	write_path(path, data, len);
}

/* @in as a gzip member (RFC 1952), as `gzip -9` makes it; its length */
static size_t gzip(const char *in, size_t len, unsigned char *out,
		   size_t size)
{
	z_stream z = { 0 };

	/* 15 + 16: a 32 KiB window, with gzip's header and trailer */
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		die("arena: deflateInit2", -ENOMEM);
	z.next_in = (unsigned char *)in;
	z.avail_in = len;
	z.next_out = out;
	z.avail_out = size;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		die("arena: deflate", -ENOSPC);
	deflateEnd(&z);
	return z.total_out;
}

void make_arena(const char *dir, const char *lua)
{
	static char text[72 * 1024];
	static unsigned char packed[80 * 1024];
	char script[2048];
	size_t n, total = 0, total_gz = 0, total_br = 0;
	struct text t = { text, 0, sizeof(text) };
	int len;

	if (mkdir(dir, 0755))
		die(dir, -errno);
	for (int i = 0; i < ARENA_FILES; i++) {
		make_text(i, &t);
		write_to(dir, files[i].name, "", text, t.len);
		n = gzip(text, t.len, packed, sizeof(packed));
		write_to(dir, files[i].name, ".gz", packed, n);
		total_gz += n;
		n = sizeof(packed);
		if (!BrotliEncoderCompress(BROTLI_MAX_QUALITY,
					   BROTLI_DEFAULT_WINDOW,
					   BROTLI_MODE_TEXT, t.len,
					   (const uint8_t *)text, &n, packed))
			die("arena: BrotliEncoderCompress", -ENOSPC);
		write_to(dir, files[i].name, ".br", packed, n);
		total_br += n;
		total += t.len;
	}
	printf("versus: arena: %d files, %zu bytes; .gz %zu, .br %zu\n",
	       ARENA_FILES, total, total_gz, total_br);

	/* each request one of the files, drawn at random (LuaJIT's generator,
	 * seeded the same in every run), taking brotli or gzip */
	len = snprintf(script, sizeof(script), "local files = {");
	for (int i = 0; i < ARENA_FILES; i++)
		len += snprintf(script + len, sizeof(script) - len,
				"%s\"/arena/%s\"", i ? ", " : "",
				files[i].name);
	len += snprintf(script + len, sizeof(script) - len,
			"}\nlocal headers = { [\"Accept-Encoding\"] = "
			"\"br, gzip\" }\nmath.randomseed(1)\n"
			"request = function()\n  return wrk.format(nil, "
			"files[math.random(1, %d)], headers)\nend\n",
			ARENA_FILES);
	if ((size_t)len >= sizeof(script))
		die("arena: wrk's script", -ENOSPC);
	write_path(lua, script, len);
}
