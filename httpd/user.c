// SPDX-License-Identifier: MIT
/*
 * user.c: whom nofd-httpd serves as. Started as root (the usual way to
 * get port 80), it binds, sets up every ring, its table, buffers and
 * registrations, opens its root and logs, and then, before the first
 * ACCEPT is armed, becomes --user (nobody by default): supplementary
 * groups, then the group, then the user, each real, effective and saved,
 * so that nothing can take root back. Files are then opened with that
 * user's permissions: a file it may not read is a 403, as with nginx's
 * workers. Started as another user it changes nothing (--user may only
 * name that user). Names are looked up in /etc/passwd and /etc/group
 * themselves: the binary is static, without NSS modules.
 *
 * The drop happens in the first thread once every thread has set up its
 * ring (they wait on a barrier until it is done): glibc's setgroups(),
 * setresgid() and setresuid() change the credentials of every thread of
 * the process (nptl(7)), and the server checks each thread's own after.
 * io_uring runs a request with the credentials of the task that issued
 * it, also when it is handed to an io-wq worker (the request carries
 * them), so no request issued after the drop runs as root, whatever the
 * io-wq threads made before it were created with.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

#define NOBODY		65534	/* nobody and nogroup, when /etc lacks them */
#define GROUPS_MAX	64

static struct {
	uid_t uid;
	gid_t gid;
	char name[64];		/* its /etc/passwd name, or "" */
	gid_t groups[GROUPS_MAX];
	int ngroups;
	bool change;		/* we are root and become it */
} who;

static char served_as[256];

/* The /etc/passwd entry named @name, or (@name NULL) of uid @uid */
static bool passwd_entry(const char *name, uid_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	bool found = false;

	if (!f)
		return false;
	while (!found && (pw = fgetpwent(f))) {
		if (name ? strcmp(pw->pw_name, name) : pw->pw_uid != uid)
			continue;
		who.uid = pw->pw_uid;
		who.gid = pw->pw_gid;
		snprintf(who.name, sizeof(who.name), "%s", pw->pw_name);
		found = true;
	}
	fclose(f);
	return found;
}

/* who's groups, as initgroups(3): its group, and those that list it */
static void group_list(void)
{
	FILE *f = fopen("/etc/group", "re");
	struct group *gr;

	who.groups[0] = who.gid;
	who.ngroups = 1;
	if (!f)
		return;
	while (who.name[0] && who.ngroups < GROUPS_MAX &&
	       (gr = fgetgrent(f))) {
		if (gr->gr_gid == who.gid)
			continue;
		for (char **m = gr->gr_mem; *m; m++) {
			if (!strcmp(*m, who.name)) {
				who.groups[who.ngroups++] = gr->gr_gid;
				break;
			}
		}
	}
	fclose(f);
}

/* --user NAME, UID or UID:GID, into who; exit 2 when it names no one */
static void resolve(const char *user)
{
	char *end;
	unsigned long uid, gid;

	errno = 0;
	uid = strtoul(user, &end, 10);
	if (user[0] >= '0' && user[0] <= '9' && !errno && uid < (uid_t)-1 &&
	    (!*end || *end == ':')) {
		bool named = passwd_entry(NULL, uid);

		who.uid = uid;
		if (!named)
			who.gid = uid;
		if (*end == ':') {
			errno = 0;
			gid = strtoul(end + 1, &end, 10);
			if (errno || *end || gid >= (gid_t)-1 || end[-1] == ':')
				bad_option("--user %s: not NAME, UID or "
					 "UID:GID", user);
			who.gid = gid;
		}
	} else if (!passwd_entry(user, 0)) {
		if (strcmp(user, "nobody"))
			bad_option("--user %s: no such user in /etc/passwd",
				 user);
		who.uid = who.gid = NOBODY;	/* the kernel's overflow ids */
	}
}

/* "NAME (uid U, gid G, groups G...): @what" into served_as */
static void describe(const char *what)
{
	size_t len = 0, size = sizeof(served_as);

	if (who.name[0])
		len = snprintf(served_as, size, "%s (", who.name);
	len += snprintf(served_as + len, size - len, "uid %u, gid %u",
			who.uid, who.gid);
	for (int i = 0; i < who.ngroups && len < size - 32; i++)
		len += snprintf(served_as + len, size - len, "%s%u",
				i ? " " : ", groups ", who.groups[i]);
	snprintf(served_as + len, size - len, "%s: %s",
		 who.name[0] ? ")" : "", what);
}

/*
 * Whom the server will serve as: at start, before anything is set up, so
 * that a bad --user is said at once. Root without --user serves as nobody;
 * as uid 0 only when --user root asks for it.
 */
void user_resolve(void)
{
	uid_t euid = geteuid();

	if (euid) {
		if (opt.user) {
			resolve(opt.user);
			if (who.uid != euid) {
				bad_option("--user %s: only root can serve as "
					 "another user, and this is uid %u",
					 opt.user, euid);
			}
		}
		if (!passwd_entry(NULL, euid))
			who.name[0] = '\0';
		who.uid = euid;
		who.gid = getegid();
		describe("not started as root: no change");
		return;
	}
	resolve(opt.user ? opt.user : "nobody");
	if (!who.uid && (!opt.user || strcmp(opt.user, "root"))) {
		bad_option("--user %s is uid 0: the server serves as root only "
			 "with --user root", opt.user ? opt.user : "nobody");
	}
	if (!who.uid) {
		snprintf(served_as, sizeof(served_as), "root (uid 0, --user "
			 "root): nothing dropped");
		return;
	}
	group_list();
	who.change = true;
}

/* Every thread of ours has @uid and @gid, real, effective and saved */
static bool all_threads_are(uid_t uid, gid_t gid)
{
	char path[64], line[256];
	int bad = 0;

	for (int i = 0; i < opt.threads; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%ld/status",
			 (long)workers[i].tid);
		f = fopen(path, "re");
		if (!f)
			return false;
		while (fgets(line, sizeof(line), f)) {
			unsigned int r, e, s;

			if (sscanf(line, "Uid: %u %u %u", &r, &e, &s) == 3)
				bad += r != uid || e != uid || s != uid;
			if (sscanf(line, "Gid: %u %u %u", &r, &e, &s) == 3)
				bad += r != gid || e != gid || s != gid;
		}
		fclose(f);
	}
	return !bad;
}

/*
 * Root: become who, in every thread, before the first byte is served;
 * exit 1 if any step fails or root could be taken back.
 */
void user_drop(void)
{
	if (!who.change)
		return;
	if (setgroups(who.ngroups, who.groups) ||
	    setresgid(who.gid, who.gid, who.gid) ||
	    setresuid(who.uid, who.uid, who.uid))
		die("dropping root for --user", -errno);
	if (!setresuid(0, 0, 0) || !all_threads_are(who.uid, who.gid)) {
		fprintf(stderr, "nofd-httpd: root could not be dropped in "
			"every thread\n");
		exit(1);
	}
	describe("root dropped");
}

/* Whom it serves as, for the start-up message */
const char *user_served_as(void)
{
	return served_as;
}
