/*
 * craft - execs PROG with a hand-built environment, by a chosen route, so
 * a test can hand the shim what no shell or Python would build: entries
 * without '=', empty names, duplicates, 2 MiB of variables.
 *
 * Usage: craft [-i] [-u NAME]... [-e ENTRY]... [-n COUNT] [-m MODE] -- PROG ARGS
 *   -i        start from an empty list instead of environ
 *   -u NAME   leave out every entry named NAME (env -u)
 *   -e ENTRY  append ENTRY verbatim
 *   -n COUNT  append COUNT variables BIG_i of about 100 bytes each
 *   -m MODE   execve (default), environ (environ = list; execv),
 *             syscall (libc syscall(SYS_execve)), inline (the syscall
 *             instruction itself, as Go and static programs do), dlsym
 *             (execve looked up on dlopen("libc.so.6"), not the global
 *             scope the preload sits in)
 * Exit status 122 when the exec fails, after printing errno=N.
 */
#include <sys/syscall.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef CRAFT_STATIC
#include <dlfcn.h>
#endif

extern char **environ;

static long
inline_execve(const char *path, char *const argv[], char *const envp[])
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"((long)SYS_execve),
	    "D"(path), "S"(argv), "d"(envp) : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_execve;
	register long x0 __asm__("x0") = (long)path;
	register long x1 __asm__("x1") = (long)argv;
	register long x2 __asm__("x2") = (long)envp;

	__asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#else
#error "craft: no inline syscall for this machine"
#endif
}

static int
named(const char *e, const char *name)
{
	size_t n = strlen(name);

	return strncmp(e, name, n) == 0 && (e[n] == '=' || e[n] == '\0');
}

int
main(int argc, char **argv)
{
	const char *mode = "execve";
	char **list, **skip;
	size_t n = 0, nskip = 0, big = 0, i, j, cap;
	int c, inherit = 1;

	skip = calloc((size_t)argc, sizeof(*skip));
	while ((c = getopt(argc, argv, "+iu:e:n:m:")) != -1) {
		switch (c) {
		case 'i':
			inherit = 0;
			break;
		case 'u':
			skip[nskip++] = optarg;
			break;
		case 'n':
			big = strtoul(optarg, NULL, 10);
			break;
		case 'm':
			mode = optarg;
			break;
		case 'e':
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: craft [-i] [-u NAME] [-e ENTRY] [-n COUNT] "
		    "[-m MODE] -- PROG ARGS\n");
		return 2;
	}
	for (cap = 0; environ[cap] != NULL; cap++)
		;
	cap += (size_t)argc + big + 1;
	list = calloc(cap, sizeof(*list));
	for (i = 0; inherit && environ[i] != NULL; i++) {
		for (j = 0; j < nskip && !named(environ[i], skip[j]); j++)
			;
		if (j == nskip)
			list[n++] = environ[i];
	}
	/* A second pass keeps -e entries in command-line order. */
	optind = 1;
	while ((c = getopt(argc, argv, "+iu:e:n:m:")) != -1)
		if (c == 'e')
			list[n++] = optarg;
	for (i = 0; i < big; i++) {
		char *e = malloc(128);

		snprintf(e, 128, "BIG_%zu=%0*zu", i, 90, i);
		list[n++] = e;
	}
	list[n] = NULL;
	argv += optind;
	if (strcmp(mode, "execve") == 0)
		execve(argv[0], argv, list);
	else if (strcmp(mode, "environ") == 0) {
		environ = list;
		execv(argv[0], argv);
	} else if (strcmp(mode, "syscall") == 0)
		syscall(SYS_execve, argv[0], argv, list);
	else if (strcmp(mode, "inline") == 0)
		errno = (int)-inline_execve(argv[0], argv, list);
#ifndef CRAFT_STATIC
	else if (strcmp(mode, "dlsym") == 0) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		int (*real)(const char *, char *const[], char *const[]);

		if (libc == NULL)
			return 123;
		*(void **)&real = dlsym(libc, "execve");
		real(argv[0], argv, list);
	}
#endif
	else {
		fprintf(stderr, "craft: unknown mode %s\n", mode);
		return 2;
	}
	fprintf(stderr, "craft: %s: %s\n", argv[0], strerror(errno));
	printf("errno=%d\n", errno);
	return 122;
}
