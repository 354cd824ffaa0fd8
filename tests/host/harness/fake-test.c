// SPDX-License-Identifier: MIT
/*
 * Description: a stand-in test for the harness's self-test
 * (tests/host/harness.sh). What it does comes from the end of its name:
 *
 *   -passes        passes
 *   -fails         fails an assertion (exit 1)
 *   -skips         skips, as a test of a feature the kernel lacks (77)
 *   -hangs         hangs, with a child that hangs too (the time limit)
 *   -leaves-child  passes, but leaves running a child in its group and
 *                  one in a session of its own, both holding its output
 *   -splat         passes, but writes a WARNING: line into the kernel log
 *                  (/dev/kmsg), as a WARN_ON() would
 *   -kmemleak-off  passes, but turns kmemleak off, as kmemleak does itself
 *                  when it runs out of memory: no scan can run at the end
 *
 * Run on the nofd kernel by ktap-run, every one but -passes must fail.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* A child that sleeps until killed, holding our output; @own_session:
 * in a session (and so a process group) of its own. */
static void sleeper(int own_session)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		if (own_session && setsid() < 0)
			perror("setsid");
		for (;;)
			pause();
	}
	printf("started child %d%s\n", pid,
	       own_session ? " in a session of its own" : "");
}

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ends_with(name, "-passes")) {
		printf("PASSED\n");
		return 0;
	}
	if (ends_with(name, "-fails")) {
		printf("FAIL %s:%d: a claim that does not hold\n", __FILE__,
		       __LINE__);
		return 1;
	}
	if (ends_with(name, "-skips")) {
		printf("SKIP: this kernel lacks a feature\n");
		return 77;
	}
	if (ends_with(name, "-hangs")) {
		sleeper(0);
		for (;;)
			pause();
	}
	if (ends_with(name, "-leaves-child")) {
		sleeper(0);
		sleeper(1);
		printf("PASSED\n");
		return 0;
	}
	if (ends_with(name, "-splat")) {
		static const char line[] = "WARNING: CPU: 0 PID: 1 at "
			"tests/host/harness/fake-test.c: a stand-in splat\n";
		int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, line, sizeof(line) - 1) < 0) {
			perror("/dev/kmsg");
			return 1;
		}
		close(fd);
		printf("PASSED\n");
		return 0;
	}
	if (ends_with(name, "-kmemleak-off")) {
		int fd = open("/sys/kernel/debug/kmemleak", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "off", 3) < 0) {
			perror("/sys/kernel/debug/kmemleak");
			return 1;
		}
		close(fd);
		printf("PASSED\n");
		return 0;
	}
	fprintf(stderr, "%s: no such stand-in\n", name);
	return 2;
}
