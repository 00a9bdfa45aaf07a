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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "es_root.h"
#include "es_session.h"

void
es_broken(struct es_shim *s, const char *a, const char *b)
{
	s->broken = 1;
	s->why[0] = '\0';
	es_cat(s->why, sizeof(s->why), a);
	if (b != NULL)
		es_cat(s->why, sizeof(s->why), b);
}

void
es_text_init(struct es_shim *s)
{
	char **p[] = { &s->helper, &s->log_path, &s->e_preload, &s->e_agent,
	    &s->e_ns, &s->e_ws, &s->e_launch, &s->e_config, &s->e_session };
	size_t i;

	if (s->text_used == 0) {
		s->text[0] = '\0';
		s->text_used = 1;
	}
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (*p[i] == NULL)
			*p[i] = s->text;
}

char *
es_text_room(struct es_shim *s, size_t cap, size_t *room)
{
	size_t left = sizeof(s->text) - s->text_used;

	*room = cap < left ? cap : left;
	return s->text + s->text_used;
}

char *
es_text_keep(struct es_shim *s, size_t len)
{
	char *t = s->text + s->text_used;

	t[len] = '\0';
	s->text_used += len + 1;
	return t;
}

char *
es_text_put(struct es_shim *s, size_t cap, const char *name, const char *value)
{
	size_t room;
	char *t = es_text_room(s, cap, &room);

	if (room == 0)
		return NULL;
	t[0] = '\0';
	if ((name != NULL && (es_cat(t, room, name) != 0 ||
	    es_cat(t, room, "=") != 0)) || es_cat(t, room, value) != 0)
		return NULL;
	return es_text_keep(s, strlen(t));
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
	char line[ES_PATH_MAX + 8], path[ES_PATH_MAX];

	if (es_log_file(&s->pol, getenv("HOME"), path, sizeof(path)) != 0) {
		if (s->pol.log == ES_LOG_PATH) {
			es_broken(s, "log: no file (~/ needs HOME, or too long)", NULL);
			return -1;
		}
		return 0;	/* no HOME for the default: records are lost */
	}
	/* Bounded and created now, so the sandbox can bind it writable. */
	(void)es_log_rotate(path);
	(void)es_log_create(path);
	if (path[0] == '\0')
		return 0;
	s->log_path = es_text_put(s, sizeof(path), NULL, path);
	memcpy(line, "log ", 5);
	if (es_cat(line, sizeof(line), path) != 0 ||
	    es_cat(line, sizeof(line), "\n") != 0) {
		es_broken(s, "log path too long", NULL);
		return -1;
	}
	return add_layer(s, "launch log", line);
}

/*
 * One session for the run, when shells go to the sandbox: its tmp/ is
 * the agent's temp directory under every name agents read, so what the
 * agent hands its shells through TMPDIR (Claude Code's cwd file) is where
 * they look.  Without one (no /tmp, a base dir not ours) every sandbox
 * gets a private /tmp of its own, as before: less works, nothing opens.
 */
static void
start_session(struct es_shim *s)
{
	static const char *const names[] = {
		"TMPDIR", "TMP", "TEMP", "CLAUDE_CODE_TMPDIR"
	};
	char dir[ES_PATH_MAX], tmp[ES_PATH_MAX + 8];
	const char *why;
	size_t i;

	if (s->pol.sandbox == ES_SANDBOX_OFF || s->pol.mode == ES_MODE_AUDIT ||
	    es_session_start(dir, sizeof(dir), &why) != 0)
		return;
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)setenv(names[i], tmp, 1);
	s->e_session = es_text_put(s, ES_CAP_SESSION, ES_SESSION_VAR, dir);
	if (s->e_session == NULL) {
		(void)es_session_remove(dir);
		s->e_session = s->text;
	}
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
	char msg[ES_PATH_MAX + 256], cwd[ES_PATH_MAX], *t;
	struct stat sb;
	size_t room;
	long len;

	es_text_init(s);
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
		char var[ES_CAP_AGENT], real[PATH_MAX];

		if (realpath(exe, real) == NULL)
			real[0] = '\0';
		s->have_agent = 1;
		s->agent_dev = sb.st_dev;
		s->agent_ino = sb.st_ino;
		s->agent_script = es_agent_script(real, argv);
		es_agent_var(var, sb.st_dev, sb.st_ino, s->agent_script);
		if ((t = es_text_put(s, ES_CAP_AGENT, NULL, var)) != NULL)
			s->e_agent = t;
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL &&
	    (t = es_text_put(s, ES_CAP_WS, "ENVSHIM_WORKSPACE", cwd)) != NULL)
		s->e_ws = t;
	t = es_text_room(s, ES_CAP_LAUNCH, &room);
	if (room < 16)
		len = -1;
	else {
		memcpy(t, "ENVSHIM_LAUNCH=", 15);
		len = es_snapshot_encode(&s->snap, t + 15, room - 15);
	}
	if (len < 0) {
		es_broken(s, "launch snapshot too large", NULL);
		return;
	}
	s->e_launch = es_text_keep(s, 15 + (size_t)len);
	t = es_text_room(s, ES_CAP_CONFIG, &room);
	if (room < 16)
		len = -1;
	else {
		memcpy(t, "ENVSHIM_CONFIG=", 15);
		len = es_policy_format(&s->pol, 0, t + 15, room - 15);
	}
	if (len < 0) {
		es_broken(s, "effective policy too large to hand down", NULL);
		return;
	}
	if (len > 0 && t[15 + len - 1] == '\n')
		len--;		/* tidier in `env` output */
	s->e_config = es_text_keep(s, 15 + (size_t)len);
	start_session(s);
}
