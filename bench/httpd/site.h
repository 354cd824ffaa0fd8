/* SPDX-License-Identifier: MIT */
/*
 * site.h: versus's work directory, the site the servers serve and nginx's
 * configuration (site.c).
 */
#ifndef VERSUS_SITE_H
#define VERSUS_SITE_H

#include <stdbool.h>
#include <stddef.h>

/* the many-files load: /many/N.html, N < SITE_MANY, 4 KiB each */
#define SITE_MANY	10000

/*
 * the arena load (arena.c): /arena/NAME, ARENA_FILES text files of 3 to
 * 67 KiB, each with NAME.br and NAME.gz beside it
 */
#define ARENA_FILES	20

/*
 * The work directory, /tmp/versus.XXXXXX, and what goes in it: the site,
 * nginx's prefix and its two configurations, nofd-httpd's access log and
 * wrk's scripts for the many-files load and the arena load. Set by
 * make_work_dir().
 */
extern char work[], site[], nginx_dir[], nginx_off[], nginx_on[];
extern char access_log[], many_lua[], arena_lua[];

/* Make the work directory, removed at exit unless @keep. */
void make_work_dir(bool keep);

/*
 * The site: small pages, a 1 MiB file, a directory without an index, the
 * many files, the arena's; in the guest on the ext4 disk if it has one
 * (not @native).
 */
void make_site(bool native);

/* The arena's files and their siblings in @dir, wrk's script as @lua */
void make_arena(const char *dir, const char *lua);

/* The size of the arena's file @i (before compression) */
size_t arena_size(int i);

/*
 * nginx's configuration @name.conf, listening on @addr; @cache: with
 * open_file_cache; @brotli: the path of the brotli_static module to load,
 * or NULL (without it, gzip_static alone serves the arena's siblings).
 */
void make_nginx_conf(const char *name, const char *addr, bool cache,
		     const char *brotli);

#endif
