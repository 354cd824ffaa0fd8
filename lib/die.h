/* SPDX-License-Identifier: MIT */
/*
 * die.h: give up with a message, for every program of the tree. The
 * message starts with the program's name.
 */
#ifndef NOFD_DIE_H
#define NOFD_DIE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Give up: @what failed with @err, a negative errno (-errno, cqe->res). */
__attribute__((noreturn))
static inline void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(-err));
	exit(1);
}

#endif
