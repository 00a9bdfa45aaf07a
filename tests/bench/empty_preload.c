/*
 * empty_preload.c - the floor of any exec-hooking preload library: it only
 * forwards the exec and spawn entry points to libc through pointers looked
 * up once in its constructor.  What a real shim costs beyond this is its
 * own work; what this costs over no preload is the price of being loaded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <unistd.h>

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *,
    const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
    char *const[], char *const[]);

static execve_fn	real_execve, real_execvpe;
static execv_fn		real_execv, real_execvp;
static spawn_fn		real_spawn, real_spawnp;

/* Resolve once, before any fork: dlsym is not safe in a vfork child. */
__attribute__((constructor)) static void
ep_init(void)
{
	real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
	real_execv = (execv_fn)dlsym(RTLD_NEXT, "execv");
	real_execvp = (execv_fn)dlsym(RTLD_NEXT, "execvp");
	real_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	real_spawnp = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
}

int
execve(const char *path, char *const argv[], char *const envp[])
{
	return real_execve(path, argv, envp);
}

int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	return real_execvpe(file, argv, envp);
}

int
execv(const char *path, char *const argv[])
{
	return real_execv(path, argv);
}

int
execvp(const char *file, char *const argv[])
{
	return real_execvp(file, argv);
}

int
posix_spawn(pid_t *pid, const char *path,
    const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
    char *const argv[], char *const envp[])
{
	return real_spawn(pid, path, fa, at, argv, envp);
}

int
posix_spawnp(pid_t *pid, const char *file,
    const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
    char *const argv[], char *const envp[])
{
	return real_spawnp(pid, file, fa, at, argv, envp);
}
