/*
 * A statically linked program: the shim can never load into it.  It says
 * which user namespace it ran in, so a test sees where it really ran
 * instead of taking the audit log's word for it.
 */
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	char ns[64];
	ssize_t n = readlink("/proc/self/ns/user", ns, sizeof(ns) - 1);

	puts("static hello");
	ns[n > 0 ? n : 0] = '\0';
	printf("ns %s\n", ns);
	return 0;
}
