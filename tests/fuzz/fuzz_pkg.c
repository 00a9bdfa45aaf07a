/*
 * fuzz_pkg - es_pkg_optional over arbitrary package.json text.
 *
 * The text is handed over in a buffer of exactly its length (no NUL).
 * What comes out must be -1 or at most max names, each NUL-terminated
 * inside out, each a name npm could install: never starting with '.',
 * never a path but "@scope/name", and each one appearing in the input.
 */
#include <string.h>

#include "es_limits.h"
#include "es_pkg.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = malloc(size > 0 ? size : 1), out[ES_TREE_MAX * 216];
	const char *nm, *slash;
	int n, i;

	memcpy(json, data, size);
	memset(out, 0x5a, sizeof(out));
	n = es_pkg_optional(json, size, out, sizeof(out), ES_TREE_MAX);
	FZ_ASSERT(n >= -1 && n <= ES_TREE_MAX);
	for (i = 0, nm = out; i < n; i++, nm += strlen(nm) + 1) {
		FZ_ASSERT(nm < out + sizeof(out));
		FZ_ASSERT(memchr(nm, '\0', (size_t)(out + sizeof(out) - nm)) != NULL);
		FZ_ASSERT(nm[0] != '\0' && nm[0] != '.');
		FZ_ASSERT(strstr(nm, "/.") == NULL);
		slash = strchr(nm, '/');
		FZ_ASSERT(slash == NULL || (nm[0] == '@' && strchr(slash + 1, '/') == NULL &&
		    slash[1] != '.' && slash[1] != '\0'));
		FZ_ASSERT(memmem(json, size, nm, strlen(nm)) != NULL);
	}
	free(json);
	return 0;
}
