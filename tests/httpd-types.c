// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd sends nginx's default types for the files a
 * site serves (.mp3, .zip, .rss, .ogg, .m4a, .atom, .docx went out as
 * application/octet-stream before it had the whole list), and --types
 * FILE adds to them and overrides them, in nginx's "types {}" form and
 * in /etc/mime.types' form, the later file winning; a file it cannot
 * read or parse stops it at start, exit 2, saying where. Where the system
 * has an /etc/mime.types (Debian's, natively; the guest has none, and it
 * says so), the server loads it whole, and .flac, .md and .epub, which
 * nginx's list lacks, get the types that file gives them. Runs on the
 * host too (tests/host/httpd-native.sh): the site is made under $TMPDIR.
 */
#include "httpd.h"

#define SYSTEM_TYPES "/etc/mime.types"

static char root[256], buf[4096], nginx_file[300], lines_file[300];

static const struct {
	const char *name, *type;
} served[] = {
	{ "a.mp3", "audio/mpeg" },
	{ "a.zip", "application/zip" },
	{ "a.rss", "application/rss+xml; charset=utf-8" },
	{ "a.ogg", "audio/ogg" },
	{ "a.m4a", "audio/x-m4a" },
	{ "a.atom", "application/atom+xml" },
	{ "a.docx", "application/vnd.openxmlformats-officedocument."
		    "wordprocessingml.document" },
	{ "a.html", "text/html; charset=utf-8" },
	{ "a.md", "application/octet-stream" },
	{ "a.gmi", "application/octet-stream" },
};

/* with both --types files: added, overridden, and the later file wins */
static const struct {
	const char *name, *type;
} typed[] = {
	{ "a.md", "text/markdown" },
	{ "a.gmi", "text/gemini" },
	{ "a.mp3", "audio/x-override" },
	{ "a.zip", "application/x-lines-won" },
	{ "a.html", "text/html; charset=utf-8" },
	{ "a.ogg", "audio/ogg" },
};

static void site(void)
{
	char path[300];

	snprintf(root, sizeof(root), "%s/httpd-types",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	mkdir(root, 0755);
	for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, served[i].name);
		t_write_file(path, "x", 1);
	}
	snprintf(nginx_file, sizeof(nginx_file), "%s/types.conf", root);
	snprintf(path, sizeof(path), "types {\n    text/markdown md;\n"
		 "    audio/x-override mp3;  # over the built-in\n"
		 "    application/x-nginx-lost zip;\n}\n");
	t_write_file(nginx_file, path, strlen(path));
	snprintf(lines_file, sizeof(lines_file), "%s/mime.types", root);
	snprintf(path, sizeof(path), "# mime.types\ntext/gemini\tgmi\n"
		 "application/x-lines-won zip\n");
	t_write_file(lines_file, path, strlen(path));
}

static void check_types(int port, const char *what, size_t n,
			const char *const *names, const char *const *types)
{
	struct hc_resp r;
	char v[256];

	for (size_t i = 0; i < n; i++) {
		char target[64];

		snprintf(target, sizeof(target), "/%s", names[i]);
		t_check(hc_get(port, target, buf, sizeof(buf), &r) == 200 &&
			hc_header(&r, "Content-Type", v, sizeof(v)) &&
			!strcmp(v, types[i]), "%s: %s is %s (%s)", what,
			names[i], types[i], v);
	}
}

/*
 * The type @file gives extension @ext, in /etc/mime.types' form (a later
 * line over an earlier one, as the server reads it), into @type: false if
 * it gives none
 */
static bool file_type(const char *file, const char *ext, char *type,
		      size_t size)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	bool found = false;

	t_assert(f, "open %s", file);
	while (fgets(line, sizeof(line), f)) {
		char *save, *t = strtok_r(line, " \t\n", &save), *e;

		if (!t || t[0] == '#')
			continue;
		while ((e = strtok_r(NULL, " \t\n", &save)))
			if (!strcmp(e, ext)) {
				snprintf(type, size, "%s", t);
				found = true;
			}
	}
	fclose(f);
	return found;
}

/*
 * The system's own /etc/mime.types (Debian's, natively), loaded whole:
 * files of types nginx's list lacks get the type it gives them
 */
static void system_types(void)
{
	static const char *const exts[] = { "flac", "md", "epub" };
	const char *args[] = { "-n", "--types", SYSTEM_TYPES, NULL };
	char path[300], want[256], v[256];
	struct hc_resp r;
	struct httpd h;
	int checked = 0;

	if (access(SYSTEM_TYPES, R_OK)) {
		printf("# SKIP --types %s: there is none here (%s; the guest "
		       "has none): not loaded\n", SYSTEM_TYPES,
		       strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		snprintf(path, sizeof(path), "%s/sys.%s", root, exts[i]);
		t_write_file(path, "x", 1);
	}
	httpd_start(&h, root, args);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		char target[64];
		size_t n;

		if (!file_type(SYSTEM_TYPES, exts[i], want, sizeof(want))) {
			printf("# %s gives .%s no type: not checked\n",
			       SYSTEM_TYPES, exts[i]);
			continue;
		}
		snprintf(target, sizeof(target), "/sys.%s", exts[i]);
		n = strlen(want);
		t_check(hc_get(h.port, target, buf, sizeof(buf), &r) == 200 &&
			hc_header(&r, "Content-Type", v, sizeof(v)) &&
			!strncmp(v, want, n) &&
			(!v[n] || !strcmp(v + n, "; charset=utf-8")),
			"--types %s: .%s is %s, as the file says (%s)",
			SYSTEM_TYPES, exts[i], want, v);
		checked++;
	}
	t_check(checked > 0, "--types %s: %d of its types checked",
		SYSTEM_TYPES, checked);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--types %s: exit 0",
		    SYSTEM_TYPES);
}

/* The server with @args cannot start: exit 2, its message in @out */
static int refused(const char *a1, const char *a2, char *out, size_t size)
{
	const char *argv[] = { httpd_bin(), a1, a2, NULL };

	return httpd_run(-1, argv, out, size);
}

int main(void)
{
	const char *plain[] = { "-n", NULL };
	const char *with[] = { "-n", "--types", nginx_file, "--types",
			       lines_file, NULL };
	const char *names[16], *types[16];
	char bad[300], out[1024];
	struct httpd h;
	size_t n;

	site();
	httpd_start(&h, root, plain);
	for (n = 0; n < sizeof(served) / sizeof(served[0]); n++) {
		names[n] = served[n].name;
		types[n] = served[n].type;
	}
	check_types(h.port, "built in", n, names, types);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");

	httpd_start(&h, root, with);
	for (n = 0; n < sizeof(typed) / sizeof(typed[0]); n++) {
		names[n] = typed[n].name;
		types[n] = typed[n].type;
	}
	check_types(h.port, "--types", n, names, types);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");

	system_types();

	snprintf(bad, sizeof(bad), "%s/bad.types", root);
	t_write_file(bad, "types {\n  text/x-a a\n}\n", 23);
	t_check(refused("--types", bad, out, sizeof(out)) == 2 &&
		strstr(out, "bad.types:3: '}': no ';'"),
		"a malformed --types file: exit 2, saying where: %.*s",
		(int)strcspn(out, "\n"), out);
	t_check(refused("--types", "/nonexistent.types", out,
			sizeof(out)) == 2 &&
		strstr(out, "/nonexistent.types: No such file"),
		"a missing --types file: exit 2, saying so: %.*s",
		(int)strcspn(out, "\n"), out);
	return t_exit();
}
