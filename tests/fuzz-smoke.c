// SPDX-License-Identifier: MIT
/*
 * Description: the SQE fuzzer (fuzz/fuzz.c), bounded: 60 s of guest time
 * with the fixed seed 1, then 60 s with a seed of the clock, which it
 * prints first (replay: make fuzz SEED=S). Every SQE must complete exactly
 * once, the process must hold the descriptors it held before each round,
 * each run's tmpfs must unmount at its end, and the kernel log must stay
 * clean. A failing run prints the make fuzz command that replays it.
 * Drains are in the mix (on 6.12 they made rounds stop completing:
 * docs/reliability.md).
 */
#include <sys/wait.h>

#include "test.h"

static int fuzz(const char *seed)
{
	const char *argv[] = { "/bin/fuzz", "--seconds", "60",
			       seed ? "--seed" : NULL, seed, NULL };
	int status;
	pid_t pid = fork();

	t_assert(pid >= 0, "fork");
	if (!pid) {
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	t_check_res(fuzz("1"), 0, "fuzz --seed 1: no error");
	t_check_res(fuzz(NULL), 0, "fuzz with a random seed (printed above): "
		    "no error");
	return t_exit();
}
