/*
 * sessions.c - "envshim session": the agent runs of this workspace (their
 * session directories, es_session.h) and what each one's commands wrote
 * outside the workspace: files in the home's layer and in /tmp, with
 * sizes.  --discard removes the sessions whose agent is gone.  Names
 * are printed escaped; contents are never read.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "es_session.h"
#include "cmd.h"

#define SESSION_USAGE	"usage: envshim session [--all] [--discard]\n"

/* The workspace a session was made in (its "workspace" file), or "". */
static void
workspace_of(const char *dir, char *buf, size_t len)
{
	char	path[PATH_MAX + 16];
	ssize_t	n = -1;
	int	fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/workspace", dir);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Is the empty file rel (below /tmp or /var/tmp: prefix) a mount point
 * the sandbox made to bind a host file back at its path (the shim, the
 * helper, a command that lives under /tmp), not a file a shell wrote?
 * Then the host has a file there that is not empty.
 */
static int
stand_in(const char *prefix, const char *rel, const struct stat *st)
{
	char	 host[PATH_MAX + 16];
	struct stat h;

	if (prefix[0] != '/' || !S_ISREG(st->st_mode) || st->st_size != 0 ||
	    (size_t)snprintf(host, sizeof(host), "%s%s", prefix, rel) >=
	    sizeof(host))
		return 0;
	return stat(host, &h) == 0 && S_ISREG(h.st_mode) && h.st_size > 0 &&
	    (h.st_dev != st->st_dev || h.st_ino != st->st_ino);
}

/*
 * Every file below dfd (which it closes), as "  PREFIX/path  SIZE"; a
 * character device 0:0 is overlay's mark of a deletion.  The total size
 * is added to *total.  The sandbox's own mount points are left out.
 */
static void
walk(int dfd, const char *prefix, char *rel, size_t rlen, long long *total)
{
	struct dirent	*e;
	struct stat	 st;
	size_t		 n;
	DIR		*d;
	int		 fd;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		n = strlen(rel);
		if (n + 1 + strlen(e->d_name) + 1 > rlen)
			continue;
		rel[n] = '/';
		strcpy(rel + n + 1, e->d_name);
		if (S_ISDIR(st.st_mode)) {
			if ((fd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC)) != -1)
				walk(fd, prefix, rel, rlen, total);
		} else if (!stand_in(prefix, rel, &st)) {
			printf("    %s", prefix);
			es_cmd_putname(stdout, rel, strlen(rel));
			if (S_ISCHR(st.st_mode) && st.st_rdev == 0)
				printf("  (deleted)\n");
			else {
				printf("  %lld\n", (long long)st.st_size);
				*total += st.st_size;
			}
		}
		rel[n] = '\0';
	}
	closedir(d);
}

/*
 * One session, or a kept layer: its state, its workspace, and what its
 * commands wrote.
 */
static void
show(const char *dir, const char *name, const char *ws, const char *state)
{
	static const struct { const char *sub, *shown; } parts[] = {
		{ "home", "~" }, { "tmp", "/tmp" }, { "var-tmp", "/var/tmp" }
	};
	char		 path[PATH_MAX + 16], rel[PATH_MAX];
	long long	 total = 0;
	size_t		 i;
	int		 fd;

	printf("%s  %s  ", name, state);
	es_cmd_putname(stdout, ws, strlen(ws));
	printf("\n");
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, parts[i].sub);
		if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		rel[0] = '\0';
		walk(fd, parts[i].shown, rel, sizeof(rel), &total);
	}
	printf("    %lld bytes\n", total);
}

/* Does a running session of workspace ws use its kept layer? */
static int
busy(const char *base, const char *ws)
{
	char		 dir[PATH_MAX], w[PATH_MAX];
	struct dirent	*e;
	DIR		*d;
	int		 b = 0;

	if ((d = opendir(base)) == NULL)
		return 0;
	while (!b && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || es_session_pid(e->d_name) == -1 ||
		    !es_session_alive(e->d_name))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name);
		workspace_of(dir, w, sizeof(w));
		b = strcmp(w, ws) == 0;
	}
	closedir(d);
	return b;
}

/*
 * The kept home layers (home-layer workspace) of this workspace, or all:
 * listed like a session, or discarded unless a running session uses it.
 * Returns how many there were; *left counts those kept.
 */
static int
layers(const char *base, const char *here, int all, int discard, int *left)
{
	char		 lb[PATH_MAX], dir[PATH_MAX + 300], ws[PATH_MAX];
	struct dirent	*e;
	DIR		*d;
	int		 n = 0;

	if (es_layer_dir(getenv("HOME"), NULL, lb, sizeof(lb)) != 0 ||
	    (d = opendir(lb)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", lb, e->d_name);
		workspace_of(dir, ws, sizeof(ws));
		if (!all && strcmp(ws, here) != 0)
			continue;
		n++;
		if (!discard)
			show(dir, e->d_name, ws, "kept");
		else if (busy(base, ws))
			(*left)++;
		else if (es_session_remove(dir) == 0)
			printf("discarded layer %s\n", e->d_name);
		else
			fprintf(stderr, "envshim session: layer %s: %s\n",
			    e->d_name, strerror(errno));
	}
	closedir(d);
	return n;
}

int
es_cmd_session(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "discard", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char		 base[PATH_MAX], dir[PATH_MAX + 300], ws[PATH_MAX];
	char		 here[PATH_MAX];
	struct dirent	*e;
	DIR		*d;
	int		 c, all = 0, discard = 0, n = 0, left = 0, lleft = 0, alive;
	size_t		 top;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = 1;
			break;
		case 'd':
			discard = 1;
			break;
		case 'h':
			fputs(SESSION_USAGE, stdout);
			return 0;
		default:
			return es_cmd_try("envshim session");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "envshim session: unexpected '%s'\n"
		    SESSION_USAGE, argv[optind]);
		return ES_EXIT_FAIL;
	}
	if (getcwd(here, sizeof(here)) == NULL ||
	    realpath(here, ws) == NULL) {
		fprintf(stderr, "envshim session: cannot read the working "
		    "directory: %s\n", strerror(errno));
		return ES_EXIT_FAIL;
	}
	memcpy(here, ws, strlen(ws) + 1);
	if (es_session_base(base, sizeof(base), &top) != 0)
		base[0] = '\0';
	if ((d = opendir(base)) == NULL) {
		if ((n = layers(base, here, all, discard, &lleft)) == 0)
			printf("no sessions\n");
		goto kept;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || es_session_pid(e->d_name) == -1)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, e->d_name);
		workspace_of(dir, ws, sizeof(ws));
		if (!all && strcmp(ws, here) != 0)
			continue;
		alive = es_session_alive(e->d_name);
		if (discard && !alive) {
			if (es_session_remove(dir) == 0)
				printf("discarded %s\n", e->d_name);
			else
				fprintf(stderr, "envshim session: %s: %s\n",
				    e->d_name, strerror(errno));
		} else if (discard)
			left++;
		else
			show(dir, e->d_name, ws, alive ? "running" : "ended");
		n++;
	}
	closedir(d);
	n += layers(base, here, all, discard, &lleft);
	if (n == 0)
		printf("no sessions%s\n", all ? "" : " of this workspace");
kept:
	if (left > 0)
		printf("%d running session%s kept: %s ends with its agent\n",
		    left, left == 1 ? "" : "s", left == 1 ? "it" : "each");
	if (lleft > 0)
		printf("%d kept layer%s in use by a running session: "
		    "discard %s when it ends\n", lleft, lleft == 1 ? "" : "s",
		    lleft == 1 ? "it" : "them");
	return 0;
}
