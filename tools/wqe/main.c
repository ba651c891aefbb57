/* SPDX-License-Identifier: MIT */
/* wqe - command-line front end (placeholder entry until the CLI lands). */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "wqe: no command\n");
	return 2;
}
