// SPDX-License-Identifier: MIT
/*
 * Description: PID 1 of the nofd guest. Mounts what the tests need, brings
 * up loopback, runs the command given after "--" on the kernel command line
 * with its output on the second serial port, reports its exit status on the
 * third, asks kmemleak for a last scan onto the console, and reboots, which
 * QEMU (-no-reboot) turns into its own exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "usage.h"

#define OUTPUT_TTY "/dev/ttyS1"
#define STATUS_TTY "/dev/ttyS2"
#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static void mount_one(const char *type, const char *dir, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, opts) && errno != EBUSY)
		dprintf(2, "nofd-init: mount %s on %s: %s\n", type, dir,
			strerror(errno));
}

static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		dprintf(2, "nofd-init: lo: %s\n", strerror(errno));
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			dprintf(2, "nofd-init: lo up: %s\n", strerror(errno));
	}
	if (s >= 0)
		close(s);
}

/* A serial port in raw mode, so that the host gets the bytes unchanged. */
static int open_port(const char *path)
{
	struct termios t;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		dprintf(2, "nofd-init: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

static int run(char **argv, int out)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		dup2(null, 0);
		dup2(out, 1);
		dup2(out, 2);
		chdir("/tmp");
		execv(argv[0], argv);
		dprintf(2, "nofd-init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return 127;
	/* PID 1 also reaps orphans: wait for our child specifically. */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * kmemleak only reports objects older than five seconds and found
 * unreferenced by a scan, so give deferred frees (io_uring's ring exit work,
 * RCU) time to run, then scan twice and print the report on the console,
 * where the host's log scan sees it. The last line says whether the scan
 * ran: "nofd-init: kmemleak scan done", or why not; tests/run.sh fails a
 * kmemleak kernel's run without the first (kmemleak that turned itself
 * off refuses the scan).
 */
static void kmemleak_report(void)
{
	char buf[4096];
	ssize_t n = 0;
	int fd, ret;

	if (access(KMEMLEAK, F_OK)) {
		dprintf(1, "nofd-init: no kmemleak scan: %s: %s\n", KMEMLEAK,
			strerror(errno));
		return;
	}
	sleep(6);
	ret = write_file(KMEMLEAK, "scan");
	if (!ret)
		ret = write_file(KMEMLEAK, "scan");
	if (ret) {
		dprintf(1, "nofd-init: no kmemleak scan: writing scan to %s: "
			"%s\n", KMEMLEAK, strerror(-ret));
		return;
	}
	fd = open(KMEMLEAK, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(1, buf, n) < 0)
				break;
		close(fd);
	}
	if (fd < 0 || n < 0) {
		dprintf(1, "nofd-init: no kmemleak report: reading %s: %s\n",
			KMEMLEAK, strerror(errno));
		return;
	}
	dprintf(1, "nofd-init: kmemleak scan done\n");
}

static const char usage[] =
	"usage: init [COMMAND [ARG]...]\n"
	"PID 1 of the nofd guest (vm/run.sh boots it with COMMAND, default\n"
	"/bin/sh); anywhere else it refuses to run: it mounts, then reboots.\n";

int main(int argc, char **argv)
{
	char *dflt[] = { "/bin/sh", NULL };
	char status[32];
	int out, st, code;

	/* never mount or reboot on a machine we were not started to own */
	if (getpid() != 1) {
		usage_help(argc, argv, usage);
		usage_error(usage);
	}
	mount_one("proc", "/proc", NULL);
	mount_one("sysfs", "/sys", NULL);
	mount_one("devtmpfs", "/dev", NULL);
	mount_one("tmpfs", "/tmp", "mode=1777");
	mount_one("debugfs", "/sys/kernel/debug", NULL);
	loopback_up();
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	setenv("HOME", "/tmp", 1);

	out = open_port(OUTPUT_TTY);
	st = open_port(STATUS_TTY);
	code = run(argc > 1 ? argv + 1 : dflt, out >= 0 ? out : 1);
	snprintf(status, sizeof(status), "exit=%d\n", code);
	if (st < 0 || write(st, status, strlen(status)) < 0)
		dprintf(1, "nofd-init: cannot report %s", status);
	/* The ports must be drained before the reboot cuts them off. */
	if (out >= 0)
		tcdrain(out);
	if (st >= 0)
		tcdrain(st);
	kmemleak_report();
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
