// SPDX-License-Identifier: MIT
/*
 * Description: stress-ng, a stress tool this project did not write (from
 * Debian, unpacked into the guest by vm/guest-debs.sh), runs its
 * io_uring, directory, getdents, dentry, fstat, splice and sendfile
 * stressors at once on a tmpfs for a bounded time and must exit 0; the
 * harness then fails the run on any kernel splat. On the nofd kernel the
 * guest must have it (make test puts it there); elsewhere a guest root
 * without it skips.
 */
#include <signal.h>
#include <sys/wait.h>

#include "test.h"

#define STRESS "/usr/bin/stress-ng"
#define TMP "/tmp/stress-ng"
#define SECONDS "20"
#define LIMIT_S 300	/* it stops itself after SECONDS; this is a backstop */

int main(void)
{
	const char *const argv[] = {
		STRESS, "--timeout", SECONDS "s",
		"--io-uring", "2", "--dir", "1", "--getdent", "2",
		"--dentry", "1", "--fstat", "1", "--splice", "1",
		"--sendfile", "1", "--metrics-brief", "--verify", NULL,
	};
	int status, waited = 0;
	pid_t pid, w;

	if (access(STRESS, X_OK))
		return t_no_feature("stress-ng in the guest (vm/guest-debs.sh)");
	t_assert(!mkdir(TMP, 0755) || errno == EEXIST, "mkdir");
	t_assert(!mount("tmpfs", TMP, "tmpfs", 0, NULL), "mount");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		/* in the tmpfs, not --temp-path: 0.15's io-uring stressor
		 * STATXes its file relative to the working directory */
		if (chdir(TMP))
			_exit(126);
		execv(STRESS, (char **)argv);
		_exit(127);
	}
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 &&
	       waited++ < LIMIT_S * 10)
		usleep(100 * 1000);
	if (!w) {
		kill(pid, SIGKILL);
		w = waitpid(pid, &status, 0);
	}
	t_assert(w == pid, "waitpid: %d", w);
	t_check(WIFEXITED(status) && !WEXITSTATUS(status),
		"stress-ng's io_uring, dir, getdent, dentry, fstat, splice and "
		"sendfile stressors, %s s: exit status 0x%x", SECONDS, status);
	t_check_umount(TMP);
	return t_exit();
}
