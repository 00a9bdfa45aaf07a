/*
 * fuzz_shapes - the secret value matcher.
 *
 * The value is handed over without a terminating NUL in a buffer of
 * exactly its length, so reading past len is caught.  A secret must stay
 * a secret when wrapped in other text: the shapes match anywhere in a
 * value, and an agent that could hide a token by quoting it would walk it
 * out in any variable.  The first byte picks the builtin shapes alone or
 * a policy with secret-value literals on top.
 */
#include <string.h>

#include "es_policy.h"
#include "fuzz.h"

static struct es_policy lit;
static int ready;

static int
secret(const struct es_policy *p, const char *pre, const uint8_t *v, size_t n,
    const char *post)
{
	size_t a = strlen(pre), b = strlen(post);
	char *buf = malloc(a + n + b + 1);
	const char *what = NULL;
	int r;

	memcpy(buf, pre, a);
	memcpy(buf + a, v, n);
	memcpy(buf + a + n, post, b);
	r = es_secret_value(p, buf, a + n + b, &what);
	FZ_ASSERT(r == 0 || r == 1);
	FZ_ASSERT(r == 0 || (what != NULL && what[0] != '\0'));
	free(buf);
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char policy[] =
	    "secret-value hunter2hunter2\nsecret-value corp-internal-\n";
	const struct es_policy *p;
	struct es_parse_err err;

	if (!ready) {
		es_policy_init(&lit);
		FZ_ASSERT(es_policy_parse(&lit, policy, sizeof(policy) - 1,
		    "fuzz", &err) == 0);
		ready = 1;
	}
	if (size < 1)
		return 0;
	p = data[0] & 1 ? &lit : NULL;
	data++;
	size--;
	if (!secret(p, "", data, size, ""))
		return 0;
	/* Found alone: found when wrapped, quoted or in a list. */
	FZ_ASSERT(secret(p, " ", data, size, " "));
	FZ_ASSERT(secret(p, "x=\"", data, size, "\";"));
	FZ_ASSERT(secret(p, "a:b:", data, size, ":c"));
	FZ_ASSERT(secret(p, "\n", data, size, "\n"));
	return 0;
}
