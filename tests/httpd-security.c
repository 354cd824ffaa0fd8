// SPDX-License-Identifier: MIT
/*
 * Description: no request makes nofd-httpd read outside its document
 * root: "..", percent-encoded dots and slashes, absolute-form targets, NUL
 * bytes and overlong names are refused before the kernel sees them;
 * symlinks out of the root and /proc magic links are refused by OPENAT2's
 * RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS on the fixed root, with the
 * error openat2(2) gives for the same path on a regular root fd.
 */
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "httpd.h"

#define ROOT "/tmp/httpd-sec/root"
#define SECRET "nofd-secret-bytes"

static char buf[1 << 16];

static void refused(int port, const char *target, int want)
{
	struct hc_resp r;

	t_check_res(hc_get(port, target, buf, sizeof(buf), &r), want,
		    "GET %.60s is %d", target, want);
	t_check(!memmem(buf, strlen(buf), SECRET, strlen(SECRET)),
		"GET %.60s: no secret in the answer", target);
}

/* What openat2(2) says for @path beneath a regular root fd */
static int openat2_errno(int root, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NONBLOCK,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	int fd = syscall(SYS_openat2, root, path, &how, sizeof(how));

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Refused by the kernel: the syscall refuses the same path */
static void refused_by_kernel(int port, int root, const char *target,
			      const char *path)
{
	int err = openat2_errno(root, path);

	t_check(err == -EXDEV || err == -ELOOP,
		"openat2(2) %s on a root fd fails (%d)", path, err);
	refused(port, target, 403);
}

int main(void)
{
	const char *argv[] = { "-n", NULL };
	char target[1024], pidpath[64];
	struct hc_resp r;
	struct httpd h;
	int root;

	mkdir("/tmp/httpd-sec", 0755);
	mkdir(ROOT, 0755);
	mkdir(ROOT "/sub", 0755);
	mkdir(ROOT "/proc", 0755);
	t_write_file("/tmp/httpd-sec/secret.txt", SECRET, strlen(SECRET));
	t_write_file(ROOT "/ok.txt", "ok\n", 3);
	unlink(ROOT "/up");
	unlink(ROOT "/abs");
	unlink(ROOT "/inside");
	t_assert(!symlink("../secret.txt", ROOT "/up"), "symlink");
	t_assert(!symlink("/tmp/httpd-sec/secret.txt", ROOT "/abs"), "symlink");
	t_assert(!symlink("ok.txt", ROOT "/inside"), "symlink");
	t_assert(!mount("proc", ROOT "/proc", "proc", 0, NULL) ||
		 errno == EBUSY, "mount proc in the root");
	root = open(ROOT, O_PATH | O_DIRECTORY);
	t_assert(root >= 0, "open root");
	httpd_start(&h, ROOT, argv);

	t_check(hc_get(h.port, "/ok.txt", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 3, "control: /ok.txt is served");
	t_check(hc_get(h.port, "/inside", buf, sizeof(buf), &r) == 200 &&
		r.body_len == 3, "control: a symlink inside the root is served");
	t_check(hc_get(h.port, "/sub/../ok.txt", buf, sizeof(buf), &r) ==
		200, "control: a .. that stays inside is resolved");

	refused(h.port, "/../secret.txt", 400);
	refused(h.port, "/sub/../../secret.txt", 400);
	refused(h.port, "/%2e%2e/secret.txt", 400);
	refused(h.port, "/%2E%2E%2Fsecret.txt", 400);
	refused(h.port, "/sub/%2e%2e/%2e%2e/secret.txt", 400);
	refused(h.port, "/..%2fsecret.txt", 400);
	refused(h.port, "http://host/../secret.txt", 400);
	refused(h.port, "/tmp/httpd-sec/secret.txt", 404);
	refused(h.port, "//tmp/httpd-sec/secret.txt", 404);
	refused(h.port, "/ok.txt%00.html", 400);
	refused(h.port, "/%zz", 400);
	refused(h.port, "/%2", 400);
	memset(target, 'n', 300);
	target[0] = '/';
	target[300] = '\0';
	refused(h.port, target, 414);

	refused_by_kernel(h.port, root, "/up", "up");
	refused_by_kernel(h.port, root, "/abs", "abs");
	refused_by_kernel(h.port, root, "/proc/self/root/tmp/httpd-sec/"
			  "secret.txt", "proc/self/root/tmp/httpd-sec/secret.txt");
	snprintf(pidpath, sizeof(pidpath), "/proc/%d/cwd/secret.txt", h.pid);
	refused_by_kernel(h.port, root, pidpath, pidpath + 1);
	snprintf(pidpath, sizeof(pidpath), "/proc/%d/root/tmp", h.pid);
	refused_by_kernel(h.port, root, pidpath, pidpath + 1);

	t_check_res(httpd_stop(&h, SIGTERM), 0, "SIGTERM: exit 0");
	t_check_umount(ROOT "/proc");
	close(root);
	return t_exit();
}
