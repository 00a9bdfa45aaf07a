/*
 * reveal.c - envshim-sandbox: what an agent hands its own shells from
 * inside a hidden directory.
 *
 * Claude Code saves a long tool result under its transcripts,
 * CONFIG/projects/PROJECT/SESSION/tool-results/ID.txt, and tells the model
 * to read it there; the model's next shell often does (cat, grep, jq).
 * The transcripts are hidden (shim/engine/hide.c), so that shell found an
 * empty directory.  Claude passes the session to its shells as
 * CLAUDE_CODE_SESSION_ID: this command's own session's tool-results
 * directory is shown, read-only, at its path, and nothing else of the
 * projects directory (not the session's transcript, not another session's
 * or project's results).  Other agents hand such files through their temp
 * directory or their own, which are not hidden (docs/design.md).
 *
 * The outer plans it (es_sbx_plan_reveal): the directory must exist, be
 * the user's and no link, lie under the hidden projects directory and
 * under no other hidden path, and hold none.  init shows it
 * (es_sbx_reveal), after the hidden paths are in place, in its own mount
 * namespace: a detached clone of the hidden directory's parent without
 * its submounts (open_tree, Linux 5.2+) is where the real directory is
 * still seen; a small tmpfs goes over the hidden directory, holding only
 * the path down to tool-results, the clone is attached inside it just
 * long enough to bind tool-results from it, and the tmpfs is made
 * read-only.  Whatever fails before the bind leaves the directory hidden;
 * a clone that cannot be detached again refuses the command.  AS-safe
 * after the clone.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount		429
#endif
#define RV_OPEN_TREE_CLONE	1		/* linux/mount.h */
#define RV_MOVE_F_EMPTY_PATH	0x00000004

/* A session id as Claude Code makes one (a UUID): a single, plain name. */
static int
plain_name(const char *s)
{
	size_t n;

	for (n = 0; s[n] != '\0'; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' &&
		    s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') ||
		    s[n] == '-' || s[n] == '_'))
			return 0;
	return n > 0 && n <= 128;
}

/* Is b a, or below it? */
static int
under(const char *a, const char *b)
{
	size_t n = strlen(a);

	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

/*
 * Is the hidden directory hid the only hidden path over dir, and none
 * below it?  A `hide` of all of ~/.claude, or of a file inside the
 * results, keeps what it hides.
 */
static int
only_cover(const struct es_sbx_plan *pl, const char *hid, const char *dir)
{
	const struct es_sbx_mnt *m;
	size_t i;
	int found = 0;

	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if (m->kind != ES_MK_HIDE_DIR && m->kind != ES_MK_HIDE_FILE)
			continue;
		if (strcmp(m->path, hid) == 0 && m->kind == ES_MK_HIDE_DIR)
			found = 1;
		else if (under(m->path, dir) || under(dir, m->path))
			return 0;
	}
	return found;
}

/* PROJECT/SESSION/tool-results below projects, each a directory of ours, no link. */
static int
results_dir(int pfd, const char *project, const char *sid, char *rel,
    size_t len)
{
	const char *part[3] = { project, sid, "tool-results" };
	struct stat st;
	int fd = pfd, next, i, ok = 1;

	if (snprintf(rel, len, "%s/%s/tool-results", project, sid) >= (int)len)
		return 0;
	for (i = 0; i < 3 && ok; i++) {
		next = openat(fd, part[i], O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		ok = next != -1 && fstat(next, &st) == 0 &&
		    st.st_uid == getuid();
		if (fd != pfd)
			close(fd);
		fd = next;
	}
	if (fd != -1 && fd != pfd)
		close(fd);
	return ok;
}

/* One projects directory (CONFIG/projects): this session's results in it. */
static void
plan_one(struct es_sbx_plan *pl, const char *hid, const char *sid)
{
	char rel[ES_PATH_MAX], dir[2 * ES_PATH_MAX];
	struct dirent *d;
	DIR *pd;
	size_t k;

	for (k = 0; k < pl->nreveal; k++)
		if (strcmp(pl->reveal[k].hid, hid) == 0)
			return;		/* $CLAUDE_CONFIG_DIR is ~/.claude */
	if ((pd = opendir(hid)) == NULL)
		return;
	while ((d = readdir(pd)) != NULL && pl->nreveal < ES_SBX_NREVEAL) {
		if (d->d_name[0] == '.' || !results_dir(dirfd(pd), d->d_name,
		    sid, rel, sizeof(rel)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", hid, rel);
		if (!only_cover(pl, hid, dir))
			continue;
		if ((pl->reveal[pl->nreveal].hid = strdup(hid)) == NULL ||
		    (pl->reveal[pl->nreveal].rel = strdup(rel)) == NULL)
			es_sbx_refuse("out of memory");
		pl->nreveal++;
	}
	closedir(pd);
}

/*
 * In the outer, after the mounts are planned: Claude Code's results
 * directory of the session this shell belongs to, in ~/.claude and in
 * $CLAUDE_CONFIG_DIR, when the projects directory there is hidden.
 */
void
es_sbx_plan_reveal(struct es_sbx_plan *pl, const char *home)
{
	const char *sid = getenv("CLAUDE_CODE_SESSION_ID"), *cfg;
	char hid[ES_PATH_MAX];

	if (sid == NULL || !plain_name(sid))
		return;
	if ((cfg = getenv("CLAUDE_CONFIG_DIR")) != NULL && cfg[0] == '/' &&
	    snprintf(hid, sizeof(hid), "%s/projects", cfg) < (int)sizeof(hid))
		plan_one(pl, hid, sid);
	if (home != NULL &&
	    snprintf(hid, sizeof(hid), "%s/.claude/projects", home) <
	    (int)sizeof(hid))
		plan_one(pl, hid, sid);
}

/* dst = a "/" b, bounded; 0 when it does not fit. */
static int
join(char *dst, size_t len, const char *a, const char *b)
{
	size_t off = 0;

	es_sbx_put_str(dst, len, &off, a);
	es_sbx_put_str(dst, len, &off, "/");
	es_sbx_put_str(dst, len, &off, b);
	return off + 1 < len;
}

/* Each directory of base/rel below base, made as the user's own. */
static int
make_path(const char *base, const char *rel)
{
	char path[ES_PATH_MAX];
	size_t i;

	if (!join(path, sizeof(path), base, rel))
		return -1;
	for (i = strlen(base) + 1; path[i] != '\0'; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) == -1 && errno != EEXIST)
			return -1;
		path[i] = '/';
	}
	return mkdir(path, 0700);
}

/* rel opened below dfd, one component at a time, following no link. */
static int
open_below(int dfd, const char *rel)
{
	char name[256];
	size_t i, n = 0;
	int fd = dfd, next;

	for (i = 0;; i++) {
		if (rel[i] != '/' && rel[i] != '\0') {
			if (n + 1 >= sizeof(name))
				break;
			name[n++] = rel[i];
			continue;
		}
		name[n] = '\0';
		n = 0;
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd != dfd)
			close(fd);
		if ((fd = next) == -1 || rel[i] == '\0')
			return fd;
	}
	if (fd != dfd)
		close(fd);
	return -1;
}

/*
 * One reveal, in init.  The clone of hid's parent (no submounts: the
 * placeholder over hid is not in it) is attached at hid/.stage inside the
 * new tmpfs, tool-results is bound from it, and the stage goes again.
 */
static void
reveal_one(const struct es_sbx_plan *pl, const struct es_sbx_reveal *rv)
{
	char parent[ES_PATH_MAX], stage[ES_PATH_MAX], dst[ES_PATH_MAX];
	char inner[ES_PATH_MAX], fp[40];
	size_t off = 0, cut = 0, i;
	int cfd, sfd = -1, tfd = -1;

	es_sbx_put_str(parent, sizeof(parent), &off, rv->hid);
	for (i = 0; parent[i] != '\0'; i++)
		if (parent[i] == '/')
			cut = i;
	if (cut == 0)
		return;
	parent[cut] = '\0';
	if (!join(stage, sizeof(stage), rv->hid, ".stage") ||
	    !join(dst, sizeof(dst), rv->hid, rv->rel) ||
	    !join(inner, sizeof(inner), parent + cut + 1, rv->rel))
		return;
	/* no open_tree (before 5.2), or a locked mount: it stays hidden */
	if ((cfd = (int)syscall(SYS_open_tree, AT_FDCWD, parent,
	    RV_OPEN_TREE_CLONE | O_CLOEXEC)) == -1)
		return;
	if (mount("tmpfs", rv->hid, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "mode=0700,size=16k,nr_inodes=16") == -1)
		es_sbx_fail(pl, ES_S_HIDE, -1);
	if (mkdir(stage, 0700) == 0 && syscall(SYS_move_mount, cfd, "",
	    AT_FDCWD, stage, RV_MOVE_F_EMPTY_PATH) == 0) {
		if ((sfd = openat(AT_FDCWD, stage, O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1)
			tfd = open_below(sfd, inner);
		if (tfd != -1 && make_path(rv->hid, rv->rel) == 0 &&
		    mount(es_sbx_fdpath(fp, sizeof(fp), tfd), dst, NULL,
		    MS_BIND, NULL) == 0 && es_sbx_remount(dst, 1) == -1)
			es_sbx_fail(pl, ES_S_HIDE, -1);
		if (tfd != -1)
			close(tfd);
		if (sfd != -1)
			close(sfd);
		/* the real home's ~/.claude must not stay in view */
		if (umount2(stage, MNT_DETACH) == -1)
			es_sbx_fail(pl, ES_S_HIDE, -1);
	}
	close(cfd);
	(void)rmdir(stage);
	if (es_sbx_remount(rv->hid, 1) == -1)
		es_sbx_fail(pl, ES_S_HIDE, -1);
}

/* In init, once the view is built and before capabilities go. */
void
es_sbx_reveal(const struct es_sbx_plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nreveal; i++)
		reveal_one(pl, &pl->reveal[i]);
}
