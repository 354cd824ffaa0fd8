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
 * and refuses --user root.
 */
#include "httpd.h"

#define ROOT "/tmp/httpd-user"
#define NOBODY 65534

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
	return t_exit();
}
