/* A statically linked program: the shim can never load into it. */
#include <stdio.h>

int
main(void)
{
	puts("static hello");
	return 0;
}
