// SPDX-License-Identifier: MIT
/*
 * Description: nofd-httpd started as root serves as --user (nobody, uid
 * 65534, by default) once it is set up: every thread of the server has
 * that uid and gid (real, effective and saved) and only that group, and
 * the start-up message says so. A mode-000 file and a file in a
 * directory only root may enter are then 403, as nginx's workers answer,
 * where open(2) as that user fails, and readable files are served; with
 * --user root (the only way to serve as uid 0) the mode-000 file is
 * served. UID:GID is taken; --user 0 and a user that does not exist are
 * refused at start (exit 2). Started as another user it changes nothing,
 * and refuses --user root. Port 80, both ways the README gives: started
 * as root with --port 80 it answers 200 and says it dropped root; a copy
 * of the binary given the file capability cap_net_bind_service=+ep (the
 * security.capability attribute written as setcap(8) writes it), run as
 * uid 65534, answers 200 on port 80, and a copy without it is refused the
 * port: exit 1, "Permission denied". Port 80 is only taken in a network
 * namespace the test makes (natively, tests/host/httpd-ops.sh) or in the
 * nofd guest, whose network is the virtual machine's; elsewhere, and the
 * setcap half where /tmp takes no security.* attribute (not in the guest,
 * whose tmpfs does), it says why it skips.
 */
#include <endian.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>

#include "frame.h"
#include "httpd.h"

#define ROOT "/tmp/httpd-user"
#define NOBODY 65534
/* the copies of the server given the capability, and not, to run on 80 */
#define BINDIR "/tmp/httpd-user-bin"
#define CAP_BIN BINDIR "/nofd-httpd-cap"
#define PLAIN_BIN BINDIR "/nofd-httpd-plain"
#define CAP_XATTR "security.capability"

static char buf[65536];

/* Whether open(2) of @path for reading succeeds as uid and gid @id */
static bool opens_as(const char *path, uid_t id)
{
	int status;
	pid_t pid = fork();

	t_assert(pid >= 0, "fork");
	if (!pid) {
		if (setgroups(0, NULL) || setgid(id) || setuid(id))
			_exit(2);
		_exit(open(path, O_RDONLY) < 0);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	t_assert(WIFEXITED(status) && WEXITSTATUS(status) < 2, "child");
	return !WEXITSTATUS(status);
}

/*
 * Each thread of @pid but io_uring's own has uid @uid and gid @gid, and
 * @groups 1: @gid as its only group, 0: none, -1: any
 */
static bool threads_are(pid_t pid, unsigned int uid, unsigned int gid,
			int groups, int *threads)
{
	char path[320], line[256], want[64];
	struct dirent *d;
	DIR *dir;
	bool ok = true;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	t_assert(dir, "opendir %s", path);
	*threads = 0;
	while ((d = readdir(dir))) {
		char name[64] = "";
		unsigned int r, e, s, f;
		int ids = 0;
		FILE *st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid,
			 d->d_name);
		st = fopen(path, "r");
		if (!st)
			continue;
		if (groups > 0)
			snprintf(want, sizeof(want), "Groups:\t%u \n", gid);
		else
			strcpy(want, "Groups:\t \n");
		while (fgets(line, sizeof(line), st)) {
			sscanf(line, "Name: %63s", name);
			if (sscanf(line, "Uid: %u %u %u %u", &r, &e, &s, &f) == 4)
				ids += r == uid && e == uid && s == uid;
			if (sscanf(line, "Gid: %u %u %u %u", &r, &e, &s, &f) == 4)
				ids += r == gid && e == gid && s == gid;
			if (!strncmp(line, "Groups:", 7))
				ids += groups < 0 || !strcmp(line, want);
		}
		fclose(st);
		if (!strncmp(name, "iou-", 4))
			continue;	/* io-wq: requests carry their creds */
		(*threads)++;
		if (ids != 3) {
			printf("    thread %s (%s): not uid %u gid %u\n",
			       d->d_name, name, uid, gid);
			ok = false;
		}
	}
	closedir(dir);
	return ok;
}

/* Run the server with @args as uid @uid (-1: as we are): its exit status */
static int run_as(uid_t uid, const char *const *args, char *out, size_t size)
{
	const char *argv[16] = { HTTPD_BIN, "--port", "0", "--addr",
				 "127.0.0.1", "--root", ROOT, "-n" };
	int n = 8;

	for (; *args && n < 15; args++)
		argv[n++] = *args;
	return httpd_run(uid, argv, out, size);
}

/* GET @path: what opening it as @uid says, 200 or 403 */
static void check_get(int port, const char *path, uid_t uid, const char *as)
{
	char file[256];
	struct hc_resp r;
	int want;

	snprintf(file, sizeof(file), ROOT "%s", path);
	want = opens_as(file, uid) ? 200 : 403;
	t_check_res(hc_get(port, path, buf, sizeof(buf), &r), want,
		    "%s: GET %s is %d, as open(2) as uid %u says", as, path,
		    want, uid);
}

/*
 * Whether this test may bind port 80: in a network namespace of its own
 * (made here, its loopback brought up), or else in the nofd guest, whose
 * network is the virtual machine's; never in a machine's own network
 */
static bool port_80_ours(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET)) {
		if (in_nofd_guest()) {
			printf("# port 80 in the guest's own network (no "
			       "network namespace: %s)\n", strerror(errno));
			return true;
		}
		printf("# SKIP port 80: no network namespace of our own (%s) "
		       "and not the nofd guest: this machine's port 80 is not "
		       "the test's to take\n", strerror(errno));
		return false;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	t_assert(s >= 0 && !ioctl(s, SIOCGIFFLAGS, &ifr), "lo's flags");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	t_assert(!ioctl(s, SIOCSIFFLAGS, &ifr), "lo up");
	close(s);
	printf("# port 80 in a network namespace of the test's own\n");
	return true;
}

/* Copy the file @from to @to, mode 0755 */
static void copy_bin(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	t_assert(in >= 0, "open %s", from);
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	t_assert(out >= 0, "create %s", to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		t_assert(write(out, buf, n) == n, "write %s", to);
	t_assert(n == 0, "read %s", from);
	t_assert(!fchmod(out, 0755), "chmod %s", to);
	close(in);
	close(out);
}

/*
 * Give @path the file capability cap_net_bind_service=+ep, as setcap(8)
 * writes it: 0, or the errno of setxattr(2)
 */
static int set_bind_cap(const char *path)
{
	struct vfs_cap_data cap = {
		.magic_etc = htole32(VFS_CAP_REVISION_2 |
				     VFS_CAP_FLAGS_EFFECTIVE),
		.data[0].permitted = htole32(1u << CAP_NET_BIND_SERVICE),
	};
	struct vfs_cap_data back;

	if (setxattr(path, CAP_XATTR, &cap, XATTR_CAPS_SZ_2, 0))
		return errno;
	t_assert(getxattr(path, CAP_XATTR, &back, sizeof(back)) ==
		 XATTR_CAPS_SZ_2 && !memcmp(&back, &cap, XATTR_CAPS_SZ_2),
		 "read back %s of %s", CAP_XATTR, path);
	return 0;
}

/* The lowest port a user without CAP_NET_BIND_SERVICE may bind */
static int unprivileged_port_start(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_unprivileged_port_start", "r");
	int port = 1024;

	if (f) {
		if (fscanf(f, "%d", &port) != 1)
			port = 1024;
		fclose(f);
	}
	return port;
}

/*
 * Port 80, the two ways httpd/README.md gives: started as root, which
 * drops to nobody, and as nobody from the start, the binary given the
 * one capability; a copy without it is refused the port
 */
static void port_80(void)
{
	const char *p80[] = { "-n", "--port", "80", NULL };
	const char *plain[] = { PLAIN_BIN, "--port", "80", "--addr",
				"127.0.0.1", "--root", ROOT, "-n", NULL };
	const char *bin = httpd_bin();
	struct hc_resp r;
	struct rlimit rl;
	struct httpd h;
	char out[4096];
	int err, threads;

	if (!port_80_ours())
		return;
	httpd_start(&h, ROOT, p80);
	t_check_res(h.port, 80, "port 80 as root: it listens on port 80");
	t_check(hc_get(h.port, "/public.txt", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 7 && !memcmp(r.body, "public\n", 7),
		"port 80 as root: GET /public.txt is 200, the file");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "port 80 as root: exit 0");
	t_check(strstr(h.log, ": root dropped\n") != NULL,
		"port 80 as root: it says it dropped root: %s", h.log);

	mkdir(BINDIR, 0755);
	chmod(BINDIR, 0755);
	copy_bin(bin, CAP_BIN);
	copy_bin(bin, PLAIN_BIN);
	err = set_bind_cap(CAP_BIN);
	if (err && !in_nofd_guest() &&
	    (err == EOPNOTSUPP || err == ENOTSUP)) {
		printf("# SKIP port 80 by setcap: %s takes no %s extended "
		       "attribute here (%s)\n", BINDIR, CAP_XATTR,
		       strerror(err));
		return;
	}
	t_check(!err, "%s given cap_net_bind_service=+ep, as setcap writes "
		"it (%s)", CAP_BIN, err ? strerror(err) : "read back");
	t_assert(!getrlimit(RLIMIT_MEMLOCK, &rl), "RLIMIT_MEMLOCK");
	t_assert(!setenv("NOFD_HTTPD_BIN", CAP_BIN, 1), "setenv");
	httpd_start_limited(&h, ROOT, p80, NOBODY, rl.rlim_max);
	t_check_res(h.port, 80, "setcap, as uid %d: it listens on port 80",
		    NOBODY);
	t_check(hc_get(h.port, "/public.txt", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 7 && !memcmp(r.body, "public\n", 7),
		"setcap, as uid %d: GET /public.txt is 200, the file", NOBODY);
	t_check(threads_are(h.pid, NOBODY, NOBODY, 0, &threads),
		"setcap: every thread (%d) is still uid %d", threads, NOBODY);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "setcap, as uid %d: exit 0",
		    NOBODY);
	t_assert(!setenv("NOFD_HTTPD_BIN", bin, 1), "setenv");

	if (unprivileged_port_start() <= 80) {
		printf("# SKIP port 80 without the capability: "
		       "ip_unprivileged_port_start is %d here\n",
		       unprivileged_port_start());
		return;
	}
	t_check_res(httpd_run(NOBODY, plain, out, sizeof(out)), 1, "without "
		    "the capability, as uid %d: port 80 refused, exit 1: %s",
		    NOBODY, out);
	t_check(strstr(out, "port 80: Permission denied") != NULL, "without "
		"the capability: it says why: %s", out);
}

int main(void)
{
	const char *deflt[] = { "-n", "--threads", "2", NULL };
	const char *root[] = { "-n", "--user", "root", NULL };
	const char *ids[] = { "-n", "--user", "4321:4322", NULL };
	const char *zero[] = { "--user", "0", NULL };
	const char *nosuch[] = { "--user", "no-such-user-here", NULL };
	const char *none[] = { "-n", NULL };
	struct hc_resp r;
	struct rlimit rl;
	struct httpd h;
	char out[4096];
	int threads;

	t_assert(geteuid() == 0, "the test runs as root");
	mkdir(ROOT, 0755);
	chmod(ROOT, 0755);
	mkdir(ROOT "/private", 0700);
	chmod(ROOT "/private", 0700);
	t_write_file(ROOT "/public.txt", "public\n", 7);
	t_write_file(ROOT "/secret.txt", "secret\n", 7);
	chmod(ROOT "/secret.txt", 0);
	t_write_file(ROOT "/private/x.txt", "private\n", 8);

	httpd_start(&h, ROOT, deflt);
	t_check(threads_are(h.pid, NOBODY, NOBODY, 1, &threads) &&
		threads == 2,
		"default: both server threads (%d) are uid and gid %d, with "
		"only that group", threads, NOBODY);
	check_get(h.port, "/public.txt", NOBODY, "default");
	check_get(h.port, "/secret.txt", NOBODY, "default");
	check_get(h.port, "/private/x.txt", NOBODY, "default");
	t_check_res(hc_get(h.port, "/private/", buf, sizeof(buf), &r), 403,
		    "default: a directory only root may read: 403");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "default: exit 0");
	t_check(strstr(h.log, "nofd-httpd: serving as nobody (uid 65534, "
		       "gid 65534, groups 65534): root dropped\n") ||
		strstr(h.log, "nofd-httpd: serving as uid 65534, gid 65534, "
		       "groups 65534: root dropped\n"),
		"default: it says whom it serves as: %s", h.log);

	httpd_start(&h, ROOT, root);
	t_check(threads_are(h.pid, 0, 0, -1, &threads), "--user root: uid 0");
	check_get(h.port, "/secret.txt", 0, "--user root");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--user root: exit 0");
	t_check(strstr(h.log, "serving as root (uid 0, --user root)") != NULL,
		"--user root: it says so: %s", h.log);

	httpd_start(&h, ROOT, ids);
	t_check(threads_are(h.pid, 4321, 4322, 1, &threads), "--user 4321:4322: "
		"uid 4321, gid 4322, only that group");
	t_check_res(httpd_stop(&h, SIGTERM), 0, "--user 4321:4322: exit 0");

	t_check_res(run_as(-1, zero, out, sizeof(out)), 2, "--user 0: "
		    "refused: %s", out);
	t_check_res(run_as(-1, nosuch, out, sizeof(out)), 2, "--user of no "
		    "one: refused: %s", out);

	/* not root: no change, and no other user (the locked memory limit
	 * kept: root may lack CAP_SYS_RESOURCE to raise it) */
	t_assert(!getrlimit(RLIMIT_MEMLOCK, &rl), "RLIMIT_MEMLOCK");
	httpd_start_limited(&h, ROOT, none, NOBODY, rl.rlim_max);
	t_check(threads_are(h.pid, NOBODY, NOBODY, 0, &threads),
		"started as uid %d: still that user", NOBODY);
	t_check_res(httpd_stop(&h, SIGTERM), 0, "started as uid %d: exit 0",
		    NOBODY);
	t_check(strstr(h.log, "not started as root: no change") != NULL,
		"started as uid %d: it says so: %s", NOBODY, h.log);
	t_check_res(run_as(NOBODY, root, out, sizeof(out)), 2, "started as "
		    "uid %d, --user root: refused: %s", NOBODY, out);

	port_80();
	return t_exit();
}
