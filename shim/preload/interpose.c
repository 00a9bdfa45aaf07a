/*
 * interpose.c - the only file that defines libc names.
 *
 * Hooks MUST NOT allocate, use stdio, take locks, call dlsym or exit: they
 * can run in a fork() child of a threaded process or after vfork(), sharing
 * the parent's memory.  They use the stack (or one anonymous mmap for a
 * large environment), the read-only state below, and AS-safe syscalls.
 * Hooks MUST refuse, never pass through, when the shim is not ready or the
 * policy is broken.  posix_spawn hooks MUST return an error number.
 *
 * glibc calls its own internals (execvp -> __execve, system and popen ->
 * __posix_spawn), so every public entry point is hooked on its own and
 * none of them calls another public one.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"

#define ES_API		__attribute__((visibility("default")))

extern char **environ;

/* The one file-scope object: filled by the constructor, then only read. */
static struct es_shim st;

/* ---- exec ---- */

struct req {
	const char	*hook;
	const char	*file;		/* as the caller named it */
	char *const	*argv;
	char *const	*envp;		/* the caller's, or environ */
	int		 dirfd;		/* execveat; else AT_FDCWD */
	int		 flags;		/* execveat flags */
	int		 fd;		/* fexecve; else -1 */
};

/*
 * The program rule es_decide keeps outside: the one matched, unless the
 * file is one a sandboxed command could have written (withheld: then it
 * is no configured program, and goes where any launch goes).
 */
static int
rule_of(const struct es_plan *pl)
{
	return pl->withhold ? 0 : pl->program;
}

/*
 * Runs one candidate.  Returns only on failure, errno set as the kernel
 * (or the refusal) left it, so PATH walks see ENOENT/EACCES unchanged.
 */
static int
exec_one(const struct req *r, const char *path, int search)
{
	struct es_target t;
	struct es_plan pl;
	char fdp[ES_PATH_MAX + 48], agentvar[ES_CAP_AGENT];
	const char *target = path, *why;
	int e, keep, fdfl, inplace;

	if (r->fd >= 0)
		es_judge(&st, AT_FDCWD, path, r->fd, 0, r->argv, &t);
	else
		es_judge(&st, r->dirfd, path, -1, r->flags & AT_SYMLINK_NOFOLLOW,
		    r->argv, &t);
	if (!t.found) {
		errno = t.err != 0 ? t.err : ENOENT;
		return -1;
	}
	/* The helper needs a path it can open itself. */
	if (r->fd >= 0)
		target = es_fd_path(fdp, r->fd);
	else if (r->dirfd != AT_FDCWD && path[0] != '/' && path[0] != '\0') {
		es_fd_path(fdp, r->dirfd);
		es_cat(fdp, sizeof(fdp), "/");
		if (es_cat(fdp, sizeof(fdp), path) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target = fdp;
	} else if (strchr(path, '/') == NULL) {
		/* execve("prog") means ./prog, never a PATH search. */
		memcpy(fdp, "./", 2);
		fdp[2] = '\0';
		if (es_cat(fdp, sizeof(fdp), path) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target = fdp;
	}
	es_plan_init(&pl, r->hook, path, target, r->envp);
	/*
	 * An agent that is a launcher (a shell or env: a wrapper's `exec node
	 * cli.js`, a version manager's shim) turning itself into another
	 * program hands the agent on: the program keeps the environment,
	 * stays out of the sandbox, and its children know it by its file.
	 * A fork or vfork child has a pid of its own, so no tool the agent
	 * starts gets here.
	 */
	inplace = st.self_launcher && !st.inside && t.found &&
	    getpid() == st.self_pid;
	if (inplace && st.is_agent) {
		t.agent = 1;
		t.shell = 0;
		pl.agent_var = es_agent_var(agentvar, t.dev, t.ino, t.script, 1);
		pl.handover = path;
	} else if (t.agent && t.handed)
		pl.handover = t.handed_to;
	pl.agent = t.agent;
	pl.program = es_program_for(&st, &t, target, r->argv, 0, &pl.withhold);
	/*
	 * A program rule's env launcher (npx's "#!/usr/bin/env node") turning
	 * itself into its program in place is still that program (never the
	 * agent): it stays where the rule's launch ran, outside, unless what
	 * it becomes is a file a sandboxed command could have written.
	 */
	pl.action = es_decide(&st, &t, inplace && st.program != 0 && !t.shell &&
	    !es_planted(&st, target, 0) ? st.program : rule_of(&pl), &why);
	pl.why = why;
	/*
	 * A file neither ELF nor "#!", which execvp runs with /bin/sh after
	 * the kernel's ENOEXEC: sent to the sandbox as it is, the helper
	 * would report the ENOEXEC, so it goes there as that fallback.
	 */
	if (search && t.other && pl.action == ES_A_SANDBOX) {
		e = ENOEXEC;
		goto noexec;
	}
	if (es_plan_make(&st, &pl, r->argv, NULL) != 0) {
		es_log_refusal(&st, r->hook, path, r->argv, pl.why, ES_PID_SELF);
		errno = EPERM;
		return -1;
	}
	if (pl.action == ES_A_REFUSE && st.pol.mode != ES_MODE_AUDIT) {
		es_say_refused(path, pl.why);
		es_plan_log(&st, &pl, ES_PID_SELF, r->argv);
		es_plan_release(&pl);
		errno = EPERM;
		return -1;
	}
	es_plan_log(&st, &pl, ES_PID_SELF, r->argv);
	/*
	 * The helper reaches an fd target through /proc/self/fd/N, so N must
	 * outlive the exec (Python opens files close-on-exec).  fcntl is
	 * AS-safe, and a vfork child has a file table of its own.
	 */
	keep = r->fd >= 0 ? r->fd : r->dirfd != AT_FDCWD ? r->dirfd : -1;
	if (pl.helper != NULL && keep >= 0 &&
	    (fdfl = fcntl(keep, F_GETFD)) >= 0 && (fdfl & FD_CLOEXEC))
		fcntl(keep, F_SETFD, fdfl & ~FD_CLOEXEC);
	else
		fdfl = -1;
	if (pl.helper != NULL)
		st.real_execve(pl.target, pl.argv, (char *const *)pl.envp);
	else if (r->fd >= 0)
		st.real_fexecve(r->fd, pl.argv, (char *const *)pl.envp);
	else if (r->dirfd != AT_FDCWD || r->flags != 0)
		st.real_execveat(r->dirfd, path, pl.argv,
		    (char *const *)pl.envp, r->flags);
	else
		st.real_execve(path, pl.argv, (char *const *)pl.envp);
	e = errno;
	if (fdfl >= 0)
		fcntl(keep, F_SETFD, fdfl);	/* the exec failed: as it was */
	/* glibc's execvp runs a file the kernel calls ENOEXEC with /bin/sh. */
noexec:
	if (e == ENOEXEC && search && t.other) {
		struct es_target sh = { .found = 1, .shell = 1 };

		pl.target = "/bin/sh";
		pl.program = pl.withhold = 0;	/* a shell is never a rule's */
		pl.action = es_decide(&st, &sh, 0, &why);
		pl.why = why;
		es_plan_release(&pl);
		if (es_plan_make(&st, &pl, r->argv, path) == 0) {
			pl.path = "/bin/sh";
			es_plan_log(&st, &pl, ES_PID_SELF, pl.argv);
			if (pl.action == ES_A_REFUSE && st.pol.mode != ES_MODE_AUDIT) {
				es_say_refused("/bin/sh", pl.why);
				es_plan_release(&pl);
				errno = EPERM;
				return -1;
			}
			st.real_execve(pl.target, pl.argv, (char *const *)pl.envp);
			e = errno;
		}
	}
	es_plan_release(&pl);
	errno = e;
	return -1;
}


static int
exec_search(const struct req *r)
{
	char cand[ES_PATH_MAX];
	const char *path, *p, *end;
	int eacces = 0;
	const char *why = es_precheck(&st, r->argv);

	if (why != NULL) {
		es_log_refusal(&st, r->hook, r->file != NULL ? r->file : "", r->argv,
		    why, ES_PID_SELF);
		errno = EPERM;
		return -1;
	}
	if (r->file == NULL || r->file[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(r->file, '/') != NULL)
		return exec_one(r, r->file, 1);
	path = es_caller_path();
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (es_join(cand, sizeof(cand), p, (size_t)(end - p), r->file) == 0) {
			exec_one(r, cand, 1);
			switch (errno) {
			case EACCES:
				eacces = 1;
				break;
			case ENOENT:
			case ENOTDIR:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
			case ENAMETOOLONG:
			case ELOOP:
				break;
			default:
				return -1;
			}
		}
		if (*end == '\0')
			break;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
}

static int
exec_plain(const struct req *r)
{
	const char *why = es_precheck(&st, r->argv);

	if (why != NULL) {
		es_log_refusal(&st, r->hook, r->file != NULL ? r->file : "(fd)",
		    r->argv, why, ES_PID_SELF);
		errno = EPERM;
		return -1;
	}
	if (r->file == NULL) {
		errno = EFAULT;
		return -1;
	}
	return exec_one(r, r->file, 0);
}

static char *const empty_env[] = { NULL };

ES_API int
execve(const char *path, char *const argv[], char *const envp[])
{
	struct req r = { "execve", path, argv, envp != NULL ? envp : empty_env,
	    AT_FDCWD, 0, -1 };

	return exec_plain(&r);
}

ES_API int
execv(const char *path, char *const argv[])
{
	struct req r = { "execv", path, argv, environ, AT_FDCWD, 0, -1 };

	return exec_plain(&r);
}

ES_API int
execvp(const char *file, char *const argv[])
{
	struct req r = { "execvp", file, argv, environ, AT_FDCWD, 0, -1 };

	return exec_search(&r);
}

ES_API int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct req r = { "execvpe", file, argv, envp != NULL ? envp : empty_env,
	    AT_FDCWD, 0, -1 };

	return exec_search(&r);
}

ES_API int
fexecve(int fd, char *const argv[], char *const envp[])
{
	char proc[32];
	struct req r = { "fexecve", es_fd_path(proc, fd), argv,
	    envp != NULL ? envp : empty_env, AT_FDCWD, 0, fd };

	return exec_plain(&r);
}

ES_API int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
    int flags)
{
	char proc[32];
	/* libc says path is nonnull: without volatile the NULL test goes. */
	const char *volatile p = path;
	struct req r = { "execveat", path, argv, envp != NULL ? envp : empty_env,
	    dirfd, flags, -1 };

	/* execveat(fd, "" or NULL, ..., AT_EMPTY_PATH) is fexecve by another name. */
	if ((flags & AT_EMPTY_PATH) && (p == NULL || p[0] == '\0')) {
		r.fd = dirfd;
		r.file = es_fd_path(proc, dirfd);
		r.dirfd = AT_FDCWD;
		r.flags = 0;
	}
	return exec_plain(&r);
}

/*
 * The execl family is variadic; its arguments are gathered on the stack
 * (no VLA: the count is bounded by ES_MAX_ARGS) and, for execle, the envp
 * after the NULL.  A va_list passed down is fine on the ABIs we build for.
 */
static int
execl_common(const char *hook, const char *path, const char *arg, va_list ap,
    int search, int with_env)
{
	char *args[ES_MAX_ARGS + 1];
	char *const *envp = environ;
	size_t n = 0;
	struct req r = { hook, path, args, NULL, AT_FDCWD, 0, -1 };

	while (arg != NULL) {
		if (n == ES_MAX_ARGS) {
			errno = E2BIG;
			return -1;
		}
		args[n++] = (char *)arg;
		arg = va_arg(ap, const char *);
	}
	args[n] = NULL;
	if (with_env) {
		envp = va_arg(ap, char *const *);
		if (envp == NULL)
			envp = empty_env;
	}
	r.envp = envp;
	return search ? exec_search(&r) : exec_plain(&r);
}

ES_API int
execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_common("execl", path, arg, ap, 0, 0);
	va_end(ap);
	return rc;
}

ES_API int
execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_common("execle", path, arg, ap, 0, 1);
	va_end(ap);
	return rc;
}

ES_API int
execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = execl_common("execlp", file, arg, ap, 1, 0);
	va_end(ap);
	return rc;
}

/* ---- spawn: decided in the parent, before the child exists ---- */

/* posix_spawnp's PATH walk, done here so the child gets an absolute path. */
static int
spawn_resolve(const char *file, char *buf, size_t cap, const char **out)
{
	const char *path, *p, *end;
	int eacces = 0;
	struct stat sb;

	if (strchr(file, '/') != NULL) {
		*out = file;
		return 0;
	}
	if (file[0] == '\0')
		return ENOENT;
	path = es_caller_path();
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (es_join(buf, cap, p, (size_t)(end - p), file) == 0 &&
		    stat(buf, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (access(buf, X_OK) == 0) {
				*out = buf;
				return 0;
			}
			eacces = 1;
		}
		if (*end == '\0')
			break;
	}
	return eacces ? EACCES : ENOENT;
}

/*
 * posix_spawn, posix_spawnp, pidfd_spawn(p), system and popen all come
 * here.  Returns an error number, as posix_spawn does.
 */
static int
spawn_common(const char *hook, pid_t *pidp, int *pidfd, const char *file,
    int search, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char buf[ES_PATH_MAX];
	const char *path = file, *why;
	struct es_target t;
	struct es_plan pl;
	pid_t pid = 0;
	int rc;

	why = es_precheck(&st, argv);
	if (why != NULL) {
		es_log_refusal(&st, hook, file != NULL ? file : "", argv, why,
		    0);
		return EPERM;
	}
	if (file == NULL)
		return EFAULT;
	if (search) {
		rc = spawn_resolve(file, buf, sizeof(buf), &path);
		if (rc != 0)
			return rc;
	}
	es_judge(&st, AT_FDCWD, path, -1, 0, argv, &t);
	/*
	 * A file action (addchdir_np) may change the child's directory, so a
	 * relative path names a file this process cannot judge.
	 */
	if (fa != NULL && path[0] != '/') {
		t.found = 1;
		t.agent = 0;
		t.unfollow = 1;
		t.unfollow_why = "relative program spawned with file actions";
		if (es_is_shell(&st.pol, path))
			t.shell = 1;
	}
	es_plan_init(&pl, hook, path, path, envp != NULL ? envp : empty_env);
	pl.agent = t.agent;
	pl.cwd_unknown = fa != NULL;
	pl.program = es_program_for(&st, &t, path, argv, pl.cwd_unknown,
	    &pl.withhold);
	if (t.agent && t.handed)
		pl.handover = t.handed_to;
	/*
	 * A missing file is the child's error to report (posix_spawn returns
	 * it); planning still filters, so nothing unfiltered ever runs.
	 */
	pl.action = t.found ? es_decide(&st, &t, rule_of(&pl), &why) :
	    ES_A_RUN;
	pl.why = t.found ? why : NULL;
	if (es_plan_make(&st, &pl, argv, NULL) != 0) {
		es_log_refusal(&st, hook, path, argv, pl.why, 0);
		return EPERM;
	}
	if (pl.action == ES_A_REFUSE && st.pol.mode != ES_MODE_AUDIT) {
		es_say_refused(path, pl.why);
		es_plan_log(&st, &pl, 0, argv);
		es_plan_release(&pl);
		return EPERM;
	}
	if (pidfd != NULL)
		rc = st.real_pidfd_spawn != NULL ? st.real_pidfd_spawn(pidfd,
		    pl.target, fa, attr, pl.argv, (char *const *)pl.envp) : ENOSYS;
	else
		rc = st.real_posix_spawn(&pid, pl.target, fa, attr, pl.argv,
		    (char *const *)pl.envp);
	if (rc == 0) {
		if (pidp != NULL)
			*pidp = pid;
		es_plan_log(&st, &pl, pid, argv);
	}
	es_plan_release(&pl);
	return rc;
}

ES_API int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("posix_spawn", pid, NULL, path, 0, fa, attr, argv, envp);
}

ES_API int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("posix_spawnp", pid, NULL, file, 1, fa, attr, argv, envp);
}

/* glibc 2.39+; where libc lacks them nobody can call them but by name. */
int	pidfd_spawn(int *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);
int	pidfd_spawnp(int *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);

ES_API int
pidfd_spawn(int *pidfd, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("pidfd_spawn", NULL, pidfd, path, 0, fa, attr, argv, envp);
}

ES_API int
pidfd_spawnp(int *pidfd, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("pidfd_spawnp", NULL, pidfd, file, 1, fa, attr, argv, envp);
}

/* ---- system and popen, rebuilt on spawn_common ---- */

/*
 * glibc's system() reaches its internal posix_spawn, which no hook sees,
 * so it is rebuilt here with POSIX's signal rules: SIGINT and SIGQUIT
 * ignored and SIGCHLD blocked in the caller while the shell runs.
 */
ES_API int
system(const char *cmd)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	sigset_t chld, omask, def;
	posix_spawnattr_t attr;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	pid_t pid;
	int rc, status = -1;

	if (cmd == NULL)
		return access("/bin/sh", X_OK) == 0;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	sigemptyset(&def);
	if (oint.sa_handler != SIG_IGN)
		sigaddset(&def, SIGINT);
	if (oquit.sa_handler != SIG_IGN)
		sigaddset(&def, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = spawn_common("system", &pid, NULL, "/bin/sh", 0, NULL, &attr, argv,
	    environ);
	posix_spawnattr_destroy(&attr);
	if (rc == 0) {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	} else if (rc == EPERM)
		status = -1;
	else
		status = W_EXITCODE(127, 0);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	if (rc != 0)
		errno = rc;
	return status;
}

ES_API FILE *
popen(const char *cmd, const char *mode)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], reading, cloexec, slot = -1, mine, theirs, want, i, rc;
	pid_t pid;
	FILE *f;

	if (mode == NULL || (mode[0] != 'r' && mode[0] != 'w') ||
	    (mode[1] != '\0' && (mode[1] != 'e' || mode[2] != '\0'))) {
		errno = EINVAL;
		return NULL;
	}
	reading = mode[0] == 'r';
	cloexec = mode[1] == 'e';
	for (i = 0; i < ES_MAX_POPEN && slot < 0; i++) {
		pid_t z = 0;

		if (__atomic_compare_exchange_n(&st.popen[i].pid, &z, -1, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			slot = i;
	}
	if (slot < 0) {
		errno = EMFILE;
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) != 0)
		goto fail;
	mine = reading ? fds[0] : fds[1];
	theirs = reading ? fds[1] : fds[0];
	want = reading ? 1 : 0;
	posix_spawn_file_actions_init(&fa);
	/* dup2 onto itself would keep FD_CLOEXEC; move it out of the way. */
	if (theirs == want) {
		int moved = fcntl(theirs, F_DUPFD_CLOEXEC, 3);

		close(theirs);
		theirs = moved;
	}
	posix_spawn_file_actions_adddup2(&fa, theirs, want);
	/* POSIX: streams of earlier popen calls are closed in the child. */
	for (i = 0; i < ES_MAX_POPEN; i++) {
		FILE *o = __atomic_load_n(&st.popen[i].f, __ATOMIC_ACQUIRE);

		if (o != NULL && i != slot)
			posix_spawn_file_actions_addclose(&fa, fileno(o));
	}
	rc = spawn_common("popen", &pid, NULL, "/bin/sh", 0, &fa, NULL, argv,
	    environ);
	posix_spawn_file_actions_destroy(&fa);
	close(theirs);
	if (rc != 0) {
		close(mine);
		errno = rc;
		goto fail;
	}
	if (!cloexec)
		fcntl(mine, F_SETFD, 0);
	f = fdopen(mine, reading ? "r" : "w");
	if (f == NULL) {
		close(mine);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	st.popen[slot].pid = pid;
	__atomic_store_n(&st.popen[slot].f, f, __ATOMIC_RELEASE);
	return f;
fail:
	__atomic_store_n(&st.popen[slot].pid, 0, __ATOMIC_RELEASE);
	return NULL;
}

ES_API int
pclose(FILE *f)
{
	pid_t pid;
	int i, status;

	for (i = 0; i < ES_MAX_POPEN; i++) {
		FILE *o = f;

		if (f != NULL && __atomic_compare_exchange_n(&st.popen[i].f, &o,
		    NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (i == ES_MAX_POPEN)
		return st.real_pclose != NULL ? st.real_pclose(f) : (errno = ECHILD, -1);
	pid = st.popen[i].pid;
	fclose(f);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	__atomic_store_n(&st.popen[i].pid, 0, __ATOMIC_RELEASE);
	return status;
}

/* ---- syscall(SYS_execve, ...) ---- */

/*
 * Every other number passes straight to the kernel (torsocks broke
 * programs by refusing the ones it did not know).  The raw instruction is
 * used so that no resolution is needed, even before the constructor ran.
 */
static long
raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b),
	    "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2),
	    "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
#else
	if (st.real_syscall == NULL)
		return -ENOSYS;
	{
		long r = st.real_syscall(nr, a, b, c, d, e, f);

		return r == -1 ? -errno : r;
	}
#endif
}

ES_API long
syscall(long nr, ...)
{
	long a[6], r;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_execve)
		return execve((const char *)a[0], (char *const *)a[1],
		    (char *const *)a[2]);
#ifdef SYS_execveat
	if (nr == SYS_execveat)
		return execveat((int)a[0], (const char *)a[1],
		    (char *const *)a[2], (char *const *)a[3], (int)a[4]);
#endif
	r = raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* ---- the constructor ---- */

/*
 * pidfd_spawn came with glibc 2.39.  Asking an older libc for it fails,
 * and a failed dlsym formats its error in malloc'ed memory: malloc's
 * setup, getrandom and two brk in every process, for nothing.
 */
static int
libc_has_pidfd_spawn(void)
{
#ifdef __GLIBC__
	const char *v = gnu_get_libc_version();
	unsigned int major = 0, minor = 0;

	while (*v >= '0' && *v <= '9')
		major = major * 10 + (unsigned int)(*v++ - '0');
	if (*v++ == '.')
		while (*v >= '0' && *v <= '9')
			minor = minor * 10 + (unsigned int)(*v++ - '0');
	return major > 2 || (major == 2 && minor >= 39);
#else
	return 1;
#endif
}

/* glibc hands ELF constructors argc, argv and envp. */
__attribute__((constructor)) static void
es_init(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)envp;
	st.real_execve = (es_execve_fn)dlsym(RTLD_NEXT, "execve");
	st.real_execveat = (es_execveat_fn)dlsym(RTLD_NEXT, "execveat");
	st.real_fexecve = (es_fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
	st.real_posix_spawn = (es_spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	if (libc_has_pidfd_spawn())
		st.real_pidfd_spawn = (es_pidfd_spawn_fn)dlsym(RTLD_NEXT,
		    "pidfd_spawn");
	st.real_pclose = (es_pclose_fn)dlsym(RTLD_NEXT, "pclose");
#if !defined(__x86_64__) && !defined(__aarch64__)
	st.real_syscall = (es_syscall_fn)dlsym(RTLD_NEXT, "syscall");
#endif
	es_shim_init(&st, argv);
	/* A hook that finds itself instead of libc would loop forever. */
	if (st.real_execve == NULL || st.real_execveat == NULL ||
	    st.real_fexecve == NULL || st.real_posix_spawn == NULL ||
	    st.real_execve == execve || st.real_posix_spawn == posix_spawn) {
		st.broken = 1;
		memcpy(st.why, "cannot find libc's exec functions", 34);
	}
	st.ready = 1;
}

/* The agent's end is its session's (es_shim_end). */
__attribute__((destructor)) static void
es_fini(void)
{
	if (st.ready)
		es_shim_end(&st);
}
