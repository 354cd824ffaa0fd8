// SPDX-License-Identifier: MIT
/*
 * Description: the SQE fuzzer (fuzz/fuzz.c), bounded: 60 s of guest time
 * with the fixed seed 1, then 60 s with a seed of the clock, which it
 * prints first (replay: make fuzz SEED=S). Every SQE must complete exactly
 * once, the process must hold the descriptors it held before each round,
 * each run's tmpfs must unmount at its end, and the kernel log must stay
 * clean. Each run must have run: its summary lines say it used the seed,
 * ran rounds, reaped at least one with SQEs in it, saw each of those
 * complete once, and counted no error. A failing run prints the make fuzz
 * command that replays it. Drains are in the mix (on 6.12 they made rounds
 * stop completing: docs/reliability.md).
 */
#include <sys/wait.h>

#include "test.h"

/* What the fuzzer's summary lines say; -1 where it said nothing. */
struct summary {
	long seed, rounds, sqes, cqes, errors;
	long reaped, reaped_sqes, completed, reap_ms;
};

static void parse(const char *line, struct summary *s)
{
	unsigned long a, b, c, d, e;
	int n;

	n = sscanf(line, "fuzz: seed %lu, %lu rounds, %lu SQEs, %lu CQEs, "
		   "%lu errors", &a, &b, &c, &d, &e);
	if (n == 5)
		*s = (struct summary){ a, b, c, d, e, s->reaped,
				       s->reaped_sqes, s->completed,
				       s->reap_ms };
	n = sscanf(line, "fuzz: reaped: %lu rounds, %lu SQEs, %lu completed "
		   "once, the longest reap %lu ms", &a, &b, &c, &d);
	if (n == 4) {
		s->reaped = a;
		s->reaped_sqes = b;
		s->completed = c;
		s->reap_ms = d;
	}
}

/*
 * Run the fuzzer for 60 s (with --seed @seed, or its own); its output is
 * passed on line by line and its summary read into @s. The exit status,
 * or 128 + the signal.
 */
static int fuzz(const char *seed, struct summary *s)
{
	const char *argv[] = { "/bin/fuzz", "--seconds", "60",
			       seed ? "--seed" : NULL, seed, NULL };
	char line[4096];
	int status, p[2];
	FILE *out;
	pid_t pid;

	*s = (struct summary){ -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	t_assert(!pipe(p), "pipe");
	pid = fork();
	t_assert(pid >= 0, "fork");
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(p[1]);
	out = fdopen(p[0], "r");
	t_assert(out, "fdopen");
	while (fgets(line, sizeof(line), out)) {
		fputs(line, stdout);
		parse(line, s);
	}
	fclose(out);
	t_assert(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void check_run(const char *what, long seed, const struct summary *s)
{
	t_check(s->seed > 0 && (seed < 0 || s->seed == seed),
		"%s: its summary names the seed (%ld)", what, s->seed);
	t_check(s->rounds > 0 && s->reaped > 0 && s->reaped <= s->rounds &&
		s->reaped_sqes >= s->reaped,
		"%s: %ld rounds ran, %ld of them reaped with %ld SQEs", what,
		s->rounds, s->reaped, s->reaped_sqes);
	t_check(s->completed == s->reaped_sqes,
		"%s: each SQE of the rounds reaped completed once (%ld of %ld; "
		"the longest reap %ld ms)", what, s->completed,
		s->reaped_sqes, s->reap_ms);
	t_check(!s->errors, "%s: its summary counts no error (%ld)", what,
		s->errors);
}

int main(void)
{
	struct summary s;

	t_check_res(fuzz("1", &s), 0, "fuzz --seed 1: no error");
	check_run("fuzz --seed 1", 1, &s);
	t_check_res(fuzz(NULL, &s), 0, "fuzz with a random seed (printed "
		    "above): no error");
	check_run("fuzz with a random seed", -1, &s);
	return t_exit();
}
