// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd's Content-Type by extension (httpd/mime.c), in
 * any case: every entry of nginx's default mime.types (written out
 * below in its own form) gives its type, JavaScript as RFC 9239's
 * text/javascript, with "; charset=utf-8" on the types nginx's `charset
 * utf-8` marks (charset_types: HTML, XML, plain text, WML, JavaScript,
 * RSS); application/octet-stream for anything else; the built-in table
 * is sorted, as its bisection needs. --types FILE (http_types_load())
 * reads /etc/mime.types' form and nginx's, adds and overrides (a later
 * entry over an earlier one), and refuses a malformed file saying where.
 */
#include "test.h"
#include "../httpd/http.c"
#include "../httpd/mime.c"

/* nginx's conf/mime.types (1.22 to 1.24) */
static const char nginx_types[] =
	"text/html html htm shtml;\n"
	"text/css css;\n"
	"text/xml xml;\n"
	"image/gif gif;\n"
	"image/jpeg jpeg jpg;\n"
	"application/javascript js;\n"
	"application/atom+xml atom;\n"
	"application/rss+xml rss;\n"
	"text/mathml mml;\n"
	"text/plain txt;\n"
	"text/vnd.sun.j2me.app-descriptor jad;\n"
	"text/vnd.wap.wml wml;\n"
	"text/x-component htc;\n"
	"image/avif avif;\n"
	"image/png png;\n"
	"image/svg+xml svg svgz;\n"
	"image/tiff tif tiff;\n"
	"image/vnd.wap.wbmp wbmp;\n"
	"image/webp webp;\n"
	"image/x-icon ico;\n"
	"image/x-jng jng;\n"
	"image/x-ms-bmp bmp;\n"
	"font/woff woff;\n"
	"font/woff2 woff2;\n"
	"application/java-archive jar war ear;\n"
	"application/json json;\n"
	"application/mac-binhex40 hqx;\n"
	"application/msword doc;\n"
	"application/pdf pdf;\n"
	"application/postscript ps eps ai;\n"
	"application/rtf rtf;\n"
	"application/vnd.apple.mpegurl m3u8;\n"
	"application/vnd.google-earth.kml+xml kml;\n"
	"application/vnd.google-earth.kmz kmz;\n"
	"application/vnd.ms-excel xls;\n"
	"application/vnd.ms-fontobject eot;\n"
	"application/vnd.ms-powerpoint ppt;\n"
	"application/vnd.oasis.opendocument.graphics odg;\n"
	"application/vnd.oasis.opendocument.presentation odp;\n"
	"application/vnd.oasis.opendocument.spreadsheet ods;\n"
	"application/vnd.oasis.opendocument.text odt;\n"
	"application/vnd.openxmlformats-officedocument.presentationml."
	"presentation pptx;\n"
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet "
	"xlsx;\n"
	"application/vnd.openxmlformats-officedocument.wordprocessingml."
	"document docx;\n"
	"application/vnd.wap.wmlc wmlc;\n"
	"application/wasm wasm;\n"
	"application/x-7z-compressed 7z;\n"
	"application/x-cocoa cco;\n"
	"application/x-java-archive-diff jardiff;\n"
	"application/x-java-jnlp-file jnlp;\n"
	"application/x-makeself run;\n"
	"application/x-perl pl pm;\n"
	"application/x-pilot prc pdb;\n"
	"application/x-rar-compressed rar;\n"
	"application/x-redhat-package-manager rpm;\n"
	"application/x-sea sea;\n"
	"application/x-shockwave-flash swf;\n"
	"application/x-stuffit sit;\n"
	"application/x-tcl tcl tk;\n"
	"application/x-x509-ca-cert der pem crt;\n"
	"application/x-xpinstall xpi;\n"
	"application/xhtml+xml xhtml;\n"
	"application/xspf+xml xspf;\n"
	"application/zip zip;\n"
	"application/octet-stream bin exe dll;\n"
	"application/octet-stream deb;\n"
	"application/octet-stream dmg;\n"
	"application/octet-stream iso img;\n"
	"application/octet-stream msi msp msm;\n"
	"audio/midi mid midi kar;\n"
	"audio/mpeg mp3;\n"
	"audio/ogg ogg;\n"
	"audio/x-m4a m4a;\n"
	"audio/x-realaudio ra;\n"
	"video/3gpp 3gpp 3gp;\n"
	"video/mp2t ts;\n"
	"video/mp4 mp4;\n"
	"video/mpeg mpeg mpg;\n"
	"video/quicktime mov;\n"
	"video/webm webm;\n"
	"video/x-flv flv;\n"
	"video/x-m4v m4v;\n"
	"video/x-mng mng;\n"
	"video/x-ms-asf asx asf;\n"
	"video/x-ms-wmv wmv;\n"
	"video/x-msvideo avi;\n";

static const struct {
	const char *path, *type;
} want[] = {
	{ "a/b.HTM", "text/html; charset=utf-8" },
	{ "mod.mjs", "text/javascript; charset=utf-8" },
	{ "t.csv", "text/csv" },
	{ "SONG.Mp3", "audio/mpeg" },
	{ "archive.tar", "application/octet-stream" },
	{ "noext", "application/octet-stream" },
	{ "trailing.", "application/octet-stream" },
	{ "dir.html/file", "application/octet-stream" },
	{ ".hidden", "application/octet-stream" },
	{ "dir/.html", "application/octet-stream" },
};

/* nginx's charset_types, whose types get "; charset=utf-8" */
static bool marked(const char *type)
{
	return !strcmp(type, "text/html") || !strcmp(type, "text/xml") ||
	       !strcmp(type, "text/plain") ||
	       !strcmp(type, "text/vnd.wap.wml") ||
	       !strcmp(type, "application/javascript") ||
	       !strcmp(type, "application/rss+xml");
}

static void builtin_types(void)
{
	char line[200], want_type[128], path[32];
	const char *p = nginx_types;
	int entries = 0, wrong = 0;

	for (size_t i = 1; i < NR_BUILTIN; i++)
		t_check(strcmp(builtin[i - 1].ext, builtin[i].ext) < 0,
			"built-in table in order at %s", builtin[i].ext);
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *type, *ext, *save;

		memcpy(line, p, n);
		line[n] = '\0';
		p += n + 1;
		*strchr(line, ';') = '\0';
		type = strtok_r(line, " ", &save);
		snprintf(want_type, sizeof(want_type), "%s%s",
			 !strcmp(type, "application/javascript") ?
			 "text/javascript" : type,
			 marked(type) ? "; charset=utf-8" : "");
		while ((ext = strtok_r(NULL, " ", &save))) {
			const char *got;

			snprintf(path, sizeof(path), "f.%s", ext);
			got = http_content_type(path);
			entries++;
			if (strcmp(got, want_type) && wrong++ < 10)
				printf("    .%s: %s, want %s\n", ext, got,
				       want_type);
		}
	}
	t_check(!wrong && entries == 110, "each of nginx's %d extensions "
		"has its type (%d wrong)", entries, wrong);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *got = http_content_type(want[i].path);

		t_check(!strcmp(got, want[i].type), "%s: %s, want %s",
			want[i].path, got, want[i].type);
	}
}

/* Load @text from a file; 0 or -1, the error in err */
static char err[512];

static int load(const char *text)
{
	char path[] = "/tmp/http-content-type-XXXXXX";
	int fd = mkstemp(path), ret;

	t_assert(fd >= 0, "mkstemp");
	t_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text),
		 "write");
	close(fd);
	err[0] = '\0';
	ret = http_types_load(path, err, sizeof(err));
	unlink(path);
	return ret;
}

static void check_type(const char *path, const char *type)
{
	const char *got = http_content_type(path);

	t_check(!strcmp(got, type), "%s: %s (%s)", path, type, got);
}

static const struct {
	const char *name, *text, *where;	/* where: in the error */
} bad_files[] = {
	{ "a type without '/'", "text html\n", ":1: 'text'" },
	{ "nginx's form without ';'", "types {\n text/x-a aa\n}\n",
	  "no ';'" },
	{ "nginx's form without '}'", "types {\n text/x-a aa;\n",
	  "no '}'" },
	{ "words after '}'", "types { text/x-a aa; } x\n", "after the '}'" },
	{ "an extension with '/'", "text/x-a a/b\n", "'a/b': not an ext" },
	{ "punctuation in the line form", "text/x-a aa;\n", "';'" },
};

static void loaded_types(void)
{
	t_check_res(load("# /etc/mime.types' form\n"
			 "audio/x-mine\tmine  mi # a comment\n"
			 "text/x-only-a-type\n"
			 "\n"
			 "application/x-over mp3\n"
			 "text/plain MINE\n"), 0,
		    "/etc/mime.types' form loads (%s)", err);
	check_type("a.mi", "audio/x-mine");
	check_type("a.MINE", "text/plain; charset=utf-8");
	check_type("a.mp3", "application/x-over");
	check_type("a.mp4", "video/mp4");

	t_check_res(load("# nginx's form\ntypes {\n"
			 "    text/x-nginx   ngx nx;\n"
			 "    image/x-over   png\n"
			 "                   ping;\n"
			 "    application/rss+xml  feed;  # a comment\n"
			 "}\n"), 0, "nginx's form loads (%s)", err);
	check_type("a.ngx", "text/x-nginx");
	check_type("a.nx", "text/x-nginx");
	check_type("a.png", "image/x-over");
	check_type("a.ping", "image/x-over");
	check_type("a.feed", "application/rss+xml; charset=utf-8");
	check_type("a.mi", "audio/x-mine");
	check_type("a.html", "text/html; charset=utf-8");

	t_check_res(load(""), 0, "an empty file loads");
	check_type("a.ngx", "text/x-nginx");
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++)
		t_check(load(bad_files[i].text) == -1 &&
			strstr(err, bad_files[i].where),
			"%s: refused, saying %s (%s)", bad_files[i].name,
			bad_files[i].where, err);
	t_check(http_types_load("/nonexistent/types", err, sizeof(err)) == -1 &&
		strstr(err, "No such file"), "a missing file: refused (%s)",
		err);
}

int main(void)
{
	builtin_types();
	loaded_types();
	return t_exit();
}
