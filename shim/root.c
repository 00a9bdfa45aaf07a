/*
 * root.c - the launch root's work, shared by the shim's constructor (an
 * agent the shim entered) and `envshim --contain` (an agent it cannot
 * enter, whose launch state the command computes before the exec): the
 * policy layers, where records go, the launch snapshot, the agent's
 * identity, the workspace and the entries every child inherits.
 *
 * Not for the exec path: it reads files and calls getenv.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "shim.h"

/* Appends s to dst (cap bytes); returns 0, or -1 when it would not fit. */
int
es_cat(char *dst, size_t cap, const char *s)
{
	size_t a = strlen(dst), b = strlen(s);

	if (a + b + 1 > cap)
		return -1;
	memcpy(dst + a, s, b + 1);
	return 0;
}

void
es_broken(struct es_shim *s, const char *a, const char *b)
{
	s->broken = 1;
	s->why[0] = '\0';
	es_cat(s->why, sizeof(s->why), a);
	if (b != NULL)
		es_cat(s->why, sizeof(s->why), b);
}

/* "NAME=" value into dst, or fail when it does not fit. */
int
es_setvar(char *dst, size_t cap, const char *name, const char *value)
{
	dst[0] = '\0';
	if (es_cat(dst, cap, name) != 0 || es_cat(dst, cap, "=") != 0 ||
	    es_cat(dst, cap, value) != 0)
		return -1;
	return 0;
}

/* v in decimal into d (24 bytes). */
static const char *
ull(char *d, unsigned long long v)
{
	size_t i = 23;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return d + i;
}

/* Adds one line of policy on top, as its own layer. */
static int
add_layer(struct es_shim *s, const char *origin, const char *line)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];

	if (es_policy_parse(&s->pol, line, strlen(line), origin, &err) == 0)
		return 0;
	es_broken(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
	return -1;
}

/*
 * The launch root settles where records go: the default file, or the
 * policy's (~/ expanded), as an absolute path handed down
 * so every descendant - also inside the sandbox - writes the same file.
 */
static int
settle_log(struct es_shim *s)
{
	char line[ES_PATH_MAX + 8];

	if (es_log_file(&s->pol, getenv("HOME"), s->log_path,
	    sizeof(s->log_path)) != 0) {
		s->log_path[0] = '\0';
		if (s->pol.log == ES_LOG_PATH) {
			es_broken(s, "log: no file (~/ needs HOME, or too long)", NULL);
			return -1;
		}
		return 0;	/* no HOME for the default: records are lost */
	}
	/* Bounded and created now, so the sandbox can bind it writable. */
	(void)es_log_rotate(s->log_path);
	(void)es_log_create(s->log_path);
	if (s->log_path[0] == '\0')
		return 0;
	memcpy(line, "log ", 5);
	if (es_cat(line, sizeof(line), s->log_path) != 0 ||
	    es_cat(line, sizeof(line), "\n") != 0) {
		es_broken(s, "log path too long", NULL);
		return -1;
	}
	return add_layer(s, "launch log", line);
}

/*
 * The agent itself: read the layers from disk, take the snapshot of envp
 * and record what children must inherit.  A bad policy sets s->broken:
 * the agent keeps running and every launch it makes is refused.
 */
void
es_root_init(struct es_shim *s, const char *policyfile, const char *mode,
    char *const *envp, const char *exe, char *const *argv)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256], cwd[ES_PATH_MAX];
	struct stat sb;
	long len;

	if (es_policy_load_root(&s->pol, policyfile, &err) != 0) {
		es_broken(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (mode != NULL && strcmp(mode, "audit") == 0) {
		if (add_layer(s, "ENVSHIM_MODE", "mode audit\n") != 0)
			return;
	} else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "enforce") != 0) {
		es_broken(s, "ENVSHIM_MODE must be audit or enforce", NULL);
		return;
	}
	if (s->pol.log == ES_LOG_DEFAULT || s->pol.log == ES_LOG_PATH) {
		if (settle_log(s) != 0)
			return;
	}
	es_snapshot_take(&s->pol, envp, &s->snap);
	if (stat(exe, &sb) == 0) {
		char num[96], d[24], real[PATH_MAX];

		if (realpath(exe, real) == NULL)
			real[0] = '\0';
		s->have_agent = 1;
		s->agent_dev = sb.st_dev;
		s->agent_ino = sb.st_ino;
		s->agent_script = es_agent_script(real, argv);
		num[0] = '\0';
		es_cat(num, sizeof(num), ull(d, sb.st_dev));
		es_cat(num, sizeof(num), ":");
		es_cat(num, sizeof(num), ull(d, sb.st_ino));
		es_cat(num, sizeof(num), ":");
		es_cat(num, sizeof(num), ull(d, s->agent_script));
		es_setvar(s->e_agent, sizeof(s->e_agent), "ENVSHIM_AGENT", num);
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		es_setvar(s->e_ws, sizeof(s->e_ws), "ENVSHIM_WORKSPACE", cwd);
	memcpy(s->e_launch, "ENVSHIM_LAUNCH=", 15);
	if (es_snapshot_encode(&s->snap, s->e_launch + 15,
	    sizeof(s->e_launch) - 15) < 0) {
		es_broken(s, "launch snapshot too large", NULL);
		return;
	}
	memcpy(s->e_config, "ENVSHIM_CONFIG=", 15);
	len = es_policy_format(&s->pol, 0, s->e_config + 15,
	    sizeof(s->e_config) - 15);
	if (len < 0)
		es_broken(s, "effective policy too large to hand down", NULL);
	else if (len > 0 && s->e_config[15 + len - 1] == '\n')
		s->e_config[15 + len - 1] = '\0';	/* tidier in `env` output */
}
