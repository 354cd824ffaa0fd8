// SPDX-License-Identifier: MIT
/*
 * site.c: what versus serves and how nginx is configured to serve it, all
 * in a work directory of its own under /tmp (site.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "die.h"
#include "site.h"
#include "workdir.h"

#define DISK "/dev/vda"

char work[] = "/tmp/versus.XXXXXX";
char site[64], nginx_dir[64], nginx_off[80], nginx_on[80];
char access_log[80], many_lua[64], arena_lua[64];
static bool site_mounted;

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		die(path, -errno);
	close(fd);
}

/*
 * Where the site lives: in the guest, on the ext4 disk vm/run.sh --disk
 * gives it, if it has one (a server's files are on a disk filesystem; on
 * 7.3's tmpfs every io_uring READ goes to io-wq), mounted noatime so that
 * serving a file writes nothing; natively, under the host's /tmp.
 */
static void mount_site(bool native)
{
	struct stat st;

	mkdir(site, 0755);
	if (native || stat(DISK, &st) || !S_ISBLK(st.st_mode)) {
		printf("versus: the site is on %s\n", native ?
		       "the host's /tmp" : "the guest's tmpfs (no disk)");
		return;
	}
	if (mount(DISK, site, "ext4", MS_NOATIME, NULL))
		die("mount " DISK, -errno);
	site_mounted = true;
	printf("versus: the site is on ext4 (%s, noatime)\n", DISK);
}

static void remove_work_dir(void)
{
	if (site_mounted)
		workdir_unmount(site);
	workdir_remove(work);
}

/*
 * A directory of its own under /tmp for everything it makes, removed at
 * exit (unless @keep): nothing at a fixed path, nothing of another run's
 */
void make_work_dir(bool keep)
{
	if (!mkdtemp(work))
		die("mkdtemp", -errno);
	snprintf(site, sizeof(site), "%s/site", work);
	snprintf(nginx_dir, sizeof(nginx_dir), "%s/nginx", work);
	snprintf(nginx_off, sizeof(nginx_off), "%s/off.conf", nginx_dir);
	snprintf(nginx_on, sizeof(nginx_on), "%s/on.conf", nginx_dir);
	snprintf(access_log, sizeof(access_log), "%s/nofd-access.log", work);
	snprintf(many_lua, sizeof(many_lua), "%s/many.lua", work);
	snprintf(arena_lua, sizeof(arena_lua), "%s/arena.lua", work);
	if (!keep)
		atexit(remove_work_dir);
}

/* the file @name of the site */
static void site_file(const char *name, const char *data, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", site, name);
	write_file(path, data, len);
}

/*
 * small pages, a 1 MiB file, a directory without an index, the many
 * files, the arena's files
 */
void make_site(bool native)
{
	char page[1024], path[128], script[256];
	static char big[1 << 20], many[4096];

	mount_site(native);
	snprintf(path, sizeof(path), "%s/list", site);
	mkdir(path, 0755);
	memset(page, 'p', sizeof(page));
	memcpy(page, "<!DOCTYPE html><p>", 18);
	page[sizeof(page) - 1] = '\n';
	site_file("page.html", page, sizeof(page));
	site_file("index.html", page, 512);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = 'a' + i % 26;
	site_file("big.bin", big, sizeof(big));
	site_file("two.html", big, 2048);
	site_file("8k.bin", big, 8192);
	site_file("16k.bin", big, 16384);
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "list/file-%02d.txt", i);
		site_file(path, page, 100 + i);
	}
	snprintf(path, sizeof(path), "%s/many", site);
	mkdir(path, 0755);
	memset(many, 'm', sizeof(many));
	for (int i = 0; i < SITE_MANY; i++) {
		snprintf(path, sizeof(path), "many/%d.html", i);
		site_file(path, many, sizeof(many));
	}
	/* each request a file drawn at random: LuaJIT's generator, seeded
	 * the same in every run */
	snprintf(script, sizeof(script), "math.randomseed(1)\n"
		 "request = function()\n"
		 "  return wrk.format(nil, \"/many/\" .. math.random(0, %d)"
		 " .. \".html\")\nend\n", SITE_MANY - 1);
	write_file(many_lua, script, strlen(script));
	snprintf(path, sizeof(path), "%s/arena", site);
	make_arena(path, arena_lua);
	sync();		/* nothing left to write back while it measures */
}

/*
 * One worker per vCPU, sendfile on, access log on, buffered as nofd-httpd's
 * is (32 KiB, written at least once a second); @cache: open_file_cache
 * of 10,000 files, each an open descriptor: the limit on descriptors is
 * raised so that the cache can hold them (nofd-httpd's slots need no
 * descriptors, and it raises the table's own bound itself). The arena's
 * files with their precompressed siblings, as nofd-httpd's --precompressed
 * serves them: brotli_static (when @brotli names its module) before
 * gzip_static (a module loaded later comes first in the content phase), and
 * "Vary: Accept-Encoding" as nofd-httpd says it.
 */
void make_nginx_conf(const char *name, const char *addr, bool cache,
		     const char *brotli)
{
	char conf[4096], path[128], module[320] = "";
	int n;

	mkdir(nginx_dir, 0755);
	snprintf(path, sizeof(path), "%s/logs", nginx_dir);
	mkdir(path, 0755);
	mkdir("/var", 0755);
	mkdir("/var/log", 0755);
	mkdir("/var/log/nginx", 0755);	/* its compiled-in error log */
	mkdir("/var/lib", 0755);
	mkdir("/var/lib/nginx", 0755);
	if (brotli)
		snprintf(module, sizeof(module), "load_module %s;\n", brotli);
	n = snprintf(conf, sizeof(conf),
		"%sdaemon off;\nmaster_process on;\nworker_processes 2;\n"
		"worker_rlimit_nofile 65536;\n"
		"user root;\nerror_log stderr warn;\npid %s/%s.pid;\n"
		"events { worker_connections 1024; }\n"
		"http {\n"
		"  types { text/html html; application/octet-stream bin;\n"
		"    text/css css; text/javascript js; image/svg+xml svg;\n"
		"    application/json json; text/plain txt; }\n"
		"  access_log %s/%s-access.log combined buffer=32k flush=1s;\n"
		"  sendfile on;\n  tcp_nopush on;\n"
		"  keepalive_requests 1000000;\n"
		"  client_body_temp_path %s/body;\n"
		"  proxy_temp_path %s/proxy;\n"
		"  fastcgi_temp_path %s/fastcgi;\n"
		"  uwsgi_temp_path %s/uwsgi;\n"
		"  scgi_temp_path %s/scgi;\n"
		"  %s\n"
		"  server {\n    listen %s reuseport; root %s; autoindex on;\n"
		"    location /arena/ { %sgzip_static on; gzip_vary on; }\n"
		"  }\n}\n",
		module, nginx_dir, name, nginx_dir, name, nginx_dir, nginx_dir,
		nginx_dir, nginx_dir, nginx_dir,
		cache ? "open_file_cache max=10000 inactive=60s;" :
			"open_file_cache off;",
		addr, site, brotli ? "brotli_static on; " : "");
	if (n >= (int)sizeof(conf))
		die("nginx.conf", -ENOSPC);
	snprintf(path, sizeof(path), "%s/%s.conf", nginx_dir, name);
	write_file(path, conf, n);
}
