/*
 * names.c - the builtin name lists (research: env-lists.md section 10) and
 * the name classification the filter runs for every variable.
 *
 * Pure: const tables only.  Each name appears once; a name on several
 * lists carries all of their class bits (HOME is both always-kept and
 * Tier B).  The lookups are AS-safe.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "names.h"

#define INJ	ES_NC_INJECTION
#define SEC	ES_NC_SECRET
#define CAP	ES_NC_CAPABILITY
#define CHG	ES_NC_CHANGED
#define SAFE	ES_NC_SAFE
#define EXM	ES_NC_EXEMPT
#define URL	ES_NC_URL
#define VW	ES_NC_V_WORD
#define VTZ	ES_NC_V_TZ
#define VABS	ES_NC_V_ABS
#define COMP	ES_NC_COMP
#define CNF	ES_NC_COMP_NF

#define N(s, c)	{ s, sizeof(s) - 1, (c) }

const struct es_name es_names[] = {
	/* Tier A, libc and loader (LD_* is a prefix below). */
	N("GCONV_PATH", INJ), N("GETCONF_DIR", INJ), N("GLIBC_TUNABLES", INJ),
	N("HOSTALIASES", INJ), N("RESOLV_HOST_CONF", INJ),
	N("RES_OPTIONS", INJ), N("LOCALDOMAIN", INJ), N("LOCPATH", INJ),
	N("NLSPATH", INJ), N("PATH_LOCALE", INJ), N("NIS_PATH", INJ),
	N("MALLOC_TRACE", INJ), N("TERMINFO", INJ), N("TERMINFO_DIRS", INJ),
	N("TERMPATH", INJ), N("TERMCAP", INJ), N("LIBPATH", INJ),
	N("SHLIB_PATH", INJ),
	/* Tier A, shells. */
	N("BASH_ENV", INJ), N("ENV", INJ), N("KSH_ENV", INJ),
	N("SHELLOPTS", INJ), N("BASHOPTS", INJ), N("PS4", INJ),
	N("PROMPT_COMMAND", INJ), N("GLOBIGNORE", INJ), N("CDPATH", INJ),
	N("IFS", INJ), N("FPATH", INJ), N("ZDOTDIR", INJ), N("NULLCMD", INJ),
	N("READNULLCMD", INJ), N("TMPPREFIX", INJ), N("BASH_XTRACEFD", INJ),
	N("EXECIGNORE", INJ),
	/* Tier A, python. */
	N("PYTHONPATH", INJ), N("PYTHONHOME", INJ), N("PYTHONPLATLIBDIR", INJ),
	N("PYTHONSTARTUP", INJ), N("PYTHONINSPECT", INJ),
	N("PYTHONUSERBASE", INJ), N("PYTHONBREAKPOINT", INJ),
	N("PYTHONWARNINGS", INJ), N("PYTHONEXECUTABLE", INJ),
	/* Tier A, node. */
	N("NODE_OPTIONS", INJ), N("NODE_PATH", INJ),
	N("NODE_REPL_EXTERNAL_MODULE", INJ), N("NODE_REPL_HISTORY", INJ),
	N("NODE_V8_COVERAGE", INJ), N("NODE_REDIRECT_WARNINGS", INJ),
	N("NODE_TLS_REJECT_UNAUTHORIZED", INJ),
	/* Tier A, perl, ruby, lua, R, tcl, erlang, editors, php. */
	N("PERL5OPT", INJ), N("PERL5LIB", INJ), N("PERLLIB", INJ),
	N("PERL5DB", INJ), N("PERL5DBCMD", INJ), N("PERLIO_DEBUG", INJ),
	N("PERL5SHELL", INJ), N("RUBYOPT", INJ), N("RUBYLIB", INJ),
	N("RUBYSHELL", INJ), N("LUA_PATH", INJ), N("LUA_CPATH", INJ),
	N("R_PROFILE", INJ), N("R_PROFILE_USER", INJ), N("R_ENVIRON", INJ),
	N("R_ENVIRON_USER", INJ), N("TCLLIBPATH", INJ), N("ERL_AFLAGS", INJ),
	N("ERL_FLAGS", INJ), N("ERL_ZFLAGS", INJ),
	N("ELIXIR_ERL_OPTIONS", INJ), N("EMACSLOADPATH", INJ),
	N("EXINIT", INJ), N("VIMINIT", INJ), N("GVIMINIT", INJ),
	N("MYVIMRC", INJ), N("PHPRC", INJ), N("PHP_INI_SCAN_DIR", INJ),
	/* Tier A, JVM and .NET. */
	N("JAVA_TOOL_OPTIONS", INJ), N("_JAVA_OPTIONS", INJ),
	N("JDK_JAVA_OPTIONS", INJ), N("JAVA_OPTS", INJ), N("MAVEN_OPTS", INJ),
	N("GRADLE_OPTS", INJ), N("SBT_OPTS", INJ), N("ANT_OPTS", INJ),
	N("CATALINA_OPTS", INJ), N("DOTNET_STARTUP_HOOKS", INJ),
	N("DOTNET_ADDITIONAL_DEPS", INJ), N("CORECLR_PROFILER", INJ),
	N("CORECLR_PROFILER_PATH", INJ), N("CORECLR_ENABLE_PROFILING", INJ),
	/* Tier A, git (GIT_CONFIG_* is a prefix below). */
	N("GIT_CONFIG", INJ), N("GIT_SSH", INJ), N("GIT_SSH_COMMAND", INJ),
	N("GIT_PROXY_COMMAND", INJ), N("GIT_ASKPASS", INJ),
	N("GIT_EXTERNAL_DIFF", INJ), N("GIT_EXEC_PATH", INJ),
	N("GIT_TEMPLATE_DIR", INJ), N("GIT_EDITOR", INJ),
	N("GIT_SEQUENCE_EDITOR", INJ), N("GIT_DIR", INJ),
	N("GIT_WORK_TREE", INJ), N("GIT_COMMON_DIR", INJ),
	N("GIT_INDEX_FILE", INJ), N("GIT_OBJECT_DIRECTORY", INJ),
	N("GIT_ALTERNATE_OBJECT_DIRECTORIES", INJ), N("GIT_NAMESPACE", INJ),
	N("GIT_SSL_NO_VERIFY", INJ), N("GIT_HOOK_PATH", INJ),
	/* Tier A, askpass, preprocessors, TLS key logs and engines. */
	N("SSH_ASKPASS", INJ), N("SSH_ASKPASS_REQUIRE", INJ),
	N("SUDO_ASKPASS", INJ), N("LESSOPEN", INJ), N("LESSCLOSE", INJ),
	N("SSLKEYLOGFILE", INJ), N("OPENSSL_CONF", INJ),
	N("OPENSSL_ENGINES", INJ), N("OPENSSL_MODULES", INJ),
	/* Tier A, build tools. */
	N("RUSTC_WRAPPER", INJ), N("RUSTC_WORKSPACE_WRAPPER", INJ),
	N("CARGO_BUILD_RUSTC_WRAPPER", INJ),
	N("CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", INJ), N("CONFIG_SITE", INJ),
	N("CONFIG_SHELL", INJ), N("CMAKE_TOOLCHAIN_FILE", INJ),

	/* Secret names, exact: cloud. */
	N("AWS_ACCESS_KEY_ID", SEC), N("AWS_SECRET_ACCESS_KEY", SEC),
	N("AWS_SESSION_TOKEN", SEC), N("AWS_SECURITY_TOKEN", SEC),
	N("AWS_BEARER_TOKEN_BEDROCK", SEC),
	N("AWS_CONTAINER_CREDENTIALS_FULL_URI", SEC),
	N("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", SEC),
	N("AWS_CONTAINER_AUTHORIZATION_TOKEN", SEC),
	N("AZURE_CLIENT_SECRET", SEC), N("AZURE_CLIENT_CERTIFICATE_PASSWORD", SEC),
	/* forges, registries, model providers, CI, telemetry. */
	N("GH_TOKEN", SEC), N("GITHUB_TOKEN", SEC), N("GITLAB_TOKEN", SEC),
	N("CI_JOB_TOKEN", SEC), N("NPM_TOKEN", SEC), N("NODE_AUTH_TOKEN", SEC),
	N("ANTHROPIC_API_KEY", SEC), N("ANTHROPIC_AUTH_TOKEN", SEC),
	N("ANTHROPIC_CUSTOM_HEADERS", SEC), N("CLAUDE_CODE_OAUTH_TOKEN", SEC),
	N("OPENAI_API_KEY", SEC), N("GEMINI_API_KEY", SEC),
	N("GOOGLE_API_KEY", SEC), N("ACTIONS_ID_TOKEN_REQUEST_TOKEN", SEC),
	N("ACTIONS_ID_TOKEN_REQUEST_URL", SEC), N("ACTIONS_RUNTIME_TOKEN", SEC),
	N("OTEL_EXPORTER_OTLP_HEADERS", SEC),
	N("OTEL_EXPORTER_OTLP_LOGS_HEADERS", SEC),
	N("OTEL_EXPORTER_OTLP_METRICS_HEADERS", SEC),
	N("OTEL_EXPORTER_OTLP_TRACES_HEADERS", SEC),
	/* connection strings and the rest. */
	N("DATABASE_URL", SEC), N("DB_URI", SEC), N("CONNECTION_STRING", SEC),
	N("REDIS_URL", SEC), N("MONGODB_URI", SEC), N("AMQP_URL", SEC),
	N("SLACK_WEBHOOK_URL", SEC), N("VAULT_TOKEN", SEC),
	N("DOCKER_AUTH_CONFIG", SEC), N("SENTRY_DSN", SEC),

	/*
	 * Capabilities: not secrets, but each lets a child act with the
	 * user's keys, session bus, display, daemon or cloud identity.
	 */
	N("SSH_AUTH_SOCK", CAP), N("GPG_AGENT_INFO", CAP),
	N("DBUS_SESSION_BUS_ADDRESS", CAP), N("DOCKER_HOST", CAP | CHG),
	N("KUBECONFIG", CAP | CHG), N("GOOGLE_APPLICATION_CREDENTIALS", CAP),
	N("AWS_SHARED_CREDENTIALS_FILE", CAP),
	N("AWS_WEB_IDENTITY_TOKEN_FILE", CAP), N("AZURE_AUTH_LOCATION", CAP),
	N("XAUTHORITY", CAP), N("KRB5CCNAME", CAP),

	/* Tier B: editors and pagers. */
	N("PAGER", CHG), N("MANPAGER", CHG), N("GIT_PAGER", CHG),
	N("EDITOR", CHG), N("VISUAL", CHG), N("FCEDIT", CHG),
	N("SUDO_EDITOR", CHG), N("BROWSER", CHG),
	/* locations (HOME is with the always-kept names). */
	N("XDG_CONFIG_HOME", CHG), N("XDG_DATA_HOME", CHG),
	N("XDG_CACHE_HOME", CHG), N("HISTFILE", CHG), N("CLASSPATH", CHG),
	N("GEM_HOME", CHG), N("GEM_PATH", CHG), N("BUNDLE_GEMFILE", CHG),
	N("VIRTUAL_ENV", CHG), N("TZDIR", CHG), N("CARGO_HOME", CHG),
	/* compilers and flags. */
	N("CC", CHG), N("CXX", CHG), N("RUSTC", CHG), N("RUSTDOC", CHG),
	N("CARGO_BUILD_RUSTC", CHG), N("CARGO_BUILD_RUSTDOC", CHG),
	N("CMAKE_C_COMPILER", CHG), N("CMAKE_CXX_COMPILER", CHG),
	N("MAKE", CHG), N("MAKEFLAGS", CHG), N("MFLAGS", CHG),
	N("GOFLAGS", CHG), N("RUSTFLAGS", CHG), N("CFLAGS", CHG),
	N("LDFLAGS", CHG), N("CGO_CFLAGS", CHG), N("CGO_LDFLAGS", CHG),
	N("LIBRARY_PATH", CHG), N("CPATH", CHG), N("C_INCLUDE_PATH", CHG),
	N("CPLUS_INCLUDE_PATH", CHG),
	/* package indexes (URL-valued ones get their userinfo stripped). */
	N("PIP_INDEX_URL", CHG | URL), N("PIP_EXTRA_INDEX_URL", CHG | URL),
	N("PIP_CONFIG_FILE", CHG), N("PIP_FIND_LINKS", CHG | URL),
	N("PIP_TRUSTED_HOST", CHG), N("UV_INDEX", CHG | URL),
	N("UV_INDEX_URL", CHG | URL), N("UV_EXTRA_INDEX_URL", CHG | URL),
	N("UV_DEFAULT_INDEX", CHG | URL), N("GOPROXY", CHG | URL),
	N("GONOSUMDB", CHG), N("GONOSUMCHECK", CHG), N("GONOPROXY", CHG),
	N("GOPRIVATE", CHG | EXM), N("GOENV", CHG),
	N("BUN_CONFIG_REGISTRY", CHG | URL), N("YARN_RC_FILENAME", CHG),
	/* TLS trust. */
	N("SSL_CERT_FILE", CHG | EXM), N("SSL_CERT_DIR", CHG | EXM),
	N("NODE_EXTRA_CA_CERTS", CHG), N("REQUESTS_CA_BUNDLE", CHG),
	N("CURL_CA_BUNDLE", CHG), N("GIT_SSL_CAINFO", CHG),
	N("GIT_SSL_CAPATH", CHG),
	/* proxies, in every case (names compare case-insensitively). */
	N("HTTP_PROXY", CHG | URL), N("HTTPS_PROXY", CHG | URL),
	N("ALL_PROXY", CHG | URL), N("FTP_PROXY", CHG | URL),
	N("GRPC_PROXY", CHG | URL), N("RSYNC_PROXY", CHG | URL),
	N("NO_PROXY", CHG),
	/* daemons and clusters (DOCKER_HOST, KUBECONFIG above). */
	N("DOCKER_CONTEXT", CHG), N("DOCKER_CERT_PATH", CHG),
	N("DOCKER_TLS_VERIFY", CHG),
	/* others; git's protocol allow-lists can only be inherited. */
	N("HGRCPATH", CHG), N("HGEDITOR", CHG), N("HGMERGE", CHG),
	N("SVN_EDITOR", CHG), N("SVN_SSH", CHG), N("WGETRC", CHG),
	N("CURL_HOME", CHG), N("GIT_ALLOW_PROTOCOL", CHG),
	N("GIT_PROTOCOL_FROM_USER", CHG),

	/* Always kept, value-checked (LC_* is a prefix below; PATH apart). */
	N("PATH", ES_NC_PATH),
	N("HOME", SAFE | VABS | CHG), N("USER", SAFE), N("LOGNAME", SAFE),
	N("SHELL", SAFE | VABS), N("PWD", SAFE | VABS | EXM | CNF),
	N("SHLVL", SAFE), N("TMPDIR", SAFE | VABS), N("TMP", SAFE | VABS),
	N("TEMP", SAFE | VABS), N("TERM", SAFE | VW), N("COLORTERM", SAFE | VW),
	N("LANG", SAFE | VW), N("LANGUAGE", SAFE | VW), N("LINGUAS", SAFE | VW),
	N("TZ", SAFE | VTZ), N("NO_COLOR", SAFE), N("FORCE_COLOR", SAFE),
	N("CLICOLOR", SAFE), N("COLUMNS", SAFE), N("LINES", SAFE),
	N("LS_COLORS", SAFE), N("COLORS", SAFE), N("GREP_COLORS", SAFE),
	N("DISPLAY", SAFE), N("WAYLAND_DISPLAY", SAFE),
	N("XDG_RUNTIME_DIR", SAFE | VABS), N("XDG_CURRENT_DESKTOP", SAFE),
	N("GOOS", SAFE), N("GOARCH", SAFE), N("CGO_ENABLED", SAFE),
	N("GO111MODULE", SAFE), N("GOEXPERIMENT", SAFE),
	N("RUST_BACKTRACE", SAFE), N("RUST_LOG", SAFE), N("NODE_ENV", SAFE),
	N("PYTHONUNBUFFERED", SAFE), N("PYTHONDONTWRITEBYTECODE", SAFE),

	/* Never secrets by name, though a component says so. */
	N("TOKENIZERS_PARALLELISM", EXM), N("KEYTIMEOUT", EXM),
	N("KEYMAP", EXM), N("PASSWORD_STORE_DIR", EXM), N("OLDPWD", EXM),

	/* Name components that make a secret name. */
	N("KEY", COMP), N("APIKEY", COMP), N("TOKEN", COMP), N("SECRET", COMP),
	N("SECRETS", COMP), N("PASSWORD", COMP), N("PASSWD", COMP),
	N("PASSPHRASE", COMP), N("CREDENTIAL", COMP), N("CREDENTIALS", COMP),
	N("CREDS", COMP), N("COOKIE", COMP), N("BEARER", COMP),
	N("PASS", CNF), N("AUTH", ES_NC_AUTH), N("HEADER", ES_NC_HEADER),
	N("HEADERS", ES_NC_HEADER),
};
const size_t es_nnames = sizeof(es_names) / sizeof(es_names[0]);

#define P(s, c)	{ s, sizeof(s) - 1, (c) }

const struct es_prefix es_prefixes[] = {
	P("LD_", INJ), P("DYLD_", INJ), P("BASH_FUNC_", INJ),
	P("__BASH_FUNC", INJ), P("_RLD", INJ), P("LDR_", INJ),
	P("GIT_CONFIG_", INJ), P("LUA_INIT", INJ), P("NPM_CONFIG_", INJ),
	P("ENVSHIM_", ES_NC_LOCKED),
	P("CARGO_REGISTRIES_", CHG), P("RUSTUP_", CHG), P("ANSIBLE_", CHG),
	P("TF_VAR_", CHG),
	P("LC_", SAFE | VW),
	P("KEYBOARD", EXM), P("XKB_", EXM), P("GIT_AUTHOR_", EXM),
	P("GIT_COMMITTER_", EXM),
};
const size_t es_nprefixes = sizeof(es_prefixes) / sizeof(es_prefixes[0]);

/*
 * High-precision substrings (detect-secrets' keyword list, narrowed):
 * they catch run-together names such as MYAPIKEY or npm's _authToken.
 */
static const struct {
	const char	*s;
	unsigned char	 len;
	unsigned char	 kw;		/* offset of its K or W */
} substrings[] = {
	{ "APIKEY", 6, 3 }, { "API_KEY", 7, 4 }, { "AUTHTOKEN", 9, 6 },
	{ "ACCESSTOKEN", 11, 8 }, { "SECRETKEY", 9, 6 }, { "PRIVATEKEY", 10, 7 },
	{ "PASSWORD", 8, 4 }, { "PASSWD", 6, 4 },
};
#define NSUB	(sizeof(substrings) / sizeof(substrings[0]))
#define NSUB_K	6	/* the ones with a K, first */


/* Up to 8 bytes at p as a little-endian word, zero above, upper case. */
static inline uint64_t
hword(const char *p, size_t n)
{
	uint64_t w = 0, a, z, lo;
	uint32_t x, y;

	if (n >= 8)
		memcpy(&w, p, 8);
	else if (n >= 4) {
		memcpy(&x, p, 4);
		memcpy(&y, p + n - 4, 4);
		w = x | ((uint64_t)y >> ((8 - n) * 8) << 32);
	} else if (n > 0)
		w = (unsigned char)p[0] |
		    (uint64_t)(unsigned char)p[n / 2] << (n / 2 * 8) |
		    (uint64_t)(unsigned char)p[n - 1] << ((n - 1) * 8);
	/* a-z, eight at a time: bit 7 of each byte that is lower case */
	lo = w & 0x7f7f7f7f7f7f7f7fULL;
	a = lo + 0x1f1f1f1f1f1f1f1fULL;		/* >= 'a' sets bit 7 */
	z = lo + 0x0505050505050505ULL;		/* >  'z' sets bit 7 */
	return w - (((a & ~z & ~w) & 0x8080808080808080ULL) >> 2);
}

uint32_t
es_names_hash(const char *s, size_t n)
{
	uint64_t h = ES_NHASH_SEED;
	size_t i;

	for (i = 0; i < n; i += 8)
		h = es_nhash_mix(h ^ hword(s + i, n - i < 8 ? n - i : 8));
	return es_nhash_final(h, n);
}

/* The first 16 bytes of s (n long) as two words, zero past it. */
static void
words16(const char *s, size_t n, uint64_t w[2])
{
	w[0] = n > 0 ? hword(s, n < 8 ? n : 8) : 0;
	w[1] = n > 8 ? hword(s + 8, n < 16 ? n - 8 : 8) : 0;
}

int
es_names_build(struct es_names_tables *t)
{
	size_t i, slot;

	memset(t, 0, sizeof(*t));
	if (es_nnames > ES_NAMES_MAX || es_nprefixes > ES_PREFIXES_MAX)
		return -1;
	for (i = 0; i < es_nnames; i++) {
		const struct es_name *e = &es_names[i];
		uint32_t h = es_names_hash(e->name, e->len);

		slot = h & (ES_NAMES_IX - 1);
		while (t->ix[slot].name != 0) {
			const struct es_name *o = &es_names[t->ix[slot].name - 1];

			if (o->len == e->len && es_ci_eq(o->name, e->name, e->len))
				return -1;
			slot = (slot + 1) & (ES_NAMES_IX - 1);
		}
		t->ix[slot].hash = h;
		t->ix[slot].name = (uint16_t)(i + 1);
		t->ix[slot].len = e->len;
		words16(e->name, e->len, t->name[i]);
	}
	for (i = 0; i < es_nprefixes; i++) {
		const struct es_prefix *e = &es_prefixes[i];

		words16(e->pfx, e->len, t->pfx[i]);
		words16("\xff\xff\xff\xff\xff\xff\xff\xff"
		    "\xff\xff\xff\xff\xff\xff\xff\xff", e->len, t->pmask[i]);
	}
	return 0;
}

unsigned
es_names_lookup(const struct es_names_tables *ix, const char *name, size_t len,
    uint32_t hash)
{
	size_t slot = hash & (ES_NAMES_IX - 1);
	const struct es_names_slot *e;

	for (; (e = &ix->ix[slot])->name != 0; slot = (slot + 1) &
	    (ES_NAMES_IX - 1))
		if (e->hash == hash && e->len == len &&
		    es_upper_eq(es_names[e->name - 1].name, name, len))
			return es_names[e->name - 1].cls;
	return 0;
}

/* CARGO_TARGET_<triple>_RUNNER / _LINKER: cargo runs that program. */
int
es_names_cargo_tool(const char *name, size_t len)
{
	static const char pfx[] = "CARGO_TARGET_";
	size_t p = sizeof(pfx) - 1, i, s;

	if (len < p + 1 + 7 || !es_ci_eq(name, pfx, p))
		return 0;
	if (es_ci_eq(name + len - 7, "_RUNNER", 7) ||
	    es_ci_eq(name + len - 7, "_LINKER", 7))
		s = len - 7;
	else
		return 0;
	for (i = p; i < s; i++) {
		unsigned char c = es_upper((unsigned char)name[i]);

		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_'))
			return 0;
	}
	return 1;
}

/*
 * The prefixes (bits: their index in es_prefixes) that start with this
 * byte, upper case: most names need no prefix compare.  A unit test checks
 * it against es_prefixes (es_names_selfcheck).
 */
#define PB(i)	((uint32_t)1 << (i))
const uint32_t es_pfx_first[256] = {
	['L'] = PB(0) | PB(5) | PB(7) | PB(14), ['D'] = PB(1), ['B'] = PB(2),
	['_'] = PB(3) | PB(4), ['G'] = PB(6) | PB(17) | PB(18), ['N'] = PB(8),
	['E'] = PB(9), ['C'] = PB(10), ['R'] = PB(11), ['A'] = PB(12),
	['T'] = PB(13), ['K'] = PB(15), ['X'] = PB(16),
};
#undef PB

unsigned
es_names_class(const struct es_names_tables *ix, const char *name, size_t len)
{
	struct es_nscan ns;

	es_names_scan(name, len, 0, &ns);
	return es_names_class_s(ix, name, len, &ns);
}

unsigned
es_names_class_s(const struct es_names_tables *ix, const char *name, size_t len,
    const struct es_nscan *ns)
{
	return es_names_class_i(ix, name, len, ns);
}

static int
has_substring(const char *name, size_t len)
{
	size_t i, k;

	for (i = 0; i < len; i++) {
		unsigned char c = es_upper((unsigned char)name[i]);

		if ((c != 'A' && c != 'S' && c != 'P') || i + 6 > len)
			continue;
		for (k = 0; k < sizeof(substrings) / sizeof(substrings[0]); k++)
			if ((unsigned char)substrings[k].s[0] == c &&
			    (unsigned char)substrings[k].s[1] ==
			    es_upper((unsigned char)name[i + 1]) &&
			    len - i >= substrings[k].len &&
			    es_ci_eq(name + i, substrings[k].s, substrings[k].len))
				return 1;
	}
	return 0;
}

static int
is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static int
is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

/* One component: a secret by itself, or half of a pair (in *pairs). */
static int
component(const struct es_names_tables *ix, const char *s, size_t n, size_t idx,
    unsigned *pairs)
{
	unsigned cls = es_names_lookup(ix, s, n, es_names_hash(s, n));

	*pairs |= cls;
	return (cls & ES_NC_COMP) || ((cls & ES_NC_COMP_NF) && idx > 0);
}

/*
 * Components split on _ - . : / and at lower-to-upper changes, so that
 * TOKENIZERS_PARALLELISM or KEYTIMEOUT never look like TOKEN or KEY.
 */
static int
secret_component(const struct es_names_tables *ix, const char *name, size_t len)
{
	size_t i, start = 0, idx = 0;
	unsigned pairs = 0;

	for (i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)name[i] : 0;
		int cut = c == 0 || c == '_' || c == '-' || c == '.' ||
		    c == ':' || c == '/';
		int camel = !cut && i > start && is_upper(c) &&
		    is_lower((unsigned char)name[i - 1]);

		if ((cut || camel) && i > start) {
			if (component(ix, name + start, i - start, idx++,
			    &pairs))
				return 1;
			start = i;
		}
		if (cut)
			start = i + 1;
	}
	return (pairs & (ES_NC_AUTH | ES_NC_HEADER)) ==
	    (ES_NC_AUTH | ES_NC_HEADER);
}

/*
 * Byte classes of a name: NB_CUT splits components; the others only say
 * that a slower check is needed.  Upper-case letters, digits and most
 * punctuation are 0, so the common byte costs a load and a test.
 */
#define C_	NB_CUT
#define S_	(NB_CUT | NB_STOP)
#define L_	NB_LOW
#define K_	NB_KW
#define LK	(NB_LOW | NB_KW)
static const unsigned char nbytes[256] = {
	S_, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* ' ' to '/' */
	0, 0, 0, 0, 0, NB_ODD, 0, 0, NB_ODD, 0, 0, 0, 0, C_, C_, C_,
	/* '0' to '?' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, C_, 0, 0, NB_STOP, 0, 0,
	/* '@' to 'O' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, K_, 0, 0, 0, 0,
	/* 'P' to '_' */
	0, 0, 0, 0, 0, 0, 0, K_, 0, 0, 0, 0, 0, 0, 0, C_,
	/* '`' to 'o' */
	0, L_, L_, L_, L_, L_, L_, L_, L_, L_, L_, LK, L_, L_, L_, L_,
	/* 'p' to 0x7f */
	L_, L_, L_, L_, L_, L_, L_, LK, L_, L_, L_, 0, 0, 0, 0, 0,
};
#undef C_
#undef S_
#undef L_
#undef K_
#undef LK

/*
 * Component lengths (bits) that can be a secret component, by upper-case
 * first and by upper-case last byte.  es_names_selfcheck checks them
 * against the ES_NC_COMP* and AUTH/HEADER entries of es_names.
 */
#define LB(n)	((uint16_t)1 << (n))
static const uint16_t comp_first[256] = {
	['K'] = LB(3), ['A'] = LB(4) | LB(6), ['T'] = LB(5),
	['S'] = LB(6) | LB(7), ['P'] = LB(3) | LB(4) | LB(6) | LB(8) | LB(10),
	['C'] = LB(5) | LB(6) | LB(10) | LB(11), ['B'] = LB(6),
	['H'] = LB(6) | LB(7),
};
static const uint16_t comp_last[256] = {
	['Y'] = LB(3) | LB(6), ['N'] = LB(5), ['T'] = LB(6),
	['S'] = LB(4) | LB(5) | LB(7) | LB(11), ['D'] = LB(3) | LB(6) | LB(8),
	['E'] = LB(6) | LB(10), ['L'] = LB(10), ['R'] = LB(6), ['H'] = LB(4),
};
#undef LB

/* The component name[a, b), the idx-th: its secret classes. */
static unsigned
component_class(const struct es_names_tables *ix, const char *name, size_t a,
    size_t b, unsigned idx)
{
	size_t n = b - a;
	unsigned cls, r = 0;

	if (n > 15 ||
	    !(comp_first[es_upper((unsigned char)name[a])] & (1u << n)) ||
	    !(comp_last[es_upper((unsigned char)name[b - 1])] & (1u << n)))
		return 0;
	cls = es_names_lookup(ix, name + a, n, es_names_hash(name + a, n));
	if ((cls & ES_NC_COMP) || ((cls & ES_NC_COMP_NF) && idx > 0))
		r = ES_NC_COMP;
	return r | (cls & (ES_NC_AUTH | ES_NC_HEADER));
}


size_t
es_names_scan_scalar(const char *name, size_t len, int stop,
    struct es_nscan *ns)
{
	uint64_t h = ES_NHASH_SEED, w = 0;
	unsigned acc = 0;
	size_t i;

	ns->w[0] = ns->w[1] = 0;
	ns->cut = ns->kw = 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		unsigned t = nbytes[c];

		if (t != 0) {
			if ((t & NB_STOP) && stop)
				break;
			acc |= t;
			if (t & NB_LOW)
				c = (unsigned char)(c - 32);
			if ((t & NB_CUT) && i < ES_NS_BYTES)
				ns->cut |= (uint64_t)1 << i;
			if ((t & NB_KW) && i < ES_NS_BYTES)
				ns->kw |= (uint64_t)1 << i;
		}
		w |= (uint64_t)c << (8 * (i & 7));
		if ((i & 7) == 7) {
			h = es_nhash_mix(h ^ w);
			if (i < 16)
				ns->w[i / 8] = w;
			w = 0;
		}
	}
	if (i & 7) {
		h = es_nhash_mix(h ^ w);
		if (i < 16)
			ns->w[i / 8] = w;
	}
	es_nscan_end(ns, h, i, acc);
	return i;
}

/* Out of line, for the rest of the engine and the tests. */
size_t
es_names_scan(const char *name, size_t len, int stop, struct es_nscan *ns)
{
	return es_names_scan_i(name, len, stop, ns);
}

int
es_names_secret(const struct es_names_tables *ix, const char *name, size_t len,
    unsigned cls)
{
	struct es_nscan ns;

	es_names_scan(name, len, 0, &ns);
	return es_names_secret_s(ix, name, len, cls, &ns);
}

/*
 * es_names_secret_s before the exemptions; in it, so that the call to
 * the filter's busiest check saves and restores its registers once.
 */
static inline __attribute__((always_inline)) int
secret_name(const struct es_names_tables *ix, const char *name, size_t len,
    unsigned cls, const struct es_nscan *ns)
{
	size_t j, start = 0;
	unsigned comp = 0, idx = 0;
	uint64_t m;

	if (cls & ES_NC_SECRET)
		return 1;
	if (len > 4 && (name[len - 1] | 0x20) == 'n' &&
	    es_ci_eq(name + len - 4, "_DSN", 4))
		return 1;
	/* Lower case (camel-case components), or too many marks: the long way. */
	if (ns->bytes & (NB_LOW | NB_MANY))
		return has_substring(name, len) ||
		    secret_component(ix, name, len);
	/*
	 * From here the name has no lower case and is under 64 bytes.
	 * Every substring holds a K before E, or a W before O or D: look
	 * around those only (the K ones come first in substrings[]).  Most
	 * K and W of names (SOCK, WAYLAND) are followed by something else.
	 */
	for (m = ns->kw; m != 0; m &= m - 1) {
		size_t at = (size_t)__builtin_ctzll(m);
		unsigned char c = (unsigned char)name[at], d;

		if (at + 1 >= len)
			continue;
		d = (unsigned char)name[at + 1];
		if (c == 'K' ? d != 'E' : d != 'O' && d != 'D')
			continue;
		for (j = c == 'K' ? 0 : NSUB_K; j < (c == 'K' ? NSUB_K : NSUB);
		    j++) {
			size_t o = substrings[j].kw, n = substrings[j].len;

			if (at >= o && at - o + n <= len &&
			    es_upper_eq(substrings[j].s, name + at - o, n))
				return 1;
		}
	}
	/* The bytes index the length tables as they are. */
	for (m = ns->cut | (uint64_t)1 << len; m != 0; m &= m - 1) {
		size_t end = (size_t)__builtin_ctzll(m), n = end - start;

		/* n - 1 < 15: 1 to 15, one test (an empty one wraps) */
		if (n - 1 < 15 && (comp_first[(unsigned char)name[start]] &
		    comp_last[(unsigned char)name[end - 1]] & (1u << n)))
			comp |= component_class(ix, name, start, end, idx);
		idx += n != 0;
		start = end + 1;
	}
	return (comp & ES_NC_COMP) ||
	    (comp & (ES_NC_AUTH | ES_NC_HEADER)) ==
	    (ES_NC_AUTH | ES_NC_HEADER);
}

/* The exemptions win; *_PUBLIC_KEY is only looked for in a secret name. */
int
es_names_secret_s(const struct es_names_tables *ix, const char *name, size_t len,
    unsigned cls, const struct es_nscan *ns)
{
	if ((cls & ES_NC_EXEMPT) || !secret_name(ix, name, len, cls, ns))
		return 0;
	return !(len >= 11 && es_ci_eq(name + len - 11, "_PUBLIC_KEY", 11));
}

int
es_names_selfcheck(void)
{
	struct es_names_tables t;
	size_t i;
	unsigned c;

	/* names_ix.c must be regenerated (make names-ix) when a list changes. */
	if (es_names_build(&t) != 0 || memcmp(&t, &es_names_ix, sizeof(t)) != 0)
		return -1;

	for (i = 0; i < es_nprefixes; i++) {
		c = (unsigned char)es_prefixes[i].pfx[0];
		if (i >= 32 || !(es_pfx_first[c] & ((uint32_t)1 << i)))
			return -1;
	}
	for (c = 0; c < 256; c++) {
		uint32_t m;

		for (m = es_pfx_first[c]; m != 0; m &= m - 1)
			if ((size_t)__builtin_ctz(m) >= es_nprefixes ||
			    (unsigned char)es_prefixes[__builtin_ctz(m)].pfx[0]
			    != c)
				return -1;
	}
	for (i = 0; i < es_nnames; i++) {
		const struct es_name *e = &es_names[i];

		if (!(e->cls & (ES_NC_COMP | ES_NC_COMP_NF | ES_NC_AUTH |
		    ES_NC_HEADER)))
			continue;
		if (e->len > 15 ||
		    !(comp_first[(unsigned char)e->name[0]] & (1u << e->len)) ||
		    !(comp_last[(unsigned char)e->name[e->len - 1]] &
		    (1u << e->len)))
			return -1;
	}
	for (i = 0; i < es_nnames; i++)	/* es_names_build hashes them so */
		for (c = 0; c < es_names[i].len; c++)
			if (es_names[i].name[c] >= 'a' &&
			    es_names[i].name[c] <= 'z')
				return -1;
	for (i = 0; i < NSUB; i++)
		if (substrings[i].s[substrings[i].kw] != (i < NSUB_K ? 'K' : 'W') ||
		    (i < NSUB_K ? substrings[i].s[substrings[i].kw + 1] != 'E' :
		    substrings[i].s[substrings[i].kw + 1] != 'O' &&
		    substrings[i].s[substrings[i].kw + 1] != 'D'))
			return -1;
	return 0;
}

/* Appends s to buf at *off; counts even past the end, to measure. */
static void
put(char *buf, size_t len, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (buf != NULL && *off + n < len)
		memcpy(buf + *off, s, n);
	*off += n;
}

static void
put_names(char *buf, size_t len, size_t *off, const char *kw, unsigned bit)
{
	size_t i;

	for (i = 0; i < es_nnames; i++) {
		if (!(es_names[i].cls & bit))
			continue;
		put(buf, len, off, kw);
		put(buf, len, off, " ");
		put(buf, len, off, es_names[i].name);
		put(buf, len, off, "\t# builtin\n");
	}
	for (i = 0; i < es_nprefixes; i++) {
		if (!(es_prefixes[i].cls & bit))
			continue;
		put(buf, len, off, kw);
		put(buf, len, off, " ");
		put(buf, len, off, es_prefixes[i].pfx);
		put(buf, len, off, "*\t# builtin\n");
	}
}

long
es_names_format(char *buf, size_t len)
{
	size_t off = 0, i;

	put(buf, len, &off, "# builtin lists; names compare case-insensitively\n");
	put_names(buf, len, &off, "injection", ES_NC_INJECTION);
	put(buf, len, &off,
	    "# injection: names holding %% or (), values starting (),\n"
	    "#   CARGO_TARGET_*_RUNNER and CARGO_TARGET_*_LINKER\n"
	    "# locked: ENVSHIM_* and the names the shim forces (LD_PRELOAD)\n");
	put_names(buf, len, &off, "secret-name", ES_NC_SECRET);
	put(buf, len, &off,
	    "# secret-name: *_DSN; names holding APIKEY API_KEY AUTHTOKEN\n"
	    "#   ACCESSTOKEN SECRETKEY PRIVATEKEY PASSWORD PASSWD;\n"
	    "#   names with a component (split on _ - . : / and lower-to-upper)\n"
	    "#  ");
	for (i = 0; i < es_nnames; i++)
		if (es_names[i].cls & ES_NC_COMP) {
			put(buf, len, &off, " ");
			put(buf, len, &off, es_names[i].name);
		}
	put(buf, len, &off,
	    ",\n#   PWD or PASS when not first, AUTH with HEADER(S)\n"
	    "# not secret names: *_PUBLIC_KEY");
	for (i = 0; i < es_nnames; i++)
		if (es_names[i].cls & ES_NC_EXEMPT) {
			put(buf, len, &off, " ");
			put(buf, len, &off, es_names[i].name);
		}
	for (i = 0; i < es_nprefixes; i++)
		if (es_prefixes[i].cls & ES_NC_EXEMPT) {
			put(buf, len, &off, " ");
			put(buf, len, &off, es_prefixes[i].pfx);
			put(buf, len, &off, "*");
		}
	put(buf, len, &off, "\n");
	put_names(buf, len, &off, "capability", ES_NC_CAPABILITY);
	put_names(buf, len, &off, "changed", ES_NC_CHANGED);
	put_names(buf, len, &off, "keep", ES_NC_SAFE);
	put(buf, len, &off,
	    "# keep: values longer than 4096 bytes or holding a newline drop;\n"
	    "#   TERM COLORTERM LANG LANGUAGE LC_* LINGUAS: no / or %;\n"
	    "#   TZ: sudo's tz_is_safe; HOME SHELL PWD TMPDIR TMP TEMP\n"
	    "#   XDG_RUNTIME_DIR: absolute, no ..\n"
	    "# PATH: kept without empty, ., relative, .. and repeated entries\n"
	    "# secret-value: the builtin shapes, in every value but PATH;\n"
	    "#   proxy and index URLs lose their userinfo instead\n");
	if (buf == NULL)
		return (long)off;
	if (len > 0)
		buf[off < len ? off : len - 1] = '\0';
	return off < len ? (long)off : -1;
}
