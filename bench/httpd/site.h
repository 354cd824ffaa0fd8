/* SPDX-License-Identifier: MIT */
/*
 * site.h: versus's work directory, the site the servers serve and nginx's
 * configuration (site.c).
 */
#ifndef VERSUS_SITE_H
#define VERSUS_SITE_H

#include <stdbool.h>

/* the many-files load: /many/N.html, N < SITE_MANY, 4 KiB each */
#define SITE_MANY	10000

/*
 * The work directory, /tmp/versus.XXXXXX, and what goes in it: the site,
 * nginx's prefix and its two configurations, nofd-httpd's access log and
 * wrk's script for the many-files load. Set by make_work_dir().
 */
extern char work[], site[], nginx_dir[], nginx_off[], nginx_on[];
extern char access_log[], many_lua[];

/* Make the work directory, removed at exit unless @keep. */
void make_work_dir(bool keep);

/*
 * The site: small pages, a 1 MiB file, a directory without an index, the
 * many files; in the guest on the ext4 disk if it has one (not @native).
 */
void make_site(bool native);

/*
 * nginx's configuration @name.conf, listening on @addr; @cache: with
 * open_file_cache.
 */
void make_nginx_conf(const char *name, const char *addr, bool cache);

#endif
