// SPDX-License-Identifier: MIT
/*
 * syscount: count the system calls a benchmark program makes in its
 * measured window, with ptrace. The program marks the window by raising
 * SIGUSR2 at its start and at its end (it ignores SIGUSR2 when not traced;
 * a tracer still sees ignored signals). All threads are followed.
 * SIGTERM to syscount is passed on to the program.
 *
 *   syscount PROG ARGS...
 *
 * The program's output passes through; when it has exited, syscount
 * prints "syscalls=N by_nr=NR:COUNT,..." for the window.
 */
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"

#define MAX_NR 512

static unsigned long counts[MAX_NR];
static pid_t child;

static void on_term(int sig)
{
	kill(child, sig);	/* pass it on */
}

static const char usage[] =
	"usage: syscount PROG [ARG]...\n"
	"Run PROG (a path) under ptrace and count the system calls it makes\n"
	"between its window marks (bench/bench.h); bench-run's syscall rows.\n";

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	unsigned long total = 0;
	int status, window = 0, marks = 0;
	pid_t pid;

	usage_help(argc, argv, usage);
	if (argc < 2 || argv[1][0] == '-')
		usage_error(usage);
	child = fork();
	if (child < 0)
		die("fork", -errno);
	if (!child) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	sigaction(SIGTERM, &sa, NULL);
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		die("the child did not stop", -ECHILD);
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
	       PTRACE_O_EXITKILL);
	ptrace(PTRACE_SYSCALL, child, NULL, NULL);

	for (;;) {
		int sig = 0;

		pid = waitpid(-1, &status, __WALL);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;		/* no tracee left */
		if (WIFEXITED(status) || WIFSIGNALED(status))
			continue;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;

			if (window &&
			    ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
				   &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY) {
				total++;
				if (info.entry.nr < MAX_NR)
					counts[info.entry.nr]++;
			}
		} else if (WSTOPSIG(status) == SIGUSR2) {
			window = !marks++;	/* start, then end */
		} else if (WSTOPSIG(status) != SIGTRAP &&
			   WSTOPSIG(status) != SIGSTOP) {
			sig = WSTOPSIG(status);	/* deliver it */
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, sig);
	}

	fflush(stdout);
	printf("syscalls=%lu by_nr=", total);
	for (int nr = 0, first = 1; nr < MAX_NR; nr++) {
		if (!counts[nr])
			continue;
		printf("%s%d:%lu", first ? "" : ",", nr, counts[nr]);
		first = 0;
	}
	printf("\n");
	return marks == 2 ? 0 : 1;
}
